package onnx_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestValueOverridesAnInitializerInput: an initializer also listed as a
// graph input is a default; Options.Values replaces it (as feeding it does
// in onnxruntime), checked against its dtype and declared shape, and
// Options.Shapes must agree with it.
func TestValueOverridesAnInitializerInput(t *testing.T) {
	decl := func(name string) *onnx.ValueInfo {
		return &onnx.ValueInfo{Name: name, DataType: onnx.Float, HasShape: true, Dims: []onnx.Dim{{Value: 3, Known: true}}}
	}
	build := func() *onnx.Model {
		return &onnx.Model{IRVersion: 3, Opsets: map[string]int64{"": 7}, Graph: &onnx.Graph{
			Name:         "ir3",
			Nodes:        []*onnx.Node{{Name: "add", OpType: "Add", Inputs: []string{"x", "w"}, Outputs: []string{"y"}}},
			Inputs:       []*onnx.ValueInfo{decl("x"), decl("w")},
			Outputs:      []*onnx.ValueInfo{{Name: "y"}},
			Initializers: []*onnx.Tensor{{Name: "w", DataType: onnx.Float, Dims: []int64{3}, Floats: []float32{1, 2, 3}}},
		}}
	}
	run := func(opt onnx.Options) []float32 {
		t.Helper()
		g, err := onnx.Import(build(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Inputs) != 1 || g.Inputs[0].Name != "x" {
			t.Fatalf("graph inputs %v, want x alone", g.Inputs)
		}
		res, err := runIn(g, map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{10, 20, 30}, 3)}, pipert.KBK)
		if err != nil {
			t.Fatal(err)
		}
		return kernel.Float32s(res.Outputs["y"].Host)
	}
	if got := run(onnx.Options{}); !slices.Equal(got, []float32{11, 22, 33}) {
		t.Errorf("default: %v, want [11 22 33]", got)
	}
	over := onnx.Options{Values: map[string]*kernel.Tensor{"w": kernel.FromFloat32([]float32{-1, -2, -3}, 3)}}
	if got := run(over); !slices.Equal(got, []float32{9, 18, 27}) {
		t.Errorf("overridden: %v, want [9 18 27]", got)
	}
	for name, opt := range map[string]onnx.Options{
		"value of another dtype": {Values: map[string]*kernel.Tensor{"w": kernel.FromInt64([]int64{1, 2, 3}, 3)}},
		"value of another shape": {Values: map[string]*kernel.Tensor{"w": kernel.FromFloat32([]float32{1, 2}, 2)}},
		"shape of another size":  {Shapes: map[string][]int64{"w": {4}}},
	} {
		if _, err := onnx.Import(build(), opt); !errors.Is(err, onnx.ErrImport) || !strings.Contains(err.Error(), `"w"`) {
			t.Errorf("%s: %v, want ErrImport naming w", name, err)
		}
	}
	if _, err := onnx.Import(build(), onnx.Options{Shapes: map[string][]int64{"w": {3}}}); err != nil {
		t.Errorf("the initializer's own shape: %v", err)
	}
}
