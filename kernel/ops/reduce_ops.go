package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// The ONNX reductions beside ReduceSum, over the axes of attribute "axes"
// (every axis when absent; negative counting from the end; opsets 1 to
// 17), keepdims as ReduceSum:
//
//	ReduceMean       Σx / n                       float, wide
//	ReduceMax        max x (−Inf when empty)       float, wide, int8, uint8; bool from opset 20
//	ReduceMin        min x (+Inf when empty)       float, wide, int8, uint8; bool from opset 20
//	ReduceProd       Πx                            float, wide
//	ReduceSumSquare  Σx²                           float, wide
//	ReduceL1         Σ|x|                          float, wide
//	ReduceL2         √Σx²                          float, wide
//	ReduceLogSum     ln Σx                         float, wide
//	ReduceLogSumExp  ln Σeˣ (shifted by the max)   float, wide
//
// "float" is float32, float16, bfloat16 and float64; "wide" int32, int64,
// uint32 and uint64, the integer types ONNX's reductions take besides
// ReduceMax and ReduceMin's int8 and uint8.
//
// ReduceLogSum and ReduceLogSumExp of an integer type compute in the
// type, as onnxruntime does: ReduceLogSum is ln Σx truncated toward zero,
// ReduceLogSumExp is trunc(max + ln Σ trunc(e^(x−max))), where every
// term below the maximum truncates to 0, so that it is the maximum plus
// the logarithm of the number of elements equal to it, truncated toward
// zero as a whole (−5 + ln 2 is −4). A
// logarithm of zero or of a negative sum gives the type's minimum, and a
// result beyond the type's range saturates.
//
// An empty ReduceMean is 0, as onnxruntime's (ONNX leaves it undefined).
// An empty ReduceMax of an integer type gives the type's minimum, an empty
// ReduceMin its maximum (ONNX: "minus infinity if supported by the data
// type, or the minimum value of the data type otherwise"); of bool, false
// and true.
//
// Each output accumulates its inputs in ascending input order in float64
// and is rounded once to the output dtype (integers truncate toward zero,
// as onnxruntime's integer mean does); ReduceMax and ReduceMin of int64
// and uint64 compare in their own type instead, exact beyond 2^53. Max
// and Min are IEEE 754's maximum and minimum: a NaN input makes them NaN,
// and -0 is below +0. On bool
// (opset 20) false is below true: ReduceMax is the logical or of the
// elements (false when there are none), ReduceMin their and (true when
// there are none).
//
// Tiling (words):
//
//	0..4  split over the input elements; 2 buffers
//
// Workspace: none (the kernel's accumulators). Cost: one operation per
// input element (two for the squares, exponentials and absolute values);
// bytes of input and output.
type reduction struct {
	op    string
	bools bool      // opset 20's ReduceMax and ReduceMin: bool data too
	axes  reduceSum // axes, keepdims and shape inference
	walk  bcast
	acc   []float64
	accI  []int64   // ReduceMax and ReduceMin of int64 and uint64: exact
	aux   []float64 // ReduceLogSumExp: the maxima
	keep  kernel.Shape
}

// The dtypes of the reductions (see the table above), and of ops with
// the same ONNX type constraints: onnxWide, the floats and the integer
// types of 32 and 64 bits; onnxWide8 those and int8 and uint8.
var (
	onnxWide      = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.BFloat16, kernel.Int32, kernel.Int64, kernel.Uint32, kernel.Uint64}
	onnxWide8     = append(slices.Clip(onnxWide), kernel.Int8, kernel.Uint8)
	onnxWide8Bool = append(slices.Clip(onnxWide8), kernel.Bool)
)

var reductionOps = []string{"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}

func reductionBuiltins() []builtin {
	out := make([]builtin, len(reductionOps))
	for i, op := range reductionOps {
		out[i] = builtin{op, func(attrs kernel.Attrs) (kernel.Kernel, error) {
			opset, err := attrs.Opset(17)
			if err != nil {
				return nil, wrapAttr(err)
			}
			k := &reduction{op: op, bools: opset >= 20 && (op == "ReduceMax" || op == "ReduceMin")}
			s := sig{op: op, minIn: 1, maxIn: 1, nOut: 1}
			if opset >= 18 {
				// Opset 18: the axes are the optional input 1, and empty
				// axes may mean "copy" (noop_with_empty_axes).
				if err := attrs.Check("keepdims", "noop_with_empty_axes"); err != nil {
					return nil, wrapAttr(err)
				}
				if k.axes.noop, err = flagAttr(attrs, "noop_with_empty_axes", false); err != nil {
					return nil, wrapAttr(err)
				}
				s.maxIn, s.deps.Value = 2, []int{1}
			} else {
				if err := attrs.Check("axes", "keepdims"); err != nil {
					return nil, wrapAttr(err)
				}
				k.axes.hasAxes = true
				if k.axes.axes, err = attrs.Ints("axes", nil); err != nil {
					return nil, wrapAttr(err)
				}
			}
			if k.axes.keep, err = flagAttr(attrs, "keepdims", true); err != nil {
				return nil, wrapAttr(err)
			}
			return newKernel(s, k), nil
		}}
	}
	return out
}

func (k *reduction) infer(in, out []*kernel.Tensor) error {
	types := onnxWide
	switch k.op {
	case "ReduceMax", "ReduceMin":
		types = onnxWide8
		if k.bools {
			types = onnxWide8Bool
		}
	}
	if err := dtypeIn(in[0], "data", types...); err != nil {
		return err
	}
	if _, err := k.axes.reduceAxes(in); err != nil {
		return err
	}
	// The shape rule of ReduceSum, whatever the dtype. Only the shape is
	// copied: another goroutine may be setting the input's buffer.
	x := kernel.Tensor{Shape: in[0].Shape, DType: kernel.Float32}
	args := [2]*kernel.Tensor{&x}
	n := copy(args[1:], in[1:]) // opset 18's axes input
	if err := k.axes.infer(args[:1+n], out); err != nil {
		return err
	}
	out[0].DType = in[0].DType
	return nil
}

func (k *reduction) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(in[0].NumElements(), in[0].DType.Size(), 2).put(e)
	return 0, nil
}

func (k *reduction) cost(in, out []*kernel.Tensor) device.Cost {
	f := float64(in[0].NumElements())
	switch k.op {
	case "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSumExp":
		f *= 2
	}
	return device.Cost{FLOPs: f, Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *reduction) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	n := x.NumElements()
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, n); err != nil {
		return err
	}
	axes, err := k.axes.reduceAxes(a.In)
	if err != nil {
		return err
	}
	r := x.Shape.Rank()
	k.keep = append(k.keep[:0], x.Shape...)
	count := int64(1)
	for i := range r {
		if k.axes.reduced(axes, i, r) {
			count *= k.keep[i]
			k.keep[i] = 1
		}
	}
	m := k.keep.NumElements()
	if m != o.NumElements() {
		return fmt.Errorf("output %v does not hold the %d reduced elements", o.Shape, m)
	}
	if err := k.walk.set(x.Shape, k.keep); err != nil {
		return err
	}
	if int64(cap(k.acc)) < m {
		k.acc, k.aux = make([]float64, m), make([]float64, m)
	}
	acc, mx := k.acc[:m], k.aux[:m]
	init := math.Copysign(0, -1) // -0, the additive identity: a sum of -0s is -0
	switch k.op {
	case "ReduceSumSquare", "ReduceL1", "ReduceL2":
		init = 0 // their terms are never -0: a sum of nothing is +0, as √0 and |−0|
	case "ReduceMax", "ReduceLogSumExp":
		init = math.Inf(-1)
	case "ReduceMin":
		init = math.Inf(1)
	case "ReduceProd":
		init = 1
	}
	if x.DType == kernel.Bool {
		// false is below true: the identities of or and and.
		init = 1
		if k.op == "ReduceMax" {
			init = 0
		}
	}
	for i := range acc {
		acc[i] = init
	}
	// noop_with_empty_axes with empty axes reduces over no axis: every
	// element is its own group, so ReduceSumSquare squares it, ReduceL1
	// and ReduceL2 take its absolute value, ReduceLogSum its logarithm (as
	// ONNX's reference and onnxruntime do), and the others keep it, every
	// bit.
	xb := x.Data()
	if k.axes.noop && axes.n == 0 {
		switch k.op {
		case "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceLogSumExp":
			copy(o.Data(), xb)
			return nil
		}
	}
	if (x.DType == kernel.Int64 || x.DType == kernel.Uint64) && (k.op == "ReduceMax" || k.op == "ReduceMin") {
		return k.extremaInt64(x, o, m, count)
	}
	if k.op == "ReduceLogSumExp" {
		// First the maxima, then Σ e^(x−max).
		copy(mx, acc)
		for i := range n {
			j := k.walk.off[0]
			if v := loadF(x.DType, xb, i); above(v, mx[j]) { // a NaN wins: +Inf with a NaN is NaN
				mx[j] = v
			}
			k.walk.next()
		}
		clear(acc)
		if err := k.walk.set(x.Shape, k.keep); err != nil {
			return err
		}
	}
	intOut := o.DType.IsInt()
	for i := range n {
		j := k.walk.off[0]
		v := loadF(x.DType, xb, i)
		switch k.op {
		case "ReduceMean", "ReduceLogSum":
			acc[j] += v
		case "ReduceMax":
			if above(v, acc[j]) {
				acc[j] = v
			}
		case "ReduceMin":
			if below(v, acc[j]) {
				acc[j] = v
			}
		case "ReduceProd":
			acc[j] *= v
		case "ReduceSumSquare", "ReduceL2":
			acc[j] += mul64(v, v)
		case "ReduceL1":
			acc[j] += math.Abs(v)
		case "ReduceLogSumExp":
			if !math.IsInf(mx[j], 0) {
				acc[j] += expTerm(v-mx[j], intOut)
			}
		}
		k.walk.next()
	}
	ob := o.Data()
	for j, v := range acc {
		switch k.op {
		case "ReduceMean":
			if count == 0 {
				v = 0 // ONNX leaves the mean of nothing undefined; onnxruntime's is 0
			} else {
				v /= float64(count)
			}
		case "ReduceL2":
			v = math.Sqrt(v)
		case "ReduceLogSum", "ReduceLogSumExp":
			v = k.logResult(v, mx[j], intOut)
			if intOut {
				storeLogInt(ob, o.DType, int64(j), v)
				continue
			}
		}
		if intOut && (math.IsInf(v, 0) || math.IsNaN(v)) {
			if count == 0 && (k.op == "ReduceMax" || k.op == "ReduceMin") {
				// ONNX: the maximum of nothing is the type's minimum, the
				// minimum of nothing its maximum.
				storeFloat(ob, o.DType, int64(j), v)
				continue
			}
			v = 0 // an empty integer reduction
		}
		storeF(o.DType, ob, int64(j), v)
	}
	return nil
}

// storeLogInt stores integer ReduceLogSum or ReduceLogSumExp result v:
// saturated to the type's range, NaN (the logarithm of a negative sum)
// giving the type's minimum, as onnxruntime does.
func storeLogInt(b []byte, dt kernel.DType, i int64, v float64) {
	if math.IsNaN(v) {
		v = math.Inf(-1)
	}
	storeFloat(b, dt, i, v)
}

// expTerm is a term e^d of ReduceLogSumExp; for an integer output it is
// truncated toward zero, as in the element type.
func expTerm(d float64, intOut bool) float64 {
	e := expF(d)
	if intOut {
		return math.Trunc(e)
	}
	return e
}

// logResult finishes ReduceLogSum (ln sum) or ReduceLogSumExp (max +
// ln sum, the max itself when it is infinite). For an integer output the
// result is truncated toward zero, after the max is added.
func (k *reduction) logResult(sum, max float64, intOut bool) float64 {
	v := math.Log(sum)
	if k.op == "ReduceLogSumExp" {
		if math.IsInf(max, 0) {
			return max
		}
		v += max
	}
	if intOut {
		v = math.Trunc(v)
	}
	return v
}

// extremaInt64 is ReduceMax or ReduceMin of int64 or uint64 x into the m
// elements of o, in loadOrd's form: exact beyond 2^53, where float64 would
// round. An empty reduction (count 0) gives the type's minimum (ReduceMax)
// or maximum (ReduceMin), as ONNX says. k.walk is set on x's shape and the
// kept one.
func (k *reduction) extremaInt64(x, o *kernel.Tensor, m, count int64) error {
	if int64(cap(k.accI)) < m {
		k.accI = make([]int64, m)
	}
	acc := k.accI[:m]
	init := int64(math.MinInt64)
	if k.op == "ReduceMin" {
		init = math.MaxInt64
	}
	for i := range acc {
		acc[i] = init
	}
	xb, dt := x.Data(), x.DType
	for i := range x.NumElements() {
		v := loadOrd(dt, xb, i)
		j := k.walk.off[0]
		if k.op == "ReduceMax" {
			acc[j] = max(acc[j], v)
		} else {
			acc[j] = min(acc[j], v)
		}
		k.walk.next()
	}
	ob := o.Data()
	for j, v := range acc {
		storeOrd(dt, ob, int64(j), v)
	}
	return nil
}
