package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipert/pipert/trace"
)

// TestMoEScenario runs the quick moe scenario with a trace and JSON: every
// variant exact, the rows and ratios in the JSON, the trace valid with a
// track group per device, link tracks and flag flows.
func TestMoEScenario(t *testing.T) {
	dir := t.TempDir()
	js, tr := filepath.Join(dir, "moe.json"), filepath.Join(dir, "moe.pftrace")
	var out, errb bytes.Buffer
	args := []string{"moe", "-quick", "-hidden", "8", "-tokens", "6", "-routing", "skewed", "-json", js, "-trace", tr}
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		SchemaVersion int `json:"schema_version"`
		Rows          []struct {
			Scenario, Variant, Routing string
			Exact                      bool
			MakespanNs                 int64   `json:"makespan_ns"`
			ModeledFullUs              float64 `json:"modeled_full_us"`
			PaperUs                    float64 `json:"paper_us"`
		} `json:"rows"`
		Ratios []struct{ Name string } `json:"ratios"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.SchemaVersion != 1 || len(rep.Rows) != 7 || len(rep.Ratios) != 3 {
		t.Fatalf("report: %+v", rep)
	}
	for _, r := range rep.Rows {
		if r.Scenario != "moe" || r.Routing != "skewed" || !r.Exact || r.MakespanNs <= 0 || r.ModeledFullUs <= 0 {
			t.Errorf("row %+v", r)
		}
		if (r.Variant == "sorted") != (r.PaperUs == 1311) {
			t.Errorf("row %s: paper %v", r.Variant, r.PaperUs)
		}
	}
	p, err := trace.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Validate(p); err != nil {
		t.Fatal(err)
	}
	groups := map[string]bool{}
	links := 0
	for _, tk := range p.Tracks {
		groups[tk.Group] = true
		if strings.HasPrefix(tk.Name, "link xgmi") {
			links++
		}
	}
	flows := 0
	for _, e := range p.Events {
		if e.Kind == trace.EvFlowEnd {
			flows++
		}
	}
	if !groups["p2p-token device 7"] || !groups["varlen fabric"] || links == 0 || flows == 0 {
		t.Fatalf("groups %v, %d link tracks, %d flows", groups, links, flows)
	}
	// The trace's own summary agrees with the JSON's run-size makespans
	// and names who waited for whom.
	runs := fabricRuns(p)
	if len(runs) != 7 {
		t.Fatalf("%d fabric runs in the trace", len(runs))
	}
	for i, r := range runs {
		if r.Variant != rep.Rows[i].Variant || r.MakespanNs != rep.Rows[i].MakespanNs || r.Devices != 8 {
			t.Errorf("trace run %+v, JSON row %+v", r, rep.Rows[i])
		}
		if r.Variant == "p2p-token" && (r.Waits == 0 || r.Longest.Setter < 0 || len(r.WaitedOn) == 0) {
			t.Errorf("p2p-token waits: %+v", r)
		}
	}
	var sum bytes.Buffer
	writeFabricRuns(&sum, runs)
	if !strings.Contains(sum.String(), "longest wait") {
		t.Errorf("summary:\n%s", sum.String())
	}
	// pipebench analyze reads the same trace.
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"analyze", tr}, &out, &errb); code != 0 || !strings.Contains(out.String(), "p2p-token: 8 devices") {
		t.Errorf("analyze: exit %d, %s%s", code, out.String(), errb.String())
	}
}

// TestMoEBadInput: a bad flag exits 2 before anything runs, naming the
// flag (and, for the sizes, the range it wants).
func TestMoEBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-ranks", "0"}, "-ranks 0: want 1 to -fabric-ranks (8)"},
		{[]string{"-ranks", "9"}, "-ranks 9: want 1 to -fabric-ranks (8)"},
		{[]string{"-fabric-ranks", "0"}, "-fabric-ranks 0 outside [1, 64]"},
		{[]string{"-fabric-ranks", "65"}, "-fabric-ranks 65 outside [1, 64]"},
		{[]string{"-topk", "65"}, "top-k 65"},
		{[]string{"-topk", "0"}, "-topk 0: want 1 to -experts (64)"},
		{[]string{"-experts", "12"}, "experts do not split evenly"},
		{[]string{"-experts", "0"}, "-experts 0: want a positive multiple of -ranks (8)"},
		{[]string{"-hidden", "0"}, "-hidden 0: want at least 1"},
		{[]string{"-tokens", "0"}, "-tokens 0: want at least 1"},
		{[]string{"-quick", "-tokens", "0"}, "-tokens 0: want at least 1"},
		{[]string{"-tokens", "-1"}, "-tokens -1: want at least 1"},
		{[]string{"-watchdog", "0s"}, "-watchdog"},
		{[]string{"-routing", "gauss"}, "-routing"},
		{[]string{"-variants", "fast"}, "-variants"},
		{[]string{"-variants", ""}, "item 1 is empty"},
		{[]string{"-variants", "fused,"}, "item 2 is empty"},
		{[]string{"-ranks", "3"}, "pipebench: moe: bad problem"}, // one package prefix
		{[]string{"-topology", "ring"}, "-topology"},
		{[]string{"extra"}, "moe"},
	} {
		code, out, errb := runCancelled(t, append([]string{"moe"}, c.args...)...)
		if code != 2 || !strings.Contains(errb, "moe") || !strings.Contains(errb, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb, c.want)
		}
	}
}
