package onnx_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestSequenceCountAtRunTime: a SplitToSequence whose number of elements
// depends on a dimension the model leaves free (a scalar split, or none,
// along it) is ErrUnsupported, naming the node and the dimension; with
// that dimension fixed by Options.Shapes it imports. A split of constant
// sizes along a free dimension imports, and a run whose dimension is not
// their sum is an error, not a wrong answer.
func TestSequenceCountAtRunTime(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, HasShape: true, Dims: []onnx.Dim{{Param: "N"}, {Value: 2, Known: true}}}
	ints := func(name string, v ...int64) *onnx.Node {
		return &onnx.Node{OpType: "Constant", Outputs: []string{name}, Attrs: []*onnx.Attribute{{Name: "value_ints", Type: onnx.AttrInts, Ints: v}}}
	}
	scalar := &onnx.Node{OpType: "Constant", Outputs: []string{"split"}, Attrs: []*onnx.Attribute{{Name: "value_int", Type: onnx.AttrInt, I: 2}}}
	build := func(split *onnx.Node) *onnx.Model {
		nodes := []*onnx.Node{{Name: "chunks", OpType: "SplitToSequence", Inputs: []string{"x"}, Outputs: []string{"s"}},
			{OpType: "ConcatFromSequence", Inputs: []string{"s"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{{Name: "axis", Type: onnx.AttrInt, I: 0}}}}
		if split != nil {
			nodes[0].Inputs = append(nodes[0].Inputs, "split")
			nodes = append([]*onnx.Node{split}, nodes...)
		}
		return &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 13}, Graph: &onnx.Graph{Name: "g", Nodes: nodes,
			Inputs: []*onnx.ValueInfo{x}, Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
	}
	for name, split := range map[string]*onnx.Node{"no split": nil, "scalar split": scalar} {
		m := build(split)
		_, err := onnx.Import(m, onnx.Options{})
		if !errors.Is(err, onnx.ErrUnsupported) || !strings.Contains(err.Error(), `"chunks"`) || !strings.Contains(err.Error(), "dimension 0") {
			t.Errorf("%s along a free dimension: %v, want ErrUnsupported naming node chunks and dimension 0", name, err)
		}
		if _, err := onnx.Import(m, onnx.Options{Shapes: map[string][]int64{"x": {4, 2}}}); err != nil {
			t.Errorf("%s along a fixed dimension: %v", name, err)
		}
	}
	g, err := onnx.Import(build(ints("split", 1, 2)), onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2)}
	if _, err := runIn(g, in, pipert.KBK); err == nil || !strings.Contains(err.Error(), `"chunks"`) {
		t.Errorf("split [1 2] of a dimension of 4: %v, want an error naming node chunks", err)
	}
	in["x"] = kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	checkRunOutputs(t, g, in, [][]float32{{1, 2, 3, 4, 5, 6}})
}

// TestSequenceRunTimeSplit: a SplitToSequence whose split is a graph
// input of a fixed length makes that many elements, their sizes read at
// run time (from opset 13, where Split takes its split as an input; before
// it, ErrUnsupported); a split of a symbolic length is ErrUnsupported.
func TestSequenceRunTimeSplit(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, HasShape: true, Dims: []onnx.Dim{{Param: "N"}}}
	build := func(opset int64, split onnx.Dim) *onnx.Model {
		sz := &onnx.ValueInfo{Name: "sz", DataType: onnx.Int64, HasShape: true, Dims: []onnx.Dim{split}}
		return &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": opset}, Graph: &onnx.Graph{Name: "g",
			Inputs: []*onnx.ValueInfo{x, sz}, Outputs: []*onnx.ValueInfo{{Name: "y"}},
			Nodes: []*onnx.Node{{Name: "chunks", OpType: "SplitToSequence", Inputs: []string{"x", "sz"}, Outputs: []string{"s"}},
				{OpType: "SequenceErase", Inputs: []string{"s"}, Outputs: []string{"e"}},
				{OpType: "ConcatFromSequence", Inputs: []string{"e"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{{Name: "axis", Type: onnx.AttrInt, I: 0}}}}}}
	}
	two := onnx.Dim{Value: 2, Known: true}
	for _, m := range []*onnx.Model{build(11, two), build(13, onnx.Dim{Param: "K"})} {
		if _, err := onnx.Import(m, onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) || !strings.Contains(err.Error(), `"chunks"`) {
			t.Errorf("opset %d, split of %v: %v, want ErrUnsupported naming node chunks", m.Opsets[""], m.Graph.Inputs[1].Dims, err)
		}
	}
	g, err := onnx.Import(build(13, two), onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		x    []float32
		sz   []int64
		want []float32
	}{{[]float32{1, 2, 3}, []int64{1, 2}, []float32{1}}, {[]float32{1, 2, 3, 4, 5}, []int64{3, 2}, []float32{1, 2, 3}}} {
		sz := kernel.New(kernel.Int64, 2)
		copy(kernel.Int64s(sz.Host), tc.sz)
		checkRunOutputs(t, g, map[string]*kernel.Tensor{"x": kernel.FromFloat32(tc.x, int64(len(tc.x))), "sz": sz}, [][]float32{tc.want})
	}
}
