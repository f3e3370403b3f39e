package subgraph

import (
	"fmt"
	"strings"

	"github.com/pipert/pipert/kernel"
)

// Builder assembles a Graph. Node and tensor names are generated when not
// given: node "<op>_<n>", the op lower-cased (b.Op("ReLU", x) is node
// "relu_0"), with outputs "<node>:<i>", n the first that makes names no
// input, constant, node or tensor given to the Builder so far has. A
// Builder does not check anything else; Build validates the whole graph
// at once. The zero Builder builds a graph of no name; a nil Builder
// builds nothing, and its Graph is empty.
type Builder struct {
	g      Graph
	counts map[string]int
	taken  map[string]bool // names of inputs, constants, nodes and outputs so far
}

// maxGenerated is the most outputs Node generates; a node asking for
// more gets none, and Build reports its arity.
const maxGenerated = 1 << 16

// NewBuilder starts a graph called name.
func NewBuilder(name string) *Builder {
	return &Builder{g: Graph{Name: name}, counts: make(map[string]int), taken: make(map[string]bool)}
}

// ready makes a zero Builder's maps; it reports false for a nil Builder.
func (b *Builder) ready() bool {
	if b == nil {
		return false
	}
	if b.taken == nil {
		b.counts, b.taken = make(map[string]int), make(map[string]bool)
	}
	return true
}

// Input declares a graph input and returns its name.
func (b *Builder) Input(name string, dt kernel.DType, shape ...int64) string {
	if !b.ready() {
		return name
	}
	b.g.Inputs = append(b.g.Inputs, Value{Name: name, DType: dt, Shape: kernel.Shape(shape).Clone()})
	b.taken[name] = true
	return name
}

// Const adds a constant tensor and returns its name.
func (b *Builder) Const(name string, t *kernel.Tensor) string {
	if !b.ready() {
		return name
	}
	b.g.Consts = append(b.g.Consts, Const{Name: name, Tensor: t})
	b.taken[name] = true
	return name
}

// Op adds a one-output node applying op to inputs and returns the output.
func (b *Builder) Op(op string, inputs ...string) string {
	return b.OpAttrs(op, nil, inputs...)
}

// OpAttrs is Op with attributes.
func (b *Builder) OpAttrs(op string, attrs kernel.Attrs, inputs ...string) string {
	out := b.Node(&Node{Op: op, Attrs: attrs, Inputs: inputs}, 1)
	if len(out) == 0 {
		return "" // a nil Builder's
	}
	return out[0]
}

// Node adds n. Empty Name and Outputs are generated (nOut outputs, none
// for nOut above 65536, whose arity Build then reports). It returns the
// node's output names. A nil n is added as it is, for validation to
// report, and has no outputs.
func (b *Builder) Node(n *Node, nOut int) []string {
	if !b.ready() {
		return nil
	}
	if n == nil {
		b.g.Nodes = append(b.g.Nodes, nil)
		return nil
	}
	gen := len(n.Outputs) == 0 && nOut <= maxGenerated
	if n.Name == "" {
		base := strings.ToLower(n.Op)
		for {
			n.Name = fmt.Sprintf("%s_%d", base, b.counts[base])
			b.counts[base]++
			if !b.taken[n.Name] && !(gen && b.anyTaken(n.Name, nOut)) {
				break
			}
		}
	}
	if gen {
		for i := 0; i < nOut; i++ {
			n.Outputs = append(n.Outputs, fmt.Sprintf("%s:%d", n.Name, i))
		}
	}
	b.taken[n.Name] = true
	for _, o := range n.Outputs {
		b.taken[o] = true
	}
	n.Inputs = append([]string(nil), n.Inputs...)
	b.g.Nodes = append(b.g.Nodes, n)
	return n.Outputs
}

// anyTaken reports whether an output name generated for node name (of
// nOut outputs) is taken.
func (b *Builder) anyTaken(name string, nOut int) bool {
	for i := 0; i < nOut; i++ {
		if b.taken[fmt.Sprintf("%s:%d", name, i)] {
			return true
		}
	}
	return false
}

// Last returns the most recently added node, to set its placement or
// attributes; nil if there is none.
func (b *Builder) Last() *Node {
	if b == nil || len(b.g.Nodes) == 0 {
		return nil
	}
	return b.g.Nodes[len(b.g.Nodes)-1]
}

// Output marks tensors as graph outputs.
func (b *Builder) Output(names ...string) {
	if b != nil {
		b.g.Outputs = append(b.g.Outputs, names...)
	}
}

// Graph returns the graph built so far, unvalidated.
func (b *Builder) Graph() *Graph {
	if b == nil {
		return &Graph{}
	}
	g := b.g
	return &g
}

// Build validates the graph against reg and returns it.
func (b *Builder) Build(reg kernel.Resolver) (*Graph, error) {
	g := b.Graph()
	if _, err := Validate(g, reg); err != nil {
		return nil, err
	}
	return g, nil
}
