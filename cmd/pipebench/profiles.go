package main

//go:generate go run ./internal/profiledoc/gen ../../device/swai/profile.go profiledoc_gen.go

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
)

// profileError is a profile field that is unknown or invalid: field is its
// path in the profile's JSON names (launch.cpu_ns).
type profileError struct {
	field, msg string
}

func (e *profileError) Error() string { return e.field + ": " + e.msg }

var profileField = regexp.MustCompile(`profile "[^"]*": ([a-z0-9_.]+): (.*)`)

// profileMap is p as JSON names and values.
func profileMap(p swai.Profile) (map[string]any, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// overrideProfile returns base with the fields of over replaced: over is a
// partial profile in the profile's JSON names; a _ns field also takes a
// duration (5us). An unknown field, a value of the wrong type and a
// profile that fails swai's validation are profileErrors.
func overrideProfile(base swai.Profile, over map[string]any) (swai.Profile, error) {
	if len(over) == 0 {
		return base, nil
	}
	m, err := profileMap(base)
	if err != nil {
		return base, err
	}
	if err := mergeProfile(m, over, ""); err != nil {
		return base, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return base, err
	}
	p, err := swai.ParseProfile(b)
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return base, &profileError{field: te.Field, msg: fmt.Sprintf("want a %v, got a %s", te.Type, te.Value)}
		}
		if sm := profileField.FindStringSubmatch(err.Error()); sm != nil {
			return base, &profileError{field: sm[1], msg: sm[2]}
		}
		return base, err
	}
	if err := checkProfileRanges(p); err != nil {
		return base, err
	}
	return p, nil
}

// maxProfileDuration bounds every duration of a device profile, as
// plan.MaxCost bounds the scenarios' host costs: the simulated device
// takes its modeled time for real, so a launch of 100 s makes a run of
// days.
const maxProfileDuration = plan.MaxCost

// checkProfileRanges checks that every duration of p (its _ns fields) is
// in [0, maxProfileDuration]; the error is a profileError naming the
// first field outside it.
func checkProfileRanges(p swai.Profile) error {
	var bad *profileError
	var walk func(v reflect.Value, t reflect.Type, prefix string)
	walk = func(v reflect.Value, t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if bad != nil || !f.IsExported() || name == "" || name == "-" {
				continue
			}
			switch fv := v.Field(i); {
			case f.Type == durationType:
				if d := time.Duration(fv.Int()); d < 0 || d > maxProfileDuration {
					bad = &profileError{field: prefix + name, msg: fmt.Sprintf("%d ns (%v) outside [0, %v]", int64(d), d, maxProfileDuration)}
				}
			case f.Type.Kind() == reflect.Struct:
				walk(fv, f.Type, prefix+name+".")
			}
		}
	}
	walk(reflect.ValueOf(p), reflect.TypeFor[swai.Profile](), "")
	if bad != nil {
		return bad
	}
	return nil
}

func mergeProfile(dst, over map[string]any, prefix string) error {
	for _, k := range slices.Sorted(mapsKeys(over)) {
		path := prefix + k
		old, ok := dst[k]
		if !ok {
			return &profileError{field: path, msg: fmt.Sprintf("unknown field (have %s)", strings.Join(slices.Sorted(mapsKeys(dst)), ", "))}
		}
		v := over[k]
		sub, isMap := old.(map[string]any)
		vsub, vIsMap := v.(map[string]any)
		switch {
		case isMap && vIsMap:
			if err := mergeProfile(sub, vsub, path+"."); err != nil {
				return err
			}
			continue
		case isMap || vIsMap:
			return &profileError{field: path, msg: "wrong shape: see pipebench profiles -dump swai"}
		}
		if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return &profileError{field: path, msg: fmt.Sprintf("%g is not a finite number", f)}
		}
		if s, ok := v.(string); ok && strings.HasSuffix(k, "_ns") {
			d, err := parseDuration(s)
			if err != nil {
				return &profileError{field: path, msg: err.Error()}
			}
			v = int64(d)
		}
		dst[k] = v
	}
	return nil
}

// loadProfileFile reads a profile: a .json file as swai.LoadProfile does,
// a .yaml or .yml file (pipebench profiles -dump) through the same
// overrides on Default, with the line of a bad field.
func loadProfileFile(path string) (swai.Profile, error) {
	if fi, err := os.Stat(path); err != nil {
		return swai.Profile{}, err
	} else if err := inputProblem(path, fi, textFileMax); err != nil {
		return swai.Profile{}, fmt.Errorf("profile %w", err)
	}
	switch strings.ToLower(pathExt(path)) {
	case ".json":
		p, err := swai.LoadProfile(path)
		if err != nil {
			return p, err
		}
		if err := checkProfileRanges(p); err != nil {
			pe := err.(*profileError)
			return p, &fileError{file: path, field: pe.field, msg: pe.msg}
		}
		return p, nil
	case ".yaml", ".yml":
	default:
		return swai.Profile{}, fmt.Errorf("profile %s: want a .json, .yaml or .yml file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return swai.Profile{}, err
	}
	var m map[string]any
	ix, err := decodeStrict(path, data, &m)
	if err != nil {
		return swai.Profile{}, err
	}
	p, err := overrideProfile(swai.Default(), m)
	if err != nil {
		var pe *profileError
		if errors.As(err, &pe) {
			return p, &fileError{file: path, line: ix.at(pe.field), field: pe.field, msg: pe.msg}
		}
		return p, &fileError{file: path, msg: err.Error()}
	}
	return p, nil
}

func pathExt(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 && !strings.ContainsAny(p[i:], `/\`) {
		return p[i:]
	}
	return ""
}

// scaleProfile multiplies every modeled duration of p by s: its durations
// are multiplied, its rates (every float64 of a profile is one: FLOP/s,
// bytes/s, the MPE's share of the host's copy speed) divided.
func scaleProfile(p any, s float64) {
	if s == 1 {
		return
	}
	scaleValue(reflect.ValueOf(p).Elem(), s)
}

var durationType = reflect.TypeFor[time.Duration]()

func scaleValue(v reflect.Value, s float64) {
	switch {
	case v.Type() == durationType:
		v.SetInt(int64(math.Round(float64(v.Int()) * s)))
	case v.Kind() == reflect.Float64:
		v.SetFloat(v.Float() / s)
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				scaleValue(v.Field(i), s)
			}
		}
	}
}

// scaleDeviceProfile is scaleProfile on a plain device profile.
func scaleDeviceProfile(p any, s float64) { scaleProfile(p, s) }

// jsonPaths maps the JSON path of every leaf field of t to its Go path.
func jsonPaths(t reflect.Type, goPrefix, jsonPrefix string, out map[string]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		gp, jp := goPrefix+f.Name, jsonPrefix+name
		out[jp] = gp
		if f.Type.Kind() == reflect.Struct && f.Type != durationType {
			jsonPaths(f.Type, gp+".", jp+".", out)
		}
	}
}

// builtinProfiles are the profiles pipebench profiles lists: every one
// that -dump prints (builtinProfile's), in its order.
var builtinProfiles = []struct{ name, doc string }{
	{"swai", "the SW-AI card of the SDAA runtime paper (device/swai.Default)"},
	{"gpu", "a CUDA-like V100 on the paper's host, to compare with (device/swai.GPU)"},
}

// unknownProfile is the usage error of -dump NAME for a name that is not
// a built-in profile; zero, which a scenario file's device.profile takes,
// is a device without a profile of the card.
func unknownProfile(name string) error {
	var have []string
	for _, p := range builtinProfiles {
		have = append(have, p.name)
	}
	if name == "zero" {
		return fmt.Errorf("%w: zero is the device that takes no time (a scenario file's device.profile: zero), not a profile of the card: it has nothing to dump (have %s)",
			errUsage, strings.Join(have, ", "))
	}
	return fmt.Errorf("%w: unknown profile %q (have %s)", errUsage, name, strings.Join(have, ", "))
}

// dumpProfile writes the named built-in profile as YAML, each field with
// what it means above it and its source beside it.
func dumpProfile(w io.Writer, name string) error {
	p, ok := builtinProfile(name)
	if !ok {
		return unknownProfile(name)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	paths := map[string]string{}
	jsonPaths(reflect.TypeFor[swai.Profile](), "", "", paths)
	src := profileSource[name]
	annotate(&doc, "", func(path string, k, v *yaml.Node) {
		gp := paths[path]
		if gp == "Name" {
			k.HeadComment, k.LineComment = "the profile's name, shown with the results", ""
			return
		}
		if m := profileMeaning[gp]; m != "" {
			k.HeadComment = wrap(m, 76)
		}
		if v.Kind == yaml.MappingNode {
			return
		}
		c := &k.LineComment
		if v.Kind == yaml.SequenceNode {
			c = &v.LineComment // the encoder drops a flow sequence's key comment
		}
		if s := src[gp]; s != "" {
			*c = "source: " + s
		} else {
			*c = "source: not set by the profile (the zero value)"
		}
	})
	doc.HeadComment = fmt.Sprintf("pipebench device profile %q (device/swai.%s): durations in ns (_ns fields; a\n"+
		"duration such as 5us is also read), at most %v; flops and bandwidths per\n"+
		"second (bytes/s), at least %g. Load it with\n"+
		"pipebench -device FILE.yaml, or name it in a scenario file's device.profile;\n"+
		"a field left out keeps the swai profile's value.", name, map[string]string{"swai": "Default", "gpu": "GPU"}[name], maxProfileDuration, float64(device.MinRate))
	return encodeYAML(w, &doc)
}

// dumpProfileJSON writes the named built-in profile as indented JSON.
func dumpProfileJSON(w io.Writer, name string) error {
	p, ok := builtinProfile(name)
	if !ok {
		return unknownProfile(name)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// annotate calls f on every key and value of a mapping tree, by path, and
// makes every collection block-style (flow style for lists of scalars).
func annotate(n *yaml.Node, path string, f func(path string, k, v *yaml.Node)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			annotate(c, path, f)
		}
	case yaml.MappingNode:
		n.Style = 0
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			k.Style = 0
			f(p, k, v)
			annotate(v, p, f)
		}
	case yaml.SequenceNode:
		n.Style = yaml.FlowStyle
	case yaml.ScalarNode:
		if n.Style == yaml.DoubleQuotedStyle && n.Tag == "!!str" {
			n.Style = 0
		}
	}
}

func encodeYAML(w io.Writer, n *yaml.Node) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return err
	}
	return enc.Close()
}

// wrap breaks s into lines of at most width characters.
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// scenarioDocs comments the fields of a dumped scenario file.
var scenarioDocs = map[string]string{
	"name":        "names the rows of the results",
	"description": "what the workload is",
	"graph": "the workload: a built-in generator (builtin, and its size params), or\n" +
		"onnx: a model file (relative to this file) with inputs: {NAME: [D1, D2, …]}\n" +
		"fixing input shapes and consts: {NAME: VALUE} fixing scalar inputs",
	"graph.builtin": "pipebench scenarios lists the built-ins",
	"graph.params":  "the generator's size parameters; one left out keeps its default",
	"costs": "synthetic host cost of every kernel, per stage: a duration (5us), or a\n" +
		"distribution drawn once per node (seeded by seed and the node's name):\n" +
		"{uniform: [MIN, MAX]} or {lognormal: {median: D, sigma: S}} (capped at\n" +
		"100 × median). by_op: {OP: {STAGE: COST, …}} gives an op type its own.",
	"costs.prepare": "Setup, on the caller's goroutine",
	"costs.infer":   "InferShape",
	"costs.resize":  "Resize (tiling and workspace)",
	"costs.launch":  "Launch (allocate, launch, free)",
	"costs.tiling":  "the part of resize a tiling cache hit saves (at most resize)",
	"costs.alloc":   "the part of launch a memory plan saves (at most launch)",
	"costs.create":  "building each kernel at Compile (a runner-pool hit saves it)",
	"device": "the simulated accelerator: profile swai (the SW-AI card), gpu (CUDA-like),\n" +
		"zero (a device that takes no time) or a profile file (.json, .yaml:\n" +
		"pipebench profiles -dump swai prints one); overrides: {FIELD: VALUE} replaces\n" +
		"fields of the profile, by the names profiles -dump prints\n" +
		"(overrides: {launch: {cpu_ns: 400}})",
	"device.scale": "multiplies every modeled device duration (durations ×, rates ÷)",
	"modes":        "execution modes: kbk (always run, the reference), async, pipeline, replay, hetero",
	"barriers":     "barrier policies of the queued modes: drain, per-tensor",
	"reps":         "measured repetitions per mode, interleaved across modes (medians reported)",
	"seed":         "seed of the data and of drawn costs",
}

// builtinFile is the scenario file of a built-in at the -quick size or not.
func builtinFile(name string, quick bool) (*scenarioFile, error) {
	sc, err := scenarios.Get(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	sf := &scenarioFile{Name: sc.Name, Description: sc.Description, Graph: graphSpec{Builtin: sc.Name}, Reps: 9, Seed: 1}
	if quick {
		sf.Reps = 5
	}
	if sc.Params != nil {
		ps, err := sc.Params(scenarios.Config{Quick: quick})
		if err != nil {
			return nil, err
		}
		sf.Graph.Params = map[string]int64{}
		for _, p := range ps {
			sf.Graph.Params[p.Name] = p.Value
		}
	}
	c := sc.Costs
	sf.Costs = costsSpec{Prepare: fixedCost(c.Prepare), Infer: fixedCost(c.Infer), Resize: fixedCost(c.Resize), Launch: fixedCost(c.Launch),
		Tiling: fixedCost(c.Tiling), Alloc: fixedCost(c.Alloc), Create: fixedCost(c.Create)}
	sf.Device = deviceSpec{Profile: "swai", Scale: 1}
	if sc.Profile != nil {
		sf.Device.Profile = "zero"
	}
	for _, m := range pipert.Modes() {
		sf.Modes = append(sf.Modes, m.String())
	}
	if sc.Hetero {
		sf.Modes = append(sf.Modes, "hetero")
	}
	sf.Barriers = []string{"per-tensor"}
	if sc.Barriers {
		sf.Barriers = []string{"drain", "per-tensor"}
	}
	return sf, nil
}

// pairs returns the key-value pairs of a mapping node.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

func flatten(ps [][2]*yaml.Node) []*yaml.Node {
	out := make([]*yaml.Node, 0, 2*len(ps))
	for _, p := range ps {
		out = append(out, p[0], p[1])
	}
	return out
}

func fixedCost(d time.Duration) costDist { return costDist{kind: distFixed, value: d} }

// dumpScenario writes sf as a commented scenario file.
func dumpScenario(w io.Writer, sf *scenarioFile, quick bool) error {
	var doc yaml.Node
	if err := doc.Encode(sf); err != nil {
		return err
	}
	params := map[string]string{}
	order := map[string]int{}
	if sf.base != nil || sf.Graph.Builtin != "" {
		if sc, err := scenarios.Get(sf.Graph.Builtin); err == nil && sc.Params != nil {
			ps, _ := sc.Params(scenarios.Config{Quick: quick})
			for i, p := range ps {
				params["graph.params."+p.Name] = p.Doc
				order[p.Name] = i
			}
		}
	}
	annotate(&doc, "", func(path string, k, v *yaml.Node) {
		if d, ok := scenarioDocs[path]; ok {
			switch v.Kind {
			case yaml.MappingNode:
				k.HeadComment = d
			case yaml.SequenceNode:
				v.LineComment = d
			default:
				k.LineComment = d
			}
		}
		if path == "graph.params" {
			// The generator's order, not the alphabet's.
			ps := pairs(v)
			slices.SortStableFunc(ps, func(a, b [2]*yaml.Node) int { return order[a[0].Value] - order[b[0].Value] })
			v.Content = flatten(ps)
		}
		if d, ok := params[path]; ok {
			k.LineComment = d
		}
	})
	size := "benchmark size"
	if quick {
		size = "-quick size"
	}
	doc.HeadComment = fmt.Sprintf("pipebench scenario file: %s at %s.\n"+
		"Run it with pipebench -scenario-file FILE; sweep its fields with\n"+
		"pipebench sweep -scenario-file FILE -vary PATH=FROM..TO/N.", sf.Name, size)
	return encodeYAML(w, &doc)
}

// runScenarios is pipebench scenarios [-dump NAME] [-quick].
func runScenarios(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipebench scenarios", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dump := fs.String("dump", "", "print this built-in scenario as a scenario file, every field present and commented")
	quick := fs.Bool("quick", false, "with -dump: the -quick size and repetitions")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pipebench scenarios [-dump NAME [-quick]]\n\nLists the built-in scenarios, or prints one as a file to start a scenario file from.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, ok := parseSub(fs, args, 0, stderr, ""); !ok {
		return code
	}
	if *quick && *dump == "" {
		fmt.Fprintf(stderr, "pipebench scenarios: -quick goes with -dump NAME: the listing has no size\n")
		return usageFailed(stderr, fs.Name())
	}
	// The output is written at once, its error checked: a listing or a
	// dump lost on stdout (a full disk) fails the command.
	var b bytes.Buffer
	if *dump == "" {
		for _, sc := range scenarios.All() {
			fmt.Fprintf(&b, "%-14s %s\n", sc.Name, sc.Description)
		}
	} else {
		sf, err := builtinFile(*dump, *quick)
		if err == nil {
			err = dumpScenario(&b, sf, *quick)
		}
		if err != nil {
			fmt.Fprintf(stderr, "pipebench scenarios: %v\n", err)
			if errors.Is(err, errUsage) {
				return usageFailed(stderr, "pipebench scenarios")
			}
			return 1
		}
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "pipebench scenarios: writing the results: %v\n", err)
		return 1
	}
	return 0
}

// runProfiles is pipebench profiles [-dump swai|gpu].
func runProfiles(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipebench profiles", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dump := fs.String("dump", "", "print this built-in device profile (swai or gpu) as YAML, each field with its meaning and source")
	asJSON := fs.Bool("json", false, "with -dump: print the profile as JSON (swai.LoadProfile's format), without the comments")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pipebench profiles [-dump swai|gpu]\n\nLists the built-in device profiles, or prints one as a file to start from (-device FILE,\n"+
			"a scenario file's device.profile). A scenario file's device.profile also takes zero, a device\n"+
			"that takes no time (the zerocost scenario's): it is no profile of the card, and has none to print.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, ok := parseSub(fs, args, 0, stderr, ""); !ok {
		return code
	}
	// As scenarios: written at once, its error checked.
	var b bytes.Buffer
	var err error
	switch {
	case *dump == "":
		for _, p := range builtinProfiles {
			fmt.Fprintf(&b, "%-6s %s\n", p.name, p.doc)
		}
	case *asJSON:
		err = dumpProfileJSON(&b, *dump)
	default:
		err = dumpProfile(&b, *dump)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pipebench profiles: %v\n", err)
		if errors.Is(err, errUsage) {
			return usageFailed(stderr, "pipebench profiles")
		}
		return 1
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "pipebench profiles: writing the results: %v\n", err)
		return 1
	}
	return 0
}
