package main

// Scenario files: a workload, its host costs, its device and what to run
// of it, in YAML (or JSON, read by the same decoder so that errors carry
// line numbers). The decoder knows every field (KnownFields); a value is
// checked after decoding, and every error names the file, the line and the
// field's path in the file (costs.infer, device.overrides.launch.cpu_ns).
//
// `pipebench scenarios -dump NAME` prints a built-in as a file, every field
// present and commented; loading it back gives the configuration that
// `pipebench -scenario NAME` runs (scenariofile_test.go checks it).

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
)

// scenarioFile is the document of a scenario file.
type scenarioFile struct {
	Name        string     `yaml:"name"`
	Description string     `yaml:"description,omitempty"`
	Graph       graphSpec  `yaml:"graph"`
	Costs       costsSpec  `yaml:"costs"`
	Device      deviceSpec `yaml:"device"`
	Modes       []string   `yaml:"modes,flow"`
	Barriers    []string   `yaml:"barriers,flow,omitempty"`
	Reps        int        `yaml:"reps"`
	Seed        uint64     `yaml:"seed"`
	line        *lineIndex // where each field is, for errors
	path        string     // the file, "" for a document in memory
	graph       *onnxGraph // the imported model of graph.onnx
	base        *scenarios.Scenario
	hostCost    plan.HostCost
	meanCosts   pipert.Costs
	profile     swai.Profile
	zeroProfile *device.Profile // device.profile zero
}

// scenarioFileDoc is scenarioFile without its methods, for MarshalYAML.
type scenarioFileDoc scenarioFile

// MarshalYAML writes the file's fields, but no device section for a
// built-in that runs on a platform of its own (mttorch): none of its
// fields would do anything there (check refuses them).
func (sf scenarioFile) MarshalYAML() (any, error) {
	var n yaml.Node
	if err := n.Encode((*scenarioFileDoc)(&sf)); err != nil {
		return nil, err
	}
	if !sf.onPlatform() || n.Kind != yaml.MappingNode {
		return &n, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "device" {
			n.Content = slices.Delete(n.Content, i, i+2)
			break
		}
	}
	return &n, nil
}

// onPlatform reports whether the file's graph is a built-in that runs on
// a platform of its own (scenarios.Scenario.Platform) instead of the
// simulated accelerator.
func (sf *scenarioFile) onPlatform() bool {
	if sf.Graph.Builtin == "" || sf.Graph.ONNX != "" {
		return false
	}
	sc, err := scenarios.Get(sf.Graph.Builtin)
	return err == nil && sc.Platform != nil
}

// graphSpec names the graph: a built-in generator and its size parameters,
// or an ONNX file with its input shapes and fixed scalar inputs.
type graphSpec struct {
	Builtin string             `yaml:"builtin,omitempty"`
	ONNX    string             `yaml:"onnx,omitempty"`
	Params  map[string]int64   `yaml:"params,omitempty"`
	Inputs  map[string][]int64 `yaml:"inputs,omitempty"`
	Consts  map[string]float64 `yaml:"consts,omitempty"`
	// Outputs replace the ONNX model's graph outputs (pipebench -outputs).
	Outputs []string `yaml:"outputs,omitempty"`
}

// UnmarshalYAML decodes a graphSpec, refusing a number that is not a whole
// one among its params and inputs, which yaml.v3 would truncate (6.5
// layers would run 6).
func (g *graphSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k == "params" || k == "inputs" {
				if err := wholeNumbers(n.Content[i+1]); err != nil {
					return err
				}
			}
		}
	}
	type plain graphSpec // without this method
	return n.Decode((*plain)(g))
}

// wholeNumbers reports the first value under n, a mapping of numbers or of
// lists of numbers, that is a number but not an integer.
func wholeNumbers(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := wholeNumbers(n.Content[i+1]); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if err := wholeNumbers(c); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if n.Tag == "!!float" {
			what := "is not a whole number"
			if _, err := strconv.ParseInt(strings.TrimPrefix(n.Value, "+"), 0, 64); errors.Is(err, strconv.ErrRange) {
				what = "is out of range" // a whole number beyond int64
			} else if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				what = fmt.Sprintf("is written as a fraction: write the whole number %d", int64(f))
			}
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: column %d: %s %s", n.Line, n.Column, n.Value, what)}}
		}
	}
	return nil
}

type onnxGraph struct {
	mf *modelFlags
}

// costsSpec are the synthetic host costs per kernel, per stage; by_op
// overrides stages of the kernels of an op type.
type costsSpec struct {
	Prepare costDist               `yaml:"prepare"`
	Infer   costDist               `yaml:"infer"`
	Resize  costDist               `yaml:"resize"`
	Launch  costDist               `yaml:"launch"`
	Tiling  costDist               `yaml:"tiling"`
	Alloc   costDist               `yaml:"alloc"`
	Create  costDist               `yaml:"create"`
	ByOp    map[string]opCostsSpec `yaml:"by_op,omitempty"`
}

type opCostsSpec struct {
	Prepare *costDist `yaml:"prepare,omitempty"`
	Infer   *costDist `yaml:"infer,omitempty"`
	Resize  *costDist `yaml:"resize,omitempty"`
	Launch  *costDist `yaml:"launch,omitempty"`
	Tiling  *costDist `yaml:"tiling,omitempty"`
	Alloc   *costDist `yaml:"alloc,omitempty"`
	Create  *costDist `yaml:"create,omitempty"`
}

// costStages names the cost fields in file order.
var costStages = []string{"prepare", "infer", "resize", "launch", "tiling", "alloc", "create"}

func (c *costsSpec) fields() []*costDist {
	return []*costDist{&c.Prepare, &c.Infer, &c.Resize, &c.Launch, &c.Tiling, &c.Alloc, &c.Create}
}

func (o *opCostsSpec) fields() []**costDist {
	return []**costDist{&o.Prepare, &o.Infer, &o.Resize, &o.Launch, &o.Tiling, &o.Alloc, &o.Create}
}

// costDist is a host cost: fixed (a duration: 5us), or drawn once per node
// at compilation from a distribution ({uniform: [2us, 8us]},
// {lognormal: {median: 5us, sigma: 0.5}}), seeded by the file's seed and
// the node's name.
type costDist struct {
	kind   distKind
	value  time.Duration // fixed
	lo, hi time.Duration // uniform
	median time.Duration // lognormal
	sigma  float64       // lognormal
	line   int
}

type distKind uint8

const (
	distFixed distKind = iota
	distUniform
	distLognormal
)

// UnmarshalYAML reads a duration or a one-key mapping naming the
// distribution.
func (d *costDist) UnmarshalYAML(n *yaml.Node) error {
	d.line = n.Line
	bad := func(format string, args ...any) error {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: "+format, append([]any{n.Line}, args...)...)}}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		v, err := parseCost(n.Value)
		if err != nil {
			return bad("%v", err)
		}
		d.kind, d.value = distFixed, v
		return nil
	case yaml.MappingNode:
		if len(n.Content) != 2 {
			return bad("a cost is a duration or one of {uniform: [MIN, MAX]}, {lognormal: {median: D, sigma: S}}")
		}
		k, v := n.Content[0], n.Content[1]
		switch k.Value {
		case "uniform":
			if v.Kind != yaml.SequenceNode || len(v.Content) != 2 {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: uniform takes [MIN, MAX]", v.Line)}}
			}
			lo, err1 := parseCost(v.Content[0].Value)
			hi, err2 := parseCost(v.Content[1].Value)
			if err := errors.Join(err1, err2); err != nil {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", v.Line, err)}}
			}
			d.kind, d.lo, d.hi = distUniform, lo, hi
		case "lognormal":
			var p struct {
				Median string  `yaml:"median"`
				Sigma  float64 `yaml:"sigma"`
			}
			if v.Kind != yaml.MappingNode {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: lognormal takes {median: D, sigma: S}", v.Line)}}
			}
			for i := 0; i < len(v.Content); i += 2 {
				if key := v.Content[i].Value; key != "median" && key != "sigma" {
					return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: field %s not found in lognormal (have median, sigma)", v.Content[i].Line, key)}}
				}
			}
			if err := v.Decode(&p); err != nil {
				return err
			}
			m, err := parseCost(p.Median)
			if err != nil {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: median: %v", v.Line, err)}}
			}
			d.kind, d.median, d.sigma = distLognormal, m, p.Sigma
		case "fixed":
			f, err := parseCost(v.Value)
			if err != nil {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", v.Line, err)}}
			}
			d.kind, d.value = distFixed, f
		default:
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: unknown distribution %q (have fixed, uniform, lognormal)", k.Line, k.Value)}}
		}
		return nil
	}
	return bad("a cost is a duration or one of {uniform: [MIN, MAX]}, {lognormal: {median: D, sigma: S}}")
}

// MarshalYAML writes the form UnmarshalYAML reads.
func (d costDist) MarshalYAML() (any, error) {
	switch d.kind {
	case distUniform:
		return map[string]any{"uniform": []string{fmtDuration(d.lo), fmtDuration(d.hi)}}, nil
	case distLognormal:
		return map[string]any{"lognormal": map[string]any{"median": fmtDuration(d.median), "sigma": d.sigma}}, nil
	}
	return fmtDuration(d.value), nil
}

// check reports what makes d unusable.
func (d *costDist) check() error {
	switch d.kind {
	case distFixed:
		if d.value < 0 || d.value > plan.MaxCost {
			return fmt.Errorf("cost %v outside [0, %v]", d.value, plan.MaxCost)
		}
	case distUniform:
		if d.lo < 0 || d.hi < d.lo || d.hi > plan.MaxCost {
			return fmt.Errorf("uniform [%v, %v]: want 0 <= MIN <= MAX <= %v", d.lo, d.hi, plan.MaxCost)
		}
	case distLognormal:
		if d.median < 0 || d.median > plan.MaxCost {
			return fmt.Errorf("median %v outside [0, %v]", d.median, plan.MaxCost)
		}
		if !(d.sigma >= 0) || d.sigma > 4 {
			return fmt.Errorf("sigma %g outside [0, 4]", d.sigma)
		}
	}
	return nil
}

// mean is d's expected value, of the draws as draw makes them: a
// lognormal's is its mean capped where draw caps it, so never above
// plan.MaxCost.
func (d *costDist) mean() time.Duration {
	switch d.kind {
	case distUniform:
		return (d.lo + d.hi) / 2
	case distLognormal:
		m, s := float64(d.median), d.sigma
		c := math.Min(100*m, float64(plan.MaxCost))
		if s == 0 || m == 0 {
			return time.Duration(math.Min(m, c))
		}
		// E[min(X, c)] = E[X; X < c] + c·P(X ≥ c), X lognormal of median
		// m and shape s, Φ the standard normal distribution function.
		phi := func(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }
		z := math.Log(c/m) / s
		return time.Duration(m*math.Exp(s*s/2)*phi(z-s) + c*(1-phi(z)))
	}
	return d.value
}

// least and most are the bounds of d's draws.
func (d *costDist) least() time.Duration {
	switch d.kind {
	case distUniform:
		return d.lo
	case distLognormal:
		return 0
	}
	return d.value
}

func (d *costDist) most() time.Duration {
	switch d.kind {
	case distUniform:
		return d.hi
	case distLognormal:
		return time.Duration(math.Min(100*float64(d.median), float64(plan.MaxCost)))
	}
	return d.value
}

// draw samples d with r; a lognormal draw is capped at 100 times its
// median and at plan.MaxCost.
func (d *costDist) draw(r *rand.Rand) time.Duration {
	switch d.kind {
	case distUniform:
		if d.hi == d.lo {
			return d.lo
		}
		return d.lo + time.Duration(r.Int64N(int64(d.hi-d.lo)+1))
	case distLognormal:
		v := float64(d.median) * math.Min(math.Exp(d.sigma*r.NormFloat64()), 100)
		return time.Duration(math.Min(v, float64(plan.MaxCost)))
	}
	return d.value
}

// deviceSpec is the device: a profile (swai, gpu, zero: the plain device
// that takes no time, or a profile file, .json or .yaml), fields of it
// overridden, and every modeled duration multiplied by scale.
type deviceSpec struct {
	Profile   string         `yaml:"profile"`
	Scale     float64        `yaml:"scale"`
	Overrides map[string]any `yaml:"overrides,omitempty"`
}

// parseDuration reads a Go duration (5us, 5µs, 1.5ms), 0, or a plain
// number of nanoseconds.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Duration(n), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (want e.g. 5us, 1.5ms, 0)", s)
	}
	return d, nil
}

// parseCost reads a cost: a duration with its unit (5us), or 0. A bare
// number other than 0 is refused: in a cost, where the file's durations
// all carry a unit, 5 would silently be 5 ns where 5 µs was likely meant
// (a profile's _ns fields, named in ns, take one).
func parseCost(s string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && n != 0 {
		return 0, fmt.Errorf("%q has no unit (want e.g. 5us, 1.5ms, 0)", s)
	}
	return parseDuration(s)
}

// fmtDuration writes d as parseDuration reads it, in ASCII (5us).
func fmtDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	return strings.ReplaceAll(d.String(), "µ", "u")
}

// fileError is a scenario or profile file error: exit status 2.
type fileError struct {
	file  string
	line  int
	field string
	msg   string
}

func (e *fileError) Error() string {
	var b strings.Builder
	b.WriteString(e.file)
	if e.file == "" {
		b.WriteString("(scenario)")
	}
	if e.line > 0 {
		fmt.Fprintf(&b, ":%d", e.line)
	}
	if e.field != "" {
		b.WriteString(": " + e.field)
	}
	return b.String() + ": " + e.msg
}

func (e *fileError) Unwrap() error { return errUsage }

// lineIndex maps the fields of a YAML document to their lines and back.
type lineIndex struct {
	lines   map[string]int         // path → line of its key (or of the value)
	paths   map[int]string         // line → deepest path on it
	scalars map[int][]scalarOnLine // line → its scalar values, in order
}

// scalarOnLine is a scalar value of a line: its column, text and path.
type scalarOnLine struct {
	col         int
	value, path string
}

func newLineIndex(root *yaml.Node) *lineIndex {
	ix := &lineIndex{lines: map[string]int{}, paths: map[int]string{}, scalars: map[int][]scalarOnLine{}}
	if root != nil {
		ix.walk(root, "", 0)
	}
	return ix
}

func (ix *lineIndex) record(path string, line int) {
	if path == "" {
		return
	}
	if _, ok := ix.lines[path]; !ok {
		ix.lines[path] = line
	}
	if old, ok := ix.paths[line]; !ok || len(path) > len(old) {
		ix.paths[line] = path
	}
}

func (ix *lineIndex) walk(n *yaml.Node, path string, line int) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			ix.walk(c, path, line)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			ix.record(p, k.Line)
			ix.walk(v, p, k.Line)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			ix.record(p, c.Line)
			ix.walk(c, p, c.Line)
		}
	case yaml.ScalarNode:
		if n.Line != line {
			ix.record(path, n.Line)
		}
		ix.scalars[n.Line] = append(ix.scalars[n.Line], scalarOnLine{col: n.Column, value: n.Value, path: path})
	}
}

// scalar returns the path of the scalar at column col of line (col 0:
// the only scalar of the line whose text is value), or "" if there is
// none or several.
func (ix *lineIndex) scalar(line, col int, value string) string {
	found := ""
	for _, s := range ix.scalars[line] {
		if col > 0 && s.col == col || col == 0 && s.value == value {
			if found != "" {
				return ""
			}
			found = s.path
		}
	}
	return found
}

// named returns the path on line whose last element is name (the first
// in path order when there are several), or the deepest path on the line.
func (ix *lineIndex) named(line int, name string) string {
	var found []string
	for p, l := range ix.lines {
		if l == line && (p == name || strings.HasSuffix(p, "."+name)) {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return ix.paths[line]
	}
	slices.Sort(found)
	return found[0]
}

// at returns the line of path, or of its nearest ancestor in the file.
func (ix *lineIndex) at(path string) int {
	for p := path; p != ""; {
		if l, ok := ix.lines[p]; ok {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}

func (sf *scenarioFile) errorf(field, format string, args ...any) error {
	return &fileError{file: sf.path, line: sf.line.at(field), field: field, msg: fmt.Sprintf(format, args...)}
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)
var yamlUnknown = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)

// yamlColumn is the column this file's own decoders put after a line;
// yamlValue is the value yaml.v3 quotes in a type error.
var (
	yamlColumn = regexp.MustCompile(`^column (\d+): (.*)`)
	yamlValue  = regexp.MustCompile("cannot unmarshal !!\\w+ `([^`]*)`")
)

// yamlType matches yaml.v3's type error: the YAML tag of the value, the
// value, and the Go type it could not go into.
var yamlType = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `([^`]*)`)? into (\\S+)$")

// yamlTypeMessage says a type error of yaml.v3 in the file's terms — what
// the value is and what the field takes — instead of Go's types
// ("cannot unmarshal !!str `kbk` into []string": "kbk is a string: want a
// list"); another message is returned as it is.
func yamlTypeMessage(msg string) string {
	m := yamlType.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	is := map[string]string{"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
		"seq": "a list", "map": "a mapping", "null": "empty", "timestamp": "a date"}[m[1]]
	if is == "" {
		is = "a YAML " + m[1]
	}
	var want string
	switch goType := m[3]; {
	case strings.HasPrefix(goType, "[]"):
		want = "a list"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "main."), strings.Contains(goType, "struct"):
		want = "a mapping of its fields"
	case strings.HasPrefix(goType, "uint"):
		want = "a whole number ≥ 0"
	case strings.HasPrefix(goType, "int"):
		want = "a whole number"
	case strings.HasPrefix(goType, "float"):
		want = "a number"
	case goType == "bool":
		want = "true or false"
	case goType == "string":
		want = "a string"
	case goType == "time.Duration":
		want = "a duration (such as 5us)"
	default:
		want = "another kind of value"
	}
	if m[2] != "" {
		return fmt.Sprintf("%s is %s: want %s", m[2], is, want)
	}
	return fmt.Sprintf("the value is %s: want %s", is, want)
}

// yamlErrors turns the decoder's errors into fileErrors naming the field
// on the line.
func yamlErrors(file string, ix *lineIndex, err error) error {
	var out []error
	for _, l := range strings.Split(err.Error(), "\n") {
		m := yamlLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[1])
		msg := m[2]
		field := ix.paths[line]
		// A value's own column, or its text quoted in yaml.v3's message,
		// names it among the values of a line ({a: 1, b: x} or [1, 2.5]).
		if c := yamlColumn.FindStringSubmatch(msg); c != nil {
			col, _ := strconv.Atoi(c[1])
			msg = c[2]
			if p := ix.scalar(line, col, ""); p != "" {
				field = p
			}
		} else if v := yamlValue.FindStringSubmatch(msg); v != nil {
			if p := ix.scalar(line, 0, v[1]); p != "" {
				field = p
			}
		}
		if u := yamlUnknown.FindStringSubmatch(msg); u != nil {
			msg = "unknown field " + u[1] + " (pipebench scenarios -dump NAME prints every field)"
			field = ix.named(line, u[1])
		}
		msg = yamlTypeMessage(msg)
		out = append(out, &fileError{file: file, line: line, field: field, msg: msg})
	}
	if len(out) == 0 {
		return &fileError{file: file, msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	return errors.Join(out...)
}

// decodeStrict decodes one YAML or JSON document of data into v, every
// field known, and returns the document's node tree.
func decodeStrict(file string, data []byte, v any) (*lineIndex, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlErrors(file, newLineIndex(nil), err)
	}
	ix := newLineIndex(&root)
	if len(root.Content) == 0 {
		return ix, &fileError{file: file, msg: "empty document"}
	}
	if doc := root.Content[0]; doc.Kind != yaml.MappingNode {
		// null, a list or a scalar would leave every field unset, as if
		// the file named none of them.
		return ix, &fileError{file: file, line: doc.Line, msg: fmt.Sprintf("want a mapping of fields, got %s", describeNode(doc))}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return ix, yamlErrors(file, ix, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return ix, &fileError{file: file, msg: "more than one document: a file holds one scenario"}
	}
	return ix, nil
}

// loadScenarioFile reads and checks a scenario file.
func loadScenarioFile(path string) (*scenarioFile, error) {
	if err := checkInput("-scenario-file", path, textFileMax); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: -scenario-file: %v", errUsage, err)
	}
	return parseScenarioFile(path, data)
}

// parseScenarioFile decodes and checks a scenario file's contents; path
// names it in errors and resolves relative paths in it.
func parseScenarioFile(path string, data []byte) (*scenarioFile, error) {
	sf := &scenarioFile{path: path}
	ix, err := decodeStrict(path, data, sf)
	if err != nil {
		return nil, err
	}
	// yaml.v3 truncates a fraction into an integer field (reps: 2.9 would
	// run 2): the top-level counts must be whole numbers.
	var root yaml.Node
	if yaml.Unmarshal(data, &root) == nil && len(root.Content) > 0 && root.Content[0].Kind == yaml.MappingNode {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i].Value; k == "reps" || k == "seed" {
				if err := wholeNumbers(m.Content[i+1]); err != nil {
					return nil, yamlErrors(path, ix, err)
				}
			}
		}
	}
	sf.line = ix
	// What a file leaves out is what pipebench runs without it: the
	// built-in's costs (an ONNX graph's: the default ones), the SW-AI card
	// at scale 1, and pipebench's modes, barrier policies and repetitions.
	def := scenarios.DefaultCosts()
	if base, err := scenarios.Get(sf.Graph.Builtin); err == nil && sf.Graph.ONNX == "" {
		def = base.Costs
	}
	defs := []time.Duration{def.Prepare, def.Infer, def.Resize, def.Launch, def.Tiling, def.Alloc, def.Create}
	for i, d := range sf.Costs.fields() {
		if _, ok := ix.lines["costs."+costStages[i]]; !ok {
			*d = costDist{kind: distFixed, value: defs[i]}
		}
	}
	if _, ok := ix.lines["device.profile"]; !ok {
		sf.Device.Profile = "swai"
	}
	if _, ok := ix.lines["device.scale"]; !ok {
		sf.Device.Scale = 1
	}
	if err := sf.check(); err != nil {
		return nil, err
	}
	return sf, nil
}

// derive returns sf with the scalar at each of paths (costs.infer,
// graph.params.layers, device.overrides.launch.cpu_ns) set to the text of
// the same index, read as the file's decoder reads that text there, and
// checked as a loaded file is: a point of a sweep, without writing and
// parsing the file again. sf stays as it is: the copy shares what it does
// not change (an ONNX graph stays imported), and each map and pointer on
// a path is copied before it is written. An error names the field and its
// line in sf's file.
func (sf *scenarioFile) derive(paths, texts []string) (*scenarioFile, error) {
	d := *sf
	for i, p := range paths {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: texts[i], Line: sf.line.at(p)}
		if err := setField(reflect.ValueOf(&d).Elem(), strings.Split(p, "."), n); err != nil {
			return nil, d.errorf(p, "%v", err)
		}
	}
	if err := d.check(); err != nil {
		return nil, err
	}
	return &d, nil
}

// setField decodes n into the field at path below v, found by the yaml
// names of struct fields and by map keys (an absent key is added). It
// writes only into copies: each map and pointer on the way is replaced by
// a copy, so that what v shared with another value stays as it was.
func setField(v reflect.Value, path []string, n *yaml.Node) error {
	switch v.Kind() {
	case reflect.Pointer:
		c := reflect.New(v.Type().Elem())
		if !v.IsNil() {
			c.Elem().Set(v.Elem())
		}
		if err := setField(c.Elem(), path, n); err != nil {
			return err
		}
		v.Set(c)
		return nil
	case reflect.Interface: // a mapping of overrides, or a value
		if len(path) == 0 {
			break
		}
		in := v.Elem()
		if !in.IsValid() {
			in = reflect.ValueOf(map[string]any(nil))
		}
		if in.Kind() != reflect.Map {
			return fmt.Errorf("%s: not a mapping", path[0])
		}
		m := reflect.New(in.Type()).Elem()
		m.Set(in)
		if err := setField(m, path, n); err != nil {
			return err
		}
		v.Set(m)
		return nil
	case reflect.Map:
		if len(path) == 0 {
			return errors.New("a mapping, not a value")
		}
		key := reflect.ValueOf(path[0]).Convert(v.Type().Key())
		e := reflect.New(v.Type().Elem()).Elem()
		if old := v.MapIndex(key); old.IsValid() {
			e.Set(old)
		}
		if err := setField(e, path[1:], n); err != nil {
			return err
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len()+1)
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), it.Value())
		}
		c.SetMapIndex(key, e)
		v.Set(c)
		return nil
	case reflect.Struct:
		if len(path) == 0 {
			break // a value read by its UnmarshalYAML (a cost)
		}
		for i := range v.NumField() {
			if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ","); name == path[0] && name != "" {
				return setField(v.Field(i), path[1:], n)
			}
		}
		return fmt.Errorf("no field %s", path[0])
	}
	if len(path) > 0 {
		return fmt.Errorf("%s: not a mapping", path[0])
	}
	return n.Decode(v.Addr().Interface())
}

// check validates every field and resolves the graph, costs and device.
func (sf *scenarioFile) check() error {
	if i := strings.IndexFunc(sf.Name, func(r rune) bool { return !unicode.IsPrint(r) || unicode.Is(unicode.Bidi_Control, r) }); i >= 0 {
		// It heads the table's rows, the trace's tracks and the JSON.
		return sf.errorf("name", "must be printable text: %q has %U at byte %d", sf.Name, []rune(sf.Name[i:])[0], i)
	}
	if sf.Name == "" {
		return sf.errorf("name", "must not be empty")
	}
	g := sf.Graph
	switch {
	case g.Builtin == "" && g.ONNX == "":
		return sf.errorf("graph", "name a built-in (graph.builtin: %s) or an ONNX file (graph.onnx)", strings.Join(scenarios.Names(), ", "))
	case g.Builtin != "" && g.ONNX != "":
		return sf.errorf("graph.onnx", "graph.builtin and graph.onnx are exclusive")
	case g.Builtin != "":
		base, err := scenarios.Get(g.Builtin)
		if err != nil {
			return sf.errorf("graph.builtin", "unknown built-in %q (have %s)", g.Builtin, strings.Join(scenarios.Names(), ", "))
		}
		sf.base = &base
		if len(g.Inputs) > 0 || len(g.Consts) > 0 {
			return sf.errorf("graph.inputs", "inputs and consts go with graph.onnx: a built-in's inputs follow its params")
		}
		if g.Outputs != nil {
			return sf.errorf("graph.outputs", "outputs go with graph.onnx: a built-in's outputs are its own")
		}
		for _, name := range slices.Sorted(mapsKeys(g.Params)) {
			if err := checkParam(base, name, g.Params[name]); err != nil {
				return sf.errorf("graph.params."+name, "%v", err)
			}
		}
		if base.Params != nil {
			if _, err := base.Params(scenarios.Config{Params: g.Params}); err != nil {
				return sf.errorf("graph.params", "%v", strings.TrimPrefix(err.Error(), "scenarios: "))
			}
		}
	default:
		if len(g.Params) > 0 {
			return sf.errorf("graph.params", "params go with graph.builtin; an ONNX graph takes inputs and consts")
		}
		if sf.graph == nil { // a file derived from a loaded one keeps its import
			if err := sf.importONNX(); err != nil {
				return err
			}
		}
	}
	if err := sf.checkCosts(); err != nil {
		return err
	}
	if sf.onPlatform() {
		// Its platform replaces the simulated accelerator: a device
		// section that would change it does nothing, and is refused
		// (the defaults, which older dumps wrote, are let be).
		d := sf.Device
		field := ""
		switch {
		case d.Profile != "swai":
			field = "device.profile"
		case d.Scale != 1:
			field = "device.scale"
		case len(d.Overrides) > 0:
			field = "device.overrides"
		}
		if field != "" {
			return sf.errorf(field, "%s runs on a platform of its own (its accelerator and CPU), not on the simulated accelerator: the device section does not apply to it; remove it", sf.Graph.Builtin)
		}
	}
	if err := sf.resolveDevice(); err != nil {
		return err
	}
	if _, given := sf.line.lines["modes"]; given && len(sf.Modes) == 0 {
		return sf.errorf("modes", "list at least one mode (%s), or leave modes out for pipebench's own", modeList())
	}
	for i, m := range sf.Modes {
		if m == "hetero" {
			continue
		}
		if _, err := pipert.ParseMode(m); err != nil {
			return sf.errorf(fmt.Sprintf("modes[%d]", i), "unknown mode %q (have %s)", m, modeList())
		}
	}
	for i, b := range sf.Barriers {
		if _, err := pipert.ParseBarrierPolicy(b); err != nil {
			return sf.errorf(fmt.Sprintf("barriers[%d]", i), "unknown barrier policy %q (have drain, per-tensor)", b)
		}
	}
	if _, given := sf.line.lines["reps"]; (given || sf.Reps != 0) && (sf.Reps < 1 || sf.Reps > 10000) {
		return sf.errorf("reps", "%d outside [1, 10000]", sf.Reps)
	}
	return nil
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkParam checks one size parameter against the built-in's list.
func checkParam(sc scenarios.Scenario, name string, v int64) error {
	if sc.Params == nil {
		return fmt.Errorf("%s has no size parameters", sc.Name)
	}
	ps, _ := sc.Params(scenarios.Config{})
	var names []string
	for _, p := range ps {
		if p.Name == name {
			if v < p.Min || v > p.Max {
				return fmt.Errorf("%d outside [%d, %d]", v, p.Min, p.Max)
			}
			return nil
		}
		names = append(names, p.Name)
	}
	return fmt.Errorf("%s has no parameter %q (have %s)", sc.Name, name, strings.Join(names, ", "))
}

// inputFiles are the files the scenario file names, relative to it: its
// ONNX model and its device profile file, as the input flags of
// checkOutputs.
func (sf *scenarioFile) inputFiles() []outFlag {
	var in []outFlag
	add := func(field, p string) {
		if !filepath.IsAbs(p) && sf.path != "" {
			p = filepath.Join(filepath.Dir(sf.path), p)
		}
		in = append(in, outFlag{"scenario-file's " + field, p})
	}
	if sf.Graph.ONNX != "" {
		add("graph.onnx", sf.Graph.ONNX)
	}
	if d := sf.Device; d.Profile != "" && d.Profile != "zero" {
		if _, ok := builtinProfile(d.Profile); !ok {
			add("device.profile", d.Profile)
		}
	}
	return in
}

// importONNX imports graph.onnx (relative to the file) with its inputs and
// consts, so that a model that does not import fails the load.
func (sf *scenarioFile) importONNX() error {
	p := sf.Graph.ONNX
	if !filepath.IsAbs(p) && sf.path != "" {
		p = filepath.Join(filepath.Dir(sf.path), p)
	}
	if fi, err := os.Stat(p); err == nil {
		if err := inputProblem(p, fi, 0); err != nil {
			return sf.errorf("graph.onnx", "%v", err)
		}
	}
	m, err := onnx.ReadFile(p)
	if err != nil {
		return sf.errorf("graph.onnx", "%v", err)
	}
	mf := &modelFlags{path: p, shapes: sf.Graph.Inputs}
	inputs, tensors := modelNames(m)
	for _, name := range slices.Sorted(mapsKeys(sf.Graph.Inputs)) {
		if err := checkInputShape(inputs, name, sf.Graph.Inputs[name]); err != nil {
			return sf.errorf("graph.inputs."+name, "%v", err)
		}
		for _, d := range sf.Graph.Inputs[name] {
			if d < 0 {
				return sf.errorf("graph.inputs."+name, "negative dimension %d", d)
			}
		}
	}
	var consts []string
	for _, name := range slices.Sorted(mapsKeys(sf.Graph.Consts)) {
		if inputs[name] == nil {
			return sf.errorf("graph.consts."+name, "the model has no such input")
		}
		consts = append(consts, fmt.Sprintf("%s=%s", name, strconv.FormatFloat(sf.Graph.Consts[name], 'g', -1, 64)))
	}
	if mf.values, err = parseConsts(strings.Join(consts, ","), m); err != nil {
		return sf.errorf("graph.consts", "%v", strings.TrimPrefix(err.Error(), "usage: "))
	}
	if sf.Graph.Outputs != nil {
		if err := checkOutputNames(sf.Graph.Outputs); err != nil {
			return sf.errorf("graph.outputs", "%v", strings.TrimPrefix(strings.Replace(err.Error(), "-outputs", "the list", 1), "usage: "))
		}
		for i, name := range sf.Graph.Outputs {
			if !tensors[name] {
				return sf.errorf(fmt.Sprintf("graph.outputs[%d]", i), "%q: the model neither takes nor computes such a tensor", name)
			}
		}
		mf.outputs = sf.Graph.Outputs
	}
	g, err := onnx.Import(m, mf.options(mf.shapes))
	if err != nil {
		return sf.errorf("graph.onnx", "%v", err)
	}
	for _, v := range g.Inputs {
		if !v.Shape.Known() {
			return sf.errorf("graph.inputs", "input %q has shape %v: give its dimensions, graph.inputs: {%s: [D1, D2, …]}", v.Name, v.Shape, v.Name)
		}
	}
	sf.graph = &onnxGraph{mf: mf}
	return nil
}

// checkCosts validates the costs and makes the HostCost hook when a cost
// is drawn or an op has its own.
func (sf *scenarioFile) checkCosts() error {
	c := &sf.Costs
	for i, d := range c.fields() {
		if err := d.check(); err != nil {
			return sf.errorf("costs."+costStages[i], "%v", err)
		}
	}
	var ops map[string]bool
	if len(c.ByOp) > 0 {
		g, err := sf.buildGraph(scenarios.Config{Quick: true})
		if err != nil {
			return sf.errorf("graph", "%v", err)
		}
		ops = map[string]bool{}
		for _, n := range g.Nodes {
			ops[n.Op] = true
		}
	}
	for _, op := range slices.Sorted(mapsKeys(c.ByOp)) {
		if !ops[op] {
			return sf.errorf("costs.by_op."+op, "the graph has no %s kernel (have %s)", op, strings.Join(slices.Sorted(mapsKeys(ops)), ", "))
		}
		oc := c.ByOp[op]
		for i, d := range oc.fields() {
			if *d == nil {
				continue
			}
			if err := (*d).check(); err != nil {
				return sf.errorf("costs.by_op."+op+"."+costStages[i], "%v", err)
			}
		}
	}
	// Tiling is part of Resize and Alloc of Launch: a part that always
	// exceeds its whole (its least draw above the whole's most, for the
	// file's costs and each op's) contradicts the file. Draws of ranges
	// that overlap are capped by the whole's, node by node.
	parts := []struct{ part, whole int }{{4, 2}, {5, 3}} // tiling ≤ resize, alloc ≤ launch
	for _, pw := range parts {
		if lo, hi := c.fields()[pw.part].least(), c.fields()[pw.whole].most(); lo > hi {
			return sf.errorf("costs."+costStages[pw.part], "%v exceeds the %s cost %v", lo, costStages[pw.whole], hi)
		}
	}
	for _, op := range slices.Sorted(mapsKeys(c.ByOp)) {
		oc := c.ByOp[op]
		ds, od := c.fields(), oc.fields()
		for _, pw := range parts {
			part, whole := ds[pw.part], ds[pw.whole]
			if *od[pw.part] != nil {
				part = *od[pw.part]
			}
			if *od[pw.whole] != nil {
				whole = *od[pw.whole]
			}
			if lo, hi := part.least(), whole.most(); lo > hi {
				return sf.errorf("costs.by_op."+op+"."+costStages[pw.part], "%v exceeds the %s cost %v of %s kernels", lo, costStages[pw.whole], hi, op)
			}
		}
	}
	fixed := len(c.ByOp) == 0
	for _, d := range c.fields() {
		fixed = fixed && d.kind == distFixed
	}
	mean := func(ds []*costDist) pipert.Costs {
		return pipert.Costs{Prepare: ds[0].mean(), Infer: ds[1].mean(), Resize: ds[2].mean(), Launch: ds[3].mean(),
			Tiling: ds[4].mean(), Alloc: ds[5].mean(), Create: ds[6].mean()}
	}
	sf.meanCosts = mean(c.fields())
	if fixed {
		return nil
	}
	sf.meanCosts.Tiling = min(sf.meanCosts.Tiling, sf.meanCosts.Resize)
	sf.meanCosts.Alloc = min(sf.meanCosts.Alloc, sf.meanCosts.Launch)
	seed := sf.Seed
	sf.hostCost = func(n plan.Node) pipert.Costs {
		ds := c.fields()
		if oc, ok := c.ByOp[n.Op]; ok {
			for i, d := range oc.fields() {
				if *d != nil {
					ds[i] = *d
				}
			}
		}
		h := fnv.New64a()
		h.Write([]byte(n.Name))
		r := rand.New(rand.NewPCG(seed, h.Sum64()))
		cs := pipert.Costs{Prepare: ds[0].draw(r), Infer: ds[1].draw(r), Resize: ds[2].draw(r), Launch: ds[3].draw(r),
			Tiling: ds[4].draw(r), Alloc: ds[5].draw(r), Create: ds[6].draw(r)}
		// A drawn tiling or allocation part stays within its stage.
		cs.Tiling, cs.Alloc = min(cs.Tiling, cs.Resize), min(cs.Alloc, cs.Launch)
		if n.OnCPU {
			return pipert.Costs{Prepare: cs.Prepare, Infer: cs.Infer}
		}
		return cs
	}
	return nil
}

// buildGraph builds the file's graph at c's size.
func (sf *scenarioFile) buildGraph(c scenarios.Config) (*subgraph.Graph, error) {
	sc := sf.scenario()
	w, err := sc.Build(c)
	if err != nil {
		return nil, err
	}
	return w.Graph, nil
}

// scenario is the file as a scenario bench runs.
func (sf *scenarioFile) scenario() scenarios.Scenario {
	var sc scenarios.Scenario
	if sf.base != nil {
		sc = *sf.base
		base := sf.base.Build
		params := sf.Graph.Params
		sc.Build = func(c scenarios.Config) (*scenarios.Workload, error) {
			if len(params) > 0 {
				c.Params = params
			}
			return base(c)
		}
	} else {
		sc = modelScenario(sf.graph.mf)
	}
	sc.Name = sf.Name
	if sf.Description != "" {
		sc.Description = sf.Description
	}
	sc.Costs = sf.meanCosts
	sc.Profile = sf.zeroProfile
	return sc
}

// builtinProfile returns the named built-in profile.
func builtinProfile(name string) (swai.Profile, bool) {
	switch name {
	case "swai":
		return swai.Default(), true
	case "gpu":
		return swai.GPU(), true
	}
	return swai.Profile{}, false
}

// resolveDevice loads the profile, applies the overrides and the scale.
func (sf *scenarioFile) resolveDevice() error {
	d := sf.Device
	if !(d.Scale > 0) || d.Scale > 1e6 || math.IsInf(d.Scale, 0) {
		return sf.errorf("device.scale", "%g outside (0, 1e6]", d.Scale)
	}
	if d.Profile == "zero" {
		if len(d.Overrides) > 0 {
			return sf.errorf("device.overrides", "the zero device has no profile to override")
		}
		p := zeroProfile()
		scaleDeviceProfile(&p, d.Scale)
		if err := p.Validate(); err != nil {
			return sf.errorf("device.scale", "the scaled profile: %v", err)
		}
		sf.zeroProfile = &p
		sf.profile = swai.Default() // unused: the scenario's own device replaces the card
		return nil
	}
	base, ok := builtinProfile(d.Profile)
	if !ok {
		if d.Profile == "" {
			return sf.errorf("device.profile", "name a profile: swai, gpu, zero or a profile file")
		}
		p := d.Profile
		if !filepath.IsAbs(p) && sf.path != "" {
			p = filepath.Join(filepath.Dir(sf.path), p)
		}
		var err error
		if base, err = loadProfileFile(p); err != nil {
			return sf.errorf("device.profile", "%v", err)
		}
	}
	p, err := overrideProfile(base, d.Overrides)
	if err != nil {
		var pe *profileError
		if errors.As(err, &pe) {
			return sf.errorf("device.overrides."+pe.field, "%s", pe.msg)
		}
		return sf.errorf("device.overrides", "%v", err)
	}
	scaleProfile(&p, d.Scale)
	if err := p.Validate(); err != nil {
		return sf.errorf("device.scale", "the scaled profile: %v", err)
	}
	if err := checkProfileRanges(p); err != nil {
		return sf.errorf("device.scale", "the scaled profile: %v", err)
	}
	sf.profile = p
	return nil
}

// zeroProfile is the zerocost scenario's device: no launch latency, no
// fixed kernel time, an unbounded roofline.
func zeroProfile() device.Profile {
	if sc, err := scenarios.Get("zerocost"); err == nil && sc.Profile != nil {
		return *sc.Profile
	}
	p := device.Default()
	p.LaunchLatency, p.KernelFixed, p.PeakFLOPS, p.MemBandwidth = 0, 0, 1e18, 1e18
	return p
}

// applyScenarioFile makes the file the run of c: a flag set on the command
// line (in set) overrides the file's modes, barriers, reps and seed.
func applyScenarioFile(c *config, sf *scenarioFile, set map[string]bool) error {
	for _, f := range []string{"scenario", "model", "device", "prepare", "infer", "resize", "launch", "tiling", "size"} {
		if set[f] {
			return fmt.Errorf("%w: -%s goes without -scenario-file: the file sets it", errUsage, f)
		}
	}
	c.scenarios = []scenarios.Scenario{sf.scenario()}
	costs := sf.meanCosts
	c.costs = &costs
	c.hostCost = sf.hostCost
	name := sf.profile.Name
	if sf.zeroProfile != nil {
		name = "zero" // the scenario's own device replaces the card: name what runs
	}
	c.devices = newProfileFactory(name, sf.profile)
	if !set["mode"] && len(sf.Modes) > 0 {
		c.modes, c.hetero = []pipert.Mode{pipert.KBK}, heteroOff
		for _, n := range sf.Modes {
			if n == "hetero" {
				c.hetero = heteroOn
				continue
			}
			// A mode listed twice runs once, as in -mode.
			if m, _ := pipert.ParseMode(n); !slices.Contains(c.modes, m) {
				c.modes = append(c.modes, m)
			}
		}
	}
	if !set["barrier"] && len(sf.Barriers) > 0 {
		c.policies = nil
		for _, n := range sf.Barriers {
			if p, _ := pipert.ParseBarrierPolicy(n); !slices.Contains(c.policies, p) {
				c.policies = append(c.policies, p)
			}
		}
	}
	if !set["reps"] && sf.Reps > 0 {
		c.reps = sf.Reps
	}
	if !set["seed"] {
		c.seed = sf.Seed
	}
	return nil
}

// describeNode names what a YAML document holds instead of a mapping.
func describeNode(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return "null"
	case n.Kind == yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "an alias"
}
