package onnx_test

import (
	"errors"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestLocalFunctions: calls of a model's local functions are inlined, with
// the call's attributes, or the function's defaults, in place of the
// attributes that refer to them; a function may call another; recursion is
// an ErrImport error.
func TestLocalFunctions(t *testing.T) {
	// scale(X) = X * alpha, alpha an attribute (default 2).
	scale := &onnx.Function{Name: "Scale", Domain: "local", Inputs: []string{"X"}, Outputs: []string{"Y"}, Attrs: []string{"alpha"},
		AttrDefaults: []*onnx.Attribute{{Name: "alpha", Type: onnx.AttrFloat, F: 2}},
		Nodes: []*onnx.Node{
			{OpType: "Constant", Outputs: []string{"a"}, Attrs: []*onnx.Attribute{{Name: "value_float", Type: onnx.AttrFloat, RefAttrName: "alpha"}}},
			{OpType: "Mul", Inputs: []string{"X", "a"}, Outputs: []string{"Y"}}},
		Opsets: map[string]int64{"": 18}}
	// twice(X) = Scale(Scale(X, alpha=3)) = X * 3 * 2.
	twice := &onnx.Function{Name: "Twice", Domain: "local", Inputs: []string{"X"}, Outputs: []string{"Y"},
		Nodes: []*onnx.Node{
			{OpType: "Scale", Domain: "local", Inputs: []string{"X"}, Outputs: []string{"t"}, Attrs: []*onnx.Attribute{{Name: "alpha", Type: onnx.AttrFloat, F: 3}}},
			{OpType: "Scale", Domain: "local", Inputs: []string{"t"}, Outputs: []string{"Y"}}}}
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 2, Known: true}}, HasShape: true}
	m := &onnx.Model{IRVersion: 10, Opsets: map[string]int64{"": 18, "local": 1}, Functions: []*onnx.Function{scale, twice},
		Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x},
			Nodes: []*onnx.Node{
				{Name: "s", OpType: "Scale", Domain: "local", Inputs: []string{"x"}, Outputs: []string{"y1"}, Attrs: []*onnx.Attribute{{Name: "alpha", Type: onnx.AttrFloat, F: 0.5}}},
				{Name: "t", OpType: "Twice", Domain: "local", Inputs: []string{"y1"}, Outputs: []string{"y2"}},
				// The function's own names do not clash with the caller's.
				{Name: "a", OpType: "Neg", Inputs: []string{"x"}, Outputs: []string{"a"}}},
			Outputs: []*onnx.ValueInfo{{Name: "y2"}, {Name: "a"}}}}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -4}, 2)}
	checkRunOutputs(t, g, in, [][]float32{{3, -12}, {-1, 4}})

	recursive := &onnx.Function{Name: "Loopy", Domain: "local", Inputs: []string{"X"}, Outputs: []string{"Y"},
		Nodes: []*onnx.Node{{OpType: "Loopy", Domain: "local", Inputs: []string{"X"}, Outputs: []string{"Y"}}}}
	m.Functions = append(m.Functions, recursive)
	m.Graph.Nodes = append(m.Graph.Nodes, &onnx.Node{Name: "r", OpType: "Loopy", Domain: "local", Inputs: []string{"x"}, Outputs: []string{"z"}})
	if _, err := onnx.Import(m, onnx.Options{}); !errors.Is(err, onnx.ErrImport) {
		t.Fatalf("a recursive function: %v, want ErrImport", err)
	}
}
