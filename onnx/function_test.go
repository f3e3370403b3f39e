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

// TestFunctionsInSubgraphs: a call's attributes reach the nodes of If
// branches inside the function's body; a function calling itself through
// a runtime If's branch is an ErrImport error, not an endless import; a
// Constant given an attribute of the wrong type is an ErrImport error; a
// local function of the default domain does not replace a standard op.
func TestFunctionsInSubgraphs(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 2, Known: true}}, HasShape: true}
	c := &onnx.ValueInfo{Name: "c", DataType: onnx.Bool, Dims: []onnx.Dim{}, HasShape: true}
	branch := func(ref string) *onnx.Graph {
		return &onnx.Graph{Name: "b", Nodes: []*onnx.Node{
			{OpType: "Constant", Outputs: []string{"k"}, Attrs: []*onnx.Attribute{{Name: "value_float", Type: onnx.AttrFloat, RefAttrName: ref}}},
			{OpType: "Mul", Inputs: []string{"A", "k"}, Outputs: []string{"o"}}},
			Outputs: []*onnx.ValueInfo{{Name: "o"}}}
	}
	fun := &onnx.Function{Name: "Fun", Domain: "local", Inputs: []string{"A", "C"}, Outputs: []string{"Y"}, Attrs: []string{"alpha"},
		Nodes: []*onnx.Node{{OpType: "If", Inputs: []string{"C"}, Outputs: []string{"Y"}, Attrs: []*onnx.Attribute{
			{Name: "then_branch", Type: onnx.AttrGraph, G: branch("alpha")}, {Name: "else_branch", Type: onnx.AttrGraph, G: branch("alpha")}}}}}
	call := func(alpha *onnx.Attribute) *onnx.Model {
		return &onnx.Model{IRVersion: 10, Opsets: map[string]int64{"": 18, "local": 1}, Functions: []*onnx.Function{fun},
			Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x, c},
				Nodes:   []*onnx.Node{{Name: "f", OpType: "Fun", Domain: "local", Inputs: []string{"x", "c"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{alpha}}},
				Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
	}
	g, err := onnx.Import(call(&onnx.Attribute{Name: "alpha", Type: onnx.AttrFloat, F: 2.5}), onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cond := kernel.New(kernel.Bool)
	cond.Host[0] = 1
	checkRunOutputs(t, g, map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -4}, 2), "c": cond}, [][]float32{{2.5, -10}})
	if _, err := onnx.Import(call(&onnx.Attribute{Name: "alpha", Type: onnx.AttrInt, I: 2}), onnx.Options{}); !errors.Is(err, onnx.ErrImport) {
		t.Errorf("an integer for value_float: %v, want ErrImport", err)
	}

	rec := &onnx.Function{Name: "R", Domain: "local", Inputs: []string{"A", "C"}, Outputs: []string{"Y"},
		Nodes: []*onnx.Node{{OpType: "If", Inputs: []string{"C"}, Outputs: []string{"Y"}, Attrs: []*onnx.Attribute{
			{Name: "then_branch", Type: onnx.AttrGraph, G: &onnx.Graph{Name: "t", Nodes: []*onnx.Node{
				{OpType: "R", Domain: "local", Inputs: []string{"A", "C"}, Outputs: []string{"o"}}}, Outputs: []*onnx.ValueInfo{{Name: "o"}}}},
			{Name: "else_branch", Type: onnx.AttrGraph, G: &onnx.Graph{Name: "e", Nodes: []*onnx.Node{
				{OpType: "Neg", Inputs: []string{"A"}, Outputs: []string{"o"}}}, Outputs: []*onnx.ValueInfo{{Name: "o"}}}}}}}}
	m := &onnx.Model{IRVersion: 10, Opsets: map[string]int64{"": 18, "local": 1}, Functions: []*onnx.Function{rec},
		Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x, c},
			Nodes:   []*onnx.Node{{Name: "r", OpType: "R", Domain: "local", Inputs: []string{"x", "c"}, Outputs: []string{"y"}}},
			Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
	if _, err := onnx.Import(m, onnx.Options{}); !errors.Is(err, onnx.ErrImport) {
		t.Errorf("recursion through a branch: %v, want ErrImport", err)
	}

	shadow := &onnx.Function{Name: "Relu", Domain: "", Inputs: []string{"A"}, Outputs: []string{"Y"},
		Nodes: []*onnx.Node{{OpType: "Neg", Inputs: []string{"A"}, Outputs: []string{"Y"}}}}
	m = &onnx.Model{IRVersion: 10, Opsets: map[string]int64{"": 18}, Functions: []*onnx.Function{shadow},
		Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x},
			Nodes:   []*onnx.Node{{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}},
			Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
	if g, err = onnx.Import(m, onnx.Options{}); err != nil {
		t.Fatal(err)
	}
	checkRunOutputs(t, g, map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -4}, 2)}, [][]float32{{1, 0}})
}
