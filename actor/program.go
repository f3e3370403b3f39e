package actor

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// program is a validated graph lowered for execution: tensors become slot
// indices, nodes are in execution order, and each node knows which slots die
// with it. It is immutable after newProgram.
type program struct {
	// name and decl are the graph's name and its declared inputs: the
	// program keeps nothing else of the graph, whose nodes are garbage
	// once lowered.
	name   string
	decl   []subgraph.Value
	nodes  []node
	slots  []slotInfo
	inputs []int // slots of the graph inputs, in declaration order
	consts []int // slots of the constants
	// constVals are the constants' tensors, by position in consts: the
	// graph's, then those of spliced branches.
	constVals []*kernel.Tensor
	outputs   []int // slots of the graph outputs, in declaration order
	// values is the number of slots some node reads the value of (see
	// slotInfo.value).
	values int
	// keys is the number of distinct attribute keys (internedKey.id).
	keys int
	// iota holds 0, 1, … up to the most inputs of a checked node (see
	// viewed).
	iota []int
	// io holds the nodes' slot lists (see node.io).
	io []int32
}

// viewed lists the inputs node pos reads through views of its own (see
// KernelRunner.views): every input of a checked node, the value
// dependencies of the others.
func (p *program) viewed(pos int) []int {
	nd := &p.nodes[pos]
	if nd.checked {
		return p.iota[:len(nd.in())]
	}
	return nd.valueDeps()
}

type slotInfo struct {
	name     string
	producer int32 // position in plan.nodes of the producer; -1 for inputs and constants
	input    int32 // position among the graph inputs, when isInput
	// value numbers, from 1, the slots some node reads the value of (a
	// value dependency), which a runner stages to the host; 0 for the
	// others.
	value    int32
	isOutput bool // a graph output: never freed by the run
	isConst  bool
	isInput  bool
}

// maxOperands bounds a node's inputs and outputs together (node.nin,
// nout and nfree, which is at most their sum).
const maxOperands = math.MaxUint16

// node is one kernel in execution order. A long graph holds many nodes,
// so a node keeps 88 bytes: its kernel's optional interfaces as flags,
// its slot lists, its rare dependencies and its interned key behind
// pointers, the guard, counts and flags in the last two words.
type node struct {
	name string
	k    kernel.Kernel
	// costs are the synthetic host costs per stage, shared by the nodes
	// that have the same (never nil).
	costs *plan.Costs
	// io points to the node's input slots, then its output slots (nin
	// and nout of them), then the slots whose last use is the node (nfree
	// of them: inputs and outputs nobody reads), freed right after its
	// launch: see in, out and free. Once lowered, the nodes' lists are in
	// one array, program.io (nil: none).
	io *int32
	// deps holds the node's value and compute dependencies (nil: none,
	// as for most nodes; see valueDeps and cdeps).
	deps *deps

	// Host caches: key is the node's attribute key and global cache entry,
	// shared by the nodes that have the same.
	key *internedKey

	// guard is the branch choice the node of a spliced If runs under.
	guard guard
	// viewBase is the index, in a runner's views, of the node's first
	// view (see viewed).
	viewBase         int32
	nin, nout, nfree uint16 // the lengths of io's lists (see maxOperands)
	// compute: compute-dependent, real output shapes after it ran.
	compute bool
	// watched is set when some later node waits on this node's completion
	// (a value or compute dependency): its launch records an event.
	watched bool
	// volatile: the kernel's InferShape and Resize are never reused
	// (kernel.Deps.Volatile).
	volatile bool
	// checked: the runner checks the kernel contract around its stages
	// (a kernel that is not kernel.Trusted).
	checked bool
	// shapeOnly: the kernel reads only its inputs' shapes
	// (kernel.Deps.ShapeOnly).
	shapeOnly bool
	// numbered: k is a kernel.RunNumbered; stoppable: a
	// kernel.Interruptible (a kernel.ComputeDependent when compute). The
	// node keeps flags, not the interface values, to stay small.
	numbered, stoppable bool
}

// newProgram lowers c; costs prices each node (by node index). Every
// Brancher kernel is spliced (see Brancher), and splice prices the
// branches' nodes; with splice nil, Branchers stay single kernels.
func newProgram(c *subgraph.Checked, costs func(i int) (plan.Costs, error), splice func(plan.Node) (plan.Costs, error)) (*program, error) {
	g := c.Graph
	l := &lowering{p: &program{name: g.Name, decl: g.Inputs}, splice: splice, keys: make(map[string]*internedKey), shared: make(map[plan.Costs]*plan.Costs)}
	p := l.p
	// One node a graph node, but for spliced branches (which append).
	p.nodes = make([]node, 0, len(g.Nodes))
	tensors := len(g.Inputs) + len(g.Consts)
	for _, n := range g.Nodes {
		tensors += len(n.Outputs)
	}
	p.slots, l.lastUse = make([]slotInfo, 0, tensors), make([]int, 0, tensors)
	sc := newScope(c, len(g.Inputs)+len(g.Consts))
	for _, in := range g.Inputs {
		s := l.add(in.Name, -1)
		p.slots[s].isInput, p.slots[s].input = true, int32(len(p.inputs))
		p.inputs = append(p.inputs, s)
		sc.named[in.Name] = s
	}
	for _, k := range g.Consts {
		sc.named[k.Name] = l.addConst(k.Name, k.Tensor)
	}
	if err := l.graph(sc, costs, unguarded, ""); err != nil {
		return nil, err
	}
	for _, o := range g.Outputs {
		s := sc.tensor(o)
		p.slots[s].isOutput = true
		p.outputs = append(p.outputs, s)
	}
	for pos := range p.nodes {
		nd := &p.nodes[pos]
		for nd.checked && len(p.iota) < len(nd.in()) {
			p.iota = append(p.iota, len(p.iota))
		}
		for _, j := range nd.valueDeps() {
			info := &p.slots[nd.in()[j]]
			if info.producer >= 0 {
				p.nodes[info.producer].watched = true
			}
			if info.value == 0 {
				p.values++
				info.value = int32(p.values)
			}
		}
		for _, s := range nd.in() {
			if pr := p.slots[s].producer; pr >= 0 && p.nodes[pr].compute && !slices.Contains(nd.cdeps(), int(pr)) {
				if nd.deps == nil {
					nd.deps = new(deps)
				}
				nd.deps.compute = append(nd.deps.compute, int(pr))
			}
		}
	}
	l.pack()
	nv := 0
	for pos := range p.nodes {
		p.nodes[pos].viewBase = int32(nv)
		nv += len(p.viewed(pos))
	}
	return p, nil
}

// pack moves the nodes' slot lists into one array, each node's inputs,
// outputs and free list in a row (see node.io), the free lists in slot
// order.
func (l *lowering) pack() {
	p := l.p
	dies := func(s, pos int) bool {
		return pos >= 0 && !p.slots[s].isOutput && !p.slots[s].isConst
	}
	nfree := make([]int, len(p.nodes))
	total := 0
	for s, pos := range l.lastUse {
		if dies(s, pos) {
			nfree[pos]++
			total++
		}
	}
	for pos := range p.nodes {
		nd := &p.nodes[pos]
		total += int(nd.nin) + int(nd.nout)
	}
	ints := make([]int32, total)
	at := make([]int, len(p.nodes)) // where the node's next free slot goes
	next := 0
	for pos := range p.nodes {
		nd := &p.nodes[pos]
		io := unsafe.Slice(nd.io, int(nd.nin)+int(nd.nout))
		n := len(io) + nfree[pos]
		copy(ints[next:], io)
		at[pos] = next + len(io)
		nd.io, nd.nfree = nil, uint16(nfree[pos])
		if n > 0 {
			nd.io = &ints[next]
		}
		next += n
	}
	for s, pos := range l.lastUse { // in slot order: each free list sorted
		if dies(s, pos) {
			ints[at[pos]] = int32(s)
			at[pos]++
		}
	}
	p.io = ints
}

// lowering is the state of newProgram.
type lowering struct {
	p       *program
	lastUse []int // by slot: position of its last reader or its producer, -1 for none
	splice  func(plan.Node) (plan.Costs, error)
	// keys holds each distinct attribute key once, so that nodes of the
	// same op, kernel type and attributes share it (read only).
	keys map[string]*internedKey
	buf  []byte // intern's lookup key
	kbuf []byte // the attribute key being built (see intern)
	// shared holds each distinct set of costs once.
	shared map[plan.Costs]*plan.Costs
	// in and out are graph's scratch for a node's slots.
	in, out []int
}

// costs returns the shared copy of cs.
func (l *lowering) costs(cs plan.Costs) *plan.Costs {
	if p, ok := l.shared[cs]; ok {
		return p
	}
	p := new(plan.Costs) // a copy only when new: &cs would move every call's to the heap
	*p = cs
	l.shared[cs] = p
	return p
}

// internedKey is a node's attribute key and global cache entry, shared by
// the nodes that have the same. attrs encodes the op, the kernel's Go type
// and its attributes, the prefix of its tiling key; global is its entry in
// the global tiling cache ("" when an attribute cannot be encoded, or the
// node is volatile: the node is cached locally only, if at all). id
// numbers the program's keys from 0.
type internedKey struct {
	op     string // the node's op
	attrs  []byte
	global string
	id     int
}

// op is nd's op name.
func (nd *node) op() string { return nd.key.op }

// deps are a node's dependencies on the values and the computed shapes of
// its inputs.
type deps struct {
	value []int // input positions InferShape reads values of
	// compute are the compute-dependent producers of its inputs, each
	// once, in input order: the ones its InferShape may wait for.
	compute []int
}

// in lists nd's input slots.
func (nd *node) in() []int32 { return unsafe.Slice(nd.io, nd.nin) }

// out lists nd's output slots.
func (nd *node) out() []int32 {
	return unsafe.Slice(nd.io, int(nd.nin)+int(nd.nout))[nd.nin:]
}

// free lists the slots whose last use is nd (inputs and outputs nobody
// reads), freed right after its launch, in slot order.
func (nd *node) free() []int32 {
	return unsafe.Slice(nd.io, int(nd.nin)+int(nd.nout)+int(nd.nfree))[int(nd.nin)+int(nd.nout):]
}

// outputsReal is kernel.OutputsReal of nd's kernel on inputs in, with
// the Deps read when nd was lowered.
func (nd *node) outputsReal(in []*kernel.Tensor) bool {
	a := kernel.Args{In: in}
	return nd.shapeOnly || a.Real()
}

// valueDeps lists the input positions nd's InferShape reads values of.
func (nd *node) valueDeps() []int {
	if nd.deps == nil {
		return nil
	}
	return nd.deps.value
}

// cdeps lists the compute-dependent producers of nd's inputs, each once,
// in input order: the ones its InferShape may wait for.
func (nd *node) cdeps() []int {
	if nd.deps == nil {
		return nil
	}
	return nd.deps.compute
}

func (l *lowering) add(name string, producer int) int {
	l.p.slots = append(l.p.slots, slotInfo{name: name, producer: int32(producer)})
	l.lastUse = append(l.lastUse, -1)
	return len(l.p.slots) - 1
}

// intern returns the shared copy of key (a buffer intern does not keep)
// and its global entry (key[:opLen], or "" when global is false).
func (l *lowering) intern(op string, key []byte, opLen int, global bool) *internedKey {
	// Whether the node is global is part of what is shared: the same key
	// may be global for one node and local for another (a volatile kernel).
	flag := byte('l')
	if global {
		flag = 'g'
	}
	l.buf = append(append(l.buf[:0], flag), key...)
	if k, ok := l.keys[string(l.buf)]; ok && k.op == op {
		return k
	}
	k := &internedKey{op: op, attrs: slices.Clip(slices.Clone(key)), id: l.p.keys}
	l.p.keys++
	if global {
		k.global = string(key[:opLen])
	}
	l.keys[string(l.buf)] = k
	return k
}

func (l *lowering) addConst(name string, t *kernel.Tensor) int {
	s := l.add(name, -1)
	l.p.slots[s].isConst = true
	l.p.consts = append(l.p.consts, s)
	l.p.constVals = append(l.p.constVals, t)
	return s
}

// scope names the slots of one graph's tensors while it is lowered: its
// inputs and constants (a branch's: its captures) by name, each node's
// outputs from the slot of the node's first output, since a node's
// outputs are added in a row. The nodes' inputs are resolved through the
// Checked's sources (subgraph.Checked.Source), not by name: a map of every
// tensor of a large graph costs a cache miss a tensor.
type scope struct {
	c     *subgraph.Checked
	named map[string]int
	first []int32 // by node index: the slot of its first output
}

func newScope(c *subgraph.Checked, named int) *scope {
	return &scope{c: c, named: make(map[string]int, named), first: make([]int32, len(c.Graph.Nodes))}
}

// input returns the slot of input j of node i, lowered after its producer.
func (sc *scope) input(i, j int) (int, error) {
	p, out, err := sc.c.Source(i, j)
	if err != nil {
		return 0, err
	}
	if p < 0 {
		return sc.named[sc.c.Graph.Nodes[i].Inputs[j]], nil
	}
	return int(sc.first[p]) + out, nil
}

// tensor returns the slot of tensor name, once its producer is lowered.
func (sc *scope) tensor(name string) int {
	p, ok := sc.c.Producer[name]
	if !ok || p < 0 {
		return sc.named[name]
	}
	return int(sc.first[p]) + slices.Index(sc.c.Graph.Nodes[p].Outputs, name)
}

// graph lowers sc's nodes in execution order, naming tensors through sc
// (which it extends with their outputs) and nodes with prefix; g guards
// every node.
func (l *lowering) graph(sc *scope, costs func(i int) (plan.Costs, error), g guard, prefix string) error {
	c := sc.c
	for _, i := range c.Order {
		n, k := c.Graph.Nodes[i], c.Kernels[i]
		cs, err := costs(i)
		if err != nil {
			return err
		}
		if b, ok := k.(Brancher); ok && l.splice != nil {
			if err := l.branch(sc, i, b, cs, g, prefix); err != nil {
				return err
			}
			continue
		}
		in := l.in[:0] // node copies them
		for j := range n.Inputs {
			s, err := sc.input(i, j)
			if err != nil {
				return fmt.Errorf("actor: node %q (op %s): %w", prefix+n.Name, n.Op, err)
			}
			in = append(in, s)
		}
		out := l.out[:0]
		sc.first[i] = int32(len(l.p.slots))
		for _, name := range n.Outputs {
			out = append(out, l.add(prefix+name, len(l.p.nodes)))
		}
		l.in, l.out = in, out
		kd, err := c.Deps(i)
		if err != nil {
			return fmt.Errorf("actor: node %q (op %s): %w", prefix+n.Name, n.Op, err)
		}
		if err := l.node(prefix+n.Name, n.Op, k, kd, n.Attrs, cs, in, out, g); err != nil {
			return err
		}
	}
	return nil
}

// branch splices If node i of sc (kernel b) under guard g: its condition,
// both branches and the merge (see Brancher).
func (l *lowering) branch(sc *scope, i int, b Brancher, cs plan.Costs, g guard, prefix string) error {
	n := sc.c.Graph.Nodes[i]
	name := prefix + n.Name
	in := make([]int, len(n.Inputs)) // the condition, then the captures
	for j := range in {
		s, err := sc.input(i, j)
		if err != nil {
			return fmt.Errorf("actor: node %q (op %s): %w", name, n.Op, err)
		}
		in[j] = s
	}
	then, els, res := b.Branches()
	choice := l.add(name+"/choice", len(l.p.nodes))
	cond := &ifCond{b: b}
	if err := l.node(name, n.Op, cond, cond.Deps(), nil, cs, in[:1], []int{choice}, g); err != nil {
		return err
	}
	caps := in[1:]
	merge := []int{choice}
	for bi, bg := range [2]*subgraph.Graph{then, els} {
		c, err := checkBranch(n, bg, res)
		if err != nil {
			return err
		}
		sub := name + [2]string{"/then/", "/else/"}[bi]
		inner := newScope(c, len(bg.Inputs)+len(bg.Consts))
		for j, in := range bg.Inputs {
			inner.named[in.Name] = caps[j]
		}
		for _, k := range bg.Consts {
			inner.named[k.Name] = l.addConst(sub+k.Name, k.Tensor)
		}
		costs := func(i int) (plan.Costs, error) {
			bn := c.Graph.Nodes[i]
			return l.splice(plan.Node{Name: sub + bn.Name, Op: bn.Op})
		}
		if err := l.graph(inner, costs, guardOn(int32(choice), byte(1-bi)), sub); err != nil {
			return err
		}
		for _, o := range bg.Outputs {
			merge = append(merge, inner.tensor(o))
		}
	}
	out := make([]int, len(n.Outputs))
	sc.first[i] = int32(len(l.p.slots))
	for j, o := range n.Outputs {
		out[j] = l.add(prefix+o, len(l.p.nodes))
	}
	m := &ifMerge{n: len(out)}
	return l.node(name+"/merge", "If.merge", m, m.Deps(), nil, plan.Costs{}, merge, out, g)
}

// node appends a node of kernel k, whose Deps are kd, reading slots in and
// producing slots out (added with the node's position as producer).
func (l *lowering) node(name, op string, k kernel.Kernel, kd kernel.Deps, attrs kernel.Attrs, cs plan.Costs, in, out []int, g guard) error {
	pos := len(l.p.nodes)
	if len(in)+len(out) > maxOperands {
		return fmt.Errorf("actor: node %q (op %s) has %d inputs and %d outputs, at most %d in all: %w", name, op, len(in), len(out), maxOperands, subgraph.ErrArity)
	}
	nd := node{name: name, k: k, costs: l.costs(cs), io: slotList(in, out), nin: uint16(len(in)), nout: uint16(len(out)), guard: g}
	_, nd.numbered = k.(kernel.RunNumbered)
	_, nd.stoppable = k.(kernel.Interruptible)
	nd.volatile, nd.shapeOnly = kd.Volatile, kd.ShapeOnly
	_, trusted := k.(kernel.Trusted)
	nd.checked = !trusted
	key, opLen, encodable := attrKey(l.kbuf[:0], op, k, attrs)
	l.kbuf = key
	nd.key = l.intern(op, key, opLen, encodable && !nd.volatile)
	for _, s := range in {
		l.lastUse[s] = pos
	}
	for _, s := range out {
		l.lastUse[s] = pos
	}
	for _, j := range kd.Value {
		if j < 0 || j >= len(in) {
			continue // an optional input the node does not have
		}
		if nd.deps == nil {
			nd.deps = new(deps)
		}
		nd.deps.value = append(nd.deps.value, j)
	}
	nd.compute = kd.Compute
	if nd.compute {
		if _, ok := k.(kernel.ComputeDependent); !ok {
			return fmt.Errorf("actor: node %q (op %s): compute-dependent kernel does not implement kernel.ComputeDependent", name, op)
		}
		nd.watched = true
	}
	l.p.nodes = append(l.p.nodes, nd)
	return nil
}

// nameSeed is the name's part of a node's kernel.Args.Seed: a hash of the
// name, so that a node's seed is the same in every actor that runs it (a
// heterogeneous part holds it at another position).
func nameSeed(name string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a, 64 bits
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return h * 0xbf58476d1ce4e5b9
}

// slotList returns the slots in, then out, as a node's io list until
// pack moves it.
func slotList(in, out []int) *int32 {
	if len(in)+len(out) == 0 {
		return nil
	}
	io := make([]int32, 0, len(in)+len(out))
	for _, s := range in {
		io = append(io, int32(s))
	}
	for _, s := range out {
		io = append(io, int32(s))
	}
	return &io[0]
}
