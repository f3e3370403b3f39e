package ops

import (
	"fmt"

	"github.com/pipert/pipert/kernel"
)

// opset28Ops are ONNX's ops of opset 28 (ONNX 1.23) with no earlier form:
//
//   - SwiGLU(A, B) (alpha 1): the gated activation of Llama-style MLPs,
//     Y = Swish_alpha(A) · B = A · sigmoid(alpha · A) · B, element by
//     element; A and B have the same dtype and the same shape (no
//     broadcasting), as does Y. Evaluated in float64 (Swish's form) and
//     rounded once. float32, float16, bfloat16, float64.
//
// Opset 28 also widened Celu to every float type, which pipert's Celu
// takes at every opset.
var opset28Ops = []builtin{
	{"SwiGLU", newSwiGLU},
}

func newSwiGLU(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("alpha"); err != nil {
		return nil, wrapAttr(err)
	}
	alpha, err := attrs.Float("alpha", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	alpha = float64(float32(alpha)) // ONNX's float attributes are float32
	k := &simple{flops: 7}
	k.inferF = func(in, out []*kernel.Tensor) error {
		a, b := in[0], in[1]
		if err := dtypeIn(a, "A", onnxFloats...); err != nil {
			return err
		}
		if err := checkSameDType(b, "B", a, "A"); err != nil {
			return err
		}
		if !a.Shape.Equal(b.Shape) {
			return fmt.Errorf("inputs A %v and B %v differ in shape (SwiGLU does not broadcast)", a.Shape, b.Shape)
		}
		setShape(out[0], a.Shape, a.DType)
		return nil
	}
	k.computeF = func(args *kernel.Args) error {
		a, b, y := args.In[0], args.In[1], args.Out[0]
		if a.DType != y.DType || b.DType != y.DType || !a.Shape.Equal(y.Shape) || !b.Shape.Equal(y.Shape) {
			return fmt.Errorf("operands %v and %v differ from the output %v", a, b, y)
		}
		dt := y.DType
		ab, bb, yb := a.Data(), b.Data(), y.Data()
		for i := range y.NumElements() {
			x := loadF(dt, ab, i)
			storeF(dt, yb, i, x*(1/(1+expF(-(alpha*x))))*loadF(dt, bb, i))
		}
		return nil
	}
	return newKernel(sig{op: "SwiGLU", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}
