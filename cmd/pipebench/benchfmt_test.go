package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestBenchfmtReadsBack: -benchfmt writes what x/perf's reader (benchstat's)
// parses: a result per variant per repetition, with the makespan as
// ns/op, KBK's repetitions at speedup 1, and the custom units.
func TestBenchfmtReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.txt")
	code, _, stderr := runArgs(t, "-real", "-reps", "2", "-scenario", "dynshape", "-mode", "kbk,pipeline", "-benchfmt", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := benchfmt.NewReader(f, path)
	names := map[string]int{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := string(res.Name.Full())
		names[name]++
		units := map[string]float64{}
		for _, v := range res.Values {
			units[v.Unit] = v.Value
		}
		for _, u := range []string{"sec/op", "speedup", "efficiency", "host-sec/kernel", "peak-B"} {
			if _, ok := units[u]; !ok {
				t.Errorf("%s lacks %s: %v", name, u, res.Values)
			}
		}
		if strings.Contains(name, "mode=kbk") && units["speedup"] != 1 {
			t.Errorf("%s: KBK's speedup over itself %v", name, units["speedup"])
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names) < 3 { // kbk, pipeline × two policies
		t.Fatalf("results %v", names)
	}
	for name, n := range names {
		if n != 2 || !strings.HasPrefix(name, "Dynshape/mode=") {
			t.Errorf("%s: %d results", name, n)
		}
	}
}
