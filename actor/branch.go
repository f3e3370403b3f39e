package actor

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Brancher is a kernel whose work is one of two subgraphs, chosen at run
// time by a condition (control.If). An actor splices it into its own
// execution order, in every mode, instead of running the chosen branch
// inside the kernel's InferShape:
//
//   - the condition: a node with a value dependency on the condition input,
//     whose InferShape calls Choose on the staged value and leaves the
//     choice on the host;
//   - both branches' nodes, in their own execution order (then, else),
//     each guarded by the choice: the goroutine running InferShape skips
//     the nodes of the branch not taken (no InferShape, tiling, allocation
//     or launch);
//   - the merge: a node that hands the taken branch's outputs over to the
//     node's outputs.
//
// So a branch's kernels flow through the same stage queues as every other
// kernel, after the condition's value barrier, and KBK launches them one
// by one like the rest. Nested Brancher kernels in a branch are spliced in
// turn. The kernel's own InferShape, which runs the branch on the host
// (control.Eval), is the reference the spliced runs are checked against.
type Brancher interface {
	kernel.Kernel
	// Branches returns the then and else subgraphs and the resolver of
	// their ops. Each branch declares one input per capture of the node
	// (its inputs after the condition), in the node's order.
	Branches() (then, els *subgraph.Graph, res kernel.Resolver)
	// Choose reads the condition's host value: true takes the then branch.
	Choose(cond *kernel.Tensor) (bool, error)
}

// guard is the condition a spliced branch node runs under: the host
// value of the choice slot tok is want (0 or 1). It packs both in one
// word; a node with no guard has tok -1.
type guard int32

const unguarded guard = -1

// guardOn returns the guard of choice slot tok and value want.
func guardOn(tok int32, want byte) guard { return guard(tok<<1 | int32(want&1)) }

// tok returns g's choice slot (-1: none).
func (g guard) tok() int32 {
	if g < 0 {
		return -1
	}
	return int32(g >> 1)
}

// want returns the value g's choice slot must hold.
func (g guard) want() byte { return byte(g & 1) }

// checkBranch validates branch g of If node n for lowering: its inputs are
// the node's captures, whose dtypes and shapes are known only at run time,
// so they are declared with unknown shapes and nothing downstream of them
// is inferred statically (a branch not taken may not even infer on the
// captures' real shapes).
func checkBranch(n *subgraph.Node, g *subgraph.Graph, res kernel.Resolver) (*subgraph.Checked, error) {
	if len(g.Inputs) != len(n.Inputs)-1 {
		return nil, fmt.Errorf("actor: node %q (If): branch %q declares %d inputs, the node passes %d captures", n.Name, g.Name, len(g.Inputs), len(n.Inputs)-1)
	}
	c := *g
	c.Inputs = slices.Clone(g.Inputs)
	for i := range c.Inputs {
		// The dtype is a placeholder: an input of unknown shape has no
		// static metadata, so nothing reads it.
		c.Inputs[i].DType, c.Inputs[i].Shape = kernel.Float32, kernel.Shape{kernel.Dynamic}
	}
	checked, err := subgraph.Validate(&c, res)
	if err != nil {
		return nil, fmt.Errorf("actor: node %q (If): %w", n.Name, err)
	}
	return checked, nil
}

// ifCond is the condition node of a spliced If: it stages nothing itself
// (the runtime's value barrier stages the condition) and leaves the choice,
// 1 for then and 0 for else, as the host value of its one-byte output.
type ifCond struct {
	b      Brancher
	choice [1]byte
}

func (k *ifCond) Op() string                                { return "If" }
func (k *ifCond) Arity() (int, int, int)                    { return 1, 1, 1 }
func (k *ifCond) Deps() kernel.Deps                         { return kernel.Deps{Value: []int{0}, Volatile: true} }
func (k *ifCond) Cost(in, out []*kernel.Tensor) device.Cost { return device.Cost{} }

func (k *ifCond) InferShape(in, out []*kernel.Tensor) error {
	c, err := k.b.Choose(in[0])
	if err != nil {
		return err
	}
	k.choice[0] = 0
	if c {
		k.choice[0] = 1
	}
	out[0].DType, out[0].Shape, out[0].Host = kernel.Bool, out[0].Shape[:0], k.choice[:]
	return nil
}

func (k *ifCond) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	t.Data, t.Workspace = t.Data[:0], 0
	return nil
}

func (k *ifCond) Compute(a *kernel.Args) error {
	copy(a.Out[0].Data(), k.choice[:])
	return nil
}

// ifMerge is the merge node of a spliced If: its inputs are the choice,
// then the then branch's n outputs, then the else branch's; it gives its n
// outputs the dtypes, shapes and contents of the taken branch's.
type ifMerge struct {
	n   int
	off int // input position of the taken branch's first output, set by InferShape
}

func (k *ifMerge) Op() string             { return "If.merge" }
func (k *ifMerge) Arity() (int, int, int) { return 1 + 2*k.n, 1 + 2*k.n, k.n }
func (k *ifMerge) Deps() kernel.Deps      { return kernel.Deps{Value: []int{0}, Volatile: true} }

func (k *ifMerge) InferShape(in, out []*kernel.Tensor) error {
	c := in[0].Host
	if len(c) != 1 {
		return errors.New("no branch was chosen")
	}
	k.off = 1 + k.n
	if c[0] == 1 {
		k.off = 1
	}
	for i, t := range in[k.off : k.off+k.n] {
		out[i].DType, out[i].Shape = t.DType, append(out[i].Shape[:0], t.Shape...)
	}
	return nil
}

func (k *ifMerge) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	t.Data, t.Workspace = t.Data[:0], 0
	return nil
}

// Cost is a device copy of the taken outputs.
func (k *ifMerge) Cost(in, out []*kernel.Tensor) device.Cost {
	var b int64
	for _, t := range out {
		b += t.Bytes()
	}
	return device.Cost{Bytes: float64(2 * b)}
}

func (k *ifMerge) Compute(a *kernel.Args) error {
	for i, t := range a.In[k.off : k.off+k.n] {
		src := t.Data()
		if src == nil && t.NumElements() != 0 {
			return fmt.Errorf("branch output %d has no contents", i)
		}
		copy(a.Out[i].Data(), src)
	}
	return nil
}
