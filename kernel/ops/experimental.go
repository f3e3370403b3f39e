package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// experimentalOps are the experimental ops ONNX removed at opset 10, which
// onnxruntime keeps for models of opsets 1 to 9, computed as its CPU
// kernels compute them:
//
//   - ImageScaler(input) (bias, required, one per channel; scale 1):
//     scale·x + bias[c] on [N,C,H,W]. An input of rank above 4 gives, as
//     in onnxruntime, the [N,C,H,W] output of its first N·C·H·W elements.
//   - Affine(X) (alpha 1, beta 0): alpha·x + beta.
//   - ScaledTanh(input) (alpha, beta, both required): alpha·tanh(beta·x).
//   - ParametricSoftplus(X) (alpha, beta, both required):
//     alpha·ln(e^(beta·x) + 1), evaluated as beta·x + ln(e^(−beta·x) + 1)
//     where beta·x > 0, so that no exponential overflows.
//   - Crop(input) (border: left, top, right, bottom, required; scale:
//     height, width, optional; none negative) on [N,C,H,W]: rows top to
//     H−bottom and columns left to W−right (exclusive), or, with scale,
//     rows top to top+height and columns left to left+width; a window
//     beyond the input is an error.
//   - DynamicSlice(data, starts, ends[, axes]): Slice of opset 10 without
//     steps (see slice), of every dtype; starts, ends and axes are 1-D of
//     one dtype, int32 or int64.
//
// The MeanVarianceNormalization of opsets 1 to 8 is here too (newMVN1).
//
// All but DynamicSlice take float32 and float16, not float64: onnxruntime
// registers float kernels only, and runs a float16 node through them (a
// float16 input is widened to float32 and the result rounded back). The
// arithmetic is float32, each operation rounded to float32 as
// onnxruntime's float kernels round it; tanh, e^x and ln are evaluated in
// float64 and rounded to float32 (onnxruntime's vectorized approximations
// can differ in the last bit). Affine, ScaledTanh and ParametricSoftplus
// take every rank.
var experimentalOps = []builtin{
	{"ImageScaler", newImageScaler},
	{"Affine", newAffine},
	{"ScaledTanh", newScaledTanh},
	{"ParametricSoftplus", newParametricSoftplus},
	{"Crop", newCrop},
	{"DynamicSlice", newDynamicSlice},
}

// expFloats are the dtypes of the experimental arithmetic ops.
var expFloats = []kernel.DType{kernel.Float32, kernel.Float16}

// each32 sets o's first n elements to f(i, x[i]) in float32: float16
// elements are widened to float32 and the results rounded to float16.
func each32(x, o *kernel.Tensor, n int64, f func(i int64, v float32) float32) {
	switch x.DType {
	case kernel.Float32:
		xs, os := kernel.Float32s(x.Data())[:n], kernel.Float32s(o.Data())[:n]
		for i, v := range xs {
			os[i] = f(int64(i), v)
		}
	case kernel.Float16:
		xs, os := kernel.Uint16s(x.Data())[:n], kernel.Uint16s(o.Data())[:n]
		for i, v := range xs {
			os[i] = kernel.F32ToF16(f(int64(i), kernel.F16ToF32(v)))
		}
	}
}

// float32Attr returns float attribute name rounded to float32, as ONNX
// gives it; a required one must be present.
func float32Attr(attrs kernel.Attrs, op, name string, def float64, required bool) (float32, error) {
	if _, ok := attrs[name]; required && !ok {
		return 0, fmt.Errorf("ops: %s: attribute %s is required", op, name)
	}
	v, err := attrs.Float(name, def)
	if err != nil {
		return 0, wrapAttr(err)
	}
	return float32(v), nil
}

// newUnary32 is the kernel of an element-wise op f, of any rank.
func newUnary32(op string, flops float64, f func(v float32) float32) kernel.Kernel {
	k := &simple{flops: flops}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "X", expFloats...); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		each32(a.In[0], a.Out[0], a.Out[0].NumElements(), func(_ int64, v float32) float32 { return f(v) })
		return nil
	}
	return newKernel(sig{op: op, minIn: 1, maxIn: 1, nOut: 1}, k)
}

func newAffine(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("alpha", "beta"); err != nil {
		return nil, wrapAttr(err)
	}
	alpha, err := float32Attr(attrs, "Affine", "alpha", 1, false)
	if err != nil {
		return nil, err
	}
	beta, err := float32Attr(attrs, "Affine", "beta", 0, false)
	if err != nil {
		return nil, err
	}
	return newUnary32("Affine", 2, func(v float32) float32 { return float32(alpha*v) + beta }), nil
}

// alphaBeta returns the required attributes alpha and beta of op.
func alphaBeta(attrs kernel.Attrs, op string) (alpha, beta float32, err error) {
	if err := attrs.Check("alpha", "beta"); err != nil {
		return 0, 0, wrapAttr(err)
	}
	if alpha, err = float32Attr(attrs, op, "alpha", 0, true); err != nil {
		return 0, 0, err
	}
	if beta, err = float32Attr(attrs, op, "beta", 0, true); err != nil {
		return 0, 0, err
	}
	return alpha, beta, nil
}

func newScaledTanh(attrs kernel.Attrs) (kernel.Kernel, error) {
	alpha, beta, err := alphaBeta(attrs, "ScaledTanh")
	if err != nil {
		return nil, err
	}
	return newUnary32("ScaledTanh", 10, func(v float32) float32 {
		return alpha * float32(math.Tanh(float64(v*beta)))
	}), nil
}

func newParametricSoftplus(attrs kernel.Attrs) (kernel.Kernel, error) {
	alpha, beta, err := alphaBeta(attrs, "ParametricSoftplus")
	if err != nil {
		return nil, err
	}
	// ln(e^t + 1) in float32 steps: e^t, the sum, its logarithm.
	ln1pExp := func(t float32) float32 {
		return float32(math.Log(float64(float32(expF(float64(t))) + 1)))
	}
	return newUnary32("ParametricSoftplus", 15, func(v float32) float32 {
		bx := float32(v * beta) // rounded: not fused with the sum below
		if bx > 0 {
			return alpha * (bx + ln1pExp(-bx))
		}
		return alpha * ln1pExp(bx)
	}), nil
}

func newImageScaler(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("bias", "scale"); err != nil {
		return nil, wrapAttr(err)
	}
	if _, ok := attrs["bias"]; !ok {
		return nil, fmt.Errorf("ops: ImageScaler: attribute bias is required")
	}
	b64, err := attrs.Floats("bias", nil)
	if err != nil {
		return nil, wrapAttr(err)
	}
	bias := make([]float32, len(b64))
	for i, v := range b64 {
		bias[i] = float32(v)
	}
	scale, err := float32Attr(attrs, "ImageScaler", "scale", 1, false)
	if err != nil {
		return nil, err
	}
	k := &simple{flops: 2}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x := in[0]
		if err := dtypeIn(x, "input", expFloats...); err != nil {
			return err
		}
		if x.Shape.Rank() < 4 {
			return fmt.Errorf("input %v: want [N,C,H,W]", x.Shape)
		}
		if int64(len(bias)) != x.Shape[1] {
			return fmt.Errorf("%d biases for %d channels", len(bias), x.Shape[1])
		}
		if x.NumElements() == 0 && x.Shape[:4].NumElements() != 0 {
			// onnxruntime would read N·C·H·W elements past an empty input.
			return fmt.Errorf("input %v has no elements for the [N,C,H,W] output %v", x.Shape, x.Shape[:4])
		}
		setShape(out[0], x.Shape[:4], x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		o := a.Out[0]
		c, hw := o.Shape[1], o.Shape[2]*o.Shape[3]
		each32(a.In[0], o, o.NumElements(), func(i int64, v float32) float32 {
			return float32(scale*v) + bias[i/hw%c]
		})
		return nil
	}
	return newKernel(sig{op: "ImageScaler", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// crop is the impl of Crop: a strided copy (see strided.go).
type crop struct {
	left, top, right, bottom int64
	scale                    []int64 // height and width, or nil
}

func newCrop(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("border", "scale"); err != nil {
		return nil, wrapAttr(err)
	}
	border, err := attrs.Ints("border", nil)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if len(border) != 4 {
		return nil, fmt.Errorf("ops: Crop: attribute border has %d values, want 4 (left, top, right, bottom)", len(border))
	}
	_, hasScale := attrs["scale"]
	scale, err := attrs.Ints("scale", nil)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if hasScale && len(scale) != 2 {
		return nil, fmt.Errorf("ops: Crop: attribute scale has %d values, want 2 (height, width)", len(scale))
	}
	for _, v := range border {
		if v < 0 {
			return nil, fmt.Errorf("ops: Crop: attribute border %v has a negative value", border)
		}
	}
	for _, v := range scale {
		if v < 0 {
			return nil, fmt.Errorf("ops: Crop: attribute scale %v has a negative value", scale)
		}
	}
	k := &crop{left: border[0], top: border[1], right: border[2], bottom: border[3]}
	if hasScale {
		k.scale = scale
	}
	return newKernel(sig{op: "Crop", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// window returns the output height and width of an input of shape s.
func (k *crop) window(s kernel.Shape) (h, w int64, err error) {
	if s.Rank() != 4 {
		return 0, 0, fmt.Errorf("input %v: want [N,C,H,W]", s)
	}
	hi, wi := s[2], s[3]
	// fits reports whether a + b ≤ n, without overflow (a, b ≥ 0).
	fits := func(a, b, n int64) bool { return a <= n && b <= n-a }
	if k.scale == nil {
		if !fits(k.top, k.bottom, hi) {
			return 0, 0, fmt.Errorf("input height %d is less than the top border %d + the bottom border %d", hi, k.top, k.bottom)
		}
		if !fits(k.left, k.right, wi) {
			return 0, 0, fmt.Errorf("input width %d is less than the left border %d + the right border %d", wi, k.left, k.right)
		}
		return hi - k.top - k.bottom, wi - k.left - k.right, nil
	}
	if !fits(k.top, k.scale[0], hi) {
		return 0, 0, fmt.Errorf("input height %d is less than the top border %d + the height %d", hi, k.top, k.scale[0])
	}
	if !fits(k.left, k.scale[1], wi) {
		return 0, 0, fmt.Errorf("input width %d is less than the left border %d + the width %d", wi, k.left, k.scale[1])
	}
	return k.scale[0], k.scale[1], nil
}

func (k *crop) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := dtypeIn(x, "input", expFloats...); err != nil {
		return err
	}
	h, w, err := k.window(x.Shape)
	if err != nil {
		return err
	}
	s := shapeOf(out[0], 4)
	s[0], s[1], s[2], s[3] = x.Shape[0], x.Shape[1], h, w
	out[0].Shape, out[0].DType = s, x.DType
	return nil
}

func (k *crop) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	x, o := in[0], out[0]
	h, w, err := k.window(x.Shape)
	if err != nil {
		return 0, err
	}
	dims := [4]int64{x.Shape[0], x.Shape[1], h, w}
	if !o.Shape.Equal(dims[:]) {
		return 0, fmt.Errorf("output shape %v is not the crop %v", o.Shape, kernel.Shape(dims[:]))
	}
	var st [4]int64
	rowMajor(st[:], x.Shape)
	encodeStrided(e, o.NumElements(), o.DType.Size(), k.top*st[2]+k.left, dims[:], st[:])
	return 0, nil
}

func (k *crop) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(2 * out[0].Bytes())}
}

func (k *crop) compute(a *kernel.Args) error { return computeStrided(a) }

// dynamicSlice is the impl of DynamicSlice: Slice from inputs, which
// must be 1-D and of one dtype.
type dynamicSlice struct{ slice }

func newDynamicSlice(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	s := sig{op: "DynamicSlice", minIn: 3, maxIn: 4, nOut: 1, deps: kernel.Deps{Value: []int{1, 2, 3}}}
	return newKernel(s, &dynamicSlice{}), nil
}

func (k *dynamicSlice) check(in []*kernel.Tensor) error {
	for i := 1; i < len(in); i++ {
		if in[i].DType != in[1].DType {
			return fmt.Errorf("input %s has dtype %v, starts %v: want one dtype", sliceNames[i], in[i].DType, in[1].DType)
		}
		if in[i].Shape.Rank() != 1 {
			return fmt.Errorf("input %s has shape %v, want 1-D", sliceNames[i], in[i].Shape)
		}
	}
	return nil
}

func (k *dynamicSlice) infer(in, out []*kernel.Tensor) error {
	if err := k.check(in); err != nil {
		return err
	}
	return k.slice.infer(in, out)
}

func (k *dynamicSlice) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if err := k.check(in); err != nil {
		return 0, err
	}
	return k.slice.resize(in, out, e)
}

// newMVN1 is the MeanVarianceNormalization of opsets 1 to 8, as
// onnxruntime computes it: attributes across_channels (0) and
// normalize_variance (1) instead of axes. The axes are 0, 2 and 3, or with
// across_channels 1 (no other value) 0 to 3, those beyond the input's
// rank dropped (none left is an error); y = x − mean, divided by the
// standard deviation when normalize_variance is 1 (no other value), with
// no epsilon: a constant group gives NaN. The mean, the deviations, their
// mean square, its square root and the quotient are each rounded to
// float32, as onnxruntime's float kernel rounds them (sums accumulate in
// float64); float16 goes through float32.
func newMVN1(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("across_channels", "normalize_variance"); err != nil {
		return nil, wrapAttr(err)
	}
	across, err := attrs.Int("across_channels", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	nv, err := attrs.Int("normalize_variance", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	axes := []int{0, 2, 3}
	if across == 1 {
		axes = []int{0, 1, 2, 3}
	}
	normalize := nv == 1
	// keep returns s with 1 on the normalized axes, and their count of
	// elements.
	keep := func(s kernel.Shape) (kernel.Shape, int64, error) {
		k, count, some := s.Clone(), int64(1), false
		for _, a := range axes {
			if a < len(k) {
				count *= k[a]
				k[a], some = 1, true
			}
		}
		if !some {
			return nil, 0, fmt.Errorf("input %v has none of the axes %v", s, axes)
		}
		return k, count, nil
	}
	var sum, sq []float64
	var w bcast
	k := &simple{flops: 6}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "input", expFloats...); err != nil {
			return err
		}
		if _, _, err := keep(in[0].Shape); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		kept, count, err := keep(x.Shape)
		if err != nil {
			return err
		}
		n := x.NumElements()
		if n == 0 {
			return nil
		}
		m := kept.NumElements()
		if int64(cap(sum)) < m {
			sum, sq = make([]float64, m), make([]float64, m)
		}
		sum, sq = sum[:m], sq[:m]
		clear(sum)
		clear(sq)
		xb, ob := x.Data(), o.Data()
		load := func(i int64) float32 { return float32(loadF(x.DType, xb, i)) }
		for pass := range 3 {
			if err := w.set(x.Shape, kept); err != nil {
				return err
			}
			for i := range n {
				j := w.off[0]
				v := load(i)
				switch pass {
				case 0:
					sum[j] += float64(v)
				case 1:
					d := float64(v - float32(sum[j]))
					sq[j] += mul64(d, d)
				default:
					y := v - float32(sum[j])
					if normalize {
						y /= float32(sq[j])
					}
					if o.DType == kernel.Float16 {
						kernel.Uint16s(ob)[i] = kernel.F32ToF16(y)
					} else {
						kernel.Float32s(ob)[i] = y
					}
				}
				w.next()
			}
			// After the first pass sum holds the float32 means, after the
			// second sq the float32 standard deviations.
			for j := range m {
				if pass == 0 {
					sum[j] = float64(float32(sum[j] / float64(count)))
				} else if pass == 1 {
					sq[j] = float64(float32(math.Sqrt(float64(float32(sq[j] / float64(count))))))
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "MeanVarianceNormalization", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}
