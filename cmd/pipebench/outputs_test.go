package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/trace"
)

// failingWriter accepts ok bytes, then fails every write.
type failingWriter struct{ ok int }

var errDiskFull = errors.New("no space left on device (fake)")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.ok {
		w.ok -= len(p)
		return len(p), nil
	}
	n := w.ok
	w.ok = 0
	return n, errDiskFull
}

// TestWriteOutputRemovesOnlyWhatItCreated: a failed write removes the file
// only when this run created it; an existing file stays (a FIFO too:
// TestWriteOutputKeepsFIFO).
func TestWriteOutputRemovesOnlyWhatItCreated(t *testing.T) {
	dir := t.TempDir()
	fail := func(w io.Writer) error {
		w.Write([]byte("half"))
		return errDiskFull
	}

	existing := filepath.Join(dir, "existing.txt")
	if err := os.WriteFile(existing, []byte("someone's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeOutput(existing, fail); !errors.Is(err, errDiskFull) {
		t.Errorf("existing file: err %v, want the write's", err)
	}
	if _, err := os.Stat(existing); err != nil {
		t.Errorf("a failed write removed the file that was there: %v", err)
	}

	created := filepath.Join(dir, "new.txt")
	if err := writeOutput(created, fail); !errors.Is(err, errDiskFull) {
		t.Errorf("new file: err %v, want the write's", err)
	}
	if _, err := os.Stat(created); !os.IsNotExist(err) {
		t.Errorf("a failed write left the half file it created (stat err %v)", err)
	}

	ok := filepath.Join(dir, "ok.txt")
	if err := writeOutput(ok, func(w io.Writer) error { _, err := w.Write([]byte("x\n")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(ok); string(b) != "x\n" {
		t.Errorf("written %q, want %q", b, "x\n")
	}
	// Written over: truncated, not appended to.
	if err := writeOutput(ok, func(w io.Writer) error { _, err := w.Write([]byte("y\n")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(ok); string(b) != "y\n" {
		t.Errorf("rewritten %q, want %q", b, "y\n")
	}
}

// TestBenchfmtWriteError: a failing writer's error reaches writeBenchfmt's
// caller.
func TestBenchfmtWriteError(t *testing.T) {
	rep := &report{Device: "swai", series: []series{{scenario: "smallops", ref: -1, reps: make([]sample, 3)}}}
	if err := writeBenchfmtTo(&failingWriter{ok: 10}, rep); !errors.Is(err, errDiskFull) {
		t.Errorf("err %v, want the writer's", err)
	}
}

// TestCPUProfileWriteError: a CPU profile whose writes fail is an error
// when it stops (pprof drops it).
func TestCPUProfileWriteError(t *testing.T) {
	stop, err := startCPUProfileTo(&failingWriter{})
	if err != nil {
		t.Skipf("a CPU profile is running already: %v", err)
	}
	if err := stop(); !errors.Is(err, errDiskFull) {
		t.Errorf("stop: err %v, want the writer's", err)
	}
	path := filepath.Join(t.TempDir(), "cpu.prof")
	stop, err = startCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Errorf("a profile that could be written: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("profile not written: %v %v", fi, err)
	}
}

// TestOutputsDistinct: two outputs naming one file, or an output naming an
// input, are usage errors before anything runs.
func TestOutputsDistinct(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(p("real.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("real.json"), p("link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-trace", p("same.json"), "-json", p("same.json")}, "-json and -trace both write"},
		{[]string{"-benchfmt", p("x.txt"), "-cpuprofile", p("sub/../x.txt")}, "-benchfmt and -cpuprofile both write"},
		{[]string{"-json", p("real.json"), "-benchfmt", p("link.json")}, "-json and -benchfmt both write"},
		{[]string{"-json", "../../models/silero-vad-v5.onnx", "-model", "../../models/silero-vad-v5.onnx"}, "would write over the file of -model"},
	} {
		args := tc.args
		if !slices.Contains(args, "-model") {
			args = append([]string{"-scenario", "smallops", "-quick", "-reps", "1"}, args...)
		}
		_, err := parseFlags(args, io.Discard)
		if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
	// The files a scenario file names are inputs too: its device profile
	// and its model (both relative to the file).
	prof, err := os.ReadFile("../../models/ppocr-cls.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("m.onnx"), prof, 0o644); err != nil {
		t.Fatal(err)
	}
	var dump strings.Builder
	if code := run(context.Background(), []string{"profiles", "-dump", "swai", "-json"}, &dump, io.Discard); code != 0 {
		t.Fatalf("profiles -dump: exit %d", code)
	}
	if err := os.WriteFile(p("p.json"), []byte(dump.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sf := p("s.yaml")
	if err := os.WriteFile(sf, []byte("name: s\ngraph:\n  onnx: m.onnx\n  inputs: {x: [1, 3, 48, 192]}\ndevice:\n  profile: p.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ flag, file, want string }{
		{"-json", "p.json", "would write over the file of -scenario-file's device.profile"},
		{"-benchfmt", "m.onnx", "would write over the file of -scenario-file's graph.onnx"},
		{"-cpuprofile", "m.onnx", "would write over the file of -scenario-file's graph.onnx"},
	} {
		_, err := parseFlags([]string{"-scenario-file", sf, "-reps", "1", c.flag, p(c.file)}, io.Discard)
		if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err %v, want a usage error saying %q", c.flag, c.file, err, c.want)
		}
	}
	// Distinct files pass, and the check leaves nothing behind.
	if _, err := parseFlags([]string{"-scenario", "smallops", "-json", p("a.json"), "-benchfmt", p("b.txt")}, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.json", "b.txt"} {
		if _, err := os.Stat(p(f)); !os.IsNotExist(err) {
			t.Errorf("checking -%s left a file (stat err %v)", f, err)
		}
	}
}

// usageMessage is the message of stderr, a usage error of subcommand sub:
// ok when stderr is one line of message then the hint to sub's usage.
func usageMessage(stderr, sub string) (msg string, ok bool) {
	msg, hint, _ := strings.Cut(stderr, "\n")
	return msg, hint == "run 'pipebench "+sub+" -h' for usage\n"
}

// TestSubcommandOutputsCheckedFirst: soak, device and moe refuse an
// unwritable -json before they run (nothing on stdout).
func TestSubcommandOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"soak", "-quick", "-runs", "10", "-duration", "10ms", "-every", "5ms", "-executables", "1", "-json", dir},
		{"device", "-quick", "-figures", "launch", "-json", dir},
		{"moe", "-quick", "-variants", "sorted", "-json", dir},
		{"moe", "-quick", "-variants", "sorted", "-json", filepath.Join(dir, "m.json"), "-trace", filepath.Join(dir, "m.json")},
	} {
		code, stdout, stderr := runArgs(t, args...)
		if _, ok := usageMessage(stderr, args[0]); code != 2 || stdout != "" || !ok {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2, nothing run, one line and the usage hint", args, code, len(stdout), stderr)
		}
	}
}

// TestZeroAndNegativeValues: values the flags' ranges exclude are one-line
// usage errors.
func TestZeroAndNegativeValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-reps", "0"}, "-reps 0: want at least 1"},
		{[]string{"-tiling-blocks", "0"}, "-tiling-blocks 0 outside [1, 1024]"},
		{[]string{"-model", "../../models/silero-vad-v5.onnx", "-tol", "NaN"}, "want a finite number ≥ 0"},
		{[]string{"-model", "../../models/silero-vad-v5.onnx", "-tol", "-1"}, "want a finite number ≥ 0"},
		{[]string{"-cache", "none,local"}, "none cannot be combined with other caches"},
		{[]string{"-cache", "local,default"}, "default cannot be combined with other caches"},
	} {
		args := tc.args
		if args[0] != "-model" {
			args = append([]string{"-scenario", "smallops", "-quick"}, args...)
		}
		_, err := parseFlags(args, io.Discard)
		if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "plan:") {
			t.Errorf("%v: err %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"device", "-quick", "-figures", "launch", "-max-size", "-1"}, "-max-size -1"},
		{[]string{"moe", "-quick", "-variants", "sorted", "-fabric-ranks", "0"}, "-fabric-ranks 0"},
	} {
		code, stdout, stderr := runArgs(t, tc.args...)
		if msg, ok := usageMessage(stderr, tc.args[0]); code != 2 || stdout != "" || !ok || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2 and one line saying %q, then the usage hint", tc.args, code, len(stdout), stderr, tc.want)
		}
	}
}

// TestProfileDurationRange: a device profile's durations are bounded like
// the scenarios' costs, the error naming the field and the range.
func TestProfileDurationRange(t *testing.T) {
	dir := t.TempDir()
	yml := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(yml, []byte("launch:\n  cpu_ns: 100000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "slow.json")
	var b strings.Builder
	if err := dumpProfileJSON(&b, "swai"); err != nil {
		t.Fatal(err)
	}
	// A complete JSON profile (swai.LoadProfile's) with d2d.turnaround_ns
	// at 20 s (a field the launch figure does not use: without the check,
	// the run below ends soon).
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(b.String()), &top); err != nil {
		t.Fatal(err)
	}
	var d2d map[string]any
	if err := json.Unmarshal(top["d2d"], &d2d); err != nil {
		t.Fatal(err)
	}
	d2d["turnaround_ns"] = 20_000_000_000
	raw, _ := json.Marshal(d2d)
	top["d2d"] = raw
	slowb, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	slow := string(slowb)
	if err := os.WriteFile(js, []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, field string }{{yml, "launch.cpu_ns"}, {js, "d2d.turnaround_ns"}} {
		_, err := parseFlags([]string{"-scenario", "smallops", "-quick", "-reps", "1", "-mode", "kbk", "-device", tc.path}, io.Discard)
		if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "outside [0, 10s]") {
			t.Errorf("-device %s: err %v, want a usage error naming %s and [0, 10s]", tc.path, err, tc.field)
		}
	}
	code, stdout, stderr := runArgs(t, "device", "-quick", "-figures", "launch", "-profile", js)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "d2d.turnaround_ns") {
		t.Errorf("device -profile: exit %d, stdout %d bytes, stderr %q; want exit 2 naming d2d.turnaround_ns", code, len(stdout), stderr)
	}
	// A scenario file's overrides go through the same check.
	_, err = overrideProfile(swai.Default(), map[string]any{"launch": map[string]any{"cpu_ns": "100s"}})
	var pe *profileError
	if !errors.As(err, &pe) || pe.field != "launch.cpu_ns" || !strings.Contains(pe.msg, "outside [0, 10s]") {
		t.Errorf("override launch.cpu_ns 100s: err %v, want a profileError naming it and [0, 10s]", err)
	}
	// The bound itself is accepted.
	ok := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(ok, []byte("launch:\n  cpu_ns: 10s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadProfileFile(ok); err != nil {
		t.Errorf("cpu_ns 10s: %v", err)
	}
}

// TestUsageListsMoE: pipebench -h lists every subcommand, moe included.
func TestUsageListsMoE(t *testing.T) {
	code, _, stderr := runArgs(t, "-h")
	if code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, sub := range []string{"device", "analyze", "soak", "moe", "scenarios", "profiles", "sweep", "report"} {
		if !strings.Contains(stderr, "pipebench "+sub+" ") {
			t.Errorf("-h does not list pipebench %s:\n%s", sub, stderr)
		}
	}
}

// TestIncompleteRunKeepsItsResults: a run that fails after some scenarios
// were measured (here ocr at its largest size on a device of 4 MiB, which
// holds smallops) exits 1 but prints and writes what it measured, marked
// incomplete.
func TestIncompleteRunKeepsItsResults(t *testing.T) {
	dir := t.TempDir()
	js, bf, prof := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.txt"), filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(prof, []byte("name: tiny\nmemory_bytes: 4194304\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runArgs(t, "-quick", "-scenario", "smallops,ocr", "-mode", "kbk", "-reps", "1", "-size", "8192", "-device", prof, "-json", js, "-benchfmt", bf)
	if code != 1 || !strings.Contains(stdout, "smallops") || !strings.Contains(stderr, "the run failed") || !strings.Contains(stderr, "hold the 1 rows measured before") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Incomplete string `json:"incomplete"`
		Results    []struct {
			Scenario string `json:"scenario"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Incomplete, "scenario ocr") || len(doc.Results) != 1 || doc.Results[0].Scenario != "smallops" {
		t.Errorf("JSON incomplete %q, results %+v", doc.Incomplete, doc.Results)
	}
	if b, err := os.ReadFile(bf); err != nil || !strings.Contains(string(b), "BenchmarkSmallops") {
		t.Errorf("-benchfmt: %v\n%s", err, b)
	}
}

// TestFailedTraceRemovesOnlyWhatItCreated: a trace whose writing failed
// (its Close's error) is removed when this run created the file, kept
// when the file was there, and kept when it was written.
func TestFailedTraceRemovesOnlyWhatItCreated(t *testing.T) {
	dir := t.TempDir()
	created := filepath.Join(dir, "new.pftrace")
	rec, traced, err := createTrace(created, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec.Close()
	if err := traced.finish(errDiskFull); !errors.Is(err, errDiskFull) {
		t.Errorf("err %v, want the recorder's", err)
	}
	if _, err := os.Stat(created); !os.IsNotExist(err) {
		t.Errorf("a failed trace left the file it created (stat err %v)", err)
	}

	existing := filepath.Join(dir, "existing.pftrace")
	if err := os.WriteFile(existing, []byte("someone's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, traced, err = createTrace(existing, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec.Close()
	traced.finish(errDiskFull)
	if _, err := os.Stat(existing); err != nil {
		t.Errorf("a failed trace removed the file that was there: %v", err)
	}

	ok := filepath.Join(dir, "ok.pftrace")
	rec, traced, err = createTrace(ok, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := traced.finish(rec.Close()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ok); err != nil {
		t.Errorf("the written trace: %v", err)
	}
	var none *tracedFile
	if err := none.finish(errDiskFull); !errors.Is(err, errDiskFull) {
		t.Errorf("no trace: err %v", err)
	}
}

// cancelOnRun cancels a context at the n-th repetition bench logs.
type cancelOnRun struct {
	runs, n int
	cancel  func()
}

func (h *cancelOnRun) Run(_ *zerolog.Event, _ zerolog.Level, msg string) {
	if msg == "run" {
		if h.runs++; h.runs == h.n {
			h.cancel()
		}
	}
}

// TestInterruptedRowIsInNeitherFile: a variant whose repetitions were all
// measured but whose row was not finished when the run was interrupted
// (its allocation count cut short) is in neither -json nor -benchfmt: the
// two hold the same variants, each named by its mode.
func TestInterruptedRowIsInNeitherFile(t *testing.T) {
	cfg, err := parseFlags([]string{"-quick", "-scenario", "zerocost,smallops", "-mode", "kbk", "-reps", "1", "-q"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Each scenario logs its warm-up and its repetition: the 4th is
	// smallops's last, after which its row counts allocations.
	log := zerolog.New(io.Discard).Level(zerolog.DebugLevel).Hook(&cancelOnRun{n: 4, cancel: cancel})
	rep, err := bench(ctx, cfg, log, io.Discard)
	if err == nil || rep == nil {
		t.Fatalf("bench: report %v, error %v; want the report of zerocost and an error", rep != nil, err)
	}
	var b bytes.Buffer
	if err := writeBenchfmtTo(&b, rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || len(rep.series) != len(rep.Results) || strings.Contains(b.String(), "mode=-") || strings.Contains(b.String(), "Smallops") {
		t.Errorf("%d rows, %d series; -benchfmt:\n%s", len(rep.Results), len(rep.series), b.String())
	}
}

// goroutinesAtRun notes, from bench's debug log, how many goroutines
// there are at the first repetition logged of each scenario.
type goroutinesAtRun struct {
	mu    sync.Mutex
	seen  []string // scenarios, in the order of their first run
	first []int    // goroutines then
}

func (g *goroutinesAtRun) Write(p []byte) (int, error) {
	var line struct{ Scenario, Message string }
	if err := json.Unmarshal(p, &line); err != nil {
		return 0, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if line.Message == "run" && !slices.Contains(g.seen, line.Scenario) {
		g.seen = append(g.seen, line.Scenario)
		g.first = append(g.first, runtime.NumGoroutine())
	}
	return len(p), nil
}

// TestScenarioExecutablesClosedBeforeNext: bench closes a scenario's
// executables when its rows are done, so that a run of many scenarios
// holds one scenario's workers, memory and trace tracks at a time: the
// pipeline executables' stage goroutines of the first scenario are gone
// when the next runs.
func TestScenarioExecutablesClosedBeforeNext(t *testing.T) {
	cfg, err := parseFlags([]string{"-quick", "-real", "-scenario", "zerocost,smallops,vad", "-mode", "pipeline", "-reps", "1", "-q"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	g := &goroutinesAtRun{}
	if _, err := bench(t.Context(), cfg, zerolog.New(g).Level(zerolog.DebugLevel), io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(g.first) != 3 {
		t.Fatalf("first runs of %v: want 3 scenarios", g.seen)
	}
	// A pipeline executable keeps a worker goroutine for each of its
	// stage queues while it is open.
	for i := 1; i < len(g.first); i++ {
		if g.first[i] > g.first[0] {
			t.Errorf("goroutines at the first run of %v: %v: the earlier scenarios' executables are still open", g.seen, g.first)
			break
		}
	}
}
