package onnx_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
)

// TestIfUntakenBranchFailsOnlyIfTaken: an If on a condition known only at
// run time, whose else branch reshapes x [3,1] to [2,-1] — impossible, but
// the branch is not taken (as exporters guard a reshape by a shape test).
// The import succeeds with x's shape fixed and with nothing folded, and the
// run takes the then branch; taking the else branch is a run-time error.
func TestIfUntakenBranchFailsOnlyIfTaken(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, HasShape: true, Dims: []onnx.Dim{{Param: "n"}, {Value: 1, Known: true}}}
	c := &onnx.ValueInfo{Name: "c", DataType: onnx.Bool, HasShape: true}
	branch := func(name string, n *onnx.Node) *onnx.Graph {
		return &onnx.Graph{Name: name, Nodes: []*onnx.Node{n}, Outputs: []*onnx.ValueInfo{{Name: n.Outputs[0], DataType: onnx.Float}}}
	}
	m := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: &onnx.Graph{
		Name:         "if_dead_branch",
		Initializers: []*onnx.Tensor{{Name: "s", Dims: []int64{2}, DataType: onnx.Int64, Int64s: []int64{2, -1}}},
		Inputs:       []*onnx.ValueInfo{x, c},
		Outputs:      []*onnx.ValueInfo{{Name: "y", DataType: onnx.Float}},
		Nodes: []*onnx.Node{{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{
			{Name: "then_branch", Type: onnx.AttrGraph, G: branch("then", &onnx.Node{Name: "relu", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"a"}})},
			{Name: "else_branch", Type: onnx.AttrGraph, G: branch("else", &onnx.Node{Name: "reshape", OpType: "Reshape", Inputs: []string{"x", "s"}, Outputs: []string{"b"}})},
		}}},
	}}
	xv := kernel.New(kernel.Float32, 3, 1)
	copy(kernel.Float32s(xv.Host), []float32{1, -2, 3})
	cond := func(v bool) *kernel.Tensor {
		t := kernel.New(kernel.Bool)
		if v {
			t.Host[0] = 1
		}
		return t
	}
	shapes := map[string][]int64{"x": {3, 1}}
	for _, opt := range []onnx.Options{{Shapes: shapes}, {Shapes: shapes, NoFold: true}, {}} {
		g, err := onnx.Import(m, opt)
		if err != nil {
			t.Fatalf("import (NoFold %v, shapes %v): %v", opt.NoFold, opt.Shapes != nil, err)
		}
		run := func(c bool) (*pipert.Result, error) {
			exe, err := pipert.Compile(g, pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}))
			if err != nil {
				return nil, err
			}
			defer exe.Close()
			return exe.Run(context.Background(), map[string]*kernel.Tensor{"x": xv, "c": cond(c)})
		}
		res, err := run(true)
		if err != nil {
			t.Fatalf("run (NoFold %v, shapes %v): %v", opt.NoFold, opt.Shapes != nil, err)
		}
		y := res.Outputs[g.Outputs[0]]
		if got := kernel.Float32s(y.Host); !y.Shape.Equal(kernel.Shape{3, 1}) || got[0] != 1 || got[1] != 0 || got[2] != 3 {
			t.Errorf("then branch: got %v %v, want [3 1] [1 0 3]", y.Shape, got)
		}
		if _, err := run(false); err == nil || !strings.Contains(err.Error(), "Reshape") {
			t.Errorf("else branch: error %v, want Reshape's", err)
		}
	}
}

// TestIfBranchOutputsOneTensorTwice: a branch whose two outputs are
// Identity copies of one tensor (an outer one in then, one it computes in
// else, as ONNX's own expansion of AffineGrid has them) gives it as both.
func TestIfBranchOutputsOneTensorTwice(t *testing.T) {
	x := &onnx.ValueInfo{Name: "x", DataType: onnx.Float, HasShape: true, Dims: []onnx.Dim{{Value: 3, Known: true}}}
	c := &onnx.ValueInfo{Name: "c", DataType: onnx.Bool, HasShape: true}
	id := func(in, out string) *onnx.Node {
		return &onnx.Node{Name: out, OpType: "Identity", Inputs: []string{in}, Outputs: []string{out}}
	}
	outs := func(a, b string) []*onnx.ValueInfo {
		return []*onnx.ValueInfo{{Name: a, DataType: onnx.Float}, {Name: b, DataType: onnx.Float}}
	}
	m := &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": 17}, Graph: &onnx.Graph{
		Name:    "if_twice",
		Inputs:  []*onnx.ValueInfo{x, c},
		Outputs: outs("y1", "y2"),
		Nodes: []*onnx.Node{{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y1", "y2"}, Attrs: []*onnx.Attribute{
			{Name: "then_branch", Type: onnx.AttrGraph, G: &onnx.Graph{Name: "then",
				Nodes: []*onnx.Node{id("x", "t1"), id("x", "t2")}, Outputs: outs("t1", "t2")}},
			{Name: "else_branch", Type: onnx.AttrGraph, G: &onnx.Graph{Name: "else",
				Nodes:   []*onnx.Node{{Name: "neg", OpType: "Neg", Inputs: []string{"x"}, Outputs: []string{"n"}}, id("n", "e1"), id("n", "e2")},
				Outputs: outs("e1", "e2")}},
		}}},
	}}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := pipert.Compile(g, pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	xv := kernel.New(kernel.Float32, 3)
	copy(kernel.Float32s(xv.Host), []float32{1, -2, 3})
	for _, take := range []bool{true, false} {
		cv := kernel.New(kernel.Bool)
		if take {
			cv.Host[0] = 1
		}
		res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": xv, "c": cv})
		if err != nil {
			t.Fatalf("condition %v: %v", take, err)
		}
		want := []float32{1, -2, 3}
		if !take {
			want = []float32{-1, 2, -3}
		}
		for _, o := range g.Outputs {
			if got := kernel.Float32s(res.Outputs[o].Host); !slices.Equal(got, want) {
				t.Errorf("condition %v: output %s = %v, want %v", take, o, got, want)
			}
		}
	}
}
