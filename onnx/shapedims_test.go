package onnx_test

import (
	"slices"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestShapeOfSymbolicDims: a Gather at constant positions of the Shape of
// a tensor with a symbolic dimension folds when it picks fixed dimensions
// (Shape's start and end counted), and stays a node when it picks the
// symbolic one; either way the values are the run's.
func TestShapeOfSymbolicDims(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, HasShape: true,
		Dims: []onnx.Dim{{Param: "N"}, {Value: 6, Known: true}, {Value: 4, Known: true}}}
	idx := func(name string, v int64) *onnx.Node {
		return &onnx.Node{OpType: "Constant", Outputs: []string{name}, Attrs: []*onnx.Attribute{{Name: "value_ints", Type: onnx.AttrInts, Ints: []int64{v}}}}
	}
	shape := func(out string, attrs ...*onnx.Attribute) *onnx.Node {
		return &onnx.Node{OpType: "Shape", Inputs: []string{"x"}, Outputs: []string{out}, Attrs: attrs}
	}
	gather := func(data, i, out string) *onnx.Node {
		return &onnx.Node{OpType: "Gather", Inputs: []string{data, i}, Outputs: []string{out}}
	}
	m := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 15}, Graph: &onnx.Graph{Name: "g",
		Inputs: []*onnx.ValueInfo{x}, Outputs: []*onnx.ValueInfo{{Name: "y"}},
		Nodes: []*onnx.Node{
			idx("zero", 0), idx("one", 1), idx("last", -1),
			shape("from1", &onnx.Attribute{Name: "start", Type: onnx.AttrInt, I: 1}),
			shape("to2", &onnx.Attribute{Name: "end", Type: onnx.AttrInt, I: -1}),
			shape("all"),
			gather("from1", "one", "a"), // 4
			gather("to2", "last", "b"),  // 6
			gather("all", "zero", "n"),  // N, at run time
			{OpType: "Concat", Inputs: []string{"a", "b", "n"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{{Name: "axis", Type: onnx.AttrInt, I: 0}}},
		}}}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gathers := 0
	for _, nd := range g.Nodes {
		if nd.Op == "Gather" {
			gathers++
		}
	}
	if gathers != 1 {
		t.Errorf("%d Gathers imported, want 1 (of the symbolic dimension; the others folded)", gathers)
	}
	for _, n := range []int64{1, 3} {
		res, err := runIn(g, map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, n, 6, 4)}, pipert.KBK)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := kernel.Int64s(res.Outputs[g.Outputs[0]].Host), []int64{4, 6, n}; !slices.Equal(got, want) {
			t.Errorf("N=%d: %v, want %v", n, got, want)
		}
	}
}
