package onnx

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestUnsortedGraphs: nodes given out of order import as onnxruntime runs
// them, sorted by what they read (If branches' reads included); a sorted
// graph keeps its order; a cycle is ErrImport naming a node on it.
func TestUnsortedGraphs(t *testing.T) {
	x := vi("x", Float, 2)
	relu := func(name, in, out string) *Node {
		return &Node{Name: name, OpType: "Relu", Inputs: []string{in}, Outputs: []string{out}}
	}
	neg := func(name, in, out string) *Node {
		return &Node{Name: name, OpType: "Neg", Inputs: []string{in}, Outputs: []string{out}}
	}
	ops := func(m *Model) []string {
		t.Helper()
		g, err := Import(m, Options{NoFold: true})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, n := range g.Nodes {
			names = append(names, n.Name)
		}
		return names
	}
	chain := []*Node{neg("a", "x", "t"), relu("b", "t", "u"), neg("c", "u", "y")}
	want := ops(model(chain, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}}))
	for _, perm := range [][]int{{2, 1, 0}, {1, 2, 0}, {2, 0, 1}} {
		var nodes []*Node
		for _, i := range perm {
			nodes = append(nodes, chain[i])
		}
		if got := ops(model(nodes, []*ValueInfo{x}, []*ValueInfo{{Name: "y"}})); !slices.Equal(got, want) {
			t.Errorf("order %v: imported %v, want %v", perm, got, want)
		}
	}
	// Independent nodes keep the given order.
	free := []*Node{neg("p", "x", "y1"), relu("q", "x", "y2"), neg("r", "x", "y3")}
	if got := ops(model(free, []*ValueInfo{x}, []*ValueInfo{{Name: "y1"}, {Name: "y2"}, {Name: "y3"}})); !slices.Equal(got, []string{"p", "q", "r"}) {
		t.Errorf("independent nodes imported as %v, want p, q, r", got)
	}
	// An If whose branch reads a tensor a later node produces runs after it.
	branch := &Graph{Name: "then", Nodes: []*Node{relu("in", "late", "b")}, Outputs: []*ValueInfo{{Name: "b", DataType: Float}}}
	other := &Graph{Name: "else", Nodes: []*Node{neg("in2", "late", "e")}, Outputs: []*ValueInfo{{Name: "e", DataType: Float}}}
	ifNode := &Node{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"}, Attrs: []*Attribute{
		{Name: "then_branch", Type: AttrGraph, G: branch}, {Name: "else_branch", Type: AttrGraph, G: other}}}
	m := model([]*Node{ifNode, neg("late", "x", "late")}, []*ValueInfo{x, vi("c", Bool)}, []*ValueInfo{{Name: "y"}})
	if got := ops(m); len(got) != 2 || got[0] != "late" {
		t.Errorf("If reading a later node's tensor imported as %v, want late first", got)
	}
	// A cycle through a branch.
	cyc := model([]*Node{
		{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"late"}, Attrs: ifNode.Attrs},
		neg("late2", "late", "y"),
	}, []*ValueInfo{x, vi("c", Bool)}, []*ValueInfo{{Name: "y"}})
	if _, err := Import(cyc, Options{}); !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("a cycle through a branch: %v, want an ErrImport naming the cycle", err)
	}
}

// TestTensorDefinedTwiceBeforeImport: a name two nodes produce (as the
// Constants repeated at the end of onnxruntime's gpt2_past test model) is
// refused as defined twice before any node is imported, not through the
// failure of a node that reads the first definition.
func TestTensorDefinedTwiceBeforeImport(t *testing.T) {
	shape := func(name string, dims ...int64) *Node {
		return &Node{Name: name, OpType: "Constant", Outputs: []string{"shape"},
			Attrs: []*Attribute{{Name: "value", Type: AttrTensor, T: &Tensor{DataType: Int64, Dims: []int64{int64(len(dims))}, Int64s: dims}}}}
	}
	reshape := &Node{Name: "reshape", OpType: "Reshape", Inputs: []string{"x", "shape"}, Outputs: []string{"y"}}
	for _, nodes := range [][]*Node{
		{shape("first", 3), reshape, shape("last", 2, 2)},
		{reshape, shape("first", 3), shape("last", 2, 2)},
	} {
		_, err := Import(model(nodes, []*ValueInfo{vi("x", Float, 4)}, []*ValueInfo{{Name: "y"}}), Options{})
		if !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), `tensor "shape" defined twice: output of node "first" (Constant) and of node "last" (Constant)`) {
			t.Errorf("nodes %v: %v, want ErrImport saying shape is defined twice by first and last", []string{nodes[0].Name, nodes[1].Name, nodes[2].Name}, err)
		}
	}
}
