package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pipebench device prints the paper's claims beside pipert's values and
// keeps them in the JSON as "comparison".
func TestDeviceClaims(t *testing.T) {
	path := filepath.Join(t.TempDir(), "device.json")
	code, stdout, stderr := runArgs(t, "device", "-quick", "-figures", "launch", "-json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"CLAIM", "WITHIN 10%", "figure 13, async mode", "paper claims: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows       []map[string]any `json:"rows"`
		Comparison []map[string]any `json:"comparison"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) == 0 || len(doc.Comparison) == 0 {
		t.Fatalf("%d rows, %d claims", len(doc.Rows), len(doc.Comparison))
	}
	for _, c := range doc.Comparison {
		for _, k := range []string{"figure", "claim", "paper", "value", "unit", "ratio", "within_10pct", "params"} {
			if _, ok := c[k]; !ok {
				t.Fatalf("claim %v lacks %q", c, k)
			}
		}
		if c["within_10pct"] != true {
			t.Errorf("claim not within 10%%: %v", c)
		}
	}
}

func TestDeviceBadFigureNamesTheFlag(t *testing.T) {
	code, _, stderr := runArgs(t, "device", "-figures", "fig99")
	if code != 2 || !strings.Contains(stderr, "-figures") || !strings.Contains(stderr, `"fig99"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
