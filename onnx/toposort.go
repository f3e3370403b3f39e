package onnx

import (
	"fmt"

	"github.com/pipert/pipert/internal/minheap"
)

// sorted returns the nodes of a graph in an order in which every node comes
// after the nodes whose outputs it reads. ONNX asks for nodes in such an
// order, but onnxruntime sorts the graph itself, and models edited or
// merged by tools are not always sorted: the import takes them as
// onnxruntime does. A node reads its inputs and, through the graphs of its
// attributes (If, Loop, Scan bodies), every name those graphs use; a name
// no node of gp produces is a graph input, an initializer or a tensor of an
// enclosing graph. Among the nodes ready at a time the earliest in the
// given order goes first, so a sorted graph keeps its order. A cycle is an
// ErrImport error naming a node on it; so is a name two nodes produce
// (onnxruntime takes the last), before any node is imported.
func sorted(gp *Graph) ([]*Node, error) {
	nodes := gp.Nodes
	given := map[string]string{} // names of the graph's inputs and initializers
	for _, v := range gp.Inputs {
		if v != nil {
			given[v.Name] = "graph input"
		}
	}
	for _, t := range gp.Initializers {
		if t != nil {
			given[t.Name] = "initializer"
		}
	}
	producer := make(map[string]int, len(nodes))
	for i, n := range nodes {
		if n == nil {
			continue // wellFormed reports it
		}
		for _, o := range n.Outputs {
			if what, ok := given[o]; ok && o != "" {
				// Reported here, or it would read as a cycle through
				// the nodes reading the input.
				return nil, fmt.Errorf("%w: graph %q: tensor %q defined twice: %s and output of node %q (%s)", ErrImport, gp.Name, o, what, n.Name, n.OpType)
			}
			if o == "" {
				continue
			}
			if j, ok := producer[o]; ok && j != i {
				// Reported before any node is imported: a node reading
				// the name would otherwise be imported with the first
				// definition and could fail for that.
				return nil, fmt.Errorf("%w: graph %q: tensor %q defined twice: output of node %q (%s) and of node %q (%s)", ErrImport, gp.Name, o, nodes[j].Name, nodes[j].OpType, n.Name, n.OpType)
			}
			producer[o] = i
		}
	}
	deps := make([][]int, len(nodes)) // the producers each node reads from
	inOrder := true
	for i, n := range nodes {
		if n == nil {
			continue
		}
		seen := map[int]bool{}
		visitNames(n, func(name string) {
			if j, ok := producer[name]; ok && !seen[j] {
				seen[j] = true
				deps[i] = append(deps[i], j)
				inOrder = inOrder && j < i
			}
		})
	}
	if inOrder {
		return nodes, nil
	}
	waiting := make([]int, len(nodes)) // producers not yet placed, per node
	readers := make([][]int, len(nodes))
	var ready minheap.Heap[position]
	for i, ds := range deps {
		waiting[i] = len(ds)
		for _, j := range ds {
			readers[j] = append(readers[j], i)
		}
		if len(ds) == 0 {
			ready.Push(position(i))
		}
	}
	out := make([]*Node, 0, len(nodes))
	for len(ready) > 0 {
		i := int(ready.Pop())
		out = append(out, nodes[i])
		for _, r := range readers[i] {
			if waiting[r]--; waiting[r] == 0 {
				ready.Push(position(r))
			}
		}
	}
	if len(out) < len(nodes) {
		for i, w := range waiting {
			if w > 0 {
				return nil, fmt.Errorf("%w: graph %q: node %q (%s) is on a cycle of nodes reading each other's outputs", ErrImport, gp.Name, nodes[i].Name, nodes[i].OpType)
			}
		}
	}
	return out, nil
}

// visitNames calls f with every tensor name node n reads: its inputs and
// the names the graphs of its attributes read from outside them (a
// superset of what they read from the enclosing graph). A name a graph
// defines itself — an input, an initializer, a node's output — is its
// own, also where it shadows a tensor of the same name outside (as
// onnxruntime scopes it): a body whose node writes a name the enclosing
// graph also produces does not read it from there.
func visitNames(n *Node, f func(string)) {
	for _, in := range n.Inputs {
		if in != "" {
			f(in)
		}
	}
	for _, a := range n.Attrs {
		if a == nil {
			continue
		}
		if a.G != nil {
			visitGraphNames(a.G, f)
		}
		for _, g := range a.Graphs {
			if g != nil {
				visitGraphNames(g, f)
			}
		}
	}
}

func visitGraphNames(g *Graph, f func(string)) {
	own := map[string]bool{}
	for _, v := range g.Inputs {
		if v != nil {
			own[v.Name] = true
		}
	}
	for _, t := range g.Initializers {
		if t != nil {
			own[t.Name] = true
		}
	}
	for _, n := range g.Nodes {
		if n != nil {
			for _, o := range n.Outputs {
				own[o] = true
			}
		}
	}
	outer := func(name string) {
		if !own[name] {
			f(name)
		}
	}
	for _, n := range g.Nodes {
		if n != nil {
			visitNames(n, outer)
		}
	}
	for _, o := range g.Outputs {
		if o != nil {
			outer(o.Name)
		}
	}
}

// position is a node's index in its graph's given order; the ready nodes
// pop the earliest first.
type position int

func (a position) Less(b position) bool { return a < b }
