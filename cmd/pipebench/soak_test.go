package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var long = flag.Bool("long", false, "TestLongSoak: the full soak (10 000 runs per mode, 2 minutes of load)")

// TestSoakWritesItsReport: a short soak writes every field of its JSON
// report and a verdict per target (timing verdicts are pipebench's to
// print, not this test's to assert).
func TestSoakWritesItsReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "soak.json")
	code, stdout, stderr := runArgs(t, "soak", "-quick", "-runs", "20", "-cancels", "3", "-duration", "1500ms", "-every", "300ms", "-executables", "3", "-json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "fairness") {
		t.Fatalf("no report on stdout: %q", stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// A sample is due every -every from the start, however long the ones
	// before took: 1500ms / 300ms, as many as the flags say.
	if n, _ := doc["samples"].(float64); n != 5 {
		t.Errorf("%v samples, want 5 (-duration / -every)", doc["samples"])
	}
	if n, _ := doc["cancels"].(float64); n != 3 {
		t.Errorf("cancels %v, want 3 (-cancels)", doc["cancels"])
	}
	if !strings.Contains(stdout, "cancellation (3 runs a mode)") {
		t.Errorf("stdout does not give the cancellations' count: %q", stdout)
	}
	for _, k := range []string{"heap_slope_bytes_per_min", "device_slope_bytes_per_min", "goroutine_slope_per_min", "fairness",
		"modes", "cancel_max_ns", "runs_per_second", "held"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("soak report lacks %q", k)
		}
	}
	for _, args := range [][]string{{"soak", "-runs", "1"}, {"soak", "-mode", "warp"}, {"soak", "-scenario", "nosuch"}, {"soak", "stray"}} {
		if code, _, _ := runArgs(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestLongSoak (-long): the full soak keeps device memory and goroutines
// exactly flat and the live heap within its slope and final bounds.
func TestLongSoak(t *testing.T) {
	if !*long {
		t.Skip("run with -long")
	}
	path := filepath.Join(t.TempDir(), "soak.json")
	if code, _, stderr := runArgs(t, "soak", "-json", path); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep := readSoak(t, path)
	for _, k := range []string{"device bytes flat", "goroutines flat", "heap slope ≤ 64 KB/min", "heap within 1 MB"} {
		if !rep.Held[k] {
			t.Errorf("%s: does not hold (%+v)", k, rep)
		}
	}
}

// runCancelled runs pipebench with a context already cancelled: a command
// refused before anything runs exits as it would anyway; one that starts
// running fails at once (the context's error, exit 1) instead of running
// what it should have refused.
func runCancelled(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb strings.Builder
	code := run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestSoakFlagsOutOfRange: every soak flag is bounded and an out-of-range
// value is refused (exit 2, naming the flag and its range) before
// anything runs, -quick's values included: executables beyond memory, a
// load phase of fewer than 3 samples (which only failed after every
// phase had run).
func TestSoakFlagsOutOfRange(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-runs", "10", "-duration", "3s", "-every", "1s", "-executables", "100000000"}, "-executables 100000000 outside [1, 1000]"},
		{[]string{"-executables", "0"}, "-executables 0 outside [1, 1000]"},
		{[]string{"-runs", "9"}, "-runs 9 outside [10, 1000000]"},
		{[]string{"-runs", "1000001"}, "-runs 1000001 outside [10, 1000000]"},
		{[]string{"-cancels", "0"}, "-cancels 0 outside [1, 100000]"},
		{[]string{"-cancels", "100001"}, "-cancels 100001 outside [1, 100000]"},
		{[]string{"-duration", "0s"}, "-duration 0s outside (0, 24h0m0s]"},
		{[]string{"-duration", "25h"}, "-duration 25h0m0s outside (0, 24h0m0s]"},
		{[]string{"-every", "-1s"}, "-every -1s: want at least 10ms"},
		{[]string{"-every", "1ms"}, "-every 1ms: want at least 10ms"},
		{[]string{"-runs", "10", "-duration", "2s", "-every", "1s", "-executables", "2"}, "-duration 2s / -every 1s = 2 samples, want 3 to 100000"},
		{[]string{"-duration", "1s", "-every", "2s"}, "= 0 samples, want 3 to 100000"},
		{[]string{"-quick", "-every", "10s"}, "-duration 20s / -every 10s = 2 samples"},
		{[]string{"-duration", "2000s", "-every", "10ms"}, "= 200000 samples, want 3 to 100000"},
	} {
		code, out, errb := runCancelled(t, append([]string{"soak"}, c.args...)...)
		if code != 2 || !strings.Contains(errb, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb, c.want)
		}
	}
}

// cancelOn is a progress writer that cancels a context when a line
// containing its text is written.
type cancelOn struct {
	strings.Builder
	text   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.text) {
		c.cancel()
	}
	return c.Builder.Write(p)
}

// TestSoakInterruptedKeepsFinishedPhases: a soak interrupted in its load
// phase reports the consecutive runs and cancellations it finished, marked
// incomplete and with no verdicts, and exits 1.
func TestSoakInterruptedKeepsFinishedPhases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "soak.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errb := &cancelOn{text: "executables at once", cancel: cancel}
	var out strings.Builder
	code := run(ctx, []string{"soak", "-quick", "-runs", "20", "-cancels", "3", "-duration", "3s", "-every", "1s", "-executables", "2", "-json", path}, &out, errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "stopped early") || !strings.Contains(out.String(), "consecutive runs") || strings.Contains(out.String(), "holds") {
		t.Errorf("stdout %q, stderr %q: want the finished phases, no verdicts and a note", out.String(), errb.String())
	}
	rep := readSoak(t, path)
	if !strings.HasPrefix(rep.Incomplete, "interrupted") || len(rep.Modes) == 0 || rep.CancelLimitNs == 0 || rep.Samples != 0 || len(rep.Held) != 0 {
		t.Errorf("report: incomplete %q, %d modes, cancel limit %d, %d samples, %d verdicts; want interrupted, the modes and cancellations, no load, no verdicts",
			rep.Incomplete, len(rep.Modes), rep.CancelLimitNs, rep.Samples, len(rep.Held))
	}
}

// TestSoakFailedTargets: the targets -check names, sorted, and the phases
// an incomplete report counts.
func TestSoakFailedTargets(t *testing.T) {
	rep := &soakReport{Held: map[string]bool{"b fails": false, "a holds": true, "c fails": false}}
	if got := rep.failed(); strings.Join(got, ",") != "b fails,c fails" {
		t.Errorf("failed() = %v", got)
	}
	if n := (&soakReport{Modes: make([]soakMode, 4), CancelLimitNs: 1}).phases(); n != 5 {
		t.Errorf("phases() = %d, want 5", n)
	}
}

// readSoak reads the soak report -json wrote to path.
func readSoak(t *testing.T, path string) soakReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep soakReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestSoakInterruptedInItsFirstPhase: a soak interrupted before any phase
// finished still writes its -json report, marked incomplete with no
// phases, and exits 1: a script reading it after the exit finds why.
func TestSoakInterruptedInItsFirstPhase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "soak.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errb := &cancelOn{text: "consecutive runs in", cancel: cancel}
	var out strings.Builder
	code := run(ctx, []string{"soak", "-quick", "-runs", "1000", "-json", path}, &out, errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errb.String())
	}
	rep := readSoak(t, path)
	if !strings.HasPrefix(rep.Incomplete, "interrupted") || len(rep.Modes) != 0 || len(rep.Held) != 0 {
		t.Errorf("report: incomplete %q, %d modes, %d verdicts; want interrupted, no phase, no verdicts", rep.Incomplete, len(rep.Modes), len(rep.Held))
	}
}
