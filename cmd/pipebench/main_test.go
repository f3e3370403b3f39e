package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
)

func runArgs(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"-nope"},
		{"-scenario", "nosuch"},
		{"-mode", "warp"},
		{"-barrier", "lazy"},
		{"-reps", "-1"},
		{"stray"},
		{"-prepare", "fast"},
		{"-size", "100"},
		{"-size", "0"},
		{"-scenario", "ocr", "-size", "1000000"}, // past the scenario's 8192, before anything runs
		{"-mode", ","},                           // names nothing: not "all"
		{"-mode", "kbk,,pipeline"},               // an empty item
		{"-scenario", "smallops,,"},
		{"-rtol", "-1"}, // checked even where it does nothing (no -golden)
		{"-tol", "NaN"},
		{"-reps", "10001"}, // a scenario file's bound too
		{"-tiling-copy", "all,whole"},
		{"-scenario", ""}, // the same
		{"-input", "x=1x3"},
		{"-model", "../../models/ppocrv4-det.onnx", "-scenario", "ocr"},
		{"-model", "../../models/ppocrv4-det.onnx", "-golden", "../../models/ppocrv4-det.golden.json", "-input", "x=1x3x96x96"},
		{"-model", "../../models/ppocrv4-det.onnx", "-input", "x=1x3xbig"},
		{"-model", "../../models/silero-vad-v5.onnx", "-const", "nosuch=1"},
		{"-model", "../../models/ppocr-cls.onnx", "-input", "nosuch=1x3"},
		{"-scenario", "decode,decode-steps", "-launch", "2us"}, // below decode-steps' allocation cost: refused before decode runs
		{"-scenario", "decode,decode-steps", "-resize", "2us"}, // below its tiling cost
		{"-model", os.DevNull},         // not a regular file: read without end (/dev/zero)
		{"-scenario-file", os.DevNull}, // the same
		{"-model", "../../models/ppocr-cls.onnx", "-input", "x=1x3x48x192", "-outputs", "nosuch"},
		{"-model", "../../onnx/testdata/light/light_squeezenet.onnx", "-input", "data_0=1x3x1x1", "-mode", "kbk", "-reps", "1"}, // the model fixes dimension 2 to 224
		{"-model", "../../models/nosuch.onnx"},
		{"-q", "-v"},
		{"-model", "../../models"},
		{"-model", "../../models/silero-vad-v5.onnx", "-golden", "../../models/nosuch.golden.json"},
		{"-model", "../../models/ppocrv4-det.onnx", "-mode", "kbk"}, // x has dynamic dimensions
		{"-cache", "bogus"},
		{"-cache", "local,none"},
		{"-cache-local", "0"},
		{"-cache-global", "-1"},
		{"-cache-global", "1025"},
		{"-tiling", "9us"}, // more than the 6 µs Resize
		{"-tiling-copy", "later"},
		{"-tiling-blocks", "1025"},
		{"-tiling-blocks", "-1"},
		{"-queue-capacity", "0"},
		{"-infer", "-5us"},
		{"-launch", "11s"},
		{"-json", os.TempDir()}, // a directory: checked before the run
		{"-benchfmt", filepath.Join(os.TempDir(), "no", "such", "dir", "b.txt")},
		{"-cpuprofile", os.TempDir()},
	} {
		code, _, stderr := runArgs(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
		if !strings.Contains(stderr, "pipebench") {
			t.Errorf("%v: no usage message: %q", args, stderr)
		}
	}
}

// TestModelGolden checks -model with -golden: every case matches in every
// mode, a line per case and mode, and a tolerance too tight for the
// reference's rounding is a mismatch with exit status 1.
func TestModelGolden(t *testing.T) {
	args := []string{"-model", "../../models/silero-vad-v5.onnx", "-golden", "../../models/silero-vad-v5.golden.json", "-reps", "1", "-mode", "kbk,pipeline"}
	code, stdout, stderr := runArgs(t, append(args, "-tol", "1e-5")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stdout, "golden "); n != 6*3 {
		t.Errorf("%d golden lines, want 6 cases × 3 settings:\n%s", n, stdout)
	}
	// The tolerances apply to every setting alike: KBK alone checks them.
	args = append(args[:len(args)-2:len(args)-2], "-mode", "kbk")
	code, stdout, _ = runArgs(t, append(args, "-tol", "1e-9")...)
	if code != 1 || !strings.Contains(stdout, "MISMATCH") || !strings.Contains(stdout, "want") {
		t.Errorf("-tol 1e-9: exit %d, want 1 with the worst element named:\n%s", code, stdout)
	}
	for _, tol := range []string{"Inf", "-1", "NaN"} {
		if code, _, stderr := runArgs(t, append(args, "-tol", tol)...); code != 2 || !strings.Contains(stderr, "finite number") {
			t.Errorf("-tol %s: exit %d, want 2 saying a finite number:\n%s", tol, code, stderr)
		}
		if code, _, stderr := runArgs(t, append(args, "-rtol", tol)...); code != 2 || !strings.Contains(stderr, "-rtol") {
			t.Errorf("-rtol %s: exit %d, want 2 naming -rtol:\n%s", tol, code, stderr)
		}
	}
	// A relative tolerance accepts what the absolute one alone refuses:
	// the larger errors are at the larger values.
	if code, stdout, _ := runArgs(t, append(args, "-tol", "1e-6")...); code != 1 {
		t.Errorf("-tol 1e-6: exit %d, want 1:\n%s", code, stdout)
	}
	if code, stdout, _ := runArgs(t, append(args, "-tol", "1e-6", "-rtol", "1e-3")...); code != 0 {
		t.Errorf("-tol 1e-6 -rtol 1e-3: exit %d, want 0:\n%s", code, stdout)
	}
	// The golden file's outputs left out by -outputs are said to be
	// unchecked.
	code, stdout, _ = runArgs(t, append(args, "-outputs", "output", "-tol", "1e-5")...)
	if code != 0 || strings.Count(stdout, `output "stateN" is not among -outputs: not checked`) != 6 {
		t.Errorf("-outputs output: exit %d, want each case to say stateN is not checked:\n%s", code, stdout)
	}
}

// TestModelOutputs checks -outputs on a scikit-learn classifier as
// skl2onnx writes it (its probabilities leave through ZipMap, which pipert
// has not): without the flag the error says what to select; with it the
// model runs and matches onnxruntime's outputs in every setting; bad lists
// are usage errors.
func TestModelOutputs(t *testing.T) {
	model := "../../onnx/testdata/opset/e_skl2onnx_zipmap.onnx"
	golden := "../../onnx/testdata/opset/e_skl2onnx_zipmap.golden.json"
	args := []string{"-model", model, "-golden", golden, "-reps", "1", "-mode", "kbk,pipeline"}
	code, _, stderr := runArgs(t, args...)
	if code == 0 || !strings.Contains(stderr, "pipebench -outputs") || !strings.Contains(stderr, `"probabilities"`) {
		t.Errorf("without -outputs: exit %d, want an error saying what -outputs selects:\n%s", code, stderr)
	}
	code, stdout, stderr := runArgs(t, append(args, "-outputs", "label,probabilities", "-tol", "1e-6")...)
	if code != 0 {
		t.Fatalf("-outputs label,probabilities: exit %d: %s\n%s", code, stderr, stdout)
	}
	if n := strings.Count(stdout, " ok"); n != 3 {
		t.Errorf("%d settings matched, want 3:\n%s", n, stdout)
	}
	// A selected output the golden file lacks is said to be unchecked.
	code, stdout, stderr = runArgs(t, append(args, "-outputs", "probabilities,probability_tensor")...)
	if code != 0 || !strings.Contains(stdout, `output "probability_tensor" is not in the golden file: not checked`) {
		t.Errorf("-outputs with an output the golden file lacks: exit %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, c := range []struct{ outputs, want string }{
		{"", "names no tensor"},
		{"label,,probabilities", "item 2 is empty"},
		{"label,label", `names "label" twice`},
		{"probability_tensor", "has none of the -outputs probability_tensor"},
	} {
		code, _, stderr := runArgs(t, append(args, "-outputs", c.outputs)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("-outputs %q: exit %d, want an error saying %s:\n%s", c.outputs, code, c.want, stderr)
		}
	}
	code, _, stderr = runArgs(t, "-model", model, "-reps", "1", "-mode", "kbk", "-outputs", "nope")
	if code != 2 || !strings.Contains(stderr, "-outputs nope: the model neither takes nor computes such a tensor") {
		t.Errorf("-outputs nope: exit %d: %s", code, stderr)
	}
	code, stdout, stderr = runArgs(t, "-model", model, "-reps", "1", "-mode", "kbk,pipeline", "-outputs", "output_label")
	if code != 0 || !strings.Contains(stdout, "e_skl2onnx_zipmap") {
		t.Errorf("-outputs output_label without -golden: exit %d:\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runArgs(t, "-outputs", "y", "-scenario", "smallops"); code != 2 || !strings.Contains(stderr, "go with -model") {
		t.Errorf("-outputs without -model: exit %d: %s", code, stderr)
	}
}

func TestHelpDocumentsEveryFlag(t *testing.T) {
	code, _, stderr := runArgs(t, "-h")
	if code != 0 {
		t.Fatalf("-h exit %d", code)
	}
	for _, f := range []string{"-scenario", "-mode", "-barrier", "-check", "-reps", "-quick", "-json", "-v", "-seed", "-real", "-prepare", "-infer", "-resize", "-launch",
		"-model", "-input", "-const", "-outputs", "-golden", "-tol", "-rtol", "-size", "-overlap", "-tiling-copy", "-tiling-blocks", "-benchfmt", "-q", "-scenario-file"} {
		if !strings.Contains(stderr, f) {
			t.Errorf("-h does not document %s", f)
		}
	}
}

func TestJSONSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	// Every scenario, ocr at its smallest image (a tenth of -real's
	// convolutions: the schema is the same).
	code, stdout, stderr := runArgs(t, "-real", "-reps", "1", "-size", "32", "-json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "speedup vs kbk") {
		t.Fatalf("no table on stdout: %q", stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int              `json:"schema_version"`
		Machine       map[string]any   `json:"machine"`
		Results       []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 {
		t.Errorf("schema_version %d, want 1", doc.SchemaVersion)
	}
	for _, k := range []string{"gomaxprocs", "num_cpu", "go"} {
		if _, ok := doc.Machine[k]; !ok {
			t.Errorf("machine lacks %q", k)
		}
	}
	// The round trips are absent when a core was taken away for a
	// second (a loaded machine); present, they are times.
	for _, k := range []string{"core_round_trip_ns", "core_round_trip_end_ns"} {
		if v, ok := doc.Machine[k]; ok && v.(float64) <= 0 {
			t.Errorf("machine %s %v", k, v)
		}
	}
	scen := map[string]bool{}
	for _, r := range doc.Results {
		scen[r["scenario"].(string)] = true
		for _, k := range []string{"scenario", "mode", "barrier", "kernels", "reps", "makespan_ns", "device_busy_ns", "device_util",
			"stage_busy_ns", "bound_ns", "efficiency", "speedup_vs_kbk", "peak_device_bytes", "overhead_ns_per_kernel",
			"caches", "host_ns_per_kernel", "tiling_copy"} {
			if _, ok := r[k]; !ok {
				t.Errorf("result %v lacks %q", r["scenario"], k)
			}
		}
		sb := r["stage_busy_ns"].(map[string]any)
		for _, k := range []string{"prepare", "infer", "resize", "launch"} {
			if _, ok := sb[k]; !ok {
				t.Errorf("stage_busy_ns lacks %q", k)
			}
		}
		switch m := r["mode"]; m {
		case "kbk", "async", "pipeline", "replay":
		case "hetero":
			if r["device_mode"] != "pipeline" || (r["schedule"] != "concurrent" && r["schedule"] != "serial") {
				t.Errorf("hetero row with device_mode %v, schedule %v", r["device_mode"], r["schedule"])
			}
		default:
			t.Errorf("mode %q", m)
		}
		if r["mode"] == "kbk" && r["caches"] == "" && r["overlap"] == nil && r["speedup_vs_kbk"].(float64) != 1 {
			t.Errorf("kbk speedup %v", r["speedup_vs_kbk"])
		}
		if o, ok := r["overlap"]; ok && (o != true || r["steps"] == nil) {
			t.Errorf("%v %v: overlap %v over %v steps", r["scenario"], r["mode"], o, r["steps"])
		}
		if e := r["efficiency"].(float64); e <= 0 {
			t.Errorf("%v %v: efficiency %v", r["scenario"], r["mode"], e)
		}
		// Own host work: the stages less their synthetic costs as burnt,
		// for the rows that burn some (a replay of a whole graph burns
		// none) and are not hetero.
		syn, hasSyn := r["synthetic_ns_per_kernel"].(float64)
		own, hasOwn := r["own_host_ns_per_kernel"].(float64)
		want := r["mode"] != "hetero" && r["scenario"] != "zerocost" && r["kernels"].(float64) > 0
		if r["mode"] == "replay" && !hasSyn {
			want = false
		}
		switch {
		case hasSyn != want || hasOwn != want:
			t.Errorf("%v %v: synthetic_ns_per_kernel %v, own_host_ns_per_kernel %v, want them %v", r["scenario"], r["mode"], r["synthetic_ns_per_kernel"], r["own_host_ns_per_kernel"], want)
		case want && (syn <= 0 || syn > r["host_ns_per_kernel"].(float64) || own < 0):
			t.Errorf("%v %v: synthetic %v and own %v ns a kernel of %v host", r["scenario"], r["mode"], syn, own, r["host_ns_per_kernel"])
		}
	}
	for _, s := range scenarios.Names() {
		if !scen[s] {
			t.Errorf("no results for %s", s)
		}
	}
}

func TestTraceAndAnalyze(t *testing.T) {
	for _, ext := range []string{".pftrace", ".json"} {
		path := filepath.Join(t.TempDir(), "run"+ext)
		code, stdout, stderr := runArgs(t, "-real", "-reps", "1", "-scenario", "dynshape", "-trace", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", ext, code, stderr)
		}
		for _, want := range []string{"trace analysis", "critical path", "tracing overhead", "dynshape pipeline/per-tensor"} {
			if !strings.Contains(stdout, want) {
				t.Fatalf("%s: output lacks %q:\n%s", ext, want, stdout)
			}
		}
		code, stdout, stderr = runArgs(t, "analyze", path)
		if code != 0 || !strings.Contains(stdout, "dynshape kbk") {
			t.Fatalf("analyze %s: exit %d: %s%s", ext, code, stdout, stderr)
		}
	}
	if code, _, _ := runArgs(t, "analyze"); code != 2 {
		t.Fatalf("analyze without a file: exit %d", code)
	}
	// A trace that is not there is the caller's mistake, as a missing
	// -model, -scenario-file or report directory is.
	if code, _, _ := runArgs(t, "analyze", filepath.Join(t.TempDir(), "missing.json")); code != 2 {
		t.Fatalf("analyze of a missing file: exit %d", code)
	}
	if code, _, _ := runArgs(t, "-trace", "out.txt"); code != 2 {
		t.Fatalf("-trace with an unknown extension: exit %d", code)
	}
}

// TestAnalyzeHeterogeneous checks that the parts of a heterogeneous run,
// which share the accelerator and the host CPU device, find their kernels'
// device slices by flow and are marked as sharing.
func TestAnalyzeHeterogeneous(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hetero.pftrace")
	code, stdout, stderr := runArgs(t, "-real", "-reps", "1", "-scenario", "hetero", "-mode", "hetero", "-trace", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{".cpu *", ".device *", "* shares its devices"} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "without a device slice") {
		t.Fatalf("kernels without a device slice:\n%s", stdout)
	}
}

func TestDeviceFigures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "device.json")
	code, stdout, stderr := runArgs(t, "device", "-quick", "-max-size", "16384", "-json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "launch") {
		t.Fatalf("no launch figure in %q", stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	figs := map[string]bool{}
	for _, r := range doc.Rows {
		figs[r["figure"].(string)] = true
		for _, k := range []string{"figure", "variant", "size_bytes", "sync", "latency_ns", "bandwidth_gbps"} {
			if _, ok := r[k]; !ok {
				t.Fatalf("row %v lacks %q", r, k)
			}
		}
	}
	for _, f := range []string{"allocator", "malloc", "launch", "h2d", "d2h", "d2d"} {
		if !figs[f] {
			t.Errorf("no %s figure", f)
		}
	}
	if code, _, _ := runArgs(t, "device", "-nope"); code != 2 {
		t.Fatalf("bad device flag: exit %d", code)
	}
	if code, _, stderr := runArgs(t, "device", "-figures", "launch,bogus"); code != 2 || !strings.Contains(stderr, `"bogus"`) {
		t.Fatalf("unknown figure: exit %d: %s", code, stderr)
	}
}

// TestDeviceFigureSelection checks that -figures runs exactly the figures
// named, the decode allocation trace among them.
func TestDeviceFigureSelection(t *testing.T) {
	for _, tc := range []struct {
		figures string
		want    []string
	}{
		{"launch", []string{"launch"}},
		{"d2d, allocator", []string{"allocator", "d2d"}},
		{"decode-trace", []string{"decode-trace"}},
	} {
		path := filepath.Join(t.TempDir(), "device.json")
		code, _, stderr := runArgs(t, "device", "-quick", "-max-size", "16384", "-figures", tc.figures, "-json", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.figures, code, stderr)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Rows []struct {
				Figure string `json:"figure"`
			} `json:"rows"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range doc.Rows {
			if !slices.Contains(got, r.Figure) {
				got = append(got, r.Figure)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("-figures %q ran %v, want %v", tc.figures, got, tc.want)
		}
	}
}

func TestDeviceSelection(t *testing.T) {
	code, stdout, stderr := runArgs(t, "-real", "-reps", "1", "-scenario", "smallops", "-device", "gpu")
	if code != 0 || !strings.Contains(stdout, "device gpu") {
		t.Fatalf("-device gpu: exit %d: %s%s", code, stdout, stderr)
	}
	if code, _, _ := runArgs(t, "-device", "tpu"); code != 2 {
		t.Fatalf("-device tpu: exit %d", code)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"nonsense": 1}`), 0o644)
	if code, _, _ := runArgs(t, "-device", bad); code != 2 {
		t.Fatalf("-device with a bad profile: exit %d", code)
	}
}

func TestPlanModeReadsEveryPlan(t *testing.T) {
	for _, m := range plan.Modes() {
		for _, b := range []plan.BarrierPolicy{plan.Drain, plan.PerTensor} {
			p, err := plan.PlanOf(m, b)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := planMode(p.String())
			if !ok || got.Name != m.String() {
				t.Fatalf("%q read as %+v, %v", p.String(), got, ok)
			}
			for s := range got.Worker {
				if got.Worker[s] != int(p.Worker[s+1]) {
					t.Fatalf("%q: stage %d on worker %d, plan says %d", p.String(), s, got.Worker[s], p.Worker[s+1])
				}
			}
		}
	}
	for _, bad := range []string{"", "pipeline", "pipeline/drain 01", "kbk/drain 00x0"} {
		if _, ok := planMode(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestTraceCountsItsKernels: the line after a traced run gives the
// kernels the traced runs launched: every repetition of every variant
// (not the warm-up, which is not traced), each of the scenario's kernels.
func TestTraceCountsItsKernels(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "out.json")
	code, stdout, stderr := runArgs(t, "-real", "-reps", "2", "-scenario", "dynshape", "-mode", "kbk", "-analyze=false",
		"-trace", filepath.Join(dir, "t.pftrace"), "-json", js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Results []struct {
			Kernels int `json:"kernels"`
		} `json:"results"`
	}
	readJSON(t, js, &doc)
	if len(doc.Results) != 1 {
		t.Fatalf("results %+v", doc)
	}
	want := fmt.Sprintf("(%d traced kernels", doc.Results[0].Kernels*2)
	if !strings.Contains(stdout, want) {
		t.Fatalf("stdout %q lacks %q", stdout, want)
	}
}

// TestBadFlagIsOneLine: a flag the flag package refuses (unknown, or a
// value of the wrong kind) is said in one line and a hint, with exit
// status 2, for the main command and a subcommand alike; -h still prints
// the usage; a -const value that is not a number says so without Go's
// function names.
func TestBadFlagIsOneLine(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"-seed", "-1"}, {"soak", "-runs", "abc"}, {"moe", "-nope"}, {"sweep", "-nope"}} {
		code, _, stderr := runArgs(t, args...)
		if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; code != 2 || lines > 2 {
			t.Errorf("%v: exit %d, %d lines of stderr %q; want 2 and at most 2 lines", args, code, lines, stderr)
		}
	}
	if code, _, stderr := runArgs(t, "-h"); code != 0 || !strings.Contains(stderr, "Flags:") {
		t.Errorf("-h: exit %d, stderr %.80q", code, stderr)
	}
	code, _, stderr := runArgs(t, "-model", "../../models/silero-vad-v5.onnx", "-const", "sr=abc")
	if code != 2 || !strings.Contains(stderr, `"abc" is not a number of dtype int64`) || strings.Contains(stderr, "strconv") {
		t.Errorf("-const sr=abc: exit %d, stderr %q", code, stderr)
	}
}

// TestExitStatuses: every subcommand exits 0 after -h (its usage on
// stderr, nothing on stdout) and on success, 2 on a usage error (what is
// wrong and where the usage is, on stderr, nothing on stdout), 1 when
// the work fails.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	type tc struct {
		args []string
		code int
		want string // on stderr
	}
	cases := []tc{
		{[]string{"-h"}, 0, "Usage: pipebench [flags]"},
		{[]string{"-scenario", "nosuch"}, 2, "run 'pipebench -h' for usage"},
		{[]string{"-quick", "-scenario", "smallops", "-mode", "kbk", "-reps", "1", "-json", filepath.Join(dir, "no", "x.json")}, 2, "run 'pipebench -h' for usage"},
		{[]string{"analyze"}, 2, "run 'pipebench analyze -h' for usage"},
		{[]string{"analyze", filepath.Join(dir, "nosuch.pftrace")}, 2, "run 'pipebench analyze -h' for usage"},
		{[]string{"analyze", dir}, 2, "run 'pipebench analyze -h' for usage"},
		{[]string{"analyze", junk}, 1, "holds no runs"},
		{[]string{"device", "-figures", "nosuch"}, 2, "run 'pipebench device -h' for usage"},
		{[]string{"device", "-max-size", "-1"}, 2, "run 'pipebench device -h' for usage"},
		{[]string{"soak", "-scenario", "nosuch"}, 2, "run 'pipebench soak -h' for usage"},
		{[]string{"soak", "-duration", "-1s"}, 2, "run 'pipebench soak -h' for usage"},
		{[]string{"moe", "-ranks", "0"}, 2, "run 'pipebench moe -h' for usage"},
		{[]string{"scenarios", "-dump", "nosuch"}, 2, "run 'pipebench scenarios -h' for usage"},
		{[]string{"scenarios", "-quick"}, 2, "-quick goes with -dump"},
		{[]string{"scenarios"}, 0, ""},
		{[]string{"scenarios", "-dump", "decode", "-quick"}, 0, ""},
		{[]string{"profiles", "-dump", "nosuch"}, 2, "run 'pipebench profiles -h' for usage"},
		{[]string{"profiles", "-dump", "gpu"}, 0, ""},
		{[]string{"sweep", "-scenario", "decode", "-quick"}, 2, "run 'pipebench sweep -h' for usage"},
		{[]string{"report", filepath.Join(dir, "nosuch")}, 2, "run 'pipebench report -h' for usage"},
	}
	for _, sub := range []string{"analyze", "device", "soak", "moe", "scenarios", "profiles", "sweep", "report"} {
		hint := "run 'pipebench " + sub + " -h' for usage"
		cases = append(cases,
			tc{[]string{sub, "-h"}, 0, "Usage: pipebench " + sub},
			tc{[]string{sub, "-bogus"}, 2, "-bogus\n" + hint},
			tc{[]string{sub, "a", "b"}, 2, hint})
	}
	for _, c := range cases {
		code, out, errb := runArgs(t, c.args...)
		if code != c.code || !strings.Contains(errb, c.want) || code != 0 && out != "" || c.args[len(c.args)-1] == "-h" && out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, out, errb, c.code, c.want)
		}
	}
}
