package ops

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
)

// BitwiseAnd, BitwiseOr and BitwiseXor (ONNX opset 18) combine the bits of
// two integer tensors of one dtype (int8, int16, int32, int64, uint8,
// uint16, uint32 or uint64) with multidirectional broadcasting; BitwiseNot
// flips every bit of one.
//
// Workspace: none. Cost: one operation per output element.
var bitwiseOps = []builtin{
	{"BitwiseAnd", newBitwise("BitwiseAnd", func(x, y uint64) uint64 { return x & y })},
	{"BitwiseOr", newBitwise("BitwiseOr", func(x, y uint64) uint64 { return x | y })},
	{"BitwiseXor", newBitwise("BitwiseXor", func(x, y uint64) uint64 { return x ^ y })},
	{"BitwiseNot", newBitwiseNot},
}

var bitwiseTypes = onnxInts

// bitsAt reads element i of an integer tensor's bytes as its bit pattern
// (sign-extended for the signed types; only the type's bits matter).
func bitsAt(dt kernel.DType, b []byte, i int64) uint64 { return uint64(loadI(dt, b, i)) }

// setBits stores the low bits of v as element i.
func setBits(dt kernel.DType, b []byte, i int64, v uint64) { storeI(dt, b, i, int64(v)) }

func newBitwise(op string, f func(x, y uint64) uint64) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check(); err != nil {
			return nil, wrapAttr(err)
		}
		k := &simple{flops: 1}
		var w bcast
		k.inferF = func(in, out []*kernel.Tensor) error {
			return inferSameBinary(in, out, "A", "B", bitwiseTypes...)
		}
		k.computeF = func(a *kernel.Args) error {
			x, y, o := a.In[0], a.In[1], a.Out[0]
			if x.DType != o.DType || y.DType != o.DType {
				return fmt.Errorf("operands %v and %v differ from the output's %v", x.DType, y.DType, o.DType)
			}
			if err := w.set(o.Shape, x.Shape, y.Shape); err != nil {
				return err
			}
			xb, yb, ob := x.Data(), y.Data(), o.Data()
			for i := range o.NumElements() {
				setBits(o.DType, ob, i, f(bitsAt(x.DType, xb, w.off[0]), bitsAt(y.DType, yb, w.off[1])))
				w.next()
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 2, maxIn: 2, nOut: 1}, k), nil
	}
}

func newBitwiseNot(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "X", bitwiseTypes...); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		if x.DType != o.DType || x.NumElements() != o.NumElements() {
			return fmt.Errorf("operand %v differs from the output %v", x, o)
		}
		xb, ob := x.Data(), o.Data()
		for i := range o.NumElements() {
			setBits(o.DType, ob, i, ^bitsAt(x.DType, xb, i))
		}
		return nil
	}
	return newKernel(sig{op: "BitwiseNot", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}
