package onnx_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/onnx"
)

// TestOpsetFixtures runs the one-node models of testdata/opset — ops in
// the forms of opsets 18 to 26, built by gen.js with their outputs
// computed by onnxruntime — in KBK against onnxruntime's outputs (floats
// to 1e-5 absolute, other dtypes exactly) and in Pipeline mode against
// KBK, bit for bit; the small models (model_*) also in Async and Replay
// mode.
func TestOpsetFixtures(t *testing.T) {
	runFixtures(t, filepath.Join("testdata", "opset"), 1e-5)
}

// runFixtures checks every golden file of dir, its floats to tol absolute
// (see TestOpsetFixtures).
func runFixtures(t *testing.T, dir string, tol float64) {
	runFixtureFiles(t, dir, "*", tol)
}

// runFixtureFiles is runFixtures on the fixtures of dir whose names match
// the glob pattern.
func runFixtureFiles(t *testing.T, dir, pattern string, tol float64) {
	goldens, _ := filepath.Glob(filepath.Join(dir, pattern+".golden.json"))
	if len(goldens) == 0 {
		t.Fatalf("no fixtures in %s (node gen.js writes them)", dir)
	}
	for _, path := range goldens {
		name := strings.TrimSuffix(filepath.Base(path), ".golden.json")
		t.Run(name, func(t *testing.T) {
			gold, err := onnx.ReadGolden(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := onnx.ReadFile(filepath.Join(dir, gold.Model))
			if err != nil {
				t.Fatal(err)
			}
			// A model whose outputs onnxruntime-node cannot return (a
			// ZipMap's maps) has golden outputs before them: those are
			// selected.
			var outs []string
			for name := range gold.Cases[0].Outputs {
				if !slices.ContainsFunc(m.Graph.Outputs, func(v *onnx.ValueInfo) bool { return v.Name == name }) {
					outs = slices.Sorted(maps.Keys(gold.Cases[0].Outputs))
					break
				}
			}
			for _, c := range gold.Cases {
				g, err := onnx.Import(m, onnx.Options{Shapes: c.InputShapes(), Outputs: outs})
				if err != nil {
					t.Fatalf("import: %v", err)
				}
				res, err := runIn(g, c.Inputs, pipert.KBK)
				if err != nil {
					t.Fatalf("kbk: %v", err)
				}
				if _, err := c.Compare(res.Outputs, tol); err != nil {
					t.Error(err)
				}
				modes := []pipert.Mode{pipert.Pipeline}
				if strings.HasPrefix(name, "model_") {
					modes = append(modes, pipert.Async, pipert.Replay)
				}
				for _, mode := range modes {
					other, err := runIn(g, c.Inputs, mode)
					if err != nil {
						t.Fatalf("%v: %v", mode, err)
					}
					for out, want := range res.Outputs {
						if got := other.Outputs[out]; got == nil || !got.Shape.Equal(want.Shape) || string(got.Host) != string(want.Host) {
							t.Errorf("%v: output %q differs from KBK's", mode, out)
						}
					}
				}
			}
		})
	}
}
