// Package subgraph is pipert's graph IR: nodes that apply ops to named tensor
// edges, graph inputs and outputs, constants, a placement label per node, a
// builder, validation that names the node at fault, and a deterministic
// execution order.
//
// A Graph is plain data: build it with a Builder or literally, then Validate
// it against a kernel.Resolver (package kernel/ops has the registry of built-in ops). Validation never panics on a bad graph; it
// returns an *Error naming the node and the cause.
//
// Dependency rule: subgraph imports kernel only.
package subgraph

import (
	"fmt"
	"slices"

	"github.com/pipert/pipert/kernel"
)

// Placement is a node's placement label. The zero value, Unplaced, leaves
// the choice to the placement policy.
type Placement uint8

// Placement labels.
const (
	Unplaced Placement = iota
	OnDevice
	OnCPU
)

func (p Placement) String() string {
	switch p {
	case Unplaced:
		return "unplaced"
	case OnDevice:
		return "device"
	case OnCPU:
		return "cpu"
	}
	return fmt.Sprintf("Placement(%d)", uint8(p))
}

// Value declares a graph input: its name, element type and shape. Dimensions
// may be kernel.Dynamic; a run resolves them from the real inputs.
type Value struct {
	Name  string
	DType kernel.DType
	Shape kernel.Shape
	// AnyShape declares an input whose dtype and rank are known only at
	// run time (a tensor crossing parts downstream of a data-dependent
	// shape): DType and Shape are placeholders, rank 1 and dynamic, that
	// nothing is inferred from; a run takes any dtype and shape for it.
	AnyShape bool
}

// Const is a named constant tensor with real contents (weights, shape
// operands, indices). Virtual constants stand for weights at real model
// sizes in benchmarks.
type Const struct {
	Name   string
	Tensor *kernel.Tensor
}

// Node applies an op to input tensors and names its output tensors.
type Node struct {
	Name      string
	Op        string
	Attrs     kernel.Attrs
	Inputs    []string
	Outputs   []string
	Placement Placement
}

// Graph is a dataflow graph of kernels.
type Graph struct {
	Name    string
	Inputs  []Value
	Consts  []Const
	Nodes   []*Node
	Outputs []string
}

// Clone returns a copy of g that shares nothing a caller may change with
// it: the inputs, constants (their shapes and contents), nodes, attributes
// (slices, tensors and subgraphs of control flow copied too) and outputs.
// A compiled graph reads its constants again after Compile (value
// dependencies, a re-upload after a device reset, a new lane of
// submissions), so it must own them. A nil g clones to nil. A subgraph
// several attributes hold is copied once, and they hold the copy; a graph
// that holds itself (which Validate refuses) clones to one that does.
func (g *Graph) Clone() *Graph {
	return g.clone(map[*Graph]*Graph{})
}

// clone is Clone with the copies made so far, by original.
func (g *Graph) clone(done map[*Graph]*Graph) *Graph {
	if g == nil {
		return nil
	}
	if c, ok := done[g]; ok {
		return c
	}
	c := &Graph{Name: g.Name, Inputs: slices.Clone(g.Inputs), Consts: slices.Clone(g.Consts), Outputs: slices.Clone(g.Outputs)}
	done[g] = c
	for i := range c.Inputs {
		c.Inputs[i].Shape = c.Inputs[i].Shape.Clone()
	}
	for i := range c.Consts {
		c.Consts[i].Tensor = cloneTensor(c.Consts[i].Tensor)
	}
	if g.Nodes != nil {
		c.Nodes = make([]*Node, len(g.Nodes))
	}
	// The nodes, and their inputs' and outputs' names, in two arrays
	// rather than three objects a node: a large graph's clone is most of
	// what its Compile allocates.
	count, names := 0, 0
	for _, n := range g.Nodes {
		if n != nil {
			count++
			names += len(n.Inputs) + len(n.Outputs)
		}
	}
	nodes, strs := make([]Node, count), make([]string, 0, names)
	cloneNames := func(s []string) []string {
		if s == nil {
			return nil
		}
		at := len(strs)
		strs = append(strs, s...)
		return strs[at:len(strs):len(strs)] // an append to one does not reach the next
	}
	for i, n := range g.Nodes {
		if n == nil {
			continue
		}
		m := &nodes[0]
		nodes = nodes[1:]
		*m = *n
		m.Inputs, m.Outputs = cloneNames(n.Inputs), cloneNames(n.Outputs)
		m.Attrs = cloneAttrs(n.Attrs, done)
		c.Nodes[i] = m
	}
	return c
}

// Clone returns a copy of n that shares nothing a caller may change with
// it: its inputs' and outputs' names and its attributes (slices, tensors
// and subgraphs of control flow copied too, a subgraph several of its
// attributes hold copied once). A nil n clones to nil.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Inputs, c.Outputs = slices.Clone(n.Inputs), slices.Clone(n.Outputs)
	c.Attrs = cloneAttrs(n.Attrs, map[*Graph]*Graph{})
	return &c
}

// cloneAttrs copies a for clone and Node.Clone (nil stays nil).
func cloneAttrs(a kernel.Attrs, done map[*Graph]*Graph) kernel.Attrs {
	if a == nil {
		return nil
	}
	c := make(kernel.Attrs, len(a))
	for k, v := range a {
		switch x := v.(type) {
		case []int64:
			v = slices.Clone(x)
		case []float64:
			v = slices.Clone(x)
		case []string:
			v = slices.Clone(x)
		case []int:
			v = slices.Clone(x)
		case []float32:
			v = slices.Clone(x)
		case *kernel.Tensor:
			v = cloneTensor(x)
		case []*kernel.Tensor:
			ts := make([]*kernel.Tensor, len(x))
			for i, t := range x {
				ts[i] = cloneTensor(t)
			}
			v = ts
		case *Graph:
			v = x.clone(done)
		case []*Graph:
			gs := make([]*Graph, len(x))
			for i, sg := range x {
				gs[i] = sg.clone(done)
			}
			v = gs
		}
		c[k] = v
	}
	return c
}

// cloneTensor copies t's shape and host contents (nil stays nil).
func cloneTensor(t *kernel.Tensor) *kernel.Tensor {
	if t == nil {
		return nil
	}
	c := *t
	c.Shape = t.Shape.Clone()
	if t.Host != nil {
		c.Host = slices.Clone(t.Host)
	}
	return &c
}

// Error is a validation failure. Node is empty for graph-level problems.
type Error struct {
	Graph string
	Node  string
	Op    string
	Err   error
}

func (e *Error) Error() string {
	switch {
	case e == nil:
		return "<nil>"
	case e.Node == "":
		return fmt.Sprintf("subgraph: graph %q: %v", e.Graph, e.Err)
	case e.Op == "":
		return fmt.Sprintf("subgraph: graph %q: node %q: %v", e.Graph, e.Node, e.Err)
	}
	return fmt.Sprintf("subgraph: graph %q: node %q (%s): %v", e.Graph, e.Node, e.Op, e.Err)
}

func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Causes of validation errors, for errors.Is.
var (
	ErrCycle      = fmt.Errorf("cycle")
	ErrDangling   = fmt.Errorf("dangling tensor")
	ErrDuplicate  = fmt.Errorf("duplicate name")
	ErrUnknownOp  = kernel.ErrUnknownOp // the same sentinel as the resolver's
	ErrArity      = fmt.Errorf("wrong number of operands")
	ErrInferShape = fmt.Errorf("shape inference failed")
	ErrBadInput   = fmt.Errorf("bad graph input")
	// ErrBadNode is a node that cannot be built or whose kernel breaks
	// the kernel contract: nil, unnamed, an output without a name, an
	// op's factory refusing its attributes, Arity or Deps panicking, Deps
	// naming an input the node does not have.
	ErrBadNode   = fmt.Errorf("bad node")
	ErrBadConst  = fmt.Errorf("bad constant")
	ErrBadOutput = fmt.Errorf("bad graph output")
)

// holdsItself returns the name of a graph that an attribute of one of its
// nodes holds, directly or through its subgraphs, or "" when there is none.
func (g *Graph) holdsItself() string {
	state := map[*Graph]int{} // 1: being walked, 2: done
	var walk func(*Graph) string
	walk = func(h *Graph) string {
		if h == nil || state[h] == 2 {
			return ""
		}
		if state[h] == 1 {
			return h.Name
		}
		state[h] = 1
		for _, n := range h.Nodes {
			if n == nil {
				continue
			}
			for _, v := range n.Attrs {
				var subs []*Graph
				switch x := v.(type) {
				case *Graph:
					subs = []*Graph{x}
				case []*Graph:
					subs = x
				}
				for _, sg := range subs {
					if name := walk(sg); name != "" {
						return name
					}
				}
			}
		}
		state[h] = 2
		return ""
	}
	return walk(g)
}
