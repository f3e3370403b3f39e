package subgraph

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pipert/pipert/internal/minheap"
	"github.com/pipert/pipert/kernel"
)

// ErrPartition is the cause of partitioning failures.
var ErrPartition = errors.New("cannot partition")

// Partitioning is a validated graph split into parts of one placement each,
// so that each part can be validated and run on its own (by an actor on the
// part's device) and parts with no path between them can run at once.
//
// # Invariants
//
//  1. Every node of the graph is in exactly one part.
//  2. The graph of parts is acyclic, and Parts is in one of its topological
//     orders: a part's producers come before it.
//  3. Every edge of the graph is kept: a node's input is produced in its own
//     part, is an input or constant of the original graph, or arrives
//     through an Edge from the part producing it. Every output of the
//     original graph is an output of the part producing it (or an input or
//     constant of the original graph).
//  4. Each part is convex: a path between two of its nodes never leaves it.
//
// # How nodes are grouped
//
// For a node v of placement p, let X(v) be its foreign ancestors (nodes of
// another placement that v depends on, directly or not) and Y(v) its
// foreign descendants. Two nodes share a part exactly when they have the
// same placement, the same X and the same Y, and are connected through
// nodes that do too. A part therefore waits for no foreign work that its
// nodes do not all depend on, and its foreign consumers need every one of
// its nodes: cutting where X or Y changes is what lets a part of one
// placement run while a part of another is still running, when parts are
// synchronised as wholes. The sets are compared through their boundary
// nodes (nodes with a neighbour of another placement), which determine
// them.
//
// A placement may also be chained: its nodes of one key are then cut into
// maximal chains (a node joins its producer's part only if it is the
// producer's one same-key consumer and the producer its one same-key
// producer), so that independent branches of CPU work that meet at a join
// node do not end up serialised in one part.
//
// Acyclicity: along an edge between parts of one placement, X only grows
// and Y only shrinks, so a cycle of such parts would have one key; within a
// key, parts are the components or chains, and an edge between two chains
// leaves the last node of one for the first node of the other, so every
// node of the first is an ancestor of every node of the second and a cycle
// would be a cycle of nodes. Otherwise the cycle has runs of one placement
// separated by edges between placements; the start of each run is all
// ancestors of the start of the next (the next run's nodes are in the Y of
// the run's last part, which is inside the Y of its first), so some node
// would be its own ancestor.
//
// # Rejected designs
//
// Connected components per placement can make a cycle (CPU → device → CPU
// inside one component). Growing regions greedily in topological order and
// refusing only cycles gives few, large parts, but a large part synchronised
// as a whole makes its consumers wait for work they do not need, which
// serialises CPU and device parts that could overlap.
type Partitioning struct {
	Parts []Part
	// Edges are the tensors produced in one part and consumed in another,
	// one per (tensor, consumer part), ordered by consumer part and then by
	// the consumer part's input order.
	Edges []Edge
	// Of maps each node index of the original graph to its part.
	Of []int
}

// Part is one single-placement subgraph.
type Part struct {
	// Graph is the part as a graph of its own. Its nodes are copies of the
	// original nodes; its inputs are the tensors it consumes from outside
	// (original graph inputs, then tensors of other parts, in order of first
	// use), its constants the original constants it reads, and its outputs
	// the tensors it produces that other parts or the original graph's
	// outputs need. A part whose results nobody needs outputs its last
	// node's first output, so that its nodes still run.
	Graph     *Graph
	Placement Placement
	// Nodes are the part's node indices in the original graph, in the
	// original execution order (which is also the part's own).
	Nodes []int
	// Sources gives, for each of Graph.Inputs, the part producing it, or -1
	// for an input of the original graph.
	Sources []int
}

// Clone returns a copy of p that shares nothing a caller may change with
// it: the parts (their graphs cloned, see Graph.Clone), edges and node
// map. A nil p clones to nil.
func (p *Partitioning) Clone() *Partitioning {
	if p == nil {
		return nil
	}
	c := &Partitioning{Parts: slices.Clone(p.Parts), Edges: slices.Clone(p.Edges), Of: slices.Clone(p.Of)}
	for i := range c.Parts {
		pt := &c.Parts[i]
		pt.Graph, pt.Nodes, pt.Sources = pt.Graph.Clone(), slices.Clone(pt.Nodes), slices.Clone(pt.Sources)
	}
	return c
}

// Edge is a tensor that crosses from part From to part To.
type Edge struct {
	Tensor   string
	From, To int
}

// Partition splits c by placement; place gives each node's placement by node
// index and is called once per node. Parts of a placement p for which
// chains(p) is true are further cut at every fork and join into chains, so
// that parallel branches become parts that can run at once: the shape
// wanted for a device that runs a part one kernel at a time (the CPU);
// chains may be nil. The result is deterministic. A tensor cut between
// parts must have a dtype and rank known before run time (its dimensions
// may be dynamic). Shape computations on shapes and constants are folded
// to learn them, by running small kernels' Compute on the
// host (Reshape by Gather(Shape(x), perm) then has a known rank);
// A rank stays unknown only downstream of a value dependency whose value
// is not known before run time (a graph input, or a value computed from
// contents) or of a graph input of any shape (Value.AnyShape): such a
// tensor becomes an input of any shape of the parts that read it.
// Partition fails with ErrPartition only for a nil graph or placement,
// a Checked that Validate did not make (its kernels or order not one a
// node), or a panic in place, chains or a kernel run to fold shapes.
func Partition(c *Checked, place func(node int) Placement, chains func(Placement) bool) (p *Partitioning, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &Error{Err: fmt.Errorf("%w: a panic in a placement function or a kernel folded: %v", ErrPartition, r)}
		}
	}()
	if c == nil || c.Graph == nil || place == nil {
		return nil, &Error{Err: fmt.Errorf("%w: nil graph or placement function", ErrPartition)}
	}
	if n := len(c.Graph.Nodes); len(c.Kernels) != n || len(c.Order) != n {
		return nil, &Error{Err: fmt.Errorf("%w: a Checked of %d nodes with %d kernels and %d in its order: not Validate's", ErrPartition, n, len(c.Kernels), len(c.Order))}
	}
	g := c.Graph
	n := len(g.Nodes)
	pl := make([]Placement, n)
	for i := range pl {
		pl[i] = place(i)
	}
	preds, succs := c.adjacency()
	key := groupKeys(c, pl, preds, succs)

	// Union the nodes joined by an edge with the same key; for chained
	// placements, only along edges u -> v where v is u's one same-key
	// consumer and u is v's one same-key producer.
	same := func(nodes []int, v int) int {
		k := 0
		for _, w := range nodes {
			if key[w] == key[v] {
				k++
			}
		}
		return k
	}
	uf := newUnionFind(n)
	for v := range n {
		chained := chains != nil && chains(pl[v])
		for _, u := range preds[v] {
			if key[u] == key[v] && (!chained || same(succs[u], u) == 1 && same(preds[v], v) == 1) {
				uf.union(u, v)
			}
		}
	}
	return fromGroups(c, pl, preds, uf.find)
}

// fromGroups makes the partitioning whose parts are the nodes of equal
// group(node): numbered in a topological order of the parts, the lowest
// first node in execution order first among the ready ones.
func fromGroups(c *Checked, pl []Placement, preds [][]int, group func(int) int) (*Partitioning, error) {
	n := len(pl)
	root := make(map[int]int) // group -> region
	region := make([]int, n)
	var members [][]int // by region, in execution order
	for _, i := range c.Order {
		r := group(i)
		k, ok := root[r]
		if !ok {
			k = len(members)
			root[r] = k
			members = append(members, nil)
		}
		region[i] = k
		members[k] = append(members[k], i)
	}
	// Regions are numbered by their first node in execution order; order
	// them topologically, lowest number first among the ready ones.
	nr := len(members)
	rsucc := make([][]int, nr)
	indeg := make([]int, nr)
	seen := make(map[[2]int]bool)
	for v := range n {
		for _, u := range preds[v] {
			a, b := region[u], region[v]
			if a != b && !seen[[2]int{a, b}] {
				seen[[2]int{a, b}] = true
				rsucc[a] = append(rsucc[a], b)
				indeg[b]++
			}
		}
	}
	var ready minheap.Heap[index]
	for r := range nr {
		if indeg[r] == 0 {
			ready.Push(index(r))
		}
	}
	rank := make([]int, nr) // region -> part index
	done := 0
	for ready.Len() > 0 {
		r := int(ready.Pop())
		rank[r] = done
		done++
		for _, s := range rsucc[r] {
			if indeg[s]--; indeg[s] == 0 {
				ready.Push(index(s))
			}
		}
	}
	if done != nr {
		// The grouping guarantees acyclicity; reaching here is a bug.
		panic("subgraph: partition produced a cycle of parts")
	}
	p := &Partitioning{Parts: make([]Part, nr), Of: make([]int, n)}
	for i := range n {
		p.Of[i] = rank[region[i]]
	}
	for r, m := range members {
		p.Parts[rank[r]] = Part{Placement: pl[m[0]], Nodes: m}
	}
	if err := p.build(c); err != nil {
		return nil, err
	}
	return p, nil
}

// Merged returns p with the parts of each placement for which merge is
// true merged along the edges between them, wherever the merge keeps the
// parts acyclic: a producer part and its consumer of that placement
// become one unless a path leads from the one to the other through a
// third part. The result has fewer, larger parts, and invariants 1–4 hold
// for it; c is the graph p partitions. A nil p, c or merge, or a p of
// another graph, is an error wrapping ErrPartition.
//
// It suits parts that hand their tensors over one by one (heterog's
// per-tensor barrier: a part starts before all its inputs exist and
// publishes each output as it is produced). Partition cuts where a node's
// foreign ancestors or descendants change so that parts synchronised as
// wholes make no consumer wait for work it does not need; parts that hand
// over tensor by tensor do not, and merging saves the runs of the smaller
// parts. Edges are taken in the order of their consumer part, so each
// part joins the earliest producer it can.
func (p *Partitioning) Merged(c *Checked, merge func(Placement) bool) (*Partitioning, error) {
	if p == nil || c == nil || c.Graph == nil || merge == nil || len(p.Of) != len(c.Graph.Nodes) {
		return nil, &Error{Err: fmt.Errorf("%w: nil partitioning, graph or merge function, or a partitioning of another graph", ErrPartition)}
	}
	np := len(p.Parts)
	succ := make([][]int, np) // part -> consumer parts, distinct
	pred := make([][]int, np)
	for _, e := range p.Edges {
		if !slices.Contains(succ[e.From], e.To) {
			succ[e.From] = append(succ[e.From], e.To)
			pred[e.To] = append(pred[e.To], e.From)
		}
	}
	uf := newUnionFind(np)
	mark := make([]int, np) // BFS visit stamp by group root
	stamp := 0
	members := make([][]int, np) // group root -> parts
	for k := range members {
		members[k] = []int{k}
	}
	// through reports whether a path leads from group a to group b
	// through another group.
	through := func(a, b int) bool {
		stamp++
		queue := []int{a}
		mark[a] = stamp
		for len(queue) > 0 {
			g := queue[0]
			queue = queue[1:]
			for _, k := range members[g] {
				for _, s := range succ[k] {
					h := uf.find(s)
					if h == b {
						if g != a {
							return true
						}
						continue
					}
					if mark[h] != stamp {
						mark[h] = stamp
						queue = append(queue, h)
					}
				}
			}
		}
		return false
	}
	for b := range np {
		pl := p.Parts[b].Placement
		if !merge(pl) {
			continue
		}
		for _, a := range pred[b] {
			ga, gb := uf.find(a), uf.find(b)
			if ga == gb || p.Parts[a].Placement != pl || through(ga, gb) {
				continue
			}
			uf.union(ga, gb)
			r := uf.find(ga)
			other := ga
			if r == ga {
				other = gb
			}
			members[r] = append(members[r], members[other]...)
			members[other] = nil
		}
	}
	pl := make([]Placement, len(p.Of))
	for i, k := range p.Of {
		pl[i] = p.Parts[k].Placement
	}
	preds, _ := c.adjacency()
	return fromGroups(c, pl, preds, func(i int) int { return uf.find(p.Of[i]) })
}

// adjacency returns each node's distinct producer nodes and consumer nodes,
// in ascending order.
func (c *Checked) adjacency() (preds, succs [][]int) {
	n := len(c.Graph.Nodes)
	preds = make([][]int, n)
	succs = make([][]int, n)
	for v, nd := range c.Graph.Nodes {
		for _, in := range nd.Inputs {
			if u := c.Producer[in]; u >= 0 && !slices.Contains(preds[v], u) {
				preds[v] = append(preds[v], u)
				succs[u] = append(succs[u], v)
			}
		}
	}
	for v := range n {
		slices.Sort(preds[v])
		slices.Sort(succs[v])
	}
	return preds, succs
}

// groupKeys returns, for each node, a string that is equal for two nodes
// exactly when they have the same placement, foreign ancestors and foreign
// descendants. The sets are kept as bitsets over the boundary nodes.
func groupKeys(c *Checked, pl []Placement, preds, succs [][]int) []string {
	n := len(pl)
	bidx := make([]int, n) // boundary index, or -1
	var boundary []int
	for v := range n {
		bidx[v] = -1
		for _, u := range preds[v] {
			if pl[u] != pl[v] {
				bidx[v] = 0
			}
		}
		for _, w := range succs[v] {
			if pl[w] != pl[v] {
				bidx[v] = 0
			}
		}
		if bidx[v] == 0 {
			bidx[v] = len(boundary)
			boundary = append(boundary, v)
		}
	}
	words := (len(boundary) + 63) / 64
	anc := make([]uint64, n*words)
	desc := make([]uint64, n*words)
	row := func(b []uint64, v int) []uint64 { return b[v*words : (v+1)*words] }
	for _, v := range c.Order {
		a := row(anc, v)
		for _, u := range preds[v] {
			or(a, row(anc, u))
			if j := bidx[u]; j >= 0 {
				a[j/64] |= 1 << (j % 64)
			}
		}
	}
	for k := len(c.Order) - 1; k >= 0; k-- {
		v := c.Order[k]
		d := row(desc, v)
		for _, w := range succs[v] {
			or(d, row(desc, w))
			if j := bidx[w]; j >= 0 {
				d[j/64] |= 1 << (j % 64)
			}
		}
	}
	// foreign[p] masks the boundary nodes whose placement is not p.
	foreign := make(map[Placement][]uint64)
	for _, p := range pl {
		if _, ok := foreign[p]; ok {
			continue
		}
		m := make([]uint64, words)
		for j, v := range boundary {
			if pl[v] != p {
				m[j/64] |= 1 << (j % 64)
			}
		}
		foreign[p] = m
	}
	keys := make([]string, n)
	buf := make([]byte, 0, 1+16*words)
	for v := range n {
		m := foreign[pl[v]]
		buf = append(buf[:0], byte(pl[v]))
		for _, set := range [][]uint64{row(anc, v), row(desc, v)} {
			for j, w := range set {
				w &= m[j]
				for range 8 {
					buf = append(buf, byte(w))
					w >>= 8
				}
			}
		}
		keys[v] = string(buf)
	}
	return keys
}

func or(dst, src []uint64) {
	for i, w := range src {
		dst[i] |= w
	}
}

// build makes each part's graph, its sources and the edges.
func (p *Partitioning) build(c *Checked) error {
	g := c.Graph
	isInput := make(map[string]int, len(g.Inputs))
	for i, v := range g.Inputs {
		isInput[v.Name] = i
	}
	isConst := make(map[string]int, len(g.Consts))
	for i, k := range g.Consts {
		isConst[k.Name] = i
	}
	isOutput := make(map[string]bool, len(g.Outputs))
	for _, o := range g.Outputs {
		isOutput[o] = true
	}
	// needed[t] is set when tensor t, produced by a node, is read by a node of
	// another part.
	needed := make(map[string]bool)
	for v, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			if u := c.Producer[in]; u >= 0 && p.Of[u] != p.Of[v] {
				needed[in] = true
			}
		}
	}
	var bound map[string]*kernel.Tensor // computed on first need
	for k := range p.Parts {
		part := &p.Parts[k]
		sg := &Graph{Name: fmt.Sprintf("%s/%d.%s", g.Name, k, part.Placement)}
		have := make(map[string]bool)
		for _, i := range part.Nodes {
			nd := g.Nodes[i]
			for _, in := range nd.Inputs {
				if have[in] {
					continue
				}
				have[in] = true
				if j, ok := isConst[in]; ok {
					sg.Consts = append(sg.Consts, g.Consts[j])
					continue
				}
				if j, ok := isInput[in]; ok {
					v := g.Inputs[j]
					v.Shape = v.Shape.Clone()
					sg.Inputs = append(sg.Inputs, v)
					part.Sources = append(part.Sources, -1)
					continue
				}
				from := p.Of[c.Producer[in]]
				if from == k {
					continue
				}
				if bound == nil {
					bound = c.bounds()
				}
				v, err := crossValue(c, bound, in)
				if err != nil {
					return &Error{Graph: g.Name, Node: nd.Name, Op: nd.Op, Err: err}
				}
				sg.Inputs = append(sg.Inputs, v)
				part.Sources = append(part.Sources, from)
				p.Edges = append(p.Edges, Edge{Tensor: in, From: from, To: k})
			}
			cp := *nd
			cp.Inputs = slices.Clone(nd.Inputs)
			cp.Outputs = slices.Clone(nd.Outputs)
			sg.Nodes = append(sg.Nodes, &cp)
			for _, o := range nd.Outputs {
				have[o] = true
				if needed[o] || isOutput[o] {
					sg.Outputs = append(sg.Outputs, o)
				}
			}
		}
		if len(sg.Outputs) == 0 {
			last := sg.Nodes[len(sg.Nodes)-1]
			sg.Outputs = append(sg.Outputs, last.Outputs[0])
		}
		part.Graph = sg
	}
	return nil
}

// crossValue declares tensor t as a part's input: its static dtype and
// shape when known, else its dtype and rank with every dimension dynamic,
// else (its rank depends on values) an input of any shape.
func crossValue(c *Checked, bound map[string]*kernel.Tensor, t string) (Value, error) {
	if m, ok := c.Meta[t]; ok {
		return Value{Name: t, DType: m.DType, Shape: m.Shape.Clone()}, nil
	}
	m, ok := bound[t]
	if !ok {
		// Its rank depends on values: the part takes whatever comes.
		return Value{Name: t, DType: kernel.Float32, Shape: kernel.Shape{kernel.Dynamic}, AnyShape: true}, nil
	}
	shape := make(kernel.Shape, len(m.Shape))
	for i := range shape {
		shape[i] = kernel.Dynamic
	}
	return Value{Name: t, DType: m.DType, Shape: shape}, nil
}

// bounds infers a dtype and a shape of the right rank for the tensors that
// have no static shape: shape inference runs on upper bounds (a
// compute-dependent kernel's bound is its output) and on known shapes where
// a dynamic input dimension is taken as 1. Values come from constants and
// from folding (see fold), so a Reshape by a shape computed from shapes
// gets its rank. A node that needs a value it does not have, or whose
// InferShape fails on these stand-ins, leaves its outputs unknown.
//
// Only the ranks and dtypes of the result are used. Most ops' output
// ranks depend only on their inputs' ranks and on the lengths of their
// value inputs, and a folded shape vector has the real length whatever
// its entries, so those are right even where a stand-in dimension is
// not. Some depend on the dimensions' values (Squeeze without axes drops
// the dimensions equal to 1; a custom kernel may do anything): inference
// runs first with every dynamic dimension taken as 2, and an output whose
// rank or dtype differs between the two stays unknown (so do the tensors
// computed from it).
func (c *Checked) bounds() map[string]*kernel.Tensor {
	return c.boundsAt(1, c.boundsAt(2, nil))
}

// boundsAt is bounds with every dynamic input dimension taken as stand;
// an output whose dtype or rank differs from ref's (when ref knows it)
// stays unknown.
func (c *Checked) boundsAt(stand int64, ref map[string]*kernel.Tensor) map[string]*kernel.Tensor {
	g := c.Graph
	agrees := func(name string, t *kernel.Tensor) bool {
		r, ok := ref[name]
		return !ok || r.DType == t.DType && r.Shape.Rank() == t.Shape.Rank()
	}
	b := make(map[string]*kernel.Tensor, len(c.Meta))
	for name, m := range c.Meta {
		b[name] = m
	}
	for _, in := range g.Inputs {
		if in.AnyShape {
			continue // its dtype and rank come with the run: what follows stays unknown
		}
		if _, ok := b[in.Name]; !ok {
			s := in.Shape.Clone()
			for i, d := range s {
				if d == kernel.Dynamic {
					s[i] = stand
				}
			}
			b[in.Name] = &kernel.Tensor{DType: in.DType, Shape: s}
		}
	}
	for _, i := range c.Order {
		n, k := g.Nodes[i], c.Kernels[i]
		in := make([]*kernel.Tensor, len(n.Inputs))
		known := true
		for j, name := range n.Inputs {
			if in[j], known = b[name]; !known {
				break
			}
		}
		if !known {
			continue
		}
		deps, err := c.Deps(i)
		if err != nil {
			continue // no bound: the run reports the kernel
		}
		if out := fold(k, deps, n, in); out != nil {
			for j, name := range n.Outputs {
				if agrees(name, out[j]) {
					b[name] = out[j]
				}
			}
			continue
		}
		if _, ok := c.Meta[firstOutput(n)]; ok {
			continue
		}
		for _, j := range deps.Value {
			if j < len(in) && in[j].Host == nil {
				known = false
			}
		}
		if !known {
			continue
		}
		out, err := inferOutputs(k, in, len(n.Outputs))
		if err != nil {
			continue
		}
		for j, name := range n.Outputs {
			if agrees(name, out[j]) {
				b[name] = out[j]
			}
		}
	}
	return b
}

// foldLimit is the most elements a folded output may have: folding is for
// shape arithmetic, never for dense data.
const foldLimit = 64

// fold computes node n's outputs (kernel k, whose Deps are deps) on the
// host from what bounds knows before run time, and returns them with
// contents, or nil: a kernel that reads only shapes (Shape) from its
// inputs' shapes, any other kernel when every input has contents (a
// constant or a folded value). Compute-dependent
// kernels, kernels that need a workspace and outputs of more than
// foldLimit elements do not fold. The values are real where the input
// shapes are static, stand-ins where they are stand-ins.
func fold(k kernel.Kernel, deps kernel.Deps, n *Node, in []*kernel.Tensor) (out []*kernel.Tensor) {
	if deps.Compute {
		return nil
	}
	for _, t := range in {
		if !deps.ShapeOnly && t.Host == nil && t.NumElements() != 0 {
			return nil
		}
	}
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	out, err := inferOutputs(k, in, len(n.Outputs))
	if err != nil {
		return nil
	}
	for _, t := range out {
		if !t.Shape.Known() || t.NumElements() > foldLimit {
			return nil
		}
		t.Host = make([]byte, t.Bytes())
	}
	if _, ok := k.(kernel.Trusted); !ok {
		in = ownInputs(in, nil)
	}
	var tl kernel.Tiling
	if err := k.Resize(in, out, &tl); err != nil || tl.Workspace > 0 {
		return nil
	}
	if k.Compute(&kernel.Args{In: in, Out: out, Tiling: tl, Node: n.Name}) != nil {
		return nil
	}
	return out
}

func firstOutput(n *Node) string {
	if len(n.Outputs) == 0 {
		return ""
	}
	return n.Outputs[0]
}

// unionFind is a disjoint-set forest with path halving and union by size.
type unionFind struct{ parent, size []int }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, n), size: make([]int, n)}
	for i := range u.parent {
		u.parent[i], u.size[i] = i, 1
	}
	return u
}

func (u *unionFind) find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *unionFind) union(a, b int) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = a
	u.size[a] += u.size[b]
}
