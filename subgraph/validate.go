package subgraph

import (
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strings"

	"github.com/pipert/pipert/internal/minheap"
	"github.com/pipert/pipert/kernel"
)

// Checked is a validated graph: its kernels, a deterministic execution order,
// who produces each tensor, and the shapes known before any run.
type Checked struct {
	Graph *Graph
	// Order lists node indices in execution order: a topological order that
	// keeps the nodes' insertion order wherever dependencies allow.
	Order []int
	// Kernels holds each node's kernel, by node index.
	Kernels []kernel.Kernel
	// Producer maps a tensor to the index of the node producing it; graph
	// inputs and constants map to -1.
	Producer map[string]int
	// Meta holds the statically inferred dtype and shape of each tensor. A
	// tensor downstream of a dynamic input dimension, a non-constant value
	// dependency or a compute-dependent op is absent.
	Meta map[string]*kernel.Tensor

	// deps holds each node's kernel's Deps as Validate read and checked
	// it, by node index (nil: a Checked made otherwise; see Deps).
	deps []kernel.Deps
	// src holds the source of every node's every input, node by node:
	// node i's are src[srcAt[i]:srcAt[i+1]] (nil: a Checked made
	// otherwise; see Source).
	src   []source
	srcAt []int32
}

// source is the node producing a tensor (-1: a graph input or constant)
// and the tensor's position among the node's outputs.
type source struct{ node, output int32 }

// Source returns the node producing input j of node i and the input's
// position among that node's outputs; a graph input or constant gives
// node -1 and output -1. For Validate's result it reads a table Validate
// filled as it resolved the names, so that a caller walking every input
// of a large graph probes no map; for a Checked made otherwise it looks
// the name up in Producer. An input that names no tensor, or i or j out
// of range, is an error wrapping ErrBadNode.
func (c *Checked) Source(i, j int) (node, output int, err error) {
	if c == nil || c.Graph == nil || i < 0 || i >= len(c.Graph.Nodes) || c.Graph.Nodes[i] == nil || j < 0 || j >= len(c.Graph.Nodes[i].Inputs) {
		return -1, -1, fmt.Errorf("%w: no input %d of node %d", ErrBadNode, j, i)
	}
	if c.src != nil && i+1 < len(c.srcAt) && int(c.srcAt[i])+j < int(c.srcAt[i+1]) {
		// (A node given more inputs since Validate reads them by name.)
		s := c.src[int(c.srcAt[i])+j]
		return int(s.node), int(s.output), nil
	}
	name := c.Graph.Nodes[i].Inputs[j]
	p, ok := c.Producer[name]
	switch {
	case !ok:
		return -1, -1, fmt.Errorf("%w: input %q of node %d is produced by no node, input or constant", ErrBadNode, name, i)
	case p < 0:
		return -1, -1, nil
	case p >= len(c.Graph.Nodes) || c.Graph.Nodes[p] == nil:
		return -1, -1, fmt.Errorf("%w: input %q of node %d: its producer %d is no node", ErrBadNode, name, i, p)
	}
	out := slices.Index(c.Graph.Nodes[p].Outputs, name)
	if out < 0 {
		return -1, -1, fmt.Errorf("%w: input %q of node %d: node %d does not output it", ErrBadNode, name, i, p)
	}
	return p, out, nil
}

// Deps returns the Deps of node i's kernel. For Validate's result it is
// the answer Validate read and checked: a kernel's Deps is read once, so
// that one whose answer changes from call to call (which the Kernel
// contract forbids) cannot make the callers disagree, or panic. For a
// Checked made otherwise it is read now: a panic is an error wrapping
// kernel.ErrPanic, a negative input index an error wrapping ErrBadNode.
func (c *Checked) Deps(i int) (kernel.Deps, error) {
	if c == nil || i < 0 || i >= len(c.Kernels) || c.deps != nil && i >= len(c.deps) {
		return kernel.Deps{}, fmt.Errorf("%w: no node %d in a Checked of %d kernels", ErrBadNode, i, kernelCount(c))
	}
	if c.deps != nil {
		return c.deps[i], nil
	}
	_, _, _, deps, err := contract(c.Kernels[i])
	if err != nil {
		return kernel.Deps{}, err
	}
	for _, j := range deps.Value {
		if j < 0 {
			return kernel.Deps{}, fmt.Errorf("%w: the kernel's Deps.Value names input %d", ErrBadNode, j)
		}
	}
	return deps, nil
}

// kernelCount is the number of kernels of c (0 for nil), for errors.
func kernelCount(c *Checked) int {
	if c == nil {
		return 0
	}
	return len(c.Kernels)
}

// Validate checks g against the ops in reg: names are unique, every tensor
// is produced exactly once and consumed only where it exists, ops exist and
// get the right number of operands, the graph is acyclic, and shapes and
// dtypes infer where they are statically known. The first problem found is
// returned as an *Error naming the node; Validate never panics on bad input.
func Validate(g *Graph, reg kernel.Resolver) (*Checked, error) {
	if g == nil {
		return nil, &Error{Err: fmt.Errorf("nil graph")}
	}
	if rv := reflect.ValueOf(reg); reg == nil || rv.Kind() == reflect.Pointer && rv.IsNil() {
		// Every op would read as unknown (or its Has panic).
		return nil, &Error{Graph: g.Name, Err: fmt.Errorf("%w: nil resolver: give the ops' registry (ops.Builtins())", ErrUnknownOp)}
	}
	fail := func(node, op string, cause error, format string, args ...any) (*Checked, error) {
		return nil, &Error{Graph: g.Name, Node: node, Op: op, Err: fmt.Errorf("%w: "+format, append([]any{cause}, args...)...)}
	}
	if name := g.holdsItself(); name != "" {
		return fail("", "", ErrCycle, "graph %q holds itself: an attribute of one of its nodes holds it, or a graph that does", name)
	}
	tensors := len(g.Inputs) + len(g.Consts)
	for _, n := range g.Nodes {
		if n != nil {
			tensors += len(n.Outputs)
		}
	}
	c := &Checked{Graph: g, Producer: make(map[string]int, tensors), Meta: make(map[string]*kernel.Tensor, tensors)}
	for _, in := range g.Inputs {
		switch {
		case in.Name == "":
			return fail("", "", ErrBadInput, "input with empty name")
		case !in.DType.Valid():
			return fail("", "", ErrBadInput, "input %q: invalid dtype %v", in.Name, in.DType)
		}
		for _, d := range in.Shape {
			if d < kernel.Dynamic {
				return fail("", "", ErrBadInput, "input %q: negative dimension in %v", in.Name, in.Shape)
			}
		}
		if tooLarge(in.Shape, in.DType) {
			return fail("", "", ErrBadInput, "input %q: %v of %v is too large: its size overflows", in.Name, in.Shape, in.DType)
		}
		if _, dup := c.Producer[in.Name]; dup {
			return fail("", "", ErrDuplicate, "input %q declared twice", in.Name)
		}
		c.Producer[in.Name] = -1
		if in.Shape.Known() {
			c.Meta[in.Name] = &kernel.Tensor{DType: in.DType, Shape: in.Shape.Clone()}
		}
	}
	for _, k := range g.Consts {
		switch {
		case k.Name == "":
			return fail("", "", ErrBadConst, "constant with empty name")
		case k.Tensor == nil:
			return fail("", "", ErrBadConst, "constant %q: no tensor", k.Name)
		case !k.Tensor.DType.Valid():
			return fail("", "", ErrBadConst, "constant %q: invalid dtype %v", k.Name, k.Tensor.DType)
		case !k.Tensor.Shape.Known():
			return fail("", "", ErrBadConst, "constant %q: shape %v has a dynamic or negative dimension", k.Name, k.Tensor.Shape)
		case tooLarge(k.Tensor.Shape, k.Tensor.DType):
			return fail("", "", ErrBadConst, "constant %q: %v of %v is too large: its size overflows", k.Name, k.Tensor.Shape, k.Tensor.DType)
		case k.Tensor.Host != nil && int64(len(k.Tensor.Host)) != k.Tensor.Bytes():
			return fail("", "", ErrBadConst, "constant %q: %d bytes of data for %v", k.Name, len(k.Tensor.Host), k.Tensor)
		}
		if _, dup := c.Producer[k.Name]; dup {
			return fail("", "", ErrDuplicate, "constant %q: tensor name already used", k.Name)
		}
		c.Producer[k.Name] = -1
		c.Meta[k.Name] = k.Tensor
	}
	// One map operation a name and a tensor: an assignment that leaves the
	// map's length as it was found the name already there.
	names := make(map[string]struct{}, len(g.Nodes))
	c.Kernels = make([]kernel.Kernel, len(g.Nodes))
	c.deps = make([]kernel.Deps, len(g.Nodes))
	for i, n := range g.Nodes {
		if n == nil {
			return fail(fmt.Sprintf("#%d", i), "", ErrBadNode, "nil node")
		}
		if n.Name == "" {
			return fail(fmt.Sprintf("#%d", i), n.Op, ErrBadNode, "node with empty name")
		}
		if names[n.Name] = struct{}{}; len(names) != i+1 {
			return fail(n.Name, n.Op, ErrDuplicate, "node name used twice")
		}
		if n.Placement > OnCPU {
			return fail(n.Name, n.Op, ErrBadNode, "placement label %v", n.Placement)
		}
		if _, err := n.Attrs.Opset(1); err != nil {
			return fail(n.Name, n.Op, ErrBadNode, "%w", err)
		}
		has, err := registryHas(reg, n.Op)
		if err != nil {
			return fail(n.Name, n.Op, ErrBadNode, "%w", err)
		}
		if !has {
			return fail(n.Name, n.Op, ErrUnknownOp, "%q is not registered", n.Op)
		}
		k, err := newKernel(reg, n)
		if err != nil {
			return fail(n.Name, n.Op, ErrBadNode, "%w", err)
		}
		c.Kernels[i] = k
		minIn, maxIn, nOut, deps, err := contract(k)
		if err != nil {
			return fail(n.Name, n.Op, ErrBadNode, "%w", err)
		}
		if minIn < 0 || maxIn < -1 || maxIn >= 0 && maxIn < minIn || nOut < 0 {
			return fail(n.Name, n.Op, ErrBadNode, "the kernel's Arity is %d to %d inputs and %d outputs: want 0 ≤ minIn ≤ maxIn (or maxIn -1, no limit) and outputs ≥ 0", minIn, maxIn, nOut)
		}
		if len(n.Inputs) < minIn || (maxIn >= 0 && len(n.Inputs) > maxIn) {
			want := fmt.Sprintf("%d to %d", minIn, maxIn)
			switch {
			case maxIn < 0:
				want = fmt.Sprintf("at least %d", minIn)
			case minIn == maxIn:
				want = fmt.Sprint(minIn)
			}
			return fail(n.Name, n.Op, ErrArity, "%d inputs, want %s", len(n.Inputs), want)
		}
		if len(n.Outputs) != nOut {
			return fail(n.Name, n.Op, ErrArity, "%d outputs, want %d", len(n.Outputs), nOut)
		}
		for _, j := range deps.Value { // an absent optional input is no value to wait for
			if j < 0 || maxIn >= 0 && j >= maxIn {
				return fail(n.Name, n.Op, ErrBadNode, "the kernel's Deps.Value names input %d of an op taking at most %d", j, maxIn)
			}
		}
		deps.Value = slices.Clone(deps.Value) // the kernel's slice is its own
		c.deps[i] = deps
		for _, o := range n.Outputs {
			if o == "" {
				return fail(n.Name, n.Op, ErrBadNode, "empty output name")
			}
			had := len(c.Producer)
			if c.Producer[o] = i; len(c.Producer) == had {
				return fail(n.Name, n.Op, ErrDuplicate, "output %q is also produced by %s", o, g.producedBy(o))
			}
		}
	}
	// The source of every node's every input, node by node, so that order,
	// infer and the callers of Source probe no map.
	c.srcAt = make([]int32, len(g.Nodes)+1)
	for i, n := range g.Nodes {
		c.srcAt[i+1] = c.srcAt[i] + int32(len(n.Inputs))
	}
	c.src = make([]source, 0, c.srcAt[len(g.Nodes)])
	for i, n := range g.Nodes {
		// The node before, when it has few outputs, is looked at first:
		// in a graph listed in execution order, as builders and exporters
		// list them, it gives most inputs, and a large graph's map costs a
		// cache miss a probe. Its outputs have no other producer.
		var prev []string
		if i > 0 && len(g.Nodes[i-1].Outputs) <= 4 {
			prev = g.Nodes[i-1].Outputs
		}
		for _, in := range n.Inputs {
			if k := slices.Index(prev, in); k >= 0 {
				c.src = append(c.src, source{node: int32(i - 1), output: int32(k)})
				continue
			}
			p, ok := c.Producer[in]
			if !ok {
				return fail(n.Name, n.Op, ErrDangling, "input %q is produced by no node, input or constant", in)
			}
			s := source{node: -1, output: -1}
			if p >= 0 {
				s = source{node: int32(p), output: int32(outputIndex(g.Nodes[p], in))}
			}
			c.src = append(c.src, s)
		}
	}
	order, err := c.order()
	if err != nil {
		return nil, err
	}
	c.Order = order
	if len(g.Outputs) == 0 {
		return fail("", "", ErrBadOutput, "graph has no outputs")
	}
	seen := make(map[string]bool)
	for _, o := range g.Outputs {
		if _, ok := c.Producer[o]; !ok {
			return fail("", "", ErrBadOutput, "output %q is produced by no node, input or constant", o)
		}
		if seen[o] {
			return fail("", "", ErrDuplicate, "output %q listed twice", o)
		}
		seen[o] = true
	}
	if err := c.infer(); err != nil {
		return nil, err
	}
	return c, nil
}

// producedBy names the first producer of tensor name in g: a graph input
// or constant, or the first node that outputs it; for an error.
func (g *Graph) producedBy(name string) string {
	for _, in := range g.Inputs {
		if in.Name == name {
			return "a graph input or constant"
		}
	}
	for _, k := range g.Consts {
		if k.Name == name {
			return "a graph input or constant"
		}
	}
	for _, n := range g.Nodes {
		if n != nil && slices.Contains(n.Outputs, name) {
			return fmt.Sprintf("node %q", n.Name)
		}
	}
	return "another producer"
}

// newKernel builds n's kernel with reg, turning a panic of the resolver or
// the op's factory, and a missing kernel, into errors.
func newKernel(reg kernel.Resolver, n *Node) (k kernel.Kernel, err error) {
	defer func() {
		if p := recover(); p != nil {
			k, err = nil, fmt.Errorf("building the kernel: %w: %v", kernel.ErrPanic, p)
		}
	}()
	k, err = reg.New(n.Op, n.Attrs)
	if err == nil && k == nil {
		err = fmt.Errorf("the op's factory returned no kernel")
	}
	return k, err
}

// outputIndex is the position of tensor name among n's outputs.
func outputIndex(n *Node, name string) int {
	if len(n.Outputs) == 1 {
		return 0 // the producer Validate found: it outputs name
	}
	return slices.Index(n.Outputs, name)
}

// order is Kahn's algorithm taking the lowest-index ready node first, over
// the inputs' sources (src).
func (c *Checked) order() ([]int, error) {
	g := c.Graph
	n := len(g.Nodes)
	indeg := make([]int32, n)
	// The users of node p are users[at[p]:at[p+1]], in index order.
	at := make([]int32, n+1)
	for _, s := range c.src {
		if s.node >= 0 {
			at[s.node+1]++
		}
	}
	for p := range n {
		at[p+1] += at[p]
	}
	users := make([]int32, at[n])
	fill := slices.Clone(at[:n])
	k := 0
	for i, nd := range g.Nodes {
		for range nd.Inputs {
			if p := c.src[k].node; p >= 0 {
				indeg[i]++
				users[fill[p]] = int32(i)
				fill[p]++
			}
			k++
		}
	}
	var ready minheap.Heap[index]
	for i, d := range indeg {
		if d == 0 {
			ready.Push(index(i))
		}
	}
	order := make([]int, 0, n)
	for ready.Len() > 0 {
		i := ready.Pop()
		order = append(order, int(i))
		for _, u := range users[at[i]:at[i+1]] {
			if indeg[u]--; indeg[u] == 0 {
				ready.Push(index(u))
			}
		}
	}
	if len(order) == len(g.Nodes) {
		return order, nil
	}
	// Walk producers from the first stuck node until a node repeats.
	start := -1
	for i, d := range indeg {
		if d > 0 {
			start = i
			break
		}
	}
	pos := map[int]int{}
	var path []int
	for i := start; ; {
		if at, ok := pos[i]; ok {
			path = path[at:]
			break
		}
		pos[i] = len(path)
		path = append(path, i)
		for _, in := range g.Nodes[i].Inputs {
			if p := c.Producer[in]; p >= 0 && indeg[p] > 0 {
				i = p
				break
			}
		}
	}
	names := make([]string, 0, len(path)+1)
	for j := len(path) - 1; j >= 0; j-- {
		names = append(names, g.Nodes[path[j]].Name)
	}
	names = append(names, names[0])
	last := g.Nodes[path[len(path)-1]]
	return nil, &Error{Graph: g.Name, Node: last.Name, Op: last.Op, Err: fmt.Errorf("%w: %s", ErrCycle, strings.Join(names, " -> "))}
}

// infer propagates static shapes in execution order.
func (c *Checked) infer() error {
	g := c.Graph
	nout, maxIn := 0, 0
	for _, n := range g.Nodes {
		nout += len(n.Outputs)
		maxIn = max(maxIn, len(n.Inputs))
	}
	// The nodes' output tensors, taken in turn (Meta keeps them); the
	// inputs' scratch, which InferShape does not keep.
	all, tensors := make([]*kernel.Tensor, nout), make([]kernel.Tensor, nout)
	for j := range all {
		all[j] = &tensors[j]
	}
	outs := all
	// Node i's outputs, once known, are all[outAt[i]:]; -1: not known.
	outAt := make([]int32, len(g.Nodes))
	for i := range outAt {
		outAt[i] = -1
	}
	scratch := make([]*kernel.Tensor, maxIn)
	for _, i := range c.Order {
		n, k := g.Nodes[i], c.Kernels[i]
		in := scratch[:len(n.Inputs)]
		clear(in)
		known := true
		for j, name := range n.Inputs {
			var m *kernel.Tensor
			if s := c.src[int(c.srcAt[i])+j]; s.node >= 0 {
				if at := outAt[s.node]; at >= 0 {
					m = all[int(at)+int(s.output)]
				}
			} else {
				m = c.Meta[name]
			}
			if m == nil {
				known = false
				break
			}
			in[j] = m
		}
		deps := c.deps[i]
		if known {
			for _, j := range deps.Value {
				if j < len(in) && in[j].Host == nil {
					known = false // value computed at run time
				}
			}
		}
		if !known {
			continue
		}
		out := outs[:len(n.Outputs):len(n.Outputs)]
		at := len(all) - len(outs)
		outs = outs[len(n.Outputs):]
		if err := inferInto(k, in, out); err != nil {
			return &Error{Graph: g.Name, Node: n.Name, Op: n.Op, Err: fmt.Errorf("%w: %w", ErrInferShape, err)}
		}
		if deps.Compute {
			continue // only an upper bound is known
		}
		outAt[i] = int32(at)
		for j, name := range n.Outputs {
			c.Meta[name] = out[j]
		}
	}
	return nil
}

// inferOutputs runs k's InferShape (see safeInfer) on in into nOut fresh
// output tensors and returns them.
func inferOutputs(k kernel.Kernel, in []*kernel.Tensor, nOut int) ([]*kernel.Tensor, error) {
	out := make([]*kernel.Tensor, nOut)
	for j := range out {
		out[j] = &kernel.Tensor{}
	}
	if err := inferInto(k, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// inferInto runs k's InferShape (see safeInfer) on in into out, fresh
// output tensors, and checks its answer: a broken contract (an output
// left nil or replaced, of an invalid dtype, a negative or overflowing
// shape; an input changed) is an error wrapping kernel.ErrBadAnswer, as
// the runtime's checks of the same answer at run time are; but a
// kernel.Trusted kernel's negative or overflowing shape is its operands'
// doing (a constant's huge sizes), and wraps no sentinel. A kernel that
// is not Trusted reads copies of in.
func inferInto(k kernel.Kernel, in, out []*kernel.Tensor) error {
	given := in
	_, trusted := k.(kernel.Trusted)
	sizeErr := func(format string, a ...any) error {
		if trusted {
			return fmt.Errorf(format, a...)
		}
		return fmt.Errorf("%w: "+format, append([]any{kernel.ErrBadAnswer}, a...)...)
	}
	if !trusted {
		_, _, _, deps, err := contract(k)
		if err != nil {
			return err
		}
		in = ownInputs(in, deps.Value)
	}
	var buf [4]*kernel.Tensor
	made := append(buf[:0], out...)
	if err := safeInfer(k, in, out); err != nil {
		return err
	}
	for j, t := range out {
		switch {
		case t == nil:
			return fmt.Errorf("%w: InferShape left output %d nil", kernel.ErrBadAnswer, j)
		case t != made[j]:
			return fmt.Errorf("%w: InferShape replaced output %d", kernel.ErrBadAnswer, j)
		case !t.DType.Valid():
			return fmt.Errorf("%w: InferShape gave output %d the invalid dtype %v", kernel.ErrBadAnswer, j, t.DType)
		}
		for _, d := range t.Shape {
			if d < kernel.Dynamic {
				return sizeErr("InferShape gave output %d the negative dimension %d", j, d)
			}
		}
		if tooLarge(t.Shape, t.DType) {
			return sizeErr("InferShape gave output %d the shape %v of %v, whose size overflows", j, t.Shape, t.DType)
		}
	}
	for j, t := range in {
		if g := given[j]; t != g && g != nil && (t == nil || t.DType != g.DType || !t.Shape.Equal(g.Shape)) {
			return fmt.Errorf("%w: InferShape changed input %d", kernel.ErrBadAnswer, j)
		}
	}
	return nil
}

// ownInputs returns copies of in for a kernel not kernel.Trusted to read,
// so that one that writes them leaves the graph's tensors alone: dims of
// their own, and a copy of the contents of the inputs at positions
// copied (nil: every one); the others' contents are left out.
func ownInputs(in []*kernel.Tensor, copied []int) []*kernel.Tensor {
	own := make([]*kernel.Tensor, len(in))
	for j, t := range in {
		if t == nil {
			continue
		}
		c := &kernel.Tensor{DType: t.DType, Shape: t.Shape.Clone()}
		if t.Host != nil && (copied == nil || slices.Contains(copied, j)) {
			c.Host = slices.Clone(t.Host)
		}
		own[j] = c
	}
	return own
}

// registryHas reports whether reg (nil: no registry) resolves op; a panic
// in reg's Has, the caller's code, is an error wrapping kernel.ErrPanic.
func registryHas(reg kernel.Resolver, op string) (has bool, err error) {
	if reg == nil {
		return false, nil
	}
	defer func() {
		if p := recover(); p != nil {
			has, err = false, fmt.Errorf("the registry's Has(%q): %w: %v", op, kernel.ErrPanic, p)
		}
	}()
	return reg.Has(op), nil
}

// contract returns k's Arity and Deps, turning a panic of either into an
// error.
func contract(k kernel.Kernel) (minIn, maxIn, nOut int, deps kernel.Deps, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the kernel's Arity or Deps: %w: %v", kernel.ErrPanic, p)
		}
	}()
	minIn, maxIn, nOut = k.Arity()
	return minIn, maxIn, nOut, k.Deps(), nil
}

// safeInfer runs InferShape, turning a kernel's panic into an error so that
// a bad graph can never crash validation.
func safeInfer(k kernel.Kernel, in, out []*kernel.Tensor) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("InferShape: %w: %v", kernel.ErrPanic, r)
		}
	}()
	return k.InferShape(in, out)
}

// index is a node's or region's index in a ready heap, least first.
type index int32

// Less orders indices.
func (i index) Less(j index) bool { return i < j }

// tooLarge reports whether a tensor of shape s (its dynamic dimensions
// aside) has more than 2^62 elements, or, of dtype dt (0: not known yet),
// more than 2^62 bytes: counts no int64 arithmetic on it may overflow.
func tooLarge(s kernel.Shape, dt kernel.DType) bool {
	n := uint64(1)
	if dt.Valid() {
		n = uint64(dt.Size())
	}
	for _, d := range s {
		if d < 0 {
			continue
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > 1<<62 {
			return true
		}
		n = lo
	}
	return false
}
