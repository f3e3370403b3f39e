package onnx_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestSequenceModels runs the ONNX project's sequence models (Debian's
// libonnx-testdata, data/simple) with their integer inputs (positions)
// fixed at import as values and the others' shapes fixed, as a caller
// fixes them, against the suite's outputs in KBK, and in Pipeline mode
// bit-identical to KBK.
func TestSequenceModels(t *testing.T) {
	dirs, _ := filepath.Glob("/usr/share/libonnx-testdata/data/simple/test_sequence_model*")
	if len(dirs) == 0 {
		t.Skip("no ONNX sequence models (install libonnx-testdata)")
	}
	pass := 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		m, err := onnx.ReadFile(filepath.Join(dir, "model.onnx"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		opt := onnx.Options{Values: map[string]*kernel.Tensor{}, Shapes: map[string][]int64{}}
		run := map[string]*kernel.Tensor{}
		inits := map[string]bool{}
		for _, in := range m.Graph.Initializers {
			inits[in.Name] = true
		}
		for i, v := range m.Graph.Inputs {
			if inits[v.Name] {
				continue // a constant of the model
			}
			x, err := readTensor(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if x.DType == kernel.Int64 || x.DType == kernel.Int32 {
				opt.Values[v.Name] = x
			} else {
				run[v.Name] = x
				opt.Shapes[v.Name] = x.Shape // as a caller fixes a model's free dimensions
			}
		}
		g, err := onnx.Import(m, opt)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		res, err := runIn(g, run, pipert.KBK)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		piped, err := runIn(g, run, pipert.Pipeline)
		if err != nil {
			t.Errorf("%s: pipeline: %v", name, err)
			continue
		}
		for i := range m.Graph.Outputs {
			want, err := readTensor(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				t.Fatal(err)
			}
			got := res.Outputs[g.Outputs[i]]
			if err := same(got, want); err != nil {
				t.Errorf("%s: output %d: %v", name, i, err)
			}
			if p := piped.Outputs[g.Outputs[i]]; p == nil || string(p.Host) != string(got.Host) {
				t.Errorf("%s: pipeline output %d differs from KBK's", name, i)
			}
		}
		pass++
	}
	t.Logf("%d of %d sequence models pass", pass, len(dirs))
}

// TestSimpleModels runs the ONNX project's other simple models
// (libonnx-testdata, data/simple: Expand by a computed shape, Shrink,
// Sign, Relu) against the suite's outputs, in KBK and in Pipeline mode
// bit-identical to KBK. Left out: the sequence models (TestSequenceModels),
// the gradient models (ai.onnx.preview.training) and StringNormalizer's
// (strings).
func TestSimpleModels(t *testing.T) {
	dirs, _ := filepath.Glob("/usr/share/libonnx-testdata/data/simple/test_*")
	if len(dirs) == 0 {
		t.Skip("no ONNX simple models (install libonnx-testdata)")
	}
	ran := 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if strings.HasPrefix(name, "test_sequence_model") || strings.HasPrefix(name, "test_gradient_") || strings.HasPrefix(name, "test_strnorm_") {
			continue
		}
		m, err := onnx.ReadFile(filepath.Join(dir, "model.onnx"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := runNodeTest(dir, m); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		ran++
	}
	if ran < 7 {
		t.Errorf("ran %d simple models, want the suite's 7", ran)
	}
}
