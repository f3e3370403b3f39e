package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/pipert/pipert/cmd/pipebench/internal/profiledoc"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
)

// dumped returns the file `pipebench scenarios -dump name [-quick]` prints.
func dumped(t testing.TB, name string, quick bool) []byte {
	t.Helper()
	args := []string{"scenarios", "-dump", name}
	if quick {
		args = append(args, "-quick")
	}
	var out, errb bytes.Buffer
	if code := run(t.Context(), args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return out.Bytes()
}

// TestDumpedScenariosLoadBack checks that every built-in, dumped as a file
// and loaded back, is the run -scenario NAME makes: the same graph, costs,
// device profile, variants, repetitions and seed.
func TestDumpedScenariosLoadBack(t *testing.T) {
	dir := t.TempDir()
	for _, name := range scenarios.Names() {
		for _, quick := range []bool{false, true} {
			if !quick && (name == "ocr" || name == "hetero") {
				continue // the same fields as -quick; only slower to build
			}
			path := filepath.Join(dir, name+".yaml")
			if err := os.WriteFile(path, dumped(t, name, quick), 0o644); err != nil {
				t.Fatal(err)
			}
			quickArg := []string{}
			if quick {
				quickArg = []string{"-quick"}
			}
			want, err := parseFlags(append([]string{"-scenario", name}, quickArg...), &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseFlags(append([]string{"-scenario-file", path}, quickArg...), &bytes.Buffer{})
			if err != nil {
				t.Fatalf("%s (quick %v): %v", name, quick, err)
			}
			ws, gs := want.scenarios[0], got.scenarios[0]
			if !reflect.DeepEqual(variants(want, ws), variants(got, gs)) {
				t.Errorf("%s: variants %v, want %v", name, variants(got, gs), variants(want, ws))
			}
			if got.costs == nil || *got.costs != ws.Costs || got.hostCost != nil {
				t.Errorf("%s: costs %+v, want %+v", name, got.costs, ws.Costs)
			}
			if got.reps != want.reps || got.seed != want.seed {
				t.Errorf("%s: reps %d seed %d, want %d %d", name, got.reps, got.seed, want.reps, want.seed)
			}
			if !reflect.DeepEqual(got.devices.profile, want.devices.profile) || !reflect.DeepEqual(gs.Profile, ws.Profile) {
				t.Errorf("%s: the device profile differs", name)
			}
			if gs.Steps != ws.Steps || gs.Barriers != ws.Barriers || gs.Hetero != ws.Hetero || gs.CacheStudy != ws.CacheStudy {
				t.Errorf("%s: scenario flags differ", name)
			}
			c := scenarios.Config{Quick: quick, Seed: 1}
			ww, err := ws.Build(c)
			if err != nil {
				t.Fatal(err)
			}
			gw, err := gs.Build(c)
			if err != nil {
				t.Fatal(err)
			}
			if len(ww.Graph.Nodes) != len(gw.Graph.Nodes) {
				t.Fatalf("%s: %d nodes, want %d", name, len(gw.Graph.Nodes), len(ww.Graph.Nodes))
			}
			for i, n := range ww.Graph.Nodes {
				if g := gw.Graph.Nodes[i]; g.Name != n.Name || g.Op != n.Op || len(g.Inputs) != len(n.Inputs) {
					t.Fatalf("%s: node %d is %s %s, want %s %s", name, i, g.Name, g.Op, n.Name, n.Op)
				}
			}
			for k, v := range ww.Inputs {
				if !reflect.DeepEqual(gw.Inputs[k].Shape, v.Shape) {
					t.Errorf("%s: input %s has shape %v, want %v", name, k, gw.Inputs[k].Shape, v.Shape)
				}
			}
		}
	}
}

// TestDumpedScenarioRuns runs a dumped file: it gives the rows of
// -scenario decode.
func TestDumpedScenarioRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decode.yaml")
	if err := os.WriteFile(path, dumped(t, "decode", true), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := runArgs(t, "-scenario-file", path, "-reps", "1", "-mode", "kbk,pipeline", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "decode") || !strings.Contains(out, "pipeline") || !strings.Contains(out, " 105 ") {
		t.Errorf("no decode rows of 105 kernels:\n%s", out)
	}
}

// TestScenarioFileErrors checks that each bad file fails with exit status
// 2 and an error naming the file, the line and the field.
func TestScenarioFileErrors(t *testing.T) {
	base := string(dumped(t, "decode", true))
	dir := t.TempDir()
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"unknown field", "  prepare: 2us", "  prepare: 2us\n  bogus: 1", ":26: costs.bogus: unknown field"},
		{"negative cost", "infer: 5us", "infer: -5us", ":26: costs.infer: cost -5µs outside [0, 10s]"},
		{"cost over the bound", "infer: 5us", "infer: 99999h", ":26: costs.infer: cost 99999h0m0s outside [0, 10s]"},
		{"range over the bound", "infer: 5us", "infer: {uniform: [1us, 11s]}", ":26: costs.infer: uniform [1µs, 11s]: want 0 <= MIN <= MAX <= 10s"},
		{"median over the bound", "infer: 5us", "infer: {lognormal: {median: 20s, sigma: 1}}", ":26: costs.infer: median 20s outside [0, 10s]"},
		{"no modes", "[kbk, async, pipeline, replay]", "[]", ":40: modes: list at least one mode"},
		{"a mode where a list goes", "[kbk, async, pipeline, replay]", "kbk", ":40: modes: kbk is a string: want a list"},
		{"a negative seed", "seed: 1", "seed: -1", ":43: seed: -1 is an integer: want a whole number ≥ 0"},
		{"empty range", "infer: 5us", "infer: {uniform: [5us, 2us]}", ":26: costs.infer: uniform"},
		{"bad duration", "infer: 5us", "infer: fast", ":26: costs.infer: \"fast\" is not a duration"},
		// A cost without a unit would silently be nanoseconds.
		{"cost without a unit", "infer: 5us", "infer: 5", ":26: costs.infer: \"5\" has no unit"},
		{"range without a unit", "infer: 5us", "infer: {uniform: [0, 7]}", ":26: costs.infer.uniform"},
		{"median without a unit", "infer: 5us", "infer: {lognormal: {median: 3, sigma: 1}}", ":26: costs.infer.lognormal.median: median: \"3\" has no unit"},
		{"unknown distribution", "infer: 5us", "infer: {gauss: 1us}", ":26: costs.infer.gauss: unknown distribution"},
		{"unknown parameter", "    layers: 6", "    layerz: 6", ":19: graph.params.layerz: decode has no parameter"},
		{"parameter out of range", "    layers: 6", "    layers: 0", ":19: graph.params.layers: 0 outside"},
		{"fractional parameter", "    layers: 6", "    layers: 6.5", ":19: graph.params.layers: 6.5 is not a whole number"},
		{"bandwidth 0", "profile: swai", "profile: swai\n  overrides: {transfer: {bandwidth: 0}}", ":39: device.overrides.transfer.bandwidth: must be in [1e+06, +Inf), got 0"},
		{"unknown profile field", "profile: swai", "profile: swai\n  overrides:\n    launch:\n      cpu_nz: 1", ":41: device.overrides.launch.cpu_nz: unknown field"},
		{"zero scale", "scale: 1", "scale: 0", ":39: device.scale:"},
		{"NaN override", "profile: swai", "profile: swai\n  overrides: {peak_flops: .nan}", ":39: device.overrides.peak_flops: NaN is not a finite number"},
		{"infinite override", "profile: swai", "profile: swai\n  overrides: {launch: {cpu_ns: -.inf}}", ":39: device.overrides.launch.cpu_ns: -Inf is not a finite number"},
		{"tiny peak_flops", "profile: swai", "profile: swai\n  overrides: {peak_flops: 1e-9}", ":39: device.overrides.peak_flops: must be in [1e+06, +Inf), got 1e-09"},
		{"zero device scaled below its rates", "profile: swai\n  scale: 1 ", "profile: zero\n  scale: 1000000 ", `:39: device.scale: the scaled profile: device: profile "zerocost": H2D.Bandwidth 12000 outside [1e+06, +Inf)`},
		{"unknown mode", "[kbk, async, pipeline, replay]", "[kbk, warp]", ":40: modes[1]: unknown mode"},
		{"no reps", "reps: 5", "reps: 0", ":42: reps: 0 outside"},
		{"fractional reps", "reps: 5", "reps: 2.9", ":42: reps: 2.9 is not a whole number"},
		{"name of two lines", "name: decode", "name: \"a\\nb\"", ":4: name: must be printable text"},
		// A part of a stage's cost that always exceeds it: a range's least
		// draw above the stage's, and an op's own costs too.
		{"alloc range over launch", "alloc: 0s", "alloc: {uniform: [9us, 10us]}", ":30: costs.alloc: 9µs exceeds the launch cost 8µs"},
		{"op's tiling over resize", "create: 0s", "create: 0s\n  by_op: {MatMul: {tiling: 7us}}", ":32: costs.by_op.MatMul.tiling: 7µs exceeds the resize cost 6µs of MatMul kernels"},
		{"whole parameter as a fraction", "    layers: 6", "    layers: 6.0", ":19: graph.params.layers: 6.0 is written as a fraction: write the whole number 6"},
		{"onnx that does not import", "builtin: decode", "onnx: bad.onnx\n  inputs: {x: [1]}", ":10: graph.onnx: "},
		{"unknown op", "  launch: 8us", "  launch: 8us\n  by_op: {Conv: {infer: 1us}}", ":29: costs.by_op.Conv: the graph has no Conv kernel"},
	} {
		text := strings.Replace(base, c.old, c.new, 1)
		if text == base {
			t.Fatalf("%s: %q not in the dump", c.name, c.old)
		}
		if c.name == "onnx that does not import" {
			text = strings.Replace(text, "  params:", "  unused:", 1)
			text = text[:strings.Index(text, "  unused:")] + text[strings.Index(text, "# synthetic"):]
			os.WriteFile(filepath.Join(dir, "bad.onnx"), []byte("not a model"), 0o644)
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errb := runArgs(t, "-scenario-file", path, "-q")
		if code != 2 || !strings.Contains(errb, path+c.want) || out != "" {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q, nothing on stdout", c.name, code, errb, path+c.want)
		}
	}
}

// TestScenarioFileJSON checks that a JSON file is read by the same
// decoder: its errors carry the line and the field too.
// TestScenarioFileDefaults: a file of a name and a graph runs what
// pipebench runs without it: the built-in's costs, the SW-AI card at
// scale 1, pipebench's modes and repetitions.
func TestScenarioFileDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	text := "name: mine\ngraph:\n  builtin: decode\n  params: {layers: 1, batch: 1, hidden: 64, heads: 4, ffn: 64, kv: 8, vocab: 64}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sf, err := loadScenarioFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := scenarios.Get("decode")
	if sf.meanCosts != sc.Costs {
		t.Errorf("costs %+v, want decode's %+v", sf.meanCosts, sc.Costs)
	}
	if sf.Device.Profile != "swai" || sf.Device.Scale != 1 || sf.profile.Name != swai.Default().Name {
		t.Errorf("device %+v (profile %q), want swai at scale 1", sf.Device, sf.profile.Name)
	}
	c, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	modes, reps := slices.Clone(c.modes), c.reps
	if err := applyScenarioFile(c, sf, map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.modes, modes) || c.reps != reps {
		t.Errorf("modes %v, reps %d; want pipebench's own %v, %d", c.modes, c.reps, modes, reps)
	}
}

func TestScenarioFileJSON(t *testing.T) {
	dir := t.TempDir()
	good := `{
  "name": "j",
  "graph": {"builtin": "decode", "params": {"layers": 1}},
  "costs": {"infer": "5us"},
  "device": {"profile": "swai", "scale": 1},
  "modes": ["kbk"],
  "reps": 1
}`
	for _, c := range []struct{ text, want string }{
		{good, ""},
		{strings.Replace(good, `"reps": 1`, `"reps": 1, "extra": 2`, 1), ":7: extra: unknown field extra"},
		{strings.Replace(good, `"5us"`, `"-5us"`, 1), ":4: costs.infer: cost -5µs outside [0, 10s]"},
	} {
		path := filepath.Join(dir, "s.json")
		os.WriteFile(path, []byte(c.text), 0o644)
		code, _, errb := runArgs(t, "-scenario-file", path, "-q")
		switch {
		case c.want == "" && code != 0:
			t.Errorf("good JSON: exit %d: %s", code, errb)
		case c.want != "" && (code != 2 || !strings.Contains(errb, path+c.want)):
			t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb, c.want)
		}
	}
}

// TestProfileDump checks that each dumped profile loads back as itself
// (through -device), documents every field, and that the table of sources
// is the one the profile's source gives.
func TestProfileDump(t *testing.T) {
	src, err := os.ReadFile("../../device/swai/profile.go")
	if err != nil {
		t.Fatal(err)
	}
	d, err := profiledoc.Extract(src)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Meaning, profileMeaning) || !reflect.DeepEqual(d.Source, profileSource) {
		t.Error("profiledoc_gen.go is out of date: run go generate ./cmd/pipebench")
	}
	for _, name := range []string{"swai", "gpu"} {
		code, js, errb := runArgs(t, "profiles", "-dump", name, "-json")
		if code != 0 {
			t.Fatalf("-json: exit %d: %s", code, errb)
		}
		if p, err := swai.ParseProfile([]byte(js)); err != nil || p.Name != name {
			t.Errorf("%s: the JSON dump does not load back: %v", name, err)
		}
		code, out, errb := runArgs(t, "profiles", "-dump", name)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb)
		}
		path := filepath.Join(t.TempDir(), name+".yaml")
		os.WriteFile(path, []byte(out), 0o644)
		got, err := loadProfileFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := builtinProfile(name)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: loads back as %+v, want %+v", name, got, want)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		annotate(&doc, "", func(path string, k, v *yaml.Node) {
			line := k.LineComment + v.LineComment
			if v.Kind != yaml.MappingNode && (k.HeadComment == "" || !strings.HasPrefix(line, "# source: ")) && path != "name" {
				t.Errorf("%s: field %s lacks its meaning or source (%q, %q)", name, path, k.HeadComment, line)
			}
		})
	}
	if code, _, _ := runArgs(t, "profiles", "-dump", "tpu"); code != 2 {
		t.Errorf("unknown profile: exit %d, want 2", code)
	}
}

// TestScaleProfile checks device.scale: every duration multiplied, every
// rate divided.
func TestScaleProfile(t *testing.T) {
	p := swai.Default()
	scaleProfile(&p, 4)
	q := swai.Default()
	if p.Launch.CPU != 4*q.Launch.CPU || p.Transfer.Bandwidth != q.Transfer.Bandwidth/4 || p.PeakFLOPS != q.PeakFLOPS/4 || p.Launch.Cores != q.Launch.Cores {
		t.Errorf("scaled by 4: %+v", p.Launch)
	}
}

// FuzzScenarioFile feeds the parser arbitrary files, the dumped built-ins
// as seeds: it never panics, and a file it accepts dumps to one it
// accepts again.
func FuzzScenarioFile(f *testing.F) {
	for _, name := range scenarios.Names() {
		f.Add(dumped(f, name, true))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Files naming other files (models, profiles) are not the
		// parser's business: the fuzzer could name a device.
		var peek struct {
			Graph  struct{ ONNX string } `yaml:"graph"`
			Device struct{ Profile string }
		}
		yaml.Unmarshal(data, &peek)
		if peek.Graph.ONNX != "" || strings.Contains(string(data), "onnx") {
			return
		}
		if p := peek.Device.Profile; p != "" && p != "swai" && p != "gpu" && p != "zero" {
			return
		}
		sf, err := parseScenarioFile("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := dumpScenario(&b, sf, false); err != nil {
			t.Fatal(err)
		}
		if _, err := parseScenarioFile("g.yaml", b.Bytes()); err != nil {
			t.Fatalf("the dump of an accepted file fails: %v\n%s", err, b.String())
		}
	})
}

// editYAML writes text at path into the YAML document data (making the
// mappings on the way) and encodes it again: a point of a sweep written
// into its file.
func editYAML(t *testing.T, data []byte, path, text string) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n := doc.Content[0]
	parts := strings.Split(path, ".")
	for i, key := range parts {
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == key {
				next = n.Content[j+1]
			}
		}
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			if i == len(parts)-1 {
				next = &yaml.Node{Kind: yaml.ScalarNode}
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, next)
		}
		n = next
	}
	*n = yaml.Node{Kind: yaml.ScalarNode, Value: text}
	var b bytes.Buffer
	if err := encodeYAML(&b, &doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDeriveIsTheEditedFile checks a sweep's points: deriving values from
// a loaded file gives what loading the file with those values written in
// gives (costs, drawn costs, graph, device, repetitions, seed), and leaves
// the loaded file as it was.
func TestDeriveIsTheEditedFile(t *testing.T) {
	base := dumped(t, "decode", true)
	base = editYAML(t, base, "costs.by_op.MatMul.infer", "2us")
	base = editYAML(t, base, "device.overrides.launch.cpu_ns", "700")
	sf, err := parseScenarioFile("decode.yaml", base)
	if err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprintf("%+v %+v %+v %v %v %d %d", sf.Graph, sf.Device, *sf.Costs.ByOp["MatMul"].Infer, sf.meanCosts, sf.profile, sf.Reps, sf.Seed)
	for _, c := range [][]string{
		{"costs.infer", "7us"},
		{"costs.by_op.MatMul.infer", "4us"},
		{"costs.by_op.MatMul.launch", "3us"},
		{"graph.params.layers", "2"},
		{"device.scale", "2.5"},
		{"device.overrides.launch.cpu_ns", "900"},
		{"device.overrides.malloc.first_touch_ns", "1000"},
		{"reps", "3"},
		{"seed", "9"},
		{"costs.infer", "1us", "graph.params.layers", "3", "device.scale", "0.5", "device.overrides.launch.cpu_ns", "100", "seed", "4"},
	} {
		var paths, texts []string
		file := base
		for i := 0; i < len(c); i += 2 {
			paths, texts = append(paths, c[i]), append(texts, c[i+1])
			file = editYAML(t, file, c[i], c[i+1])
		}
		want, err := parseScenarioFile("decode.yaml", file)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		got, err := sf.derive(paths, texts)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if !reflect.DeepEqual(got.Graph, want.Graph) || !reflect.DeepEqual(got.Device, want.Device) ||
			got.Reps != want.Reps || got.Seed != want.Seed || got.meanCosts != want.meanCosts ||
			!reflect.DeepEqual(got.profile, want.profile) || !reflect.DeepEqual(got.Modes, want.Modes) {
			t.Errorf("%v: derived %+v %+v %v %d %d,\nloaded %+v %+v %v %d %d", c, got.Graph, got.Device, got.meanCosts, got.Reps, got.Seed,
				want.Graph, want.Device, want.meanCosts, want.Reps, want.Seed)
		}
		g, err := want.buildGraph(scenarios.Config{Quick: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range g.Nodes {
			pn := plan.Node{Name: n.Name, Op: n.Op}
			if gc, wc := got.hostCost(pn), want.hostCost(pn); gc != wc {
				t.Fatalf("%v: node %s costs %+v, want %+v", c, n.Name, gc, wc)
			}
		}
	}
	after := fmt.Sprintf("%+v %+v %+v %v %v %d %d", sf.Graph, sf.Device, *sf.Costs.ByOp["MatMul"].Infer, sf.meanCosts, sf.profile, sf.Reps, sf.Seed)
	if after != before {
		t.Errorf("derive changed the loaded file:\n%s\nwas\n%s", after, before)
	}
	// A value the file's checks refuse names the field.
	if _, err := sf.derive([]string{"graph.params.layers"}, []string{"0"}); err == nil || !strings.Contains(err.Error(), "graph.params.layers: 0 outside") {
		t.Errorf("layers 0: %v", err)
	}
}

// TestPlatformScenarioRefusesDevice: mttorch runs on a platform of its own,
// so its dump has no device section, and a file whose device section would
// change the simulated accelerator (another profile, a scale, overrides)
// is refused naming the field, rather than run as if it had taken effect;
// the defaults older dumps wrote still load.
func TestPlatformScenarioRefusesDevice(t *testing.T) {
	base := string(dumped(t, "mttorch", true))
	if strings.Contains(base, "device") {
		t.Errorf("the mttorch dump has a device section:\n%s", base)
	}
	for _, c := range []struct{ device, field string }{
		{"device:\n  profile: swai\n  scale: 4\n", "device.scale"},
		{"device:\n  profile: gpu\n", "device.profile"},
		{"device:\n  profile: zero\n", "device.profile"},
		{"device:\n  overrides: {launch: {cpu_ns: 400}}\n", "device.overrides"},
		{"device:\n  profile: swai\n  scale: 1\n", ""},
	} {
		_, err := parseScenarioFile("mt.yaml", []byte(base+c.device))
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%q: %v", c.device, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), c.field+": mttorch runs on a platform of its own") || !errors.Is(err, errUsage)):
			t.Errorf("%q: error %v, want one naming %s", c.device, err, c.field)
		}
	}
	// A scenario on the simulated accelerator keeps its section.
	if !strings.Contains(string(dumped(t, "decode", true)), "device:") {
		t.Error("the decode dump lost its device section")
	}
}

// TestZeroDeviceLabel: a scenario file on the zero device says so in the
// footer and the JSON, not swai.
func TestZeroDeviceLabel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "z.yaml")
	os.WriteFile(path, dumped(t, "zerocost", true), 0o644)
	jsonPath := filepath.Join(dir, "z.json")
	code, out, errb := runArgs(t, "-scenario-file", path, "-mode", "kbk", "-reps", "1", "-json", jsonPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "\ndevice zero;") {
		t.Errorf("footer:\n%s", out)
	}
	var rep report
	b, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(b, &rep); err != nil || rep.Device != "zero" {
		t.Errorf("JSON device %q (%v), want zero", rep.Device, err)
	}
	// The built-in scenario too, whatever -device says (it does nothing
	// there), and beside another scenario its own device is named.
	code, out, errb = runArgs(t, "-quick", "-scenario", "zerocost", "-mode", "kbk", "-reps", "1", "-device", "gpu", "-json", jsonPath)
	b, _ = os.ReadFile(jsonPath)
	rep = report{}
	if code != 0 || !strings.Contains(out, "\ndevice zero;") || !strings.Contains(errb, "-device does nothing with the zerocost scenario") || json.Unmarshal(b, &rep) != nil || rep.Device != "zero" {
		t.Errorf("-scenario zerocost -device gpu: exit %d, JSON device %q\n%s%s", code, rep.Device, out, errb)
	}
	if code, out, errb = runArgs(t, "-quick", "-scenario", "zerocost,smallops", "-mode", "kbk", "-reps", "1"); code != 0 || !strings.Contains(out, "\ndevice swai (zerocost: zero);") {
		t.Errorf("zerocost beside smallops: exit %d\n%s%s", code, out, errb)
	}
}

// TestScenarioFileOutputs: graph.outputs selects an ONNX model's outputs
// as -outputs does (a scikit-learn classifier's tensors before ZipMap),
// and a bad list names the field, at the line of the bad name.
func TestScenarioFileOutputs(t *testing.T) {
	model, err := filepath.Abs("../../onnx/testdata/opset/e_skl2onnx_zipmap.onnx")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct{ graph, want string }{
		{"  outputs: [output_label, probabilities]", ""},
		{"", ":3: graph.onnx: "},
		{"  outputs: []", ":4: graph.outputs: the list names no tensor"},
		{"  outputs: [label, label]", `:4: graph.outputs: the list names "label" twice`},
		{`  outputs: [label, ""]`, ":4: graph.outputs: the list: item 2 is empty"},
		// A name the model does not have is reported at its own line,
		// not at graph.onnx's; so are graph.inputs' and graph.consts'.
		{"  outputs: [nosuch]", `:4: graph.outputs[0]: "nosuch": the model neither takes nor computes such a tensor`},
		{"  outputs:\n    - output_label\n    - nosuch", `:6: graph.outputs[1]: "nosuch"`},
		{"  inputs: {nosuch: [1, 2]}", ":4: graph.inputs.nosuch: the model has no such input"},
		{"  consts:\n    nosuch: 1", ":5: graph.consts.nosuch: the model has no such input"},
	} {
		path := filepath.Join(dir, "s.yaml")
		text := "name: skl\ngraph:\n  onnx: " + model + "\n" + c.graph + "\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errb := runArgs(t, "-scenario-file", path, "-reps", "1", "-mode", "kbk,pipeline", "-q")
		switch {
		case c.want == "" && (code != 0 || !strings.Contains(out, "skl")):
			t.Errorf("%q: exit %d: %s\n%s", c.graph, code, errb, out)
		case c.want != "" && (code != 2 || !strings.Contains(errb, path+c.want)):
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", c.graph, code, errb, path+c.want)
		}
	}
	path := filepath.Join(dir, "b.yaml")
	os.WriteFile(path, []byte("name: b\ngraph:\n  builtin: decode\n  outputs: [y]\n"), 0o644)
	if code, _, errb := runArgs(t, "-scenario-file", path, "-q"); code != 2 || !strings.Contains(errb, "graph.outputs: outputs go with graph.onnx") {
		t.Errorf("outputs of a built-in: exit %d: %s", code, errb)
	}
}

// TestLognormalMeanIsOfTheDraws: a lognormal cost's mean is the mean of
// its draws as capped (at 100 times the median and at plan.MaxCost), so a
// valid distribution never has a mean outside [0, plan.MaxCost].
func TestLognormalMeanIsOfTheDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []costDist{
		{kind: distLognormal, median: 5 * time.Microsecond, sigma: 0.5},
		{kind: distLognormal, median: 5 * time.Microsecond, sigma: 3},
		{kind: distLognormal, median: 5 * time.Second, sigma: 3},
		{kind: distLognormal, median: 2 * time.Microsecond},
	} {
		if err := d.check(); err != nil {
			t.Fatal(err)
		}
		const n = 400_000
		var sum float64
		for range n {
			sum += float64(d.draw(r))
		}
		got, want := float64(d.mean()), sum/n
		if got > float64(plan.MaxCost) || math.Abs(got-want) > 0.03*want {
			t.Errorf("median %v sigma %g: mean %v, draws average %v", d.median, d.sigma, time.Duration(got), time.Duration(want))
		}
	}
}

// TestScenarioFileErrorsNameTheElement: an error in one of several values
// on a line (a flow list or mapping) names that value's field.
func TestScenarioFileErrorsNameTheElement(t *testing.T) {
	dir := t.TempDir()
	model, err := filepath.Abs("../../models/silero-vad-v5.onnx")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ graph, want string }{
		{"{onnx: " + model + ", inputs: {input: [1, 512], state: [2, 1, 128]}, consts: {sr: abc}}", ":2: graph.consts.sr: abc is a string: want a number"},
		{"{onnx: " + model + ", inputs: {input: [1, 512.5], state: [2, 1, 128]}, consts: {sr: 16000}}", ":2: graph.inputs.input[1]: 512.5 is not a whole number"},
		{"{onnx: " + model + ", inputs: {input: [1, 99999999999999999999], state: [2, 1, 128]}, consts: {sr: 16000}}", ":2: graph.inputs.input[1]: 99999999999999999999 is out of range"},
	} {
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte("name: t\ngraph: "+c.graph+"\nmodes: [kbk]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, errb := runArgs(t, "-scenario-file", path, "-q"); code != 2 || !strings.Contains(errb, path+c.want) {
			t.Errorf("exit %d, stderr %q, want 2 and %q", code, errb, path+c.want)
		}
	}
}

// TestRealDataTooLargeIsAnError: -real data for parameters within their
// bounds but beyond the host's memory (a decode step of hidden size and
// KV length 2^24: petabytes) fails the build with an error naming the
// scenario and the tensor, where Go's allocator ended the process.
func TestRealDataTooLargeIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.yaml")
	body := "name: decode\ngraph:\n  builtin: decode\n  params: {hidden: 16777216, ffn: 16777216, kv: 16777216}\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runArgs(t, "-scenario-file", path, "-mode", "kbk", "-reps", "1", "-real")
	if code != 1 || !strings.Contains(stderr, "scenarios: decode: real float32 tensor of shape") || !strings.Contains(stderr, "available memory") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestScenarioFileRepeatedModes checks that a mode or barrier policy the
// file lists twice runs once, as it does when -mode or -barrier lists it
// twice: not a second, identical variant.
func TestScenarioFileRepeatedModes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	text := "name: mine\ngraph: {builtin: zerocost}\nmodes: [kbk, async, kbk, async]\nbarriers: [drain, per-tensor, drain]\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sf, err := loadScenarioFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := applyScenarioFile(fromFile, sf, map[string]bool{}); err != nil {
		t.Fatal(err)
	}
	fromFlags, err := parseFlags([]string{"-mode", "kbk,async,kbk,async", "-barrier", "drain,per-tensor,drain"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fromFile.modes, fromFlags.modes) || !slices.Equal(fromFile.policies, fromFlags.policies) {
		t.Errorf("the file runs modes %v, policies %v; the same lists on the command line run %v, %v",
			fromFile.modes, fromFile.policies, fromFlags.modes, fromFlags.policies)
	}
}

// TestInputRankNamesTheField: a shape fixed for an ONNX input with another
// rank than the model declares is refused at the field or flag that fixes
// it, not at graph.onnx's line in the words of onnx.Options.
func TestInputRankNamesTheField(t *testing.T) {
	model, err := filepath.Abs("../../models/ppocrv4-det.onnx")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte("name: det\ngraph:\n  onnx: "+model+"\n  inputs: {x: [1, 3, 96]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + ":4: graph.inputs.x: 3 dimensions, the model declares 4"
	if code, out, errb := runArgs(t, "-scenario-file", path, "-q"); code != 2 || out != "" || !strings.Contains(errb, want) {
		t.Errorf("scenario file: exit %d, stderr %q; want 2 and %q", code, errb, want)
	}
	want = "-input x: 3 dimensions, the model declares 4"
	if code, out, errb := runArgs(t, "-model", model, "-input", "x=1x3x96", "-q"); code != 2 || out != "" || !strings.Contains(errb, want) {
		t.Errorf("-input: exit %d, stderr %q; want 2 and %q", code, errb, want)
	}
}
