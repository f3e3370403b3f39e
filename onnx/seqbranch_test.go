package onnx_test

import (
	"errors"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestSequencesInBranches: a sequence made and used inside a runtime If's
// branch, of a tensor the branch captures, is resolved with what the
// import knows of the capture; a branch returning a sequence is
// ErrUnsupported.
func TestSequencesInBranches(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 2, Known: true}}, HasShape: true}
	c := &onnx.ValueInfo{Name: "c", DataType: onnx.Bool, Dims: []onnx.Dim{}, HasShape: true}
	stack := &onnx.Graph{Name: "t", Nodes: []*onnx.Node{
		{OpType: "SequenceConstruct", Inputs: []string{"x", "x"}, Outputs: []string{"s"}},
		{OpType: "ConcatFromSequence", Inputs: []string{"s"}, Outputs: []string{"o"},
			Attrs: []*onnx.Attribute{{Name: "axis", Type: onnx.AttrInt, I: -1}, {Name: "new_axis", Type: onnx.AttrInt, I: 1}}}},
		Outputs: []*onnx.ValueInfo{{Name: "o"}}}
	other := &onnx.Graph{Name: "e", Nodes: []*onnx.Node{
		{OpType: "Concat", Inputs: []string{"x", "x"}, Outputs: []string{"cat"}, Attrs: []*onnx.Attribute{{Name: "axis", Type: onnx.AttrInt, I: 0}}},
		{OpType: "Constant", Outputs: []string{"shape"}, Attrs: []*onnx.Attribute{{Name: "value_ints", Type: onnx.AttrInts, Ints: []int64{2, 2}}}},
		{OpType: "Reshape", Inputs: []string{"cat", "shape"}, Outputs: []string{"o"}}},
		Outputs: []*onnx.ValueInfo{{Name: "o"}}}
	ifNode := func(thenG, elseG *onnx.Graph) *onnx.Node {
		return &onnx.Node{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{
			{Name: "then_branch", Type: onnx.AttrGraph, G: thenG}, {Name: "else_branch", Type: onnx.AttrGraph, G: elseG}}}
	}
	m := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x, c},
		Nodes: []*onnx.Node{ifNode(stack, other)}, Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	yes := kernel.New(kernel.Bool)
	yes.Host[0] = 1
	checkRunOutputs(t, g, map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2}, 2), "c": yes}, [][]float32{{1, 1, 2, 2}})

	seqOut := &onnx.Graph{Name: "s", Nodes: []*onnx.Node{{OpType: "SequenceConstruct", Inputs: []string{"x"}, Outputs: []string{"o"}}},
		Outputs: []*onnx.ValueInfo{{Name: "o"}}}
	m.Graph.Nodes = []*onnx.Node{ifNode(seqOut, seqOut), {OpType: "SequenceLength", Inputs: []string{"y"}, Outputs: []string{"n"}}}
	m.Graph.Outputs = []*onnx.ValueInfo{{Name: "n"}}
	if _, err := onnx.Import(m, onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) {
		t.Fatalf("a branch returning a sequence: %v, want ErrUnsupported", err)
	}
}
