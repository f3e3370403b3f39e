package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// ReLU and GELU: elementwise activations, same shape and dtype out as in.
//
// ReLU takes float32, float16, bfloat16, float64, int8, int16, int32 and
// int64 (ONNX's signed types) and computes max(x, 0) (a NaN stays NaN; -0
// gives +0, as IEEE 754's maximum orders -0 below +0). GELU takes float32,
// float16, bfloat16 and float64; attribute approximate selects
// the formula: "tanh" (the default) computes
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), "none" the exact
// 0.5·x·(1 + erf(x/√2)). GELU evaluates in float64 and rounds once to the
// element type.
//
// Tiling (words):
//
//	0..4  split over the elements; 4 buffers (input and output,
//	      double-buffered)
//
// Workspace: none. Cost: ReLU one operation per element; GELU geluTanhFLOPs
// or geluErfFLOPs per element (counting tanh and erf as a short polynomial);
// bytes of input and output.

type unaryOp uint8

const (
	opReLU unaryOp = iota + 1
	opGELUTanh
	opGELUErf
)

const (
	geluTanhFLOPs = 16 // 8 multiply-adds and an 8-operation tanh
	geluErfFLOPs  = 14 // 4 multiply-adds and a 10-operation erf
)

type unary struct{ op unaryOp }

func newReLU(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "ReLU", minIn: 1, maxIn: 1, nOut: 1}, &unary{op: opReLU}), nil
}

func newGELU(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("approximate"); err != nil {
		return nil, wrapAttr(err)
	}
	approx, err := attrs.String("approximate", "tanh")
	if err != nil {
		return nil, wrapAttr(err)
	}
	u := &unary{}
	switch approx {
	case "tanh":
		u.op = opGELUTanh
	case "none":
		u.op = opGELUErf
	default:
		return nil, fmt.Errorf("ops: attribute \"approximate\" is %q, want \"tanh\" or \"none\"", approx)
	}
	return newKernel(sig{op: "GELU", minIn: 1, maxIn: 1, nOut: 1}, u), nil
}

func (k *unary) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	var err error
	if k.op == opReLU {
		err = dtypeIn(x, "X", kernel.Float32, kernel.Float16, kernel.Float64, kernel.BFloat16, kernel.Int32, kernel.Int64, kernel.Int8, kernel.Int16)
	} else {
		err = dtypeIn(x, "X", onnxFloats...)
	}
	if err != nil {
		return err
	}
	setShape(out[0], x.Shape, x.DType)
	return nil
}

func (k *unary) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if !in[0].Shape.Equal(out[0].Shape) {
		return 0, fmt.Errorf("output shape %v differs from input shape %v", out[0].Shape, in[0].Shape)
	}
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 4).put(e)
	return 0, nil
}

func (k *unary) cost(in, out []*kernel.Tensor) device.Cost {
	n := float64(out[0].NumElements())
	f := n
	switch k.op {
	case opGELUTanh:
		f = geluTanhFLOPs * n
	case opGELUErf:
		f = geluErfFLOPs * n
	}
	return device.Cost{FLOPs: f, Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *unary) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	n := o.NumElements()
	if x.DType != o.DType || x.NumElements() != n {
		return errors.New("operands differ from the inferred ones")
	}
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, n); err != nil {
		return err
	}
	xb, ob := x.Data(), o.Data()
	switch o.DType {
	case kernel.Float32:
		unaryFloat(k.op, f32vec(kernel.Float32s(ob)[:n]), f32vec(kernel.Float32s(xb)[:n]))
	case kernel.Float16:
		unaryFloat(k.op, f16vec(kernel.Uint16s(ob)[:n]), f16vec(kernel.Uint16s(xb)[:n]))
	case kernel.Float64:
		unaryFloat(k.op, f64vec(kernel.Float64s(ob)[:n]), f64vec(kernel.Float64s(xb)[:n]))
	case kernel.Int32:
		reluInt(kernel.Int32s(ob)[:n], kernel.Int32s(xb)[:n])
	case kernel.Int64:
		reluInt(kernel.Int64s(ob)[:n], kernel.Int64s(xb)[:n])
	case kernel.BFloat16:
		unaryFloat(k.op, bf16vec(kernel.Uint16s(ob)[:n]), bf16vec(kernel.Uint16s(xb)[:n]))
	case kernel.Int8:
		reluInt(kernel.Int8s(ob)[:n], kernel.Int8s(xb)[:n])
	case kernel.Int16:
		reluInt(kernel.Int16s(ob)[:n], kernel.Int16s(xb)[:n])
	}
	return nil
}

func unaryFloat[V vec](op unaryOp, o, x V) {
	n := int64(x.len())
	switch op {
	case opReLU:
		for i := range n {
			v := x.at64(i)
			if v <= 0 {
				v = 0 // -0 too
			}
			o.store(i, v) // exact: v is an element of x's dtype
		}
	case opGELUTanh:
		const c = 0.7978845608028654 // √(2/π)
		for i := range n {
			v := x.at64(i)
			// 0.5·(1 + tanh(u)) is the logistic function of 2u, computed
			// as such: no cancellation where tanh(u) nears −1 (v ≪ 0).
			u := 2 * mul64(c, v+mul64(0.044715*v*v, v))
			var s float64
			if u >= 0 {
				s = 1 / (1 + math.Exp(-u))
			} else {
				e := math.Exp(u)
				s = e / (1 + e)
			}
			o.store(i, mul64(v, s))
		}
	case opGELUErf:
		for i := range n {
			v := x.at64(i)
			// 1 + erf(v/√2) as erfc(−v/√2): no cancellation for v ≪ 0.
			o.store(i, 0.5*v*math.Erfc(-v/math.Sqrt2))
		}
	}
}

func reluInt[T int8 | int16 | int32 | int64](o, x []T) {
	for i, v := range x {
		o[i] = max(v, 0)
	}
}

// vec is a float operand seen as float32 values: float16 and bfloat16
// elements widen on load and round to nearest even on store; store rounds a
// float64 once.
type vec interface {
	len() int
	at(i int64) float32
	at64(i int64) float64
	set(i int64, v float32)
	store(i int64, v float64)
}

type f32vec []float32

func (v f32vec) len() int                 { return len(v) }
func (v f32vec) at(i int64) float32       { return v[i] }
func (v f32vec) at64(i int64) float64     { return float64(v[i]) }
func (v f32vec) set(i int64, x float32)   { v[i] = x }
func (v f32vec) store(i int64, x float64) { v[i] = float32(x) }

// f64vec holds float64 elements; at narrows them to float32, at64 not.
type f64vec []float64

func (v f64vec) len() int                 { return len(v) }
func (v f64vec) at(i int64) float32       { return float32(v[i]) }
func (v f64vec) at64(i int64) float64     { return v[i] }
func (v f64vec) set(i int64, x float32)   { v[i] = float64(x) }
func (v f64vec) store(i int64, x float64) { v[i] = x }

type f16vec []uint16

func (v f16vec) len() int                 { return len(v) }
func (v f16vec) at(i int64) float32       { return kernel.F16ToF32(v[i]) }
func (v f16vec) at64(i int64) float64     { return float64(kernel.F16ToF32(v[i])) }
func (v f16vec) set(i int64, x float32)   { v[i] = kernel.F32ToF16(x) }
func (v f16vec) store(i int64, x float64) { v[i] = f64ToF16(x) }

// bf16vec holds bfloat16 elements: they widen exactly on load and round to
// nearest even on store.
type bf16vec []uint16

func (v bf16vec) len() int                 { return len(v) }
func (v bf16vec) at(i int64) float32       { return kernel.BF16ToF32(v[i]) }
func (v bf16vec) at64(i int64) float64     { return float64(kernel.BF16ToF32(v[i])) }
func (v bf16vec) set(i int64, x float32)   { v[i] = kernel.F32ToBF16(x) }
func (v bf16vec) store(i int64, x float64) { v[i] = f64ToBF16(x) }
