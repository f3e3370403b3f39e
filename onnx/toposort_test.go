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
