package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// ReduceSum sums float32, float64, float16, bfloat16, int32, int64, uint32
// or uint64 input over a set of axes.
// The axes come from attribute axes or, without it, from the optional int64
// (or int32) 1-D input 1, a value dependency. Empty axes reduce every
// dimension, unless attribute noop_with_empty_axes is set: then the input is
// copied. Attribute keepdims (default true) keeps reduced dimensions as 1.
// Negative axes count from the end; an axis repeated is an error.
//
// Each output element sums its inputs in ascending input order: float32,
// float16 and bfloat16 in a float32 accumulator, float64 in a float64 one,
// integers in int64 (a 32-bit result wraps, and so does a uint64 one,
// modulo 2^64).
//
// Tiling (words):
//
//	0   outElems  1 redElems (inputs per output element)
//	2   cores  3 outsPerCore  4 redPerCore: with at least 32 outputs the
//	    cores split the outputs; with fewer each output's reduction is split
//	    over the cores, which leave partial sums in the workspace
//	5   KR: kept loop rank   6.. keptDims[KR], keptStrides[KR]
//	…   RR: reduced loop rank, redDims[RR], redStrides[RR]
//
// The loops are the input's dimensions with unit dimensions dropped and
// neighbours of the same kind (kept or reduced) merged; strides are input
// element strides. Outputs are produced in kept-loop order, which is their
// row-major order.
//
// Workspace: with fewer than 32 outputs, cores·outElems partial sums (4
// bytes for float32, float16 and bfloat16, 8 for float64 and integer types). Cost: one operation per input
// element; bytes of input and output.
type reduceSum struct {
	axes    []int64
	hasAxes bool // axes come from the attribute
	keep    bool
	noop    bool
}

func newReduceSum(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axes", "keepdims", "noop_with_empty_axes"); err != nil {
		return nil, wrapAttr(err)
	}
	k := &reduceSum{}
	_, k.hasAxes = attrs["axes"]
	var err error
	if k.axes, err = attrs.Ints("axes", nil); err != nil {
		return nil, wrapAttr(err)
	}
	if k.keep, err = flagAttr(attrs, "keepdims", true); err != nil {
		return nil, wrapAttr(err)
	}
	if k.noop, err = flagAttr(attrs, "noop_with_empty_axes", false); err != nil {
		return nil, wrapAttr(err)
	}
	if err := attrInOpset(attrs, "ReduceSum", "axes", 1, 12); err != nil {
		return nil, err
	}
	if err := attrInOpset(attrs, "ReduceSum", "noop_with_empty_axes", 13, 0); err != nil {
		return nil, err
	}
	s := sig{op: "ReduceSum", minIn: 1, maxIn: 1, nOut: 1}
	if v, _ := attrs.Opset(13); !k.hasAxes && v >= 13 {
		s.maxIn, s.deps.Value = 2, []int{1}
	}
	return newKernel(s, k), nil
}

// reduceAxes returns the axes and checks them against rank.
func (k *reduceSum) reduceAxes(in []*kernel.Tensor) (ints, error) {
	axes := attrInts(k.axes)
	if !k.hasAxes && len(in) > 1 {
		var err error
		if axes, err = valueInts(in[1], "axes", 1); err != nil {
			return ints{}, err
		}
	}
	rank := in[0].Shape.Rank()
	for i := range axes.n {
		a, err := kernel.NormAxis(axes.at(i), rank)
		if err != nil {
			return ints{}, fmt.Errorf("axes[%d]: %w", i, err)
		}
		for j := range i {
			if b, _ := kernel.NormAxis(axes.at(j), rank); a == b {
				return ints{}, fmt.Errorf("axes[%d] and axes[%d] both name axis %d", j, i, a)
			}
		}
	}
	return axes, nil
}

// identity copies the input when the axes are empty and
// noop_with_empty_axes is set, every bit kept, and reports whether it did.
func (k *reduceSum) identity(a *kernel.Args) (bool, error) {
	if !k.noop {
		return false, nil
	}
	axes, err := k.reduceAxes(a.In)
	if err != nil || axes.n > 0 {
		return false, err
	}
	x, o := a.In[0], a.Out[0]
	if x.Bytes() != o.Bytes() {
		return false, errors.New("operands differ from the inferred ones")
	}
	copy(o.Data(), x.Data())
	return true, nil
}

// reduced reports whether dimension d of a rank-r input is summed over.
func (k *reduceSum) reduced(axes ints, d, r int) bool {
	if axes.n == 0 {
		return !k.noop
	}
	for i := range axes.n {
		if a, _ := kernel.NormAxis(axes.at(i), r); a == d {
			return true
		}
	}
	return false
}

func (k *reduceSum) infer(in, out []*kernel.Tensor) error {
	x, o := in[0], out[0]
	if err := dtypeIn(x, "data", kernel.Float32, kernel.Float64, kernel.Float16, kernel.BFloat16, kernel.Int32, kernel.Int64, kernel.Uint32, kernel.Uint64); err != nil {
		return err
	}
	axes, err := k.reduceAxes(in)
	if err != nil {
		return err
	}
	r := x.Shape.Rank()
	n := r
	if !k.keep {
		for d := range r {
			if k.reduced(axes, d, r) {
				n--
			}
		}
	}
	s := shapeOf(o, n)
	j := 0
	for d := range r {
		switch {
		case !k.reduced(axes, d, r):
			s[j] = x.Shape[d]
		case k.keep:
			s[j] = 1
		default:
			continue
		}
		j++
	}
	o.Shape, o.DType = s, x.DType
	return nil
}

func (k *reduceSum) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	x, o := in[0], out[0]
	axes, err := k.reduceAxes(in)
	if err != nil {
		return 0, err
	}
	r := x.Shape.Rank()
	var buf [32]int64
	s := scratch(buf[:], 4*r)
	kd, ks, rd, rs := s[:0], s[r:r], s[2*r:2*r], s[3*r:3*r]
	stride := int64(1)
	outElems, redElems := int64(1), int64(1)
	for d := r - 1; d >= 0; d-- {
		if k.reduced(axes, d, r) {
			rd, rs = append(rd, x.Shape[d]), append(rs, stride)
			redElems *= x.Shape[d]
		} else {
			kd, ks = append(kd, x.Shape[d]), append(ks, stride)
			outElems *= x.Shape[d]
		}
		stride *= x.Shape[d]
	}
	if outElems != o.NumElements() {
		return 0, fmt.Errorf("output %v does not match input %v", o.Shape, x.Shape)
	}
	// The lists were built innermost first; coalesce wants outermost first.
	reverse(kd)
	reverse(ks)
	reverse(rd)
	reverse(rs)
	nk, nr := coalesce(kd, ks, nil), coalesce(rd, rs, nil)

	var cores, outsPer, redPer, ws int64
	if outElems >= numCores {
		cores, outsPer, redPer = numCores, ceilDiv(outElems, numCores), redElems
	} else if outElems > 0 {
		cores = min(numCores, max(ceilDiv(redElems, tileAlign), 1))
		outsPer, redPer = outElems, ceilDiv(redElems, cores)
		if cores > 1 {
			acc := int64(4)
			if x.DType.IsInt() || x.DType == kernel.Float64 {
				acc = 8
			}
			ws = cores * outElems * acc
		}
	}
	e.grow(7 + 2*nk + 2*nr)
	for _, v := range [...]int64{outElems, redElems, cores, outsPer, redPer, int64(nk)} {
		e.put(v)
	}
	e.puts(kd[:nk])
	e.puts(ks[:nk])
	e.put(int64(nr))
	e.puts(rd[:nr])
	e.puts(rs[:nr])
	return ws, nil
}

func reverse(s []int64) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

func (k *reduceSum) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: float64(in[0].NumElements()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *reduceSum) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	if x.DType != o.DType {
		return errors.New("operands differ from the inferred ones")
	}
	if done, err := k.identity(a); done || err != nil {
		return err
	}
	d := decoder{b: a.Tiling.Data}
	outElems, redElems := d.word(), d.word()
	d.word()
	d.word()
	d.word()
	var r reducer
	nk := d.word()
	r.kd, r.ks = d.words(nk), d.words(nk)
	nr := d.word()
	r.rd, r.rs = d.words(nr), d.words(nr)
	if err := d.err(); err != nil {
		return err
	}
	if outElems != o.NumElements() || outElems*redElems != x.NumElements() {
		return fmt.Errorf("tiling is for %d sums of %d, operands are %v and %v", outElems, redElems, x.Shape, o.Shape)
	}
	if outElems == 0 {
		return nil
	}
	if redElems == 0 {
		clear(o.Data()) // empty sums
		return nil
	}
	// Both loops together must stay inside x: check the reduced loop from the
	// farthest kept offset.
	pk, err := checkWalk(r.kd, r.ks, 0, 1, x.NumElements())
	if err != nil {
		return err
	}
	var hiKept int64
	for i := range r.kd.len() {
		hiKept += (r.kd.at(i) - 1) * r.ks.at(i)
	}
	for _, w := range [...]words{r.ks, r.rs} {
		for i := range w.len() {
			if w.at(i) < 0 {
				return errTiling
			}
		}
	}
	pr, err := checkWalk(r.rd, r.rs, hiKept, 1, x.NumElements())
	if err != nil {
		return err
	}
	if pk != outElems || pr != redElems {
		return errTiling
	}
	r.nk, r.nr = int(nk), int(nr)
	xb, ob := x.Data(), o.Data()
	switch x.DType {
	case kernel.Float32:
		e := sumFloat[f32vec]{reducer: r, x: f32vec(kernel.Float32s(xb)), o: f32vec(kernel.Float32s(ob))}
		e.kept(0, 0)
	case kernel.Float64:
		e := sumFloat64{reducer: r, x: kernel.Float64s(xb), o: kernel.Float64s(ob)}
		e.kept(0, 0)
	case kernel.Float16:
		e := sumFloat[f16vec]{reducer: r, x: f16vec(kernel.Uint16s(xb)), o: f16vec(kernel.Uint16s(ob))}
		e.kept(0, 0)
	case kernel.Int32:
		e := sumInt[int32]{reducer: r, x: kernel.Int32s(xb), o: kernel.Int32s(ob)}
		e.kept(0, 0)
	case kernel.Int64:
		e := sumInt[int64]{reducer: r, x: kernel.Int64s(xb), o: kernel.Int64s(ob)}
		e.kept(0, 0)
	case kernel.BFloat16:
		e := sumFloat[bf16vec]{reducer: r, x: bf16vec(kernel.Uint16s(xb)), o: bf16vec(kernel.Uint16s(ob))}
		e.kept(0, 0)
	case kernel.Uint32:
		e := sumInt[uint32]{reducer: r, x: kernel.Uint32s(xb), o: kernel.Uint32s(ob)}
		e.kept(0, 0)
	case kernel.Uint64:
		e := sumInt[uint64]{reducer: r, x: kernel.Uint64s(xb), o: kernel.Uint64s(ob)}
		e.kept(0, 0)
	}
	return nil
}

// negZero32 is -0: x + -0 is x for every x, +0 included, where +0 would
// turn a -0 into +0.
var negZero32 = float32(math.Copysign(0, -1))

// startSums readies s for sums of terms terms each, the products of a
// matrix product or convolution: -0 (0 for integers), so that a sum of -0
// terms, one term included, stays -0; +0 for empty sums.
func startSums[T float32 | float64 | int32 | int64 | uint32 | uint64](s []T, terms int64) {
	if terms == 0 {
		clear(s)
		return
	}
	z := T(math.Copysign(0, -1))
	for i := range s {
		s[i] = z
	}
}

// reducer holds the two loop nests of a reduction.
type reducer struct {
	kd, ks, rd, rs words
	nk, nr         int
	next           int64 // next output element
}

type sumFloat[V vec] struct {
	reducer
	x, o V
	acc  float32
}

func (e *sumFloat[V]) kept(d int, off int64) {
	if d == e.nk {
		e.acc = negZero32 // the additive identity: a sum of -0s is -0
		e.sum(0, off)
		e.o.set(e.next, e.acc)
		e.next++
		return
	}
	n, s := e.kd.at(d), e.ks.at(d)
	for range n {
		e.kept(d+1, off)
		off += s
	}
}

func (e *sumFloat[V]) sum(d int, off int64) {
	if d == e.nr {
		e.acc += e.x.at(off)
		return
	}
	n, s := e.rd.at(d), e.rs.at(d)
	if d == e.nr-1 {
		for range n {
			e.acc += e.x.at(off)
			off += s
		}
		return
	}
	for range n {
		e.sum(d+1, off)
		off += s
	}
}

// sumFloat64 is sumFloat for float64, in a float64 accumulator.
type sumFloat64 struct {
	reducer
	x, o []float64
	acc  float64
}

func (e *sumFloat64) kept(d int, off int64) {
	if d == e.nk {
		e.acc = math.Copysign(0, -1) // the additive identity: a sum of -0s is -0
		e.sum(0, off)
		e.o[e.next] = e.acc
		e.next++
		return
	}
	n, s := e.kd.at(d), e.ks.at(d)
	for range n {
		e.kept(d+1, off)
		off += s
	}
}

func (e *sumFloat64) sum(d int, off int64) {
	if d == e.nr {
		e.acc += e.x[off]
		return
	}
	n, s := e.rd.at(d), e.rs.at(d)
	if d == e.nr-1 {
		for range n {
			e.acc += e.x[off]
			off += s
		}
		return
	}
	for range n {
		e.sum(d+1, off)
		off += s
	}
}

type sumInt[T int32 | int64 | uint32 | uint64] struct {
	reducer
	x, o []T
	acc  int64
}

func (e *sumInt[T]) kept(d int, off int64) {
	if d == e.nk {
		e.acc = 0
		e.sum(0, off)
		e.o[e.next] = T(e.acc)
		e.next++
		return
	}
	n, s := e.kd.at(d), e.ks.at(d)
	for range n {
		e.kept(d+1, off)
		off += s
	}
}

func (e *sumInt[T]) sum(d int, off int64) {
	if d == e.nr {
		e.acc += int64(e.x[off])
		return
	}
	n, s := e.rd.at(d), e.rs.at(d)
	if d == e.nr-1 {
		for range n {
			e.acc += int64(e.x[off])
			off += s
		}
		return
	}
	for range n {
		e.sum(d+1, off)
		off += s
	}
}
