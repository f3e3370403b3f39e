package scenarios_test

import (
	"strings"
	"testing"

	"github.com/pipert/pipert/scenarios"
)

// TestParams checks the size parameters: each built-in lists its own,
// an override changes the graph as documented, and an unknown name or a
// value out of range is an error naming it.
func TestParams(t *testing.T) {
	sc, err := scenarios.Get("decode")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := sc.Params(scenarios.Config{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	var layers int64
	for _, p := range ps {
		if p.Doc == "" {
			t.Errorf("parameter %s is not documented", p.Name)
		}
		if p.Name == "layers" {
			layers = p.Value
		}
	}
	if layers != 6 {
		t.Errorf("quick decode has %d layers, want 6", layers)
	}
	w, err := sc.Build(scenarios.Config{Quick: true, Params: map[string]int64{"layers": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(w.Graph.Nodes); n != 2*17+3 {
		t.Errorf("2 layers: %d kernels, want 37", n)
	}
	for params, want := range map[string]map[string]int64{
		`unknown parameter "depth"`:             {"depth": 2},
		"layers = 0 outside":                    {"layers": 0},
		"hidden 100 is not a multiple of heads": {"hidden": 100},
	} {
		if _, err := sc.Build(scenarios.Config{Quick: true, Params: want}); err == nil || !strings.Contains(err.Error(), params) {
			t.Errorf("%v: %v, want an error with %q", want, err, params)
		}
	}
	for _, s := range scenarios.All() {
		if s.Params == nil {
			if _, err := s.Build(scenarios.Config{Quick: true, Params: map[string]int64{"x": 1}}); err == nil {
				t.Errorf("%s has no parameters but took one", s.Name)
			}
			continue
		}
		if _, err := s.Params(scenarios.Config{Quick: true}); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}
