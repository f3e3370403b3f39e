package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMTTorchScenario runs the mttorch scenario on real data on its MT-3000
// platform, traced: each virtual operator has its row and its comparison
// with the copied placement.
func TestMTTorchScenario(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "run.json")
	code, stdout, stderr := runArgs(t, "-real", "-reps", "1", "-scenario", "mttorch", "-mode", "hetero",
		"-json", jsonPath, "-trace", filepath.Join(dir, "mttorch.pftrace"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"hetero (virtual Gather)", "hetero (virtual ArgMax)",
		"virtual vs copied placement, mttorch: Gather", "virtual vs copied placement, mttorch: ArgMax"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Results []struct {
			Mode, Virtual string
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	virtual := map[string]bool{}
	for _, r := range rep.Results {
		if r.Virtual != "" {
			virtual[r.Virtual] = r.Mode == "hetero"
		}
	}
	if !virtual["Gather"] || !virtual["ArgMax"] || len(virtual) != 2 {
		t.Fatalf("virtual rows %v", virtual)
	}
}
