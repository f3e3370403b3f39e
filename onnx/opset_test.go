package onnx_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/subgraph"
)

// TestOpsetFixtures runs the one-node models of testdata/opset — ops in
// the forms of opsets 18 to 26, built by gen.js with their outputs
// computed by onnxruntime — in KBK against onnxruntime's outputs (floats
// to 1e-5 absolute, other dtypes exactly) and in Pipeline mode against
// KBK, bit for bit; the small models (model_*) also in Async and Replay
// mode. Each case is imported with its inputs' shapes fixed; a model with
// symbolic dimensions (whose golden cases are of several sizes) is also
// imported once as it is and run at every case.
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
	runFixtureFilesAs(t, dir, pattern, tol, nil)
}

// runFixtureFilesAs is runFixtureFiles with each golden case passed to
// want, when not nil, before it is compared: the place to read where
// onnxruntime departs from ONNX's specification as the specification
// says.
func runFixtureFilesAs(t *testing.T, dir, pattern string, tol float64, want func(*onnx.Case)) {
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
			if want != nil {
				for i := range gold.Cases {
					want(&gold.Cases[i])
				}
			}
			for _, c := range gold.Cases {
				g, err := onnx.Import(m, onnx.Options{Shapes: c.InputShapes(), Outputs: outs})
				if err != nil {
					t.Fatalf("import: %v", err)
				}
				checkFixtureCase(t, g, &c, name, tol)
			}
			// A model with symbolic dimensions is also imported as it
			// is, once, and run at every case's sizes.
			if symbolic(m) {
				g, err := onnx.Import(m, onnx.Options{Outputs: outs})
				if err != nil {
					t.Fatalf("import with symbolic dimensions: %v", err)
				}
				for _, c := range gold.Cases {
					checkFixtureCase(t, g, &c, name, tol)
				}
			}
		})
	}
}

// checkFixtureCase runs g on golden case c in KBK against its outputs
// (floats to tol absolute) and in Pipeline mode (and, for the small
// models named model_*, Async and Replay) against KBK, bit for bit.
func checkFixtureCase(t *testing.T, g *subgraph.Graph, c *onnx.Case, name string, tol float64) {
	t.Helper()
	res, err := runIn(g, c.Inputs, pipert.KBK)
	if err != nil {
		t.Fatalf("%s: kbk: %v", c.Name, err)
	}
	if _, err := c.Compare(res.Outputs, tol); err != nil {
		t.Errorf("%s: %v", c.Name, err)
	}
	modes := []pipert.Mode{pipert.Pipeline}
	if strings.HasPrefix(name, "model_") {
		modes = append(modes, pipert.Async, pipert.Replay)
	}
	for _, mode := range modes {
		other, err := runIn(g, c.Inputs, mode)
		if err != nil {
			t.Fatalf("%s: %v: %v", c.Name, mode, err)
		}
		for out, want := range res.Outputs {
			if got := other.Outputs[out]; got == nil || !got.Shape.Equal(want.Shape) || string(got.Host) != string(want.Host) {
				t.Errorf("%s: %v: output %q differs from KBK's", c.Name, mode, out)
			}
		}
	}
}

// symbolic reports whether a graph input of m has a dimension the model
// leaves free.
func symbolic(m *onnx.Model) bool {
	for _, vi := range m.Graph.Inputs {
		for _, d := range vi.Dims {
			if !d.Known {
				return true
			}
		}
	}
	return false
}
