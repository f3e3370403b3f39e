package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// impl is what one op supplies; opKernel adapts it to kernel.Kernel. The
// adapter has checked the operand counts, that no operand is nil and that
// input shapes are known before infer and resize run, and that every operand
// has contents of at least its size before compute runs, so an impl indexes
// its operands freely. Errors need no op prefix: the adapter adds it.
type impl interface {
	infer(in, out []*kernel.Tensor) error
	// resize appends the tiling words to e (empty on entry) and returns the
	// workspace size in bytes.
	resize(in, out []*kernel.Tensor, e *encoder) (int64, error)
	cost(in, out []*kernel.Tensor) device.Cost
	// compute runs only on real data (or, for a ShapeOnly op, always).
	compute(a *kernel.Args) error
}

// dynImpl is the impl of a compute-dependent op.
type dynImpl interface {
	impl
	outputShapes(a *kernel.Args) ([]kernel.Shape, error)
}

// sig is the static description of an op: its name, arity and dependencies.
type sig struct {
	op                 string
	minIn, maxIn, nOut int
	deps               kernel.Deps
}

// opKernel is the shared adapter: every built-in op is an opKernel (or a
// dynKernel) around its impl, so the ops share Launch, Arity, Deps, operand
// checks and error wrapping. A kernel value serves one node; its methods are
// called by one goroutine at a time, as kernel.Kernel requires. A graph
// holds one a node: its sig is kept compactly (48 bytes in all, the
// dependencies behind a pointer, nil for the many ops that declare none).
type opKernel struct {
	op                 string
	minIn, maxIn, nOut int16
	deps               *kernel.Deps
	impl               impl
}

// dynKernel adds kernel.ComputeDependent to opKernel.
type dynKernel struct {
	opKernel
	dyn dynImpl
}

// newKernel adapts impl i to kernel.Kernel. s's counts fit an int16: the
// ops' arities are constants, and an output count an attribute gives
// (Split's num_outputs) is checked against math.MaxInt16 first.
func newKernel(s sig, i impl) kernel.Kernel {
	if s.minIn > math.MaxInt16 || s.maxIn > math.MaxInt16 || s.nOut > math.MaxInt16 {
		panic(fmt.Sprintf("ops: %s: arity %d to %d, %d outputs, beyond int16", s.op, s.minIn, s.maxIn, s.nOut))
	}
	k := opKernel{op: s.op, minIn: int16(s.minIn), maxIn: int16(s.maxIn), nOut: int16(s.nOut), impl: i}
	if d := s.deps; len(d.Value) > 0 || d.Compute || d.ShapeOnly || d.Volatile {
		k.deps = &d
	}
	if d, ok := i.(dynImpl); ok && s.deps.Compute {
		return &dynKernel{opKernel: k, dyn: d}
	}
	return &k
}

// Op implements kernel.Kernel.
func (k *opKernel) Op() string { return k.op }

// Arity implements kernel.Kernel.
func (k *opKernel) Arity() (minIn, maxIn, out int) {
	return int(k.minIn), int(k.maxIn), int(k.nOut)
}

// Deps implements kernel.Kernel.
func (k *opKernel) Deps() kernel.Deps {
	if k.deps == nil {
		return kernel.Deps{}
	}
	return *k.deps
}

// shapeOnly reports Deps().ShapeOnly.
func (k *opKernel) shapeOnly() bool { return k.deps != nil && k.deps.ShapeOnly }

// InferShape implements kernel.Kernel.
func (k *opKernel) InferShape(in, out []*kernel.Tensor) error {
	if err := k.checkOperands(in, out); err != nil {
		return k.wrap(err)
	}
	return k.wrap(k.impl.infer(in, out))
}

// Resize implements kernel.Kernel. The tiling words are written over
// t.Data's memory, so a steady-state Resize allocates nothing.
func (k *opKernel) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	if err := k.checkOperands(in, out); err != nil {
		return k.wrap(err)
	}
	for i, o := range out {
		if !o.Shape.Known() || !o.DType.Valid() {
			return k.wrap(fmt.Errorf("output %d is %v: shape not inferred", i, o))
		}
	}
	// The impl appends its words to t.Data through an encoder that is
	// t itself, so that nothing moves to the heap.
	prev := t.Data
	t.Data = t.Data[:0]
	ws, err := k.impl.resize(in, out, (*encoder)(t))
	if err == nil && ws < 0 {
		err = fmt.Errorf("negative workspace %d", ws)
	}
	if err != nil {
		t.Data = prev
		return k.wrap(err)
	}
	t.Workspace = ws
	return nil
}

// Cost implements kernel.Kernel. It is zero for operands of the wrong count.
func (k *opKernel) Cost(in, out []*kernel.Tensor) device.Cost {
	if !k.arityOK(len(in), len(out)) {
		return device.Cost{}
	}
	return k.impl.cost(in, out)
}

// Compute implements kernel.Kernel. It computes nothing when an input is
// virtual, unless the op reads only shapes.
func (k *opKernel) Compute(a *kernel.Args) error {
	if !k.arityOK(len(a.In), len(a.Out)) {
		return k.wrap(fmt.Errorf("launched with %d inputs and %d outputs", len(a.In), len(a.Out)))
	}
	if !k.shapeOnly() && !a.Real() {
		return nil
	}
	if err := k.checkContents(a); err != nil {
		return k.wrap(err)
	}
	return k.wrap(k.impl.compute(a))
}

// Trusted implements kernel.Trusted: the built-in ops keep the kernel
// contract (their tests check it).
func (k *opKernel) Trusted() {}

// Reset implements kernel.Stateful: an op with state from run to run
// starts over.
func (k *opKernel) Reset() {
	if r, ok := k.impl.(interface{ reset() }); ok {
		r.reset()
	}
}

// OutputShapes implements kernel.ComputeDependent.
func (k *dynKernel) OutputShapes(a *kernel.Args) ([]kernel.Shape, error) {
	if !k.arityOK(len(a.In), len(a.Out)) {
		return nil, k.wrap(fmt.Errorf("called with %d inputs and %d outputs", len(a.In), len(a.Out)))
	}
	s, err := k.dyn.outputShapes(a)
	return s, k.wrap(err)
}

func (k *opKernel) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("ops: %s: %w", k.op, err)
}

func (k *opKernel) arityOK(nIn, nOut int) bool {
	return nIn >= int(k.minIn) && (k.maxIn < 0 || nIn <= int(k.maxIn)) && nOut == int(k.nOut)
}

func (k *opKernel) checkOperands(in, out []*kernel.Tensor) error {
	if !k.arityOK(len(in), len(out)) {
		want := fmt.Sprintf("%d to %d", k.minIn, k.maxIn)
		switch {
		case k.maxIn < 0:
			want = fmt.Sprintf("at least %d", k.minIn)
		case k.minIn == k.maxIn:
			want = fmt.Sprint(k.minIn)
		}
		return fmt.Errorf("have %d inputs and %d outputs, want %s inputs and %d outputs", len(in), len(out), want, k.nOut)
	}
	for i, t := range in {
		if t == nil {
			return fmt.Errorf("input %d is nil", i)
		}
		if !t.Shape.Known() {
			return fmt.Errorf("input %d has unresolved shape %v", i, t.Shape)
		}
		if !t.DType.Valid() {
			return fmt.Errorf("input %d has invalid dtype %v", i, t.DType)
		}
	}
	for i, t := range out {
		if t == nil {
			return fmt.Errorf("output %d is nil", i)
		}
	}
	return nil
}

// checkContents makes sure that every operand the computation touches holds
// at least Bytes() bytes, so that typed views never index out of range.
func (k *opKernel) checkContents(a *kernel.Args) error {
	if !k.shapeOnly() {
		for i, t := range a.In {
			if err := checkSize(t); err != nil {
				return fmt.Errorf("input %d: %w", i, err)
			}
		}
	}
	for i, t := range a.Out {
		if err := checkSize(t); err != nil {
			return fmt.Errorf("output %d: %w", i, err)
		}
	}
	return nil
}

func checkSize(t *kernel.Tensor) error {
	if t == nil {
		return fmt.Errorf("nil tensor")
	}
	n := t.Bytes()
	if n <= 0 {
		return nil
	}
	have := int64(len(t.Host))
	if t.Buf.Data != nil {
		have = int64(cap(t.Buf.Data))
	}
	if have == 0 {
		return fmt.Errorf("%v has no contents", t)
	}
	if have < n {
		return fmt.Errorf("%v has %d bytes of contents, want %d", t, have, n)
	}
	return nil
}
