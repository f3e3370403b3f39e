package control

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/hostmem"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Eval runs g on the host, kernel by kernel, on real inputs (in the order
// of g's declared inputs, whose declared dtypes and ranks they replace):
// every node's InferShape, Resize and Compute, in execution order. It
// returns the outputs as new host tensors and the summed cost of the
// kernels. Compute-dependent kernels' outputs take their real shapes.
func Eval(g *subgraph.Graph, inputs []*kernel.Tensor, res kernel.Resolver) ([]*kernel.Tensor, device.Cost, error) {
	if g == nil {
		return nil, device.Cost{}, errors.New("control: eval: nil graph")
	}
	for i, t := range inputs {
		switch {
		case t == nil:
			return nil, device.Cost{}, fmt.Errorf("control: eval: graph %q: input %d is nil", g.Name, i)
		case t.Host == nil && t.Shape.Known() && t.NumElements() > 0:
			return nil, device.Cost{}, fmt.Errorf("control: eval: graph %q: input %d is virtual (no Host): Eval computes on real data", g.Name, i)
		}
	}
	return (&body{g: g, res: res}).eval(inputs, runOf{})
}

// runOf is what the kernels of a body learn of the run they serve.
type runOf struct {
	no  uint64          // the run's number (kernel.Args.Run; 0: none)
	ctx context.Context // the run's context (nil: none)
}

// context is the run's context, Background when it has none.
func (r runOf) context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// stopped returns the run's context's error once it ended.
func (r runOf) stopped() error {
	if r.ctx == nil {
		return nil
	}
	return r.ctx.Err()
}

// body is a Loop's or Scan's body, validated once, on the first inputs
// it ran on: its kernels then serve every iteration of every run, as a
// graph's kernels serve its runs (they see the run's number as their
// Args.Run: a random generator in the body draws on from iteration to
// iteration of a run), each iteration inferring its shapes anew.
type body struct {
	g       *subgraph.Graph
	res     kernel.Resolver
	checked *subgraph.Checked
}

// eval runs the body on inputs, in run run of the executable.
func (b *body) eval(inputs []*kernel.Tensor, run runOf) ([]*kernel.Tensor, device.Cost, error) {
	if b.checked == nil {
		if len(inputs) != len(b.g.Inputs) {
			return nil, device.Cost{}, fmt.Errorf("graph %q takes %d inputs, got %d", b.g.Name, len(b.g.Inputs), len(inputs))
		}
		c, err := subgraph.Validate(concrete(b.g, inputs), b.res)
		if err != nil {
			return nil, device.Cost{}, err
		}
		b.checked = c
	}
	return evalChecked(b.g, b.checked, inputs, run)
}

// evalChecked runs g, validated as c, on inputs; it stops before a node
// once the run's context ended.
func evalChecked(g *subgraph.Graph, c *subgraph.Checked, inputs []*kernel.Tensor, run runOf) ([]*kernel.Tensor, device.Cost, error) {
	var cost device.Cost
	vals := make(map[string]*kernel.Tensor, len(g.Inputs)+len(g.Consts)+len(g.Nodes))
	for i, v := range g.Inputs {
		vals[v.Name] = inputs[i]
	}
	for _, k := range g.Consts {
		vals[k.Name] = k.Tensor
	}
	for _, i := range c.Order {
		n, k := g.Nodes[i], c.Kernels[i]
		if err := run.stopped(); err != nil {
			return nil, cost, fmt.Errorf("graph %q: before node %q: %w", g.Name, n.Name, err)
		}
		if err := step(n, k, vals, &cost, run); err != nil {
			return nil, cost, err
		}
	}
	outs := make([]*kernel.Tensor, len(g.Outputs))
	for i, name := range g.Outputs {
		t, ok := vals[name]
		if !ok {
			return nil, cost, fmt.Errorf("graph %q: output %q was not computed", g.Name, name)
		}
		o := &kernel.Tensor{DType: t.DType, Shape: t.Shape.Clone()}
		if t.Host != nil {
			// A copy, real even when empty (a nil Host is virtual).
			o.Host = append(make([]byte, 0, o.Bytes()), t.Host[:o.Bytes()]...)
		}
		outs[i] = o
	}
	return outs, cost, nil
}

// step runs node n's kernel k on the host and records its outputs.
func step(n *subgraph.Node, k kernel.Kernel, vals map[string]*kernel.Tensor, cost *device.Cost, run runOf) error {
	in := make([]*kernel.Tensor, len(n.Inputs))
	for j, name := range n.Inputs {
		in[j] = vals[name]
	}
	out, c, err := run1(k, n.Name, in, len(n.Outputs), run)
	if err != nil {
		return err
	}
	cost.FLOPs += c.FLOPs
	cost.Bytes += c.Bytes
	for j, name := range n.Outputs {
		vals[name] = out[j]
	}
	return nil
}

// Run1 runs kernel k of node name on real host inputs: InferShape,
// Resize, Compute (and OutputShapes for a compute-dependent kernel), under
// recover. It returns nOut new host tensors and the kernel's cost; a
// failure is a *kernel.Error naming the node, op and stage.
func Run1(k kernel.Kernel, name string, in []*kernel.Tensor, nOut int) (out []*kernel.Tensor, cost device.Cost, err error) {
	return run1(k, name, in, nOut, runOf{})
}

// run1 is Run1 in run run of an executable: the kernel gets its number
// (kernel.RunNumbered) and context (kernel.Interruptible).
func run1(k kernel.Kernel, name string, in []*kernel.Tensor, nOut int, run runOf) (out []*kernel.Tensor, cost device.Cost, err error) {
	op := k.Op()
	stage := kernel.StageInfer
	fail := func(e error) error { return &kernel.Error{Node: name, Op: op, Stage: stage, Err: e} }
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fail(fmt.Errorf("%w: %v", kernel.ErrPanic, p))
		}
	}()
	out = make([]*kernel.Tensor, nOut)
	for j := range out {
		out[j] = &kernel.Tensor{}
	}
	if n, ok := k.(kernel.RunNumbered); ok {
		n.SetRun(run.no)
	}
	if n, ok := k.(kernel.Interruptible); ok {
		n.SetContext(run.context())
	}
	if err := k.InferShape(in, out); err != nil {
		return nil, cost, fail(err)
	}
	for j, t := range out {
		if t == nil || !t.DType.Valid() {
			return nil, cost, fail(fmt.Errorf("%w: output %d is not a valid tensor: %v", kernel.ErrBadAnswer, j, t))
		}
		if _, ok := bytesOf(t.Shape, t.DType); !ok {
			blame := kernel.ErrBadAnswer
			if _, trusted := k.(kernel.Trusted); trusted {
				blame = subgraph.ErrInferShape // its operands ask for the shape
			}
			return nil, cost, fail(fmt.Errorf("%w: output %d shape %v has a negative dimension or too many elements", blame, j, t.Shape))
		}
	}
	stage = kernel.StageResize
	var a kernel.Args
	if err := k.Resize(in, out, &a.Tiling); err != nil {
		return nil, cost, fail(err)
	}
	if a.Tiling.Workspace < 0 {
		return nil, cost, fail(fmt.Errorf("%w: workspace of %d bytes", kernel.ErrBadAnswer, a.Tiling.Workspace))
	}
	if a.Tiling.Workspace > 1<<34 {
		return nil, cost, fail(fmt.Errorf("workspace of %d bytes", a.Tiling.Workspace))
	}
	stage = kernel.StageLaunch
	for j, t := range out {
		if t.Host, err = hostmem.Make(t.Bytes()); err != nil {
			return nil, cost, fail(fmt.Errorf("output %d %v: %w", j, t.Shape, err))
		}
	}
	if ws := a.Tiling.Workspace; ws > 0 {
		data, err := hostmem.Make(ws)
		if err != nil {
			return nil, cost, fail(fmt.Errorf("workspace: %w", err))
		}
		a.Workspace = device.Buffer{Addr: 1, Size: ws, Data: data}
	}
	a.In, a.Out, a.Node, a.Run, a.Ctx = in, out, name, run.no, run.ctx
	cost = k.Cost(in, out)
	if err := k.Compute(&a); err != nil {
		return nil, cost, fail(err)
	}
	if k.Deps().Compute {
		cd, ok := k.(kernel.ComputeDependent)
		if !ok {
			return nil, cost, fail(fmt.Errorf("compute-dependent kernel without OutputShapes"))
		}
		shapes, err := cd.OutputShapes(&a)
		if err != nil {
			return nil, cost, fail(err)
		}
		if len(shapes) != len(out) {
			return nil, cost, fail(fmt.Errorf("%w: OutputShapes returned %d shapes for %d outputs", kernel.ErrBadAnswer, len(shapes), len(out)))
		}
		for j, sh := range shapes {
			n, ok := bytesOf(sh, out[j].DType)
			switch {
			case !ok:
				return nil, cost, fail(fmt.Errorf("%w: OutputShapes: output %d shape %v has a negative dimension or more bytes than an int64 counts", kernel.ErrBadAnswer, j, sh))
			case len(sh) != len(out[j].Shape):
				return nil, cost, fail(fmt.Errorf("%w: OutputShapes: output %d shape %v is not of rank %d, InferShape's", kernel.ErrBadAnswer, j, sh, len(out[j].Shape)))
			case n > int64(len(out[j].Host)):
				return nil, cost, fail(fmt.Errorf("%w: OutputShapes: output %d shape %v exceeds the %d bytes allocated for InferShape's bound", kernel.ErrBadAnswer, j, sh, len(out[j].Host)))
			}
			out[j].Shape = sh.Clone()
			out[j].Host = out[j].Host[:n]
		}
	}
	return out, cost, nil
}

// bytesOf is the byte count of a tensor of shape sh and dtype dt, false if
// a dimension is negative or the count overflows.
func bytesOf(sh kernel.Shape, dt kernel.DType) (int64, bool) {
	n := uint64(dt.Size())
	for _, d := range sh {
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > 1<<62 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}
