package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// The broadcasting element-wise ops of ONNX beyond the four arithmetic
// ones, with numpy broadcasting of all inputs to the output:
//
//	Equal, Less, Greater,       A, B of one numeric or bool dtype → bool
//	LessOrEqual, GreaterOrEqual
//	And, Or, Xor                A, B bool → bool
//	Not                         X bool → bool (no broadcasting)
//	Where                       condition bool, X, Y of one dtype → X's dtype
//	Pow                         X float (opset 7) or float/int32/int64
//	                            (from 12), Y numeric → X's dtype
//	Max, Min, Sum, Mean         1 or more inputs of one dtype (Max/Min
//	                            numeric, Sum/Mean float) → that dtype
//
// "numeric" is every float (float32, float16, bfloat16, float64) and
// integer (int8 to int64, uint8 to uint64) dtype. Comparisons of floats
// follow IEEE 754 (NaN compares unequal); of integers they are exact, in
// the unsigned order for the unsigned types (uint64 values above 2^63
// included). Max and Min are IEEE 754's maximum and minimum:
// a NaN operand gives NaN, and -0 is below +0. Pow evaluates in float64 and rounds once to X's
// dtype (an integer result is truncated toward zero, as onnxruntime casts
// std::pow's result; one out of the type's range, or NaN, is the type's
// minimum, as x86's conversion gives it), but for an integer X and an
// exponent of 2 or 3 that is broadcast along the output's innermost axis
// longer than 1: x·x or x·x·x in X's type, wrapping on overflow, as
// onnxruntime computes them.
//
// Tiling (words):
//
//	0..4  split over the output elements; 2 buffers per operand
//
// Workspace: none. Cost: one operation per output element (Pow: 8); bytes
// of every operand.
type logic struct {
	op     string
	walk   bcast
	shapes []kernel.Shape
}

var logicOps = []string{"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not", "Where", "Pow", "Max", "Min", "Sum", "Mean"}

func logicBuiltins() []builtin {
	out := make([]builtin, len(logicOps))
	for i, op := range logicOps {
		out[i] = builtin{op, func(attrs kernel.Attrs) (kernel.Kernel, error) {
			if _, err := attrs.Opset(17); err != nil {
				return nil, wrapAttr(err)
			}
			if err := attrs.Check(); err != nil {
				return nil, wrapAttr(err)
			}
			s := sig{op: op, minIn: 2, maxIn: 2, nOut: 1}
			switch op {
			case "Not":
				s.minIn, s.maxIn = 1, 1
			case "Where":
				s.minIn, s.maxIn = 3, 3
			case "Max", "Min", "Sum", "Mean":
				s.minIn, s.maxIn = 1, -1
			}
			return newKernel(s, &logic{op: op}), nil
		}}
	}
	return out
}

func (k *logic) infer(in, out []*kernel.Tensor) error {
	data := in
	var want []kernel.DType
	dt := in[0].DType
	switch k.op {
	case "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual":
		want = onnxAll
		if k.op != "Equal" {
			want = onnxNumeric
		}
	case "And", "Or", "Xor", "Not":
		want = []kernel.DType{kernel.Bool}
	case "Where":
		if in[0].DType != kernel.Bool {
			return fmt.Errorf("input condition has dtype %v, want bool", in[0].DType)
		}
		data, want, dt = in[1:], onnxAll, in[1].DType
	case "Pow":
		if err := dtypeIn(in[0], "X", kernel.Float32, kernel.Float16, kernel.Float64, kernel.BFloat16, kernel.Int32, kernel.Int64); err != nil {
			return err
		}
		if err := dtypeIn(in[1], "Y", onnxNumeric...); err != nil {
			return err
		}
		data = nil
	case "Max", "Min":
		want = onnxNumeric
	case "Sum", "Mean":
		want = onnxFloats
	}
	nameOf := func(i int) string {
		if k.op == "Where" {
			return [...]string{"X", "Y"}[i] // data is in[1:]
		}
		return fmt.Sprint(i)
	}
	for i, t := range data {
		if err := dtypeIn(t, nameOf(i), want...); err != nil {
			return err
		}
		if err := checkSameDType(t, nameOf(i), data[0], nameOf(0)); err != nil {
			return err
		}
	}
	k.shapes = k.shapes[:0]
	for _, t := range in {
		k.shapes = append(k.shapes, t.Shape)
	}
	s, err := broadcastAll(k.shapes...)
	if err != nil {
		return err
	}
	switch k.op {
	case "Where", "Pow", "Max", "Min", "Sum", "Mean":
	default:
		dt = kernel.Bool
	}
	setShape(out[0], s, dt)
	return nil
}

func (k *logic) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 2*(len(in)+1)).put(e)
	return 0, nil
}

func (k *logic) cost(in, out []*kernel.Tensor) device.Cost {
	b := out[0].Bytes()
	for _, t := range in {
		b += t.Bytes()
	}
	f := float64(out[0].NumElements())
	if k.op == "Pow" {
		f *= 8
	}
	return device.Cost{FLOPs: f, Bytes: float64(b)}
}

func (k *logic) compute(a *kernel.Args) error {
	o := a.Out[0]
	n := o.NumElements()
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, n); err != nil {
		return err
	}
	k.shapes = k.shapes[:0]
	for _, t := range a.In {
		k.shapes = append(k.shapes, t.Shape)
	}
	if err := k.walk.set(o.Shape, k.shapes...); err != nil {
		return err
	}
	if k.op == "Not" {
		x, ob := a.In[0].Data(), o.Data()
		for i := range n {
			ob[i] = 1 - x[i]&1
		}
		return nil
	}
	ob := o.Data()
	x, y := a.In[0], a.In[len(a.In)-1]
	xb, yb := x.Data(), y.Data()
	w := &k.walk
	switch k.op {
	case "Where":
		xt := a.In[1]
		size := int64(xt.DType.Size())
		xd := xt.Data()
		for i := range n {
			if xb[w.off[0]] != 0 {
				copyElem(ob, i, xd, w.off[1], size)
			} else {
				copyElem(ob, i, yb, w.off[2], size)
			}
			w.next()
		}
	case "Pow":
		integer := o.DType == kernel.Int32 || o.DType == kernel.Int64
		products := integer && exponentPerRun(y, o)
		for i := range n {
			e := loadF(y.DType, yb, w.off[1])
			switch {
			case products && (e == 2 || e == 3):
				// x·x or x·x·x in the integer type, wrapping on
				// overflow, as onnxruntime computes an exponent that is
				// one value for a run of bases (see exponentPerRun).
				v := loadI(x.DType, xb, w.off[0])
				p := v * v
				if e == 3 {
					p *= v
				}
				storeI(o.DType, ob, i, p)
			case integer:
				storeI(o.DType, ob, i, cvtTrunc(o.DType, math.Pow(loadF(x.DType, xb, w.off[0]), e)))
			default:
				storeF(o.DType, ob, i, math.Pow(loadF(x.DType, xb, w.off[0]), e))
			}
			w.next()
		}
	case "Max", "Min", "Sum", "Mean":
		k.fold(a, w, n)
	case "And", "Or", "Xor":
		for i := range n {
			p, q := xb[w.off[0]] != 0, yb[w.off[1]] != 0
			var r bool
			switch k.op {
			case "And":
				r = p && q
			case "Or":
				r = p || q
			default:
				r = p != q
			}
			ob[i] = b2u(r)
			w.next()
		}
	default:
		if x.DType.IsFloat() {
			for i := range n {
				ob[i] = b2u(compare(k.op, loadF(x.DType, xb, w.off[0]), loadF(y.DType, yb, w.off[1])))
				w.next()
			}
			return nil
		}
		for i := range n {
			ob[i] = b2u(compare(k.op, loadOrd(x.DType, xb, w.off[0]), loadOrd(y.DType, yb, w.off[1])))
			w.next()
		}
	}
	return nil
}

// fold computes the variadic Max, Min, Sum and Mean.
func (k *logic) fold(a *kernel.Args, w *bcast, n int64) {
	o := a.Out[0]
	ob := o.Data()
	dt := o.DType
	// The operands' bytes, taken once (Data counts a tensor's elements).
	var small [4][]byte
	ins := small[:0]
	for _, t := range a.In {
		ins = append(ins, t.Data())
	}
	const (
		opSum = iota
		opMax
		opMin
	)
	op := opSum
	switch k.op {
	case "Max":
		op = opMax
	case "Min":
		op = opMin
	}
	mean := k.op == "Mean"
	// Operands of the output's shape or of one element (Max(x, 0)) need
	// no broadcast walk: element i of each is at i·step, step 1 or 0.
	var smallSteps [4]int64
	steps, flat := smallSteps[:0], true
	for _, t := range a.In {
		switch {
		case t.Shape.Equal(o.Shape):
			steps = append(steps, 1)
		case t.NumElements() == 1:
			steps = append(steps, 0)
		default:
			flat = false
		}
	}
	switch {
	case dt == kernel.Float32:
		var small32 [4][]float32
		xs := small32[:0]
		for _, b := range ins {
			xs = append(xs, kernel.Float32s(b))
		}
		ys := kernel.Float32s(ob)
		offs := w.off
		if flat {
			var smallOffs [4]int64
			offs = append(smallOffs[:0], make([]int64, len(xs))...)
		}
		for i := range n {
			acc := float64(xs[0][offs[0]])
			for j := 1; j < len(xs); j++ {
				acc = foldF(op, acc, float64(xs[j][offs[j]]))
			}
			if mean {
				acc /= float64(len(xs))
			}
			ys[i] = float32(acc)
			if flat {
				for j, st := range steps {
					offs[j] += st
				}
			} else {
				w.next()
			}
		}
	case dt.IsFloat():
		for i := range n {
			acc := loadF(dt, ins[0], w.off[0])
			for j := 1; j < len(ins); j++ {
				acc = foldF(op, acc, loadF(dt, ins[j], w.off[j]))
			}
			if mean {
				acc /= float64(len(ins))
			}
			storeF(dt, ob, i, acc)
			w.next()
		}
	default:
		for i := range n {
			acc := loadOrd(dt, ins[0], w.off[0])
			for j := 1; j < len(ins); j++ {
				v := loadOrd(dt, ins[j], w.off[j])
				if op == opMax && v > acc || op == opMin && v < acc {
					acc = v
				}
			}
			storeOrd(dt, ob, i, acc)
			w.next()
		}
	}
}

// foldF is one step of fold over floats: acc and v folded by op (0 sum,
// 1 max, 2 min).
func foldF(op int, acc, v float64) float64 {
	switch op {
	case 1:
		if above(v, acc) {
			return v
		}
		return acc
	case 2:
		if below(v, acc) {
			return v
		}
		return acc
	}
	return acc + v
}

func compare[T float64 | int64](op string, x, y T) bool {
	switch op {
	case "Equal":
		return x == y
	case "Less":
		return x < y
	case "Greater":
		return x > y
	case "LessOrEqual":
		return x <= y
	}
	return x >= y
}

// above reports whether v replaces m as a running maximum, IEEE 754's
// maximum: a NaN replaces a number (and stays), a larger value a smaller
// one, +0 a -0. below is the same for the minimum, where -0 replaces +0.
// Pure comparisons, so that every architecture gives the same bits.
func above[T float32 | float64](v, m T) bool {
	return v > m || v != v && m == m || v == 0 && m == 0 && math.Signbit(float64(m)) && !math.Signbit(float64(v))
}

func below[T float32 | float64](v, m T) bool {
	return v < m || v != v && m == m || v == 0 && m == 0 && math.Signbit(float64(v)) && !math.Signbit(float64(m))
}

// clamp is Clip's Min(hi, Max(v, lo)) with IEEE 754's maximum and minimum.
func clamp[T float32 | float64](v, lo, hi T) T {
	if above(lo, v) {
		v = lo
	}
	if below(hi, v) {
		v = hi
	}
	return v
}

// maxFinite returns the largest finite value of float dtype dt.
func maxFinite(dt kernel.DType) float64 {
	switch dt {
	case kernel.Float16:
		return 65504
	case kernel.BFloat16:
		return float64(math.Float32frombits(0x7f7f0000))
	case kernel.Float32:
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Clip limits X to [min, max]: attributes "min" and "max" (float) before
// opset 11, optional scalar inputs of X's dtype from 11 (float types; from
// 12 every integer type too, the unsigned ones compared unsigned). An
// absent bound is the dtype's lowest or highest finite value, as the
// operator's text says and onnxruntime gives (so ±Inf becomes ±3.4028235e38
// in float32, ±65504 in float16); before opset 11 the attributes' defaults
// are float32's. When min > max every element becomes max. As ONNX defines
// it, Clip is Min(max, Max(input, min)) with Max and Min's IEEE 754
// semantics: a NaN input or bound gives NaN, -0 clipped below at +0 is +0,
// +0 clipped above at -0 is -0.
//
// Tiling (words):
//
//	0..4  split over the elements; 2 buffers
//
// Workspace: none. Cost: two operations per element; bytes of input and
// output.
type clip struct {
	attrs    bool
	min, max float64
}

func newClip(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k := &clip{attrs: opset < 11}
	if !k.attrs {
		if err := attrs.Check(); err != nil {
			return nil, wrapAttr(fmt.Errorf("%w (from opset 11 min and max are inputs)", err))
		}
		return newKernel(sig{op: "Clip", minIn: 1, maxIn: 3, nOut: 1}, k), nil
	}
	if err := attrs.Check("min", "max"); err != nil {
		return nil, wrapAttr(err)
	}
	if k.min, err = attrs.Float("min", -math.MaxFloat32); err != nil {
		return nil, wrapAttr(err)
	}
	if k.max, err = attrs.Float("max", math.MaxFloat32); err != nil {
		return nil, wrapAttr(err)
	}
	k.min, k.max = float64(float32(k.min)), float64(float32(k.max))
	return newKernel(sig{op: "Clip", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

func (k *clip) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	types := onnxFloats
	if !k.attrs {
		types = onnxNumeric
	}
	if err := dtypeIn(x, "input", types...); err != nil {
		return err
	}
	for i, name := range [...]string{"", "min", "max"} {
		if i == 0 || i >= len(in) || in[i].NumElements() == 0 && in[i].Shape.Rank() > 0 {
			continue
		}
		if in[i].NumElements() != 1 {
			return fmt.Errorf("input %s has shape %v, want a scalar", name, in[i].Shape)
		}
		if err := checkSameDType(in[i], name, x, "input"); err != nil {
			return err
		}
	}
	setShape(out[0], x.Shape, x.DType)
	return nil
}

func (k *clip) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 2).put(e)
	return 0, nil
}

func (k *clip) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: 2 * float64(out[0].NumElements()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

// bound returns input i's value when present.
func bound(in []*kernel.Tensor, i int) (*kernel.Tensor, bool) {
	if i >= len(in) || in[i].NumElements() != 1 {
		return nil, false
	}
	return in[i], true
}

func (k *clip) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	n := o.NumElements()
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, n); err != nil {
		return err
	}
	if x.DType != o.DType || x.NumElements() != n {
		return errors.New("operands differ from the inferred ones")
	}
	xb, ob := x.Data(), o.Data()
	if x.DType.IsInt() {
		// In loadOrd's form, so that uint64 compares unsigned.
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		if t, ok := bound(a.In, 1); ok {
			lo = loadOrd(t.DType, t.Data(), 0)
		}
		if t, ok := bound(a.In, 2); ok {
			hi = loadOrd(t.DType, t.Data(), 0)
		}
		for i := range n {
			storeOrd(x.DType, ob, i, min(max(loadOrd(x.DType, xb, i), lo), hi))
		}
		return nil
	}
	lo, hi := k.min, k.max
	if !k.attrs {
		hi = maxFinite(x.DType)
		lo = -hi
	}
	if t, ok := bound(a.In, 1); ok {
		lo = loadF(t.DType, t.Data(), 0)
	}
	if t, ok := bound(a.In, 2); ok {
		hi = loadF(t.DType, t.Data(), 0)
	}
	if x.DType == kernel.Float32 {
		l, h := float32(lo), float32(hi)
		xs, os := kernel.Float32s(xb)[:n], kernel.Float32s(ob)[:n]
		for i, v := range xs {
			os[i] = clamp(v, l, h)
		}
		return nil
	}
	for i := range n {
		storeF(x.DType, ob, i, clamp(loadF(x.DType, xb, i), lo, hi))
	}
	return nil
}

// cvtTrunc is x86's truncating conversion of v to int32 or int64 (dt): v
// toward zero, and the type's minimum for a v out of its range or NaN.
func cvtTrunc(dt kernel.DType, v float64) int64 {
	if dt == kernel.Int32 {
		if !(v > -2147483649 && v < 2147483648) {
			return math.MinInt32
		}
		return int64(v)
	}
	if !(v >= -0x1p63 && v < 0x1p63) {
		return math.MinInt64
	}
	return int64(v)
}

// exponentPerRun reports whether Pow's exponent y is broadcast along the
// innermost axis of output o that is longer than 1: one exponent for a run
// of bases, the case onnxruntime's broadcasting hands its kernel as a
// scalar exponent, which it computes as products for 2 and 3 (a single
// element of each, or exponents that vary along that axis, go through
// std::pow).
func exponentPerRun(y, o *kernel.Tensor) bool {
	d := len(o.Shape) - 1
	for d >= 0 && o.Shape[d] == 1 {
		d--
	}
	if d < 0 {
		return false
	}
	yd := d - (len(o.Shape) - len(y.Shape))
	return yd < 0 || y.Shape[yd] == 1
}
