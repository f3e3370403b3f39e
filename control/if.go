// Package control holds pipert's control-flow kernels: If, whose branches
// are subgraphs, and Loop and Scan, whose body is one.
//
// An If node reads a boolean condition and the outer tensors its branches
// use (its captures), and runs one branch, chosen at run time. Run as one
// kernel, every input is a value dependency: the runtime's value
// barrier stages the condition and the captures to the host before the
// node's InferShape, which picks the branch and, on real data, runs it
// there kernel by kernel (shape inference, tiling and computation of every
// branch node, nested Ifs included); Compute then hands the branch's
// outputs over. On virtual data (benchmark sizes) the branch's output
// shapes come from its static shape inference, and the condition must
// still be real. The node's modeled device work is the chosen branch's.
//
// The runtime's actors do not call the kernel that way: through Branches
// and Choose (actor.Brancher) an actor splices both branches into its own
// execution order and stage queues, waits only for the condition, and
// skips the branch not taken; the host evaluation above (Eval) is the
// reference they match bit for bit.
//
// Dependency rule: control imports subgraph, kernel and device.
package control

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Attribute names of an If node: its two branches, *subgraph.Graph values.
// Each branch declares as its Inputs every capture of the node (the node's
// inputs after the condition), in the node's order; their dtypes and shapes
// are taken from the tensors at run time.
const (
	ThenBranch = "then_branch"
	ElseBranch = "else_branch"
)

// ErrBranch is the cause of an If's failure that comes from its branches:
// the branches disagree in output count, a branch fails, or a branch's
// output shape cannot be known on virtual data.
var ErrBranch = errors.New("control: If branch")

// Resolver resolves "If", "Loop" and "Scan" itself and every other op through
// Base; the branches' and bodies' nodes are resolved through the Resolver
// too, so they nest. A nil Base (the zero Resolver) has no other op.
type Resolver struct {
	Base kernel.Resolver
}

// New implements kernel.Resolver.
func (r Resolver) New(op string, attrs kernel.Attrs) (kernel.Kernel, error) {
	switch op {
	case "If":
		return NewIf(attrs, r)
	case "Loop":
		return NewLoop(attrs, r)
	case "Scan":
		return NewScan(attrs, r)
	}
	if r.Base == nil {
		return nil, fmt.Errorf("control: %q: %w", op, kernel.ErrUnknownOp)
	}
	return r.Base.New(op, attrs)
}

// Has implements kernel.Resolver.
func (r Resolver) Has(op string) bool {
	return op == "If" || op == "Loop" || op == "Scan" || r.Base != nil && r.Base.Has(op)
}

// If is the kernel of an If node. Like every kernel it serves one node,
// called by one goroutine at a time. NewIf makes one: the zero If has no
// branches, and its InferShape fails with ErrBranch; a nil *If (NewIf's on
// an error) answers as the zero If.
type If struct {
	branch [2]*subgraph.Graph // then, else
	bodies [2]*body           // the branches, validated on their first real run
	cur    runOf              // the run's number and context (kernel.RunNumbered, Interruptible)
	res    kernel.Resolver
	nIn    int // captures the node passes, after the condition
	nOut   int
	// The last run's choice and, on real data, the chosen branch's
	// outputs, computed in InferShape and handed over by Compute.
	taken int
	outs  []*kernel.Tensor
	cost  device.Cost
}

// graphAttrErr reports attribute name of a control-flow op that is not a
// graph (err: the op's sentinel).
func graphAttrErr(err error, name string, v any) error {
	switch g, ok := v.(*subgraph.Graph); {
	case v == nil:
		return fmt.Errorf("%w: attribute %q is missing, want a *subgraph.Graph", err, name)
	case ok && g == nil:
		return fmt.Errorf("%w: attribute %q is a nil *subgraph.Graph", err, name)
	default:
		return fmt.Errorf("%w: attribute %q is %T, want a *subgraph.Graph", err, name, v)
	}
}

// NewIf makes an If kernel from its attributes; res resolves the
// branches' ops.
func NewIf(attrs kernel.Attrs, res kernel.Resolver) (*If, error) {
	if err := attrs.Check(ThenBranch, ElseBranch); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBranch, err)
	}
	k := &If{res: res}
	for i, name := range []string{ThenBranch, ElseBranch} {
		g, ok := attrs[name].(*subgraph.Graph)
		if !ok || g == nil {
			return nil, graphAttrErr(ErrBranch, name, attrs[name])
		}
		if err := knownOps(g, res); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBranch, name, err)
		}
		k.branch[i] = g
		k.bodies[i] = &body{g: g, res: res}
	}
	if a, b := len(k.branch[0].Outputs), len(k.branch[1].Outputs); a != b {
		return nil, fmt.Errorf("%w: then branch %q has %d outputs, else branch %q has %d", ErrBranch, k.branch[0].Name, a, k.branch[1].Name, b)
	}
	k.nOut = len(k.branch[0].Outputs)
	if k.nOut == 0 {
		return nil, fmt.Errorf("%w: branches have no outputs", ErrBranch)
	}
	if a, b := len(k.branch[0].Inputs), len(k.branch[1].Inputs); a != b {
		return nil, fmt.Errorf("%w: then branch %q declares %d captures, else branch %q %d", ErrBranch, k.branch[0].Name, a, k.branch[1].Name, b)
	}
	k.nIn = len(k.branch[0].Inputs)
	return k, nil
}

// Op implements kernel.Kernel.
func (k *If) Op() string { return "If" }

// Arity implements kernel.Kernel: the condition, every capture the
// branches declare, and the branches' outputs.
func (k *If) Arity() (minIn, maxIn, nOut int) {
	if k == nil {
		return 1, 1, 0
	}
	return 1 + k.nIn, 1 + k.nIn, k.nOut
}

// Branches returns the then and else branches and the resolver of their
// ops. The runtime's queued modes lower an If into its condition, both
// branches' nodes and a merge of their outputs, in one execution order.
func (k *If) Branches() (then, els *subgraph.Graph, res kernel.Resolver) {
	if k == nil {
		return nil, nil, nil
	}
	return k.branch[0], k.branch[1], k.res
}

// Choose reads the condition's host value: true takes the then branch. The
// condition is a single bool (or 8-bit integer) element.
func (k *If) Choose(cond *kernel.Tensor) (bool, error) {
	if cond == nil {
		return false, errors.New("If: a nil condition")
	}
	if cond.Host == nil {
		return false, fmt.Errorf("If: the condition %v has no value (a runtime If needs real data)", cond)
	}
	if cond.NumElements() != 1 {
		return false, fmt.Errorf("If: the condition has shape %v, want a single element", cond.Shape)
	}
	switch cond.DType {
	case kernel.Bool, kernel.Uint8, kernel.Int8:
		return cond.Host[0] != 0, nil
	}
	return false, fmt.Errorf("If: the condition has dtype %v, want bool", cond.DType)
}

// Deps implements kernel.Kernel: every input is read by InferShape, which
// computes the outputs (volatile).
func (k *If) Deps() kernel.Deps {
	n, _, _ := k.Arity()
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return kernel.Deps{Value: v, Volatile: true} // InferShape evaluates the body
}

// InferShape implements kernel.Kernel: it reads the condition, picks the
// branch and runs it (real data) or infers its shapes (virtual data).
func (k *If) InferShape(in, out []*kernel.Tensor) error {
	if k == nil || k.branch[0] == nil {
		return fmt.Errorf("%w: the zero If, not made by NewIf, has none", ErrBranch)
	}
	if err := checkArity("If", k, in, out); err != nil {
		return err
	}
	c, err := k.Choose(in[0])
	if err != nil {
		return err
	}
	k.taken = 1
	if c {
		k.taken = 0
	}
	g := k.branch[k.taken]
	bound := in[1:] // Arity holds the count to the branches' declarations
	real := true
	for _, t := range bound {
		if t.Host == nil && t.NumElements() != 0 {
			real = false
		}
	}
	k.outs, k.cost = nil, device.Cost{}
	if real {
		outs, cost, err := k.bodies[k.taken].eval(bound, k.cur)
		if err != nil {
			return fmt.Errorf("%w %q: %w", ErrBranch, g.Name, err)
		}
		k.outs, k.cost = outs, cost
	} else {
		outs, err := shapesOf(g, bound, k.res)
		if err != nil {
			return fmt.Errorf("%w %q: %w", ErrBranch, g.Name, err)
		}
		k.outs = outs
	}
	for i, o := range k.outs {
		out[i].DType, out[i].Shape = o.DType, append(out[i].Shape[:0], o.Shape...)
	}
	return nil
}

// SetRun implements kernel.RunNumbered: the branch's kernels see run as
// their Args.Run.
func (k *If) SetRun(run uint64) {
	if k != nil {
		k.cur.no = run
	}
}

// SetContext implements kernel.Interruptible: a branch stops between its
// nodes once ctx ended, and its loops between their iterations.
func (k *If) SetContext(ctx context.Context) {
	if k != nil {
		k.cur.ctx = ctx
	}
}

// Resize implements kernel.Kernel: an If has no tiling of its own.
func (k *If) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	return noTiling(t)
}

// Cost implements kernel.Kernel: the chosen branch's work.
func (k *If) Cost(in, out []*kernel.Tensor) device.Cost {
	if k == nil {
		return device.Cost{}
	}
	return k.cost
}

// Compute implements kernel.Kernel: it hands over the outputs InferShape
// computed.
func (k *If) Compute(a *kernel.Args) error {
	if k == nil {
		return handOver("If", nil, a)
	}
	return handOver("If", k.outs, a)
}

// Trusted implements kernel.Trusted.
func (k *If) Trusted() {}

// handOver copies outputs computed on the host (by InferShape) into the
// node's outputs.
func handOver(op string, outs []*kernel.Tensor, a *kernel.Args) error {
	if a == nil {
		return fmt.Errorf("%s: Compute of nil Args", op)
	}
	if len(outs) != len(a.Out) {
		return fmt.Errorf("%s: %d outputs computed for %d node outputs", op, len(outs), len(a.Out))
	}
	for i, o := range outs {
		dst := a.Out[i].Data()
		if n := o.Bytes(); int64(len(o.Host)) < n || int64(len(dst)) != n {
			return fmt.Errorf("%s: output %d (%v) does not fit node output %v", op, i, o, a.Out[i])
		}
		copy(dst, o.Host)
	}
	return nil
}

// noTiling is the Resize of a control-flow kernel: no tiling, no
// workspace (a nil t has nothing to clear).
func noTiling(t *kernel.Tiling) error {
	if t != nil {
		t.Data, t.Workspace = t.Data[:0], 0
	}
	return nil
}

// checkArity refuses a call of k's InferShape with operands other than
// its Arity's (the runtime never makes one; a direct caller may).
func checkArity(op string, k kernel.Kernel, in, out []*kernel.Tensor) error {
	minIn, maxIn, nOut := k.Arity()
	if len(in) < minIn || len(in) > maxIn || len(out) != nOut {
		return fmt.Errorf("%s: %d inputs and %d outputs, want %d to %d and %d", op, len(in), len(out), minIn, maxIn, nOut)
	}
	for i, t := range in {
		if t == nil {
			return fmt.Errorf("%s: input %d is nil", op, i)
		}
	}
	for i, t := range out {
		if t == nil {
			return fmt.Errorf("%s: output %d is nil", op, i)
		}
	}
	return nil
}

// shapesOf infers g's output dtypes and shapes for inputs bound (virtual
// data): the branch's static shape inference.
func shapesOf(g *subgraph.Graph, bound []*kernel.Tensor, res kernel.Resolver) ([]*kernel.Tensor, error) {
	c, err := subgraph.Validate(concrete(g, bound), res)
	if err != nil {
		return nil, err
	}
	outs := make([]*kernel.Tensor, len(g.Outputs))
	for i, name := range g.Outputs {
		m, ok := c.Meta[name]
		if !ok {
			return nil, fmt.Errorf("output %q has no static shape on virtual data", name)
		}
		outs[i] = &kernel.Tensor{DType: m.DType, Shape: m.Shape.Clone()}
	}
	return outs, nil
}

// concrete is g with its inputs declared as the tensors bound to them.
func concrete(g *subgraph.Graph, bound []*kernel.Tensor) *subgraph.Graph {
	c := *g
	c.Inputs = slices.Clone(g.Inputs)
	for i, t := range bound {
		c.Inputs[i].DType, c.Inputs[i].Shape = t.DType, t.Shape.Clone()
	}
	return &c
}
