package main

import (
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
	code, stdout, stderr := runArgs(t, "soak", "-quick", "-runs", "20", "-duration", "1500ms", "-every", "300ms", "-executables", "3", "-json", path)
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
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep soakReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"device bytes flat", "goroutines flat", "heap slope ≤ 64 KB/min", "heap within 1 MB"} {
		if !rep.Held[k] {
			t.Errorf("%s: does not hold (%+v)", k, rep)
		}
	}
}
