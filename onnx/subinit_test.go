package onnx_test

import (
	"context"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/subgraph"
)

// TestSubgraphInitializers imports an If whose branches hold their own
// initializers (as PyTorch exports them), once as a runtime If and once
// inlined with its condition folded, and a Loop whose body holds one:
// each branch and body reads its own constant.
func TestSubgraphInitializers(t *testing.T) {
	scalar := func(name string, v float32) *onnx.Tensor {
		return &onnx.Tensor{Name: name, DataType: onnx.Float, Dims: []int64{}, Floats: []float32{v}}
	}
	branch := func(name string, v float32) *onnx.Graph {
		return &onnx.Graph{Name: name,
			Initializers: []*onnx.Tensor{scalar(name+"_k", v)},
			Nodes:        []*onnx.Node{{OpType: "Add", Inputs: []string{"x", name + "_k"}, Outputs: []string{name + "_y"}}},
			Outputs:      []*onnx.ValueInfo{{Name: name + "_y", DataType: onnx.Float}}}
	}
	ifModel := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 16}, Graph: &onnx.Graph{Name: "g",
		Inputs: []*onnx.ValueInfo{
			{Name: "c", DataType: onnx.Bool, Dims: []onnx.Dim{}, HasShape: true},
			{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 2, Known: true}}, HasShape: true}},
		Nodes: []*onnx.Node{{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{
			{Name: "then_branch", Type: onnx.AttrGraph, G: branch("then", 10)},
			{Name: "else_branch", Type: onnx.AttrGraph, G: branch("else", 100)}}}},
		Outputs: []*onnx.ValueInfo{{Name: "y", DataType: onnx.Float}}}}
	x := kernel.FromFloat32([]float32{1, 2}, 2)
	for _, tc := range []struct {
		cond bool
		fold bool
		want []float32
	}{{true, false, []float32{11, 12}}, {false, false, []float32{101, 102}}, {true, true, []float32{11, 12}}, {false, true, []float32{101, 102}}} {
		c := kernel.New(kernel.Bool)
		if tc.cond {
			c.Host[0] = 1
		}
		opt := onnx.Options{}
		in := map[string]*kernel.Tensor{"x": x, "c": c}
		if tc.fold {
			opt.Values = map[string]*kernel.Tensor{"c": c}
			delete(in, "c")
		}
		g, err := onnx.Import(ifModel, opt)
		if err != nil {
			t.Fatalf("cond %v fold %v: %v", tc.cond, tc.fold, err)
		}
		checkRun(t, g, in, tc.want)
	}

	// A Loop of 3 iterations adding the body's own constant 0.5 to x.
	body := &onnx.Graph{Name: "body",
		Initializers: []*onnx.Tensor{scalar("half", 0.5)},
		Inputs: []*onnx.ValueInfo{{Name: "i", DataType: onnx.Int64}, {Name: "cin", DataType: onnx.Bool},
			{Name: "acc", DataType: onnx.Float}},
		Nodes: []*onnx.Node{
			{OpType: "Identity", Inputs: []string{"cin"}, Outputs: []string{"cout"}},
			{OpType: "Add", Inputs: []string{"acc", "half"}, Outputs: []string{"acc2"}}},
		Outputs: []*onnx.ValueInfo{{Name: "cout", DataType: onnx.Bool}, {Name: "acc2", DataType: onnx.Float}}}
	n := &onnx.Tensor{Name: "n", DataType: onnx.Int64, Dims: []int64{}, Int64s: []int64{3}}
	loopModel := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 16}, Graph: &onnx.Graph{Name: "g",
		Initializers: []*onnx.Tensor{n},
		Inputs:       []*onnx.ValueInfo{{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{{Value: 2, Known: true}}, HasShape: true}},
		Nodes: []*onnx.Node{{Name: "loop", OpType: "Loop", Inputs: []string{"n", "", "x"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{
			{Name: "body", Type: onnx.AttrGraph, G: body}}}},
		Outputs: []*onnx.ValueInfo{{Name: "y", DataType: onnx.Float}}}}
	g, err := onnx.Import(loopModel, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, g, map[string]*kernel.Tensor{"x": x}, []float32{2.5, 3.5})

	// A while loop (M omitted, as tf2onnx exports one): add 0.5 while the
	// sum stays below 2.6, from 1 (3.0 after four iterations).
	whileBody := &onnx.Graph{Name: "body",
		Initializers: []*onnx.Tensor{scalar("half", 0.5), scalar("limit", 2.6)},
		Inputs: []*onnx.ValueInfo{{Name: "i", DataType: onnx.Int64}, {Name: "cin", DataType: onnx.Bool},
			{Name: "acc", DataType: onnx.Float}},
		Nodes: []*onnx.Node{
			{OpType: "Add", Inputs: []string{"acc", "half"}, Outputs: []string{"acc2"}},
			{OpType: "Less", Inputs: []string{"acc2", "limit"}, Outputs: []string{"cout"}}},
		Outputs: []*onnx.ValueInfo{{Name: "cout", DataType: onnx.Bool}, {Name: "acc2", DataType: onnx.Float}}}
	whileModel := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 16}, Graph: &onnx.Graph{Name: "g",
		Initializers: []*onnx.Tensor{{Name: "go", DataType: onnx.Bool, Dims: []int64{}, Int32s: []int32{1}}},
		Inputs:       []*onnx.ValueInfo{{Name: "x", DataType: onnx.Float, Dims: []onnx.Dim{}, HasShape: true}},
		Nodes: []*onnx.Node{{Name: "while", OpType: "Loop", Inputs: []string{"", "go", "x"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{
			{Name: "body", Type: onnx.AttrGraph, G: whileBody}}}},
		Outputs: []*onnx.ValueInfo{{Name: "y", DataType: onnx.Float}}}}
	if g, err = onnx.Import(whileModel, onnx.Options{}); err != nil {
		t.Fatal(err)
	}
	one := kernel.New(kernel.Float32)
	kernel.Float32s(one.Host)[0] = 1
	checkRun(t, g, map[string]*kernel.Tensor{"x": one}, []float32{3})
}

func checkRun(t *testing.T, g *subgraph.Graph, in map[string]*kernel.Tensor, want []float32) {
	t.Helper()
	checkRunOutputs(t, g, in, [][]float32{want})
}

// checkRunOutputs runs g once and compares its first outputs with want,
// exactly.
func checkRunOutputs(t *testing.T, g *subgraph.Graph, in map[string]*kernel.Tensor, want [][]float32) {
	t.Helper()
	exe, err := pipert.Compile(g, pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range want {
		got := kernel.Float32s(res.Outputs[g.Outputs[k]].Host)
		if len(got) != len(w) {
			t.Fatalf("output %d: got %v, want %v", k, got, w)
		}
		for i := range w {
			if got[i] != w[i] {
				t.Fatalf("output %d: got %v, want %v", k, got, w)
			}
		}
	}
}
