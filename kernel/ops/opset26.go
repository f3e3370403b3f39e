package ops

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// opset26Ops are ONNX's ops of opset 26, which have no earlier form:
//
//   - CumProd(x, axis) (exclusive, reverse): the running product along
//     axis, CumSum's twin; see newCumProd.
//   - BitCast(input) (to): the bits of each element read as dtype to, of
//     the same size; see bitcast.
var opset26Ops = []builtin{
	{"CumProd", newCumProd},
	{"BitCast", newBitCast},
}

// newCumProd builds CumProd(x, axis) (exclusive 0, reverse 0). axis is a
// 0-D or 1-element 1-D int32 or int64 tensor, a value dependency, in
// [-r, r) for x of rank r ≥ 1. Output j along the axis is the product of
// the elements up to j (exclusive: before j; reverse: from the end), an
// empty product being 1. The dtypes are ONNX's: float32, float16,
// bfloat16, float64, int32, int64, uint32 and uint64.
//
// Floats are multiplied in float64, in order along the axis, and each
// output is rounded once to x's dtype, as CumSum's sums are. For float16
// this is what onnxruntime computes; for float32 onnxruntime rounds every
// step to float32, so results may differ from its in the last bits, and a
// product whose prefix overflows float32 but comes back into range is
// finite here. Integers multiply exactly, wrapping in two's complement
// (the low bits of the true product), unsigned ones too.
//
// Tiling and cost are those of simple: one operation per element.
func newCumProd(attrs kernel.Attrs) (kernel.Kernel, error) {
	return newCumulative("CumProd", attrs, 1, func(a, b float64) float64 { return a * b }, func(a, b int64) int64 { return a * b })
}

// bitcast is BitCast(input) (to): the output has input's shape and dtype
// to (a kernel.DType or its name, required), and each element's bytes
// unchanged, read as dtype to, little-endian as every tensor's contents.
// The two dtypes must have the same width (kernel.DType.Bits): float32,
// int32 and uint32; float16, bfloat16, int16 and uint16; float64, int64
// and uint64; int8, uint8, bool and the float 8 types; int4, uint4 and
// float4e2m1; int2 and uint2. The sub-byte types, one element a byte,
// keep the low bits of each, sign-extended into int4 and int2. A bool
// made from a byte other than 0 and 1 keeps that byte, which every op
// reads as true. (ONNX's BitCast also takes the complex types, which
// pipert does not have.)
//
// Tiling (words):
//
//	0..4  split over the elements; 4 buffers
//
// Workspace: none. Cost: no arithmetic; bytes of the output, read and
// written.
type bitcast struct{ to kernel.DType }

func newBitCast(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("to"); err != nil {
		return nil, wrapAttr(err)
	}
	if _, ok := attrs["to"]; !ok {
		return nil, errors.New("ops: attribute \"to\" is required")
	}
	to, err := attrs.DType("to", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "BitCast", minIn: 1, maxIn: 1, nOut: 1}, &bitcast{to: to}), nil
}

func (k *bitcast) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if x.DType.Bits() != k.to.Bits() {
		return fmt.Errorf("cannot bitcast %v (%d bits) to %v (%d bits): the widths must be equal", x.DType, x.DType.Bits(), k.to, k.to.Bits())
	}
	setShape(out[0], x.Shape, k.to)
	return nil
}

func (k *bitcast) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if !in[0].Shape.Equal(out[0].Shape) || out[0].DType != k.to || in[0].DType.Bits() != k.to.Bits() {
		return 0, fmt.Errorf("output %v does not hold data %v bitcast to %v", out[0], in[0], k.to)
	}
	e.grow(splitWords)
	splitElems(out[0].NumElements(), k.to.Size(), 4).put(e)
	return 0, nil
}

func (k *bitcast) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(2 * out[0].Bytes())}
}

func (k *bitcast) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	if o.DType != k.to || x.Bytes() != o.Bytes() || x.NumElements() != o.NumElements() {
		return errors.New("operands differ from the inferred ones")
	}
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, o.NumElements()); err != nil {
		return err
	}
	if !k.to.IsSubByte() {
		copy(o.Data(), x.Data()[:x.Bytes()])
		return nil
	}
	xb, ob := x.Data(), o.Data()
	mask := byte(1)<<k.to.Bits() - 1
	for i := range o.NumElements() {
		if k.to == kernel.Float4E2M1 {
			ob[i] = xb[i] & mask // a code, not a value to convert
			continue
		}
		storeI(k.to, ob, i, int64(xb[i]&mask))
	}
	return nil
}
