package actor

import (
	"fmt"
	"slices"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// program is a validated graph lowered for execution: tensors become slot
// indices, nodes are in execution order, and each node knows which slots die
// with it. It is immutable after newProgram.
type program struct {
	g       *subgraph.Graph
	nodes   []node
	slots   []slotInfo
	inputs  []int // slots of the graph inputs, in declaration order
	consts  []int // slots of the constants
	outputs []int // slots of the graph outputs, in declaration order
}

type slotInfo struct {
	name     string
	producer int  // position in plan.nodes of the producer; -1 for inputs and constants
	isOutput bool // a graph output: never freed by the run
	isConst  bool
	isInput  bool
	input    int // position among the graph inputs, when isInput
}

// node is one kernel in execution order.
type node struct {
	name, op string
	k        kernel.Kernel
	costs    plan.Costs // synthetic host costs per stage
	in, out  []int      // slots
	// free lists the slots whose last use is this node (inputs and outputs
	// nobody reads), freed right after its launch.
	free      []int
	valueDeps []int // input positions InferShape reads values of
	compute   bool  // compute-dependent: real output shapes after it ran
	cd        kernel.ComputeDependent
	// watched is set when some later node waits on this node's completion
	// (a value or compute dependency): its launch records an event.
	watched bool
}

// newProgram lowers c; costs prices each node (by node index).
func newProgram(c *subgraph.Checked, costs func(i int) (plan.Costs, error)) (*program, error) {
	g := c.Graph
	p := &program{g: g}
	slotOf := make(map[string]int)
	add := func(name string, producer int) int {
		slotOf[name] = len(p.slots)
		p.slots = append(p.slots, slotInfo{name: name, producer: producer})
		return len(p.slots) - 1
	}
	for _, in := range g.Inputs {
		s := add(in.Name, -1)
		p.slots[s].isInput, p.slots[s].input = true, len(p.inputs)
		p.inputs = append(p.inputs, s)
	}
	for _, k := range g.Consts {
		s := add(k.Name, -1)
		p.slots[s].isConst = true
		p.consts = append(p.consts, s)
	}
	lastUse := make(map[int]int)
	for pos, i := range c.Order {
		n := g.Nodes[i]
		k := c.Kernels[i]
		cs, err := costs(i)
		if err != nil {
			return nil, err
		}
		nd := node{name: n.Name, op: n.Op, k: k, costs: cs}
		for _, in := range n.Inputs {
			s := slotOf[in]
			nd.in = append(nd.in, s)
			lastUse[s] = pos
		}
		for _, o := range n.Outputs {
			s := add(o, pos)
			nd.out = append(nd.out, s)
			lastUse[s] = pos
		}
		deps := k.Deps()
		for _, j := range deps.Value {
			if j < 0 || j >= len(n.Inputs) {
				continue // an optional input the node does not have
			}
			nd.valueDeps = append(nd.valueDeps, j)
		}
		nd.compute = deps.Compute
		if nd.compute {
			cd, ok := k.(kernel.ComputeDependent)
			if !ok {
				return nil, fmt.Errorf("actor: node %q (op %s): compute-dependent kernel does not implement kernel.ComputeDependent", n.Name, n.Op)
			}
			nd.cd = cd
			nd.watched = true
		}
		p.nodes = append(p.nodes, nd)
	}
	for _, o := range g.Outputs {
		s := slotOf[o]
		p.slots[s].isOutput = true
		p.outputs = append(p.outputs, s)
	}
	for pos := range p.nodes {
		nd := &p.nodes[pos]
		for _, j := range nd.valueDeps {
			if pr := p.slots[nd.in[j]].producer; pr >= 0 {
				p.nodes[pr].watched = true
			}
		}
	}
	for s, pos := range lastUse {
		info := p.slots[s]
		if info.isOutput || info.isConst {
			continue
		}
		p.nodes[pos].free = append(p.nodes[pos].free, s)
	}
	for pos := range p.nodes {
		slices.Sort(p.nodes[pos].free)
	}
	return p, nil
}
