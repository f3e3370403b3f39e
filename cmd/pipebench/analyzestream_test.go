package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pipert/pipert/internal/race"
	"github.com/pipert/pipert/trace"
	"github.com/pipert/pipert/trace/analysis"
)

// checkStreamingEqualsReference analyses the trace at path both ways and
// compares the summaries and the printed analysis.
func checkStreamingEqualsReference(t *testing.T, path string) {
	t.Helper()
	cores := runtime.GOMAXPROCS(0)
	p, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := analyzeTraceRef(p, cores)
	if err != nil {
		t.Fatal(err)
	}
	got, warns, err := analyzeFile(context.Background(), path, cores)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) > 0 {
		t.Errorf("%s: warnings %q", path, warns)
	}
	if len(want) == 0 {
		t.Fatalf("%s: no actor analysed", path)
	}
	t.Logf("%s: %d actors", path, len(want))
	if len(got) != len(want) {
		t.Fatalf("%s: %d actors, reference %d", path, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: actor %d:\n streaming %+v\n reference %+v", path, i, got[i], want[i])
		}
	}
	var a, b bytes.Buffer
	writeAnalysis(&a, got)
	writeAnalysis(&b, want)
	if a.String() != b.String() {
		t.Errorf("%s: streaming analysis\n%s\nreference\n%s", path, a.String(), b.String())
	}
}

// TestStreamingEqualsInMemory traces every built-in scenario in every mode
// pipebench runs (at the small size on real data, one repetition), in
// both formats, and checks that the streaming analysis finds exactly what
// the in-memory reference finds. Under the race detector, which makes that
// a matter of minutes, it takes smallops (kbk, replay) as Perfetto and
// hetero (its parts on shared devices) as JSON.
func TestStreamingEqualsInMemory(t *testing.T) {
	runs := [][]string{{".pftrace"}, {".json"}}
	if race.Enabled {
		runs = [][]string{{".pftrace", "-scenario", "smallops,decode", "-mode", "kbk,async,pipeline,replay"}, {".json", "-scenario", "hetero", "-mode", "hetero"}}
	}
	for _, run := range runs {
		ext := run[0]
		path := filepath.Join(t.TempDir(), "all"+ext)
		code, _, stderr := runArgs(t, append([]string{"-real", "-reps", "1", "-analyze=false", "-trace", path}, run[1:]...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", ext, code, stderr)
		}
		checkStreamingEqualsReference(t, path)
	}
}

// TestStreamingOnFiles checks the traces named in PIPERT_TRACES (a list
// of paths), such as big ones written by hand.
func TestStreamingOnFiles(t *testing.T) {
	paths := filepath.SplitList(os.Getenv("PIPERT_TRACES"))
	if len(paths) == 0 {
		t.Skip("PIPERT_TRACES not set")
	}
	for _, p := range paths {
		checkStreamingEqualsReference(t, p)
	}
}

// TestAnalyzeBadInput: a truncated trace, one from another tool and one
// without pipert's track names are analysed as far as they go, with a
// warning naming what is missing, or rejected with a clear error; never a
// panic. A trace read only in part exits 1 after its table, so that no
// script takes its numbers for the whole; a directory is a usage error.
func TestAnalyzeBadInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	smallopsTrace(t, path, 2)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.json")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runArgs(t, "analyze", cut)
	if code != 1 || !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "truncated") || !strings.Contains(stderr, "could not be read to its end") || !strings.Contains(stdout, "smallops kbk") {
		t.Errorf("truncated trace: exit %d\n%s%s", code, stdout, stderr)
	}
	for name, body := range map[string]string{
		"other.json":   `{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"work"}]}`,
		"nometa.json":  `[{"ph":"B","pid":1,"tid":1,"ts":0,"name":"run"},{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"Add prepare"},{"ph":"s","pid":1,"tid":1,"ts":1,"id":1},{"ph":"E","pid":1,"tid":1,"ts":5}]`,
		"garbage.bin":  "\xff\xfe not a trace",
		"noruns.json":  `[{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"a runner"}},{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"Add prepare"}]`,
		"nodev.json":   `[{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"a runner"}},{"ph":"B","pid":1,"tid":1,"ts":0,"name":"run"},{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"Add prepare"},{"ph":"s","pid":1,"tid":1,"ts":1,"id":1},{"ph":"E","pid":1,"tid":1,"ts":5}]`,
		"unended.json": `[{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"a runner"}},{"ph":"B","pid":1,"tid":1,"ts":0,"name":"run"}]`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runArgs(t, "analyze", p)
		switch name {
		case "nodev.json":
			if code != 0 || !strings.Contains(stderr, "no device track") {
				t.Errorf("%s: exit %d\n%s%s", name, code, stdout, stderr)
			}
		default:
			if code != 1 || stderr == "" {
				t.Errorf("%s: exit %d\n%s%s", name, code, stdout, stderr)
			}
		}
	}
	if code, _, stderr := runArgs(t, "analyze", dir); code != 2 || !strings.Contains(stderr, "is a directory") {
		t.Errorf("a directory: exit %d, %s", code, stderr)
	}
}

// TestTraceMetaCalibration: the machine track's calibration instant is
// read with and without the tracing cost and the runner's step (older
// traces), and untrace
// takes that cost out of the timed stages only, none below zero.
func TestTraceMetaCalibration(t *testing.T) {
	var m traceMeta
	m.instant("calibration handoff=120 spin=30 trace=90")
	if !m.calibrated || m.handoff != 120 || m.spin != 30 || m.trace != 90 {
		t.Errorf("with trace: %+v", m)
	}
	var st traceMeta
	st.instant("calibration handoff=120 spin=30 trace=90 step=170")
	if !st.calibrated || st.handoff != 120 || st.spin != 30 || st.trace != 90 || st.step != 170 {
		t.Errorf("with step: %+v", st)
	}
	if m.step != 0 {
		t.Errorf("without step: %+v", m)
	}
	var old traceMeta
	old.instant("calibration handoff=120 spin=30")
	if !old.calibrated || old.handoff != 120 || old.spin != 30 || old.trace != 0 {
		t.Errorf("without trace: %+v", old)
	}
	var bad traceMeta
	bad.instant("calibration handoff=120 spin=30 trace=-5")
	if bad.calibrated {
		t.Errorf("negative trace cost accepted: %+v", bad)
	}
	// Tracing's cost by mode: async's and pipeline's own when the trace
	// has them, KBK's for the other modes and for older traces.
	if got := st.traceOf(analysis.Pipeline); got != 90 {
		t.Errorf("without the costs by mode, pipeline's is %d, want KBK's 90", got)
	}
	st.instant("calibration trace async=40 pipeline=150")
	if !st.calibrated || st.handoff != 120 || st.trace != 90 || st.step != 170 {
		t.Errorf("the costs by mode changed the rest: %+v", st)
	}
	for _, c := range []struct {
		m    analysis.Mode
		want int64
	}{{analysis.KBK, 90}, {analysis.Async, 40}, {analysis.Pipeline, 150}, {analysis.Mode{Name: "replay"}, 90}} {
		if got := st.traceOf(c.m); got != c.want {
			t.Errorf("%s: tracing cost %d, want %d", c.m.Name, got, c.want)
		}
	}
	st.instant("calibration trace async=-1 pipeline=5")
	if st.traceAsync != 40 || st.tracePipeline != 150 {
		t.Errorf("a negative cost by mode was taken: %+v", st)
	}
	if got := (*traceMeta)(nil).traceOf(analysis.Async); got != 0 {
		t.Errorf("no metadata: tracing cost %d", got)
	}
	k := analysis.Kernel{Prepare: 0, Infer: 100, Resize: 20, Launch: 60, Device: 7}
	untrace(&k, 90) // 30 a timed stage
	if want := (analysis.Kernel{Prepare: 0, Infer: 70, Resize: 0, Launch: 30, Device: 7}); k != want {
		t.Errorf("untrace: %+v, want %+v", k, want)
	}
}

// TestAnalyzeReplayedRun reads a hand-written run holding one kernel
// launched on its own and a replay's submission of three: each of the
// three is placed in the run by its launch slice, which begins their three
// flows; the launch latency comes from the first kernel only, and the
// replay's device rate from the three (first 2 µs after the submission
// began, then 4 µs apart). The prediction, worked out by hand: the first
// kernel's prepare and launch end at 3 µs after the first host slice and
// its device at 8; the submission begins at 3, its kernels run on the
// device at 8–10, 10–12 and 13–15 (3 + 2 + 2×4); plus the run's 1 µs
// before its first host slice and 8 µs after its last device slice: 24 µs.
func TestAnalyzeReplayedRun(t *testing.T) {
	const body = `[
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"x runner"}},
{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"x launch"}},
{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"x stream 0"}},
{"ph":"M","pid":1,"tid":4,"name":"thread_name","args":{"name":"pipebench machine"}},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"gomaxprocs 2"},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"calibration handoff=0 spin=0 trace=0"},
{"ph":"i","pid":1,"tid":1,"ts":0,"name":"plan replay/per-tensor 0123"},
{"ph":"B","pid":1,"tid":1,"ts":0,"name":"run"},
{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"Add prepare"},{"ph":"s","pid":1,"tid":1,"ts":1,"id":1},
{"ph":"E","pid":1,"tid":1,"ts":30},
{"ph":"X","pid":1,"tid":2,"ts":3,"dur":2,"name":"Add"},{"ph":"t","pid":1,"tid":2,"ts":3,"id":1},
{"ph":"X","pid":1,"tid":2,"ts":10,"dur":5,"name":"Mul"},{"ph":"s","pid":1,"tid":2,"ts":10,"id":2},{"ph":"s","pid":1,"tid":2,"ts":10,"id":3},{"ph":"s","pid":1,"tid":2,"ts":10,"id":4},
{"ph":"X","pid":1,"tid":3,"ts":6,"dur":4,"name":"Add"},{"ph":"f","pid":1,"tid":3,"ts":6,"id":1},
{"ph":"X","pid":1,"tid":3,"ts":12,"dur":2,"name":"Mul"},{"ph":"f","pid":1,"tid":3,"ts":12,"id":2},
{"ph":"X","pid":1,"tid":3,"ts":16,"dur":2,"name":"Mul"},{"ph":"f","pid":1,"tid":3,"ts":16,"id":3},
{"ph":"X","pid":1,"tid":3,"ts":20,"dur":2,"name":"Mul"},{"ph":"f","pid":1,"tid":3,"ts":20,"id":4}
]`
	s := analyzeOne(t, body)
	if s.name != "x" || s.mode != "replay" || s.kernels != 4 || s.measured != 30000 || s.latency != 1000 || s.unmatched != 0 {
		t.Errorf("summary %+v: want actor x, mode replay, 4 kernels, 30 µs measured, 1 µs latency", s)
	}
	if got := s.predicted["replay"]; got != 24000 {
		t.Errorf("predicted %d ns, want 24000", got)
	}
}

// TestAnalyzeWake reads an async run of three kernels whose launches each
// begin after their worker, idle, was handed the kernel: 2, 2 and 3 µs
// after their prepare ended, the runner busy meanwhile. On two cores a
// core was free at each hand-off: the workers' wake-up is the median,
// 2 µs. The prediction, by hand, from the first host slice: prepares at
// 0–2, 2–7 and 7–12; launches, each to an idle worker, at 4–6, 9–11 and
// 14–15; devices right after (latency 0) at 6–7, 11–12 and 15–16; plus
// the run's 1 µs before its first slice and 1 µs after its last: 18 µs
// (16 without the wake-ups). On one core the runner's work took the core
// at the first two hand-offs: only the last one, 3 µs, is a wake-up.
func TestAnalyzeWake(t *testing.T) {
	const body = `[
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"x runner"}},
{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"x launch"}},
{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"x stream 0"}},
{"ph":"M","pid":1,"tid":4,"name":"thread_name","args":{"name":"pipebench machine"}},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"gomaxprocs CORES"},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"calibration handoff=0 spin=0 trace=0"},
{"ph":"i","pid":1,"tid":1,"ts":0,"name":"plan async/per-tensor 0001"},
{"ph":"B","pid":1,"tid":1,"ts":0,"name":"run"},
{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"Add prepare"},{"ph":"s","pid":1,"tid":1,"ts":1,"id":1},
{"ph":"X","pid":1,"tid":1,"ts":3,"dur":5,"name":"Mul prepare"},{"ph":"s","pid":1,"tid":1,"ts":3,"id":2},
{"ph":"X","pid":1,"tid":1,"ts":8,"dur":5,"name":"Sub prepare"},{"ph":"s","pid":1,"tid":1,"ts":8,"id":3},
{"ph":"E","pid":1,"tid":1,"ts":19},
{"ph":"X","pid":1,"tid":2,"ts":5,"dur":2,"name":"Add"},{"ph":"t","pid":1,"tid":2,"ts":5,"id":1},
{"ph":"X","pid":1,"tid":2,"ts":10,"dur":2,"name":"Mul"},{"ph":"t","pid":1,"tid":2,"ts":10,"id":2},
{"ph":"X","pid":1,"tid":2,"ts":16,"dur":1,"name":"Sub"},{"ph":"t","pid":1,"tid":2,"ts":16,"id":3},
{"ph":"X","pid":1,"tid":3,"ts":7,"dur":1,"name":"Add"},{"ph":"f","pid":1,"tid":3,"ts":7,"id":1},
{"ph":"X","pid":1,"tid":3,"ts":12,"dur":1,"name":"Mul"},{"ph":"f","pid":1,"tid":3,"ts":12,"id":2},
{"ph":"X","pid":1,"tid":3,"ts":17,"dur":1,"name":"Sub"},{"ph":"f","pid":1,"tid":3,"ts":17,"id":3}
]`
	s := analyzeOne(t, strings.Replace(body, "CORES", "2", 1))
	if s.mode != "async" || s.kernels != 3 || s.latency != 0 || s.wake != 2000 {
		t.Errorf("two cores: summary %+v: want async, 3 kernels, latency 0, wake-up 2 µs", s)
	}
	if got := s.predicted["async"]; got != 18000 {
		t.Errorf("two cores: predicted %d ns, want 18000", got)
	}
	if s := analyzeOne(t, strings.Replace(body, "CORES", "1", 1)); s.wake != 3000 {
		t.Errorf("one core: wake-up %d ns, want 3 µs", s.wake)
	}
}

// analyzeOne analyses the JSON trace body, which must give one actor and
// no warnings, checks the streaming analysis against the in-memory
// reference on it, and returns the actor's summary.
func analyzeOne(t *testing.T, body string) actorSummary {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sums, warns, err := analyzeFile(context.Background(), path, 2)
	if err != nil || len(warns) > 0 {
		t.Fatalf("analyzeFile: %v, warnings %q", err, warns)
	}
	if len(sums) != 1 {
		t.Fatalf("%d actors, want 1: %+v", len(sums), sums)
	}
	checkStreamingEqualsReference(t, path)
	return sums[0]
}

// TestAnalyzeEarlyDevice: an asynchronous device that ends short kernels
// before their launch calls return (the SW-AI card takes a kernel early in
// the call) keeps their device time, and the launch latency is negative.
// Kernels 0 and 1 launch at 1–10 and 11–20 and run on the device at 3–4
// and 13–14; kernel 2 launches at 21–23 and runs at 24–30, past its
// launch: the device is asynchronous. Latencies −7, −7 and 1: median −7
// µs. The prediction, by hand: kernel 0's device at 3–4, kernel 1's at
// 13–14, kernel 2's no earlier than its launch began (21, as 23 − 7 is
// earlier) and after 14: 21–27; plus the 1 µs after the last device
// slice: 28 µs.
func TestAnalyzeEarlyDevice(t *testing.T) {
	const body = `[
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"x runner"}},
{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"x stream 0"}},
{"ph":"M","pid":1,"tid":4,"name":"thread_name","args":{"name":"pipebench machine"}},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"gomaxprocs 2"},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"calibration handoff=0 spin=0 trace=0"},
{"ph":"i","pid":1,"tid":1,"ts":0,"name":"plan kbk/per-tensor 0000"},
{"ph":"B","pid":1,"tid":1,"ts":0,"name":"run"},
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":"Add prepare"},{"ph":"s","pid":1,"tid":1,"ts":0,"id":1},
{"ph":"X","pid":1,"tid":1,"ts":1,"dur":9,"name":"Add launch"},{"ph":"t","pid":1,"tid":1,"ts":1,"id":1},
{"ph":"X","pid":1,"tid":1,"ts":10,"dur":1,"name":"Add prepare"},{"ph":"s","pid":1,"tid":1,"ts":10,"id":2},
{"ph":"X","pid":1,"tid":1,"ts":11,"dur":9,"name":"Add launch"},{"ph":"t","pid":1,"tid":1,"ts":11,"id":2},
{"ph":"X","pid":1,"tid":1,"ts":20,"dur":1,"name":"Mul prepare"},{"ph":"s","pid":1,"tid":1,"ts":20,"id":3},
{"ph":"X","pid":1,"tid":1,"ts":21,"dur":2,"name":"Mul launch"},{"ph":"t","pid":1,"tid":1,"ts":21,"id":3},
{"ph":"E","pid":1,"tid":1,"ts":31},
{"ph":"X","pid":1,"tid":3,"ts":3,"dur":1,"name":"Add"},{"ph":"f","pid":1,"tid":3,"ts":3,"id":1},
{"ph":"X","pid":1,"tid":3,"ts":13,"dur":1,"name":"Add"},{"ph":"f","pid":1,"tid":3,"ts":13,"id":2},
{"ph":"X","pid":1,"tid":3,"ts":24,"dur":6,"name":"Mul"},{"ph":"f","pid":1,"tid":3,"ts":24,"id":3}
]`
	s := analyzeOne(t, body)
	if s.kernels != 3 || s.latency != -7000 {
		t.Errorf("summary %+v: want 3 kernels, latency -7 µs", s)
	}
	if got := s.predicted["kbk"]; got != 28000 {
		t.Errorf("predicted %d ns, want 28000", got)
	}
}

// TestAnalyzeSynchronousDeviceBeside: an actor whose kernels run on two
// devices it shares, as the serial schedule of a heterogeneous run does:
// kernel 0 on the host CPU ("gpu cpu"), which computes inside the launch
// call (1–5, its device slice 2–5: synchronous, its time is the launch's),
// kernel 1 on the accelerator ("gpu"), launched at 6–7 and run at 8–20,
// past its launch (asynchronous). Only the accelerator's kernels keep
// their device time. Latencies −3 and 1: the median 1. The prediction,
// by hand: kernel 0's device ends at its launch's end plus 1, 6, with no
// time of its own; kernel 1's at 8–20; plus the run's 2 after: 22 µs (23
// if kernel 0 kept its 3 µs: 9, then 9–21).
func TestAnalyzeSynchronousDeviceBeside(t *testing.T) {
	const body = `[
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"x runner"}},
{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"gpu stream 0"}},
{"ph":"M","pid":1,"tid":5,"name":"thread_name","args":{"name":"gpu cpu stream 0"}},
{"ph":"M","pid":1,"tid":4,"name":"thread_name","args":{"name":"pipebench machine"}},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"gomaxprocs 2"},
{"ph":"i","pid":1,"tid":4,"ts":0,"name":"calibration handoff=0 spin=0 trace=0"},
{"ph":"i","pid":1,"tid":1,"ts":0,"name":"plan kbk/per-tensor 0000"},
{"ph":"B","pid":1,"tid":1,"ts":0,"name":"run"},
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":"Relu prepare"},{"ph":"s","pid":1,"tid":1,"ts":0,"id":1},
{"ph":"X","pid":1,"tid":1,"ts":1,"dur":4,"name":"Relu launch"},{"ph":"t","pid":1,"tid":1,"ts":1,"id":1},
{"ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"name":"MatMul prepare"},{"ph":"s","pid":1,"tid":1,"ts":5,"id":2},
{"ph":"X","pid":1,"tid":1,"ts":6,"dur":1,"name":"MatMul launch"},{"ph":"t","pid":1,"tid":1,"ts":6,"id":2},
{"ph":"E","pid":1,"tid":1,"ts":22},
{"ph":"X","pid":1,"tid":5,"ts":2,"dur":3,"name":"Relu"},{"ph":"f","pid":1,"tid":5,"ts":2,"id":1},
{"ph":"X","pid":1,"tid":3,"ts":8,"dur":12,"name":"MatMul"},{"ph":"f","pid":1,"tid":3,"ts":8,"id":2}
]`
	s := analyzeOne(t, body)
	if s.name != "x" || s.kernels != 2 || s.latency != 1000 {
		t.Errorf("summary %+v: want actor x, 2 kernels, latency 1 µs", s)
	}
	if got := s.predicted["kbk"]; got != 22000 {
		t.Errorf("predicted %d ns, want 22000", got)
	}
}

// TestShareCores: the parts of one heterogeneous executable, matched by
// name and run index, share the cores run by run; an actor of another
// executable, or one with a device of its own, keeps no shared prediction;
// a part whose runs are fewer limits the runs compared.
func TestShareCores(t *testing.T) {
	sums := []actorSummary{
		{name: "x hetero/a.cpu", shared: true, parts: []partRun{{0, 10, 10}, {100, 10, 10}, {200, 4, 4}}},
		{name: "x hetero/b.cpu", shared: true, parts: []partRun{{0, 10, 10}, {105, 10, 10}}},
		{name: "x hetero/c.device", shared: true, parts: []partRun{{0, 10, 0}, {100, 10, 0}}}, // only waits
		{name: "y hetero/a.cpu", shared: true, parts: []partRun{{0, 10, 10}}},
		{name: "x kbk", parts: []partRun{{0, 10, 10}}},
	}
	shareCores(sums, map[string]bool{"x": true, "nothing": true}, 1)
	// Run 0: a and b share one core, 20 each; run 1: a runs alone for 5,
	// then both at half speed, a ends at 115 and b at 120, 15 each. The
	// median of two is the upper: 20. c waits and is not slowed down.
	for i, want := range []int64{20, 20, 10, 0, 0} {
		if sums[i].sharedPred != want {
			t.Errorf("%s: shared prediction %d, want %d", sums[i].name, sums[i].sharedPred, want)
		}
	}
}

// TestAnalyzeStopsWhenInterrupted: the analysis of a trace stops with the
// context's error once it ends (Ctrl-C), where it read the whole trace.
func TestAnalyzeStopsWhenInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.pftrace")
	smallopsTrace(t, path, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := analyzeFile(ctx, path, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("analysis after the interrupt: %v, want context.Canceled", err)
	}
	var stdout, stderr strings.Builder
	if code := runAnalyze(ctx, []string{path}, &stdout, &stderr, 2); code != 1 || stdout.Len() > 0 {
		t.Errorf("pipebench analyze after the interrupt: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestAnalyzeDamagedDeviceSlices: a trace whose device slices overlap on
// their stream (each 10 000 times its length) is analysed with a warning
// and exits 1: its device use would read above 1.
func TestAnalyzeDamagedDeviceSlices(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	smallopsTrace(t, path, 1)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	devicePid := -1.0
	for _, e := range doc.TraceEvents {
		if e["ph"] == "M" && e["name"] == "process_name" {
			if args, ok := e["args"].(map[string]any); ok && args["name"] == "device" {
				devicePid = e["pid"].(float64)
			}
		}
	}
	n := 0
	for _, e := range doc.TraceEvents {
		if e["ph"] == "X" && e["pid"] == devicePid {
			e["dur"] = e["dur"].(float64) * 10000 // well beyond the run, however slow the host
			n++
		}
	}
	if n == 0 {
		t.Fatal("no device slice in the trace")
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "damaged.json")
	if err := os.WriteFile(damaged, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runArgs(t, "analyze", damaged); code != 1 || !strings.Contains(stderr, "device slices overlap or outlast their runs") || !strings.Contains(stdout, "smallops kbk") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runArgs(t, "analyze", path); code != 0 {
		t.Errorf("the sound trace: exit %d: %s", code, stderr)
	}
}

// TestTraceOfNoKernels: a traced graph of no kernels (a model's input
// taken as its output) is no damaged trace: the run exits 0 and writes its
// files.
func TestTraceOfNoKernels(t *testing.T) {
	dir := t.TempDir()
	tr, js := filepath.Join(dir, "t.pftrace"), filepath.Join(dir, "r.json")
	code, stdout, stderr := runArgs(t, "-model", "../../models/silero-vad-v5.onnx", "-const", "sr=16000", "-input", "input=1x512,state=2x1x128",
		"-outputs", "input", "-reps", "1", "-mode", "kbk", "-trace", tr, "-json", js)
	if code != 0 || strings.Contains(stderr, "no slice tied to a kernel") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(js); err != nil {
		t.Errorf("-json: %v", err)
	}
}

// smallopsTrace writes to path the trace of reps repetitions of smallops
// in KBK on real data, not analysed.
func smallopsTrace(t *testing.T, path string, reps int) {
	t.Helper()
	if code, _, stderr := runArgs(t, "-real", "-reps", strconv.Itoa(reps), "-scenario", "smallops", "-mode", "kbk", "-analyze=false", "-trace", path); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
