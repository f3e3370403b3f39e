package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeteroVsSerialNamesBothPolicies: the line comparing a concurrent
// hetero row with the Serial schedule names each side's barrier policy,
// since Serial runs under one.
func TestHeteroVsSerialNamesBothPolicies(t *testing.T) {
	var b strings.Builder
	writeTable(&b, &report{Results: []result{
		{Scenario: "h", Mode: "hetero", Schedule: "concurrent", Barrier: "drain", MakespanNs: 1000},
		{Scenario: "h", Mode: "hetero", Schedule: "concurrent", Barrier: "per-tensor", MakespanNs: 800},
		{Scenario: "h", Mode: "hetero", Schedule: "serial", Barrier: "per-tensor", MakespanNs: 1600},
	}})
	for _, want := range []string{"h drain vs serial per-tensor: 1.60x", "h per-tensor vs serial per-tensor: 2.00x"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line with %q in\n%s", want, b.String())
		}
	}
}

// fullWriter fails every write, as a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errDiskFull }

// TestLostResultsFail: results that could not be written to stdout fail
// the run (exit 1, the error said), for the main job and a subcommand.
func TestLostResultsFail(t *testing.T) {
	for _, args := range [][]string{{"-real", "-scenario", "zerocost", "-reps", "1", "-mode", "kbk", "-q"}, {"profiles"}} {
		var errb strings.Builder
		if code := run(context.Background(), args, fullWriter{}, &errb); code != 1 || !strings.Contains(errb.String(), "no space left") {
			t.Errorf("%v to a full disk: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestTraceMetaRefusesAbsurdValues: a trace's machine metadata giving a
// GOMAXPROCS or queue capacity no machine or configuration has is not
// taken.
func TestTraceMetaRefusesAbsurdValues(t *testing.T) {
	var m traceMeta
	for _, s := range []string{"gomaxprocs 100000000000", "queue capacity 99999999999999", "gomaxprocs -3"} {
		m.instant(s)
	}
	if m.procs != 0 || m.queueCap != 0 {
		t.Fatalf("absurd metadata taken: %+v", m)
	}
	m.instant("gomaxprocs 4")
	m.instant("queue capacity 8")
	if m.procs != 4 || m.queueCap != 8 {
		t.Fatalf("metadata %+v, want 4 cores and capacity 8", m)
	}
}

// TestAnalyzeHelp: pipebench analyze -h prints its usage on stderr and
// exits 0, as the other subcommands' -h do.
func TestAnalyzeHelp(t *testing.T) {
	for _, h := range []string{"-h", "-help", "--help"} {
		var out, errb strings.Builder
		if code := run(context.Background(), []string{"analyze", h}, &out, &errb); code != 0 || out.String() != "" || !strings.Contains(errb.String(), "Usage: pipebench analyze TRACE") {
			t.Errorf("analyze %s: exit %d, stdout %q, stderr %q", h, code, out.String(), errb.String())
		}
	}
}

// TestNoKernelsNoOverhead: a graph of no kernels (its output is its
// input) has no overhead per kernel in the JSON.
func TestNoKernelsNoOverhead(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	code, _, errb := runArgs(t, "-model", "../../models/ppocrv4-det.onnx", "-input", "x=1x3x96x96", "-outputs", "x", "-mode", "kbk", "-reps", "1", "-json", js, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var doc struct {
		Results []struct {
			Kernels  int     `json:"kernels"`
			Overhead float64 `json:"overhead_ns_per_kernel"`
		} `json:"results"`
	}
	readJSON(t, js, &doc)
	if len(doc.Results) != 1 || doc.Results[0].Kernels != 0 || doc.Results[0].Overhead != 0 {
		t.Fatalf("results %+v: want one row of 0 kernels and 0 overhead", doc.Results)
	}
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
