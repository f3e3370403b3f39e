package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/kernel"
)

// contribQuantOps are onnxruntime's quantized contrib ops (domain
// com.microsoft) of the QOperator format its quantization tool writes,
// each computed as onnxruntime's CPU kernels (MLAS on x86-64) compute it,
// bit for bit. Scales are float32, zero points of the data's type (int8
// or uint8) and, where onnxruntime requires it, scalars or 1-element
// vectors; an absent zero point is 0.
//
//   - QLinearAdd(A, A_scale, A_zero_point, B, B_scale, B_zero_point,
//     C_scale[, C_zero_point]): C = A + B with numpy broadcasting, in
//     float32 as MLAS's AVX2 kernel: with r_A = A_scale/C_scale and r_B =
//     B_scale/C_scale, c = r_A·a + (r_B·b + (C_zp − (r_A·A_zp + r_B·B_zp)))
//     with fused multiply-adds, rounded half to even and saturated (a
//     value outside int32's range becomes the type's minimum, as the
//     conversion instruction gives). Where the broadcast reads one
//     operand as a scalar over the other's innermost block (as
//     onnxruntime's broadcaster decides from the shapes), its term is
//     folded into the constant first, as onnxruntime does.
//   - QLinearMul(the same inputs): c = (a − A_zp)·(b − B_zp), exact, times
//     A_scale·B_scale/C_scale, plus C_zp, each step rounded to float32,
//     then rounded half to even and saturated as QLinearAdd.
//   - QLinearGlobalAveragePool(X, x_scale, x_zero_point, y_scale,
//     y_zero_point) (channels_last 0): the mean over the spatial axes of X
//     (N, C, spatial… or, with channels_last, N, spatial…, C; rank ≥ 3),
//     as MLAS: the int32 sum of x − x_zp times the float32 scale x_scale /
//     (y_scale·size), clamped to the output range less y_zp, rounded half
//     to even, plus y_zp (a NaN product gives the range's minimum).
//     Every input is required (onnxruntime's kernel reads both zero
//     points); a spatial size of 2^24 or more or a scale outside [2^-32,
//     256) is an error, as onnxruntime throws one.
//   - QLinearAveragePool(X, x_scale, x_zero_point, y_scale[,
//     y_zero_point]) (kernel_shape required; auto_pad NOTSET, pads 0,
//     strides 1, ceil_mode 0, count_include_pad 0, channels_last 0): 1-D
//     to 3-D average pooling as onnxruntime's kernel: the output size is
//     (in + pads − kernel)/stride + 1, the quotient truncated toward zero
//     (with ceil_mode rounded up, then one less where the last window
//     would start in the end padding; a negative size is an error), and
//     auto_pad SAME_UPPER and SAME_LOWER pad to ⌈in/stride⌉ outputs. A
//     window runs from start − pad_begin to at most the
//     input's end (end padding never counts, except in the divisor with
//     count_include_pad, which is then the kernel's size). x is
//     dequantized, x_scale·(x − x_zp) in float32, the window summed in
//     float32 in row-major order, divided by the count, then y =
//     saturate(round_half_even(mean/y_scale + y_zp)) (an empty window's
//     NaN, or a value beyond int32, gives the type's minimum). A kernel
//     covering the whole unpadded image is computed as
//     QLinearGlobalAveragePool, as onnxruntime does. Dilations other than
//     1 are refused (onnxruntime's kernel sizes the output with them but
//     does not apply them), as are pads not smaller than the kernel.
//   - QLinearConcat(Y_scale, Y_zero_point, X1, X1_scale, X1_zero_point,
//     …) (axis required): Concat of the Xs, each requantized to Y's
//     scale and zero point through onnxruntime's table: q =
//     saturate(round_half_even(x_scale·(x − x_zp)/Y_scale) + Y_zp), in
//     float32 (a NaN gives the type's minimum); an input of Y's scale and
//     zero point is copied. Every scale and zero point is required, the
//     zero points and Xs of Y_zero_point's dtype.
//   - QLinearSigmoid(X, X_scale[, X_zero_point], Y_scale[, Y_zero_point])
//     and QLinearLeakyRelu (the same inputs; alpha 0.01): Y =
//     Q(f(x_scale·(x − x_zp))) through onnxruntime's 256-entry table,
//     with Q QLinearConcat's requantization. Sigmoid's f is MLAS's
//     rational approximation (Eigen's coefficients, the input clamped to
//     [−18, 18], its polynomials evaluated with fused multiply-adds as
//     MLAS's FMA3 kernel does, then p/q + 1/2 clamped to [0, 1]);
//     LeakyRelu's is v ≥ 0 ? v : alpha·v in float32.
//   - QLinearSoftmax(X, X_scale, x_zero_point, y_scale[, y_zero_point])
//     (opset required; axis −1): softmax over rows — before opset 13 X
//     flattened to 2-D at axis, from 13 the lines along axis — as
//     onnxruntime: a float32 table of exp((i − 255 + shift)·X_scale)
//     (in float64, shift = max(0, ln(MaxFloat32/D) − 5)/X_scale for rows
//     of D), each element's entry at its distance below the row's
//     maximum, summed in float32 in row order; y = round_half_even(e·
//     ⌊1/y_scale⌋/sum) + y_zp, saturated (the zero point of X is
//     unused). X_scale must be positive and finite.
//   - QGemm(A, a_scale, a_zero_point, B, b_scale, b_zero_point[, C[,
//     y_scale, y_zero_point]]) (alpha 1, transA 0, transB 0): the 2-D
//     product of A − a_zp (int8, or uint8) and B − b_zp (int8, or uint8
//     with uint8 A; b's scale and zero point per tensor or per column N)
//     plus the int32 bias C (a scalar, [N], [1, N], [M, 1] or [M, N]),
//     accumulated in int32, times the float32 scale alpha·a_scale·b_scale
//     (/y_scale): requantized as QLinearGlobalAveragePool to A's type
//     with y_scale and y_zero_point, or float32 without them. An empty
//     inner dimension (K = 0) is refused, as is y_scale without
//     y_zero_point or the converse.
//   - MatMulIntegerToFloat(A, B, a_scale, b_scale[, a_zero_point[,
//     b_zero_point[, bias]]]) and DynamicQuantizeMatMul(A, B, b_scale[,
//     b_zero_point[, bias]]): float32 Y = MatMul(A − a_zp, B − b_zp)
//     (numpy batching; A uint8, B uint8 or int8) accumulated in int32,
//     times the float32 a_scale·b_scale, plus bias ([N], float32), each
//     step rounded to float32. b_scale and b_zero_point are per tensor,
//     per column ([N] for a 2-D B) or per column of each matrix of B
//     ([…, 1, N] of B's rank); a_scale is per tensor. DynamicQuantizeMatMul
//     first quantizes its float32 A as onnxruntime does: over [min(0,
//     min A), max(0, max A)], scale = range/255 (1 for an all-zero A),
//     zero point round_half_even(clamp(−min/scale)), A's values through
//     MLAS's QuantizeLinear. Scales of other shapes (which onnxruntime
//     applies in a separate pass) are refused.
var contribQuantOps = []builtin{
	{"QLinearAdd", newQLinearBinary("QLinearAdd")},
	{"QLinearMul", newQLinearBinary("QLinearMul")},
	{"QLinearGlobalAveragePool", newQLinearGlobalAveragePool},
	{"QLinearAveragePool", newQLinearAveragePool},
	{"QLinearConcat", newQLinearConcat},
	{"QLinearSigmoid", newQLinearLookup("QLinearSigmoid")},
	{"QLinearLeakyRelu", newQLinearLookup("QLinearLeakyRelu")},
	{"QLinearSoftmax", newQLinearSoftmax},
	{"QGemm", newQGemm},
	{"MatMulIntegerToFloat", newQMatMulToFloat(false)},
	{"DynamicQuantizeMatMul", newQMatMulToFloat(true)},
	{"DynamicQuantizeLSTM", newDynamicQuantizeLSTM},
	{"QLinearWhere", newQLinearWhere},
	{"QEmbedLayerNormalization", newQEmbedLayerNorm},
}

// int32Min is what x86's float-to-int32 conversion gives for a value out
// of int32's range or NaN.
const int32Min = math.MinInt32

// cvtRound is x86's float-to-int32 conversion under the default rounding:
// half to even, int32's minimum outside its range.
func cvtRound(v float64) int64 {
	if !(v >= -2147483648 && v < 2147483648) {
		return int32Min
	}
	return int64(math.RoundToEven(v))
}

// packSat narrows an int32 lane as MLAS packs it: saturated to int16, then
// to dt's range.
func packSat(dt kernel.DType, v int64) int64 {
	v = min(max(v, math.MinInt16), math.MaxInt16)
	if dt == kernel.Int8 {
		return min(max(v, math.MinInt8), math.MaxInt8)
	}
	return min(max(v, 0), math.MaxUint8)
}

// fmaF32 is x·y + z rounded once to float32, as a fused multiply-add
// instruction computes it. The product is exact in float64; the sum is
// made exact with its rounding error, which decides a float32 tie.
func fmaF32(x, y, z float32) float32 {
	p := float64(float64(x) * float64(y))
	zf := float64(z)
	s := p + zf
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	bv := s - p
	e := (p - (s - bv)) + (zf - bv)
	r := float32(s)
	if e == 0 || float64(r) == s || math.IsInf(float64(r), 0) {
		return r
	}
	// s lies between two float32 values; the other one is next to r on
	// s's side.
	other := math.Nextafter32(r, float32(math.Copysign(math.Inf(1), s-float64(r))))
	if mid := float64(float64(r)/2) + float64(float64(other)/2); s == mid {
		// An exact tie in float64: the error's sign says which side the
		// exact sum is on.
		if (e > 0) == (float64(other) > float64(r)) {
			return other
		}
	}
	return r
}

// qAbsent reports whether t stands for an omitted optional input (the
// importer's empty float32 vector).
func qAbsent(t *kernel.Tensor) bool {
	return t == nil || t.DType == kernel.Float32 && t.Shape.Rank() == 1 && t.NumElements() == 0
}

// isScalarOr1 is onnxruntime's IsScalarOr1ElementVector.
func isScalarOr1(t *kernel.Tensor) bool {
	return t.Shape.Rank() == 0 || t.Shape.Rank() == 1 && t.Shape[0] == 1
}

// qScaleIn checks a float32 scale that must be a scalar or a 1-element
// vector.
func qScaleIn(t *kernel.Tensor, name string) error {
	if err := dtypeIn(t, name, kernel.Float32); err != nil {
		return err
	}
	if !isScalarOr1(t) {
		return fmt.Errorf("input %s %v: want a scalar or a 1-element vector", name, t.Shape)
	}
	return nil
}

// qZeroIn checks an optional zero point of dtype dt that must be a scalar
// or a 1-element vector.
func qZeroIn(in []*kernel.Tensor, i int, name string, dt kernel.DType) error {
	t := input(in, i)
	if qAbsent(t) {
		return nil
	}
	if t.DType != dt {
		return fmt.Errorf("input %s has dtype %v, want the data's dtype %v", name, t.DType, dt)
	}
	if !isScalarOr1(t) {
		return fmt.Errorf("input %s %v: want a scalar or a 1-element vector", name, t.Shape)
	}
	return nil
}

// qScale reads a scalar float32 scale.
func qScale(t *kernel.Tensor) float32 { return kernel.Float32s(t.Data())[0] }

// qZero reads an optional scalar zero point (0 when absent).
func qZero(in []*kernel.Tensor, i int) int64 {
	t := input(in, i)
	if qAbsent(t) {
		return 0
	}
	return loadI(t.DType, t.Data(), 0)
}

// Which operand onnxruntime's broadcaster reads as a scalar over each span
// of the output.
const (
	bcastGeneral = iota
	bcastScalar0
	bcastScalar1
)

// ortBroadcastMode is onnxruntime's choice, from the shapes, of the loop
// that runs a broadcast binary op: input 0 a scalar per span, input 1 one,
// or both spans. It looks at the innermost axis that is not 1 in both
// (the outermost common axis if all are), as onnxruntime's Broadcaster.
func ortBroadcastMode(a, b kernel.Shape) int {
	ra, rb := a.Rank(), b.Rank()
	var da, db bool // whether the operand steps along the deciding axis
	switch {
	case ra == 0:
		da = false
	case rb == 0:
		da, db = a[ra-1] > 1, false
	default:
		m := min(ra, rb)
		for i := range m {
			x, y := a[ra-1-i], b[rb-1-i]
			if max(x, y) == 1 && i+1 < m {
				continue
			}
			da, db = x > 1, y > 1
			break
		}
	}
	switch {
	case !da:
		return bcastScalar0
	case !db:
		return bcastScalar1
	}
	return bcastGeneral
}

// qBcastStrides returns, for an input of shape s broadcast to out, its
// element strides along out's axes (0 along a broadcast axis).
func qBcastStrides(s, out kernel.Shape) []int64 {
	st := make([]int64, len(out))
	step := int64(1)
	for i := len(out) - 1; i >= 0; i-- {
		j := i - (len(out) - len(s))
		if j < 0 {
			continue
		}
		if s[j] != 1 {
			st[i] = step
		}
		step *= s[j]
	}
	return st
}

// bcastWalk calls f with each output index and the matching indices into
// inputs of shapes a and b.
func bcastWalk(out, a, b kernel.Shape, f func(o, ia, ib int64)) {
	sa, sb := qBcastStrides(a, out), qBcastStrides(b, out)
	n := out.NumElements()
	idx := make([]int64, len(out))
	var ia, ib int64
	for o := range n {
		f(o, ia, ib)
		for d := len(out) - 1; d >= 0; d-- {
			idx[d]++
			ia += sa[d]
			ib += sb[d]
			if idx[d] < out[d] {
				break
			}
			ia -= sa[d] * out[d]
			ib -= sb[d] * out[d]
			idx[d] = 0
		}
	}
}

func newQLinearBinary(op string) kernel.Factory {
	mul := op == "QLinearMul"
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check(); err != nil {
			return nil, wrapAttr(err)
		}
		check := func(in []*kernel.Tensor) (kernel.Shape, error) {
			a, b := in[0], in[3]
			if err := dtypeIn(a, "A", qTypes...); err != nil {
				return nil, err
			}
			if err := checkSameDType(b, "B", a, "A"); err != nil {
				return nil, err
			}
			for _, s := range []struct {
				i    int
				name string
			}{{1, "A_scale"}, {4, "B_scale"}, {6, "C_scale"}} {
				if err := qScaleIn(in[s.i], s.name); err != nil {
					return nil, err
				}
			}
			for _, z := range []struct {
				i    int
				name string
			}{{2, "A_zero_point"}, {5, "B_zero_point"}, {7, "C_zero_point"}} {
				if err := qZeroIn(in, z.i, z.name, a.DType); err != nil {
					return nil, err
				}
			}
			return broadcastAll(a.Shape, b.Shape)
		}
		k := &simple{flops: 4}
		k.inferF = func(in, out []*kernel.Tensor) error {
			s, err := check(in)
			if err != nil {
				return err
			}
			setShape(out[0], s, in[0].DType)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			s, err := check(a.In)
			if err != nil {
				return err
			}
			A, B, y := a.In[0], a.In[3], a.Out[0]
			if !y.Shape.Equal(s) || y.DType != A.DType {
				return errors.New("operands differ from the inferred ones")
			}
			sa, sb, sc := qScale(a.In[1]), qScale(a.In[4]), qScale(a.In[6])
			za, zb, zc := qZero(a.In, 2), qZero(a.In, 5), qZero(a.In, 7)
			dt, ab, bb, yb := A.DType, A.Data(), B.Data(), y.Data()
			if mul {
				ratio := float32(sa * sb)
				ratio /= sc
				zcf := float32(zc)
				bcastWalk(s, A.Shape, B.Shape, func(o, ia, ib int64) {
					p := (loadI(dt, ab, ia) - za) * (loadI(dt, bb, ib) - zb)
					v := float32(float32(p)*ratio) + zcf
					storeI(dt, yb, o, packSat(dt, cvtRound(float64(v))))
				})
				return nil
			}
			mode := ortBroadcastMode(A.Shape, B.Shape)
			// MLAS's operands: the span x (scale sx) and the other, w,
			// a scalar in the scalar modes.
			sx, zx, sw, zw := sa, za, sb, zb
			if mode == bcastScalar0 {
				sx, zx, sw, zw = sb, zb, sa, za
			}
			rx, rw := float32(sx/sc), float32(sw/sc)
			fixed := float32(zc) - fmaF32(rx, float32(zx), float32(rw*float32(zw)))
			bcastWalk(s, A.Shape, B.Shape, func(o, ia, ib int64) {
				xv, wv := float32(loadI(dt, ab, ia)), float32(loadI(dt, bb, ib))
				if mode == bcastScalar0 {
					xv, wv = wv, xv
				}
				// (In the scalar modes MLAS folds w's term into the
				// constant once, with the same fused rounding.)
				v := fmaF32(xv, rx, fmaF32(wv, rw, fixed))
				storeI(dt, yb, o, packSat(dt, cvtRound(float64(v))))
			})
			return nil
		}
		return newKernel(sig{op: op, minIn: 7, maxIn: 8, nOut: 1}, k), nil
	}
}

// qRange is dt's range, int8 or uint8.
func qRange(dt kernel.DType) (lo, hi int64) {
	if dt == kernel.Int8 {
		return math.MinInt8, math.MaxInt8
	}
	return 0, math.MaxUint8
}

// mlasRequant is MLAS's requantization of an int32 sum: acc times scale in
// float32, clamped to [lo − zp, hi − zp] (a NaN becomes the lower bound,
// as MAXPS gives), rounded half to even, plus zp.
func mlasRequant(dt kernel.DType, acc int32, scale float32, zp int64) int64 {
	return mlasClampRound(dt, float32(float32(acc)*scale), zp)
}

func newQLinearGlobalAveragePool(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("channels_last"); err != nil {
		return nil, wrapAttr(err)
	}
	cl, err := attrs.Int("channels_last", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	last := cl != 0
	// check validates the operands and returns the output shape, the
	// batch, channel and spatial sizes.
	check := func(in []*kernel.Tensor) (kernel.Shape, int64, int64, int64, error) {
		x := in[0]
		if err := dtypeIn(x, "X", qTypes...); err != nil {
			return nil, 0, 0, 0, err
		}
		r := x.Shape.Rank()
		if r < 3 {
			return nil, 0, 0, 0, fmt.Errorf("input X %v: want rank 3 or more", x.Shape)
		}
		for i, name := range []string{"x_scale", "x_zero_point", "y_scale", "y_zero_point"} {
			t := in[i+1]
			if i%2 == 0 {
				if err := qScaleIn(t, name); err != nil {
					return nil, 0, 0, 0, err
				}
				continue
			}
			if qAbsent(t) {
				return nil, 0, 0, 0, fmt.Errorf("input %s is required", name)
			}
			if err := qZeroIn(in, i+1, name, x.DType); err != nil {
				return nil, 0, 0, 0, err
			}
		}
		out := x.Shape.Clone()
		first := 2
		if last {
			first = 1
		}
		size := int64(1)
		for i := first; i < first+r-2; i++ {
			size *= out[i]
			out[i] = 1
		}
		c := x.Shape[1]
		if last {
			c = x.Shape[r-1]
		}
		return out, x.Shape[0], c, size, nil
	}
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		s, _, _, _, err := check(in)
		if err != nil {
			return err
		}
		setShape(out[0], s, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		s, n, c, size, err := check(a.In)
		if err != nil {
			return err
		}
		x, y := a.In[0], a.Out[0]
		if !y.Shape.Equal(s) || y.DType != x.DType {
			return errors.New("operands differ from the inferred ones")
		}
		if y.NumElements() == 0 {
			return nil
		}
		scale, err := gapScale(qScale(a.In[1]), qScale(a.In[3]), size)
		if err != nil {
			return err
		}
		xz, yz := qZero(a.In, 2), qZero(a.In, 4)
		dt, xb, yb := x.DType, x.Data(), y.Data()
		bias := int32(-xz) * int32(size)
		// Element (b, ch, p) of X: channels first or last.
		cs, ps := size, int64(1)
		if last {
			cs, ps = 1, c
		}
		for b := range n {
			for ch := range c {
				acc := bias
				base := b*c*size + ch*cs
				for p := range size {
					acc += int32(loadI(dt, xb, base+p*ps))
				}
				storeI(dt, yb, b*c+ch, mlasRequant(dt, acc, scale, yz))
			}
		}
		return nil
	}
	return newKernel(sig{op: "QLinearGlobalAveragePool", minIn: 5, maxIn: 5, nOut: 1}, k), nil
}

// gapScale is MLAS's scale of a global average over size elements, with
// the range check it makes.
func gapScale(xs, ys float32, size int64) (float32, error) {
	d := float32(ys * float32(size))
	scale := xs / d
	if size >= 1<<24 || scale < 0x1p-32 || scale >= 256 {
		return 0, fmt.Errorf("scale x_scale/(y_scale·%d) = %g and size %d: want a scale in [2^-32, 256) and a size below 2^24, as onnxruntime's kernel", size, scale, size)
	}
	return scale, nil
}

// qPool is QLinearAveragePool's attributes.
type qPool struct {
	kernel, strides, pads []int64
	autoPad               string
	ceil, includePad      bool
	last                  bool
}

func newQLinearAveragePool(attrs kernel.Attrs) (kernel.Kernel, error) {
	const op = "QLinearAveragePool"
	if err := attrs.Check("auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides", "dilations", "channels_last"); err != nil {
		return nil, wrapAttr(err)
	}
	p := &qPool{}
	var err error
	if p.kernel, err = attrs.Ints("kernel_shape", nil); err != nil {
		return nil, wrapAttr(err)
	}
	nd := len(p.kernel)
	if nd < 1 || nd > 3 {
		return nil, fmt.Errorf("ops: %s: attribute kernel_shape %v: want 1 to 3 values", op, p.kernel)
	}
	for _, k := range p.kernel {
		if k < 1 {
			return nil, fmt.Errorf("ops: %s: attribute kernel_shape %v: want positive values", op, p.kernel)
		}
	}
	if p.autoPad, err = autoPad(attrs); err != nil {
		return nil, fmt.Errorf("ops: %s: %w", op, err)
	}
	ints := func(name string, def int64, n int) ([]int64, error) {
		v, err := attrs.Ints(name, nil)
		if err != nil {
			return nil, wrapAttr(err)
		}
		if len(v) == 0 {
			v = make([]int64, n)
			for i := range v {
				v[i] = def
			}
		}
		if len(v) != n {
			return nil, fmt.Errorf("ops: %s: attribute %s %v: want %d values", op, name, v, n)
		}
		return v, nil
	}
	if p.strides, err = ints("strides", 1, nd); err != nil {
		return nil, err
	}
	if p.pads, err = ints("pads", 0, 2*nd); err != nil {
		return nil, err
	}
	dil, err := ints("dilations", 1, nd)
	if err != nil {
		return nil, err
	}
	for i := range nd {
		if p.strides[i] < 1 {
			return nil, fmt.Errorf("ops: %s: attribute strides %v: want positive values", op, p.strides)
		}
		if dil[i] != 1 {
			return nil, fmt.Errorf("ops: %s: attribute dilations %v: only 1 is implemented (onnxruntime's kernel does not apply them)", op, dil)
		}
		if p.pads[i] < 0 || p.pads[i+nd] < 0 || p.pads[i] >= p.kernel[i] || p.pads[i+nd] >= p.kernel[i] {
			return nil, fmt.Errorf("ops: %s: attribute pads %v: want each in [0, kernel), as onnxruntime", op, p.pads)
		}
	}
	for _, b := range []struct {
		name string
		v    *bool
	}{{"ceil_mode", &p.ceil}, {"count_include_pad", &p.includePad}, {"channels_last", &p.last}} {
		v, err := attrs.Int(b.name, 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		*b.v = v != 0
	}
	k := &simple{flops: 2}
	k.inferF = func(in, out []*kernel.Tensor) error {
		g, err := p.geometry(in)
		if err != nil {
			return err
		}
		setShape(out[0], g.outShape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		g, err := p.geometry(a.In)
		if err != nil {
			return err
		}
		x, y := a.In[0], a.Out[0]
		if !y.Shape.Equal(g.outShape) || y.DType != x.DType {
			return errors.New("operands differ from the inferred ones")
		}
		if y.NumElements() == 0 {
			return nil
		}
		return p.run(g, a.In, y)
	}
	return newKernel(sig{op: op, minIn: 4, maxIn: 5, nOut: 1}, k), nil
}

// qPoolGeom is one QLinearAveragePool computation's sizes, spatial axes
// padded to 3 with ones.
type qPoolGeom struct {
	n, c                 int64
	in, out, k, st, padB dims3
	outShape             kernel.Shape
	global               bool
}

// geometry checks the operands and sizes the output as onnxruntime's
// PoolAttributes does.
func (p *qPool) geometry(in []*kernel.Tensor) (qPoolGeom, error) {
	var g qPoolGeom
	x := in[0]
	if err := dtypeIn(x, "X", qTypes...); err != nil {
		return g, err
	}
	nd := len(p.kernel)
	if x.Shape.Rank() != nd+2 {
		return g, fmt.Errorf("input X %v: want rank %d (kernel_shape has %d values)", x.Shape, nd+2, nd)
	}
	if err := qScaleIn(in[1], "x_scale"); err != nil {
		return g, err
	}
	if err := qZeroIn(in, 2, "x_zero_point", x.DType); err != nil {
		return g, err
	}
	if err := qScaleIn(in[3], "y_scale"); err != nil {
		return g, err
	}
	if err := qZeroIn(in, 4, "y_zero_point", x.DType); err != nil {
		return g, err
	}
	g.n = x.Shape[0]
	sp := x.Shape[2:]
	g.c = x.Shape[1]
	if p.last {
		sp, g.c = x.Shape[1:nd+1], x.Shape[nd+1]
	}
	g.in, g.out, g.k, g.st = dims3{1, 1, 1}, dims3{1, 1, 1}, dims3{1, 1, 1}, dims3{1, 1, 1}
	allZero := true
	for i := range nd {
		size, k, s := sp[i], p.kernel[i], p.strides[i]
		var head, need int64
		switch p.autoPad {
		case "NOTSET":
			head, need = p.pads[i], p.pads[i]+p.pads[i+nd]
		case "SAME_UPPER", "SAME_LOWER":
			need = ((size+s-1)/s-1)*s + k - size
			head = need / 2
			if p.autoPad == "SAME_LOWER" {
				head = (need + 1) / 2
			}
		}
		if head != 0 || need-head != 0 {
			allZero = false
		}
		// (size + pads − kernel)/stride + 1, the quotient truncated
		// toward zero, or rounded up with ceil_mode and then one less if
		// the last window would start in the end padding.
		num := size + need - k
		o := num/s + 1
		if p.ceil {
			if num > 0 {
				o = (num+s-1)/s + 1
			}
			if (o-1)*s >= size+head {
				o--
			}
		}
		if o < 0 {
			return g, fmt.Errorf("input X %v: kernel_shape %v, pads and strides give a negative output size", x.Shape, p.kernel)
		}
		g.in[i], g.out[i], g.k[i], g.st[i], g.padB[i] = size, o, k, s, head
	}
	g.global = allZero
	for i := range nd {
		if g.k[i] != g.in[i] {
			g.global = false
		}
	}
	g.outShape = make(kernel.Shape, 0, nd+2)
	g.outShape = append(g.outShape, g.n)
	if !p.last {
		g.outShape = append(g.outShape, g.c)
	}
	for i := range nd {
		g.outShape = append(g.outShape, g.out[i])
	}
	if p.last {
		g.outShape = append(g.outShape, g.c)
	}
	return g, nil
}

// run pools X into y.
func (p *qPool) run(g qPoolGeom, in []*kernel.Tensor, y *kernel.Tensor) error {
	x := in[0]
	dt, xb, yb := x.DType, x.Data(), y.Data()
	xs, ys := qScale(in[1]), qScale(in[3])
	xz, yz := qZero(in, 2), qZero(in, 4)
	inSize, outSize := g.in.prod(), g.out.prod()
	// Element (b, ch, spatial index q) of X and of Y.
	at := func(b, ch, q, size int64) int64 {
		if p.last {
			return (b*size+q)*g.c + ch
		}
		return (b*g.c+ch)*size + q
	}
	if g.global {
		scale, err := gapScale(xs, ys, inSize)
		if err != nil {
			return err
		}
		bias := int32(-xz) * int32(inSize)
		for b := range g.n {
			for ch := range g.c {
				acc := bias
				for q := range inSize {
					acc += int32(loadI(dt, xb, at(b, ch, q, inSize)))
				}
				storeI(dt, yb, at(b, ch, 0, 1), mlasRequant(dt, acc, scale, yz))
			}
		}
		return nil
	}
	// x's values dequantized, as onnxruntime's table.
	var table [256]float32
	for v := range int64(256) {
		q := v
		if dt == kernel.Int8 {
			q = int64(int8(uint8(v)))
		}
		table[v] = float32(xs * float32(q-xz))
	}
	lo, hi := qRange(dt)
	var start, end dims3
	for b := range g.n {
		for ch := range g.c {
			for o := range outSize {
				od := dims3{o / (g.out[1] * g.out[2]), o / g.out[2] % g.out[1], o % g.out[2]}
				for i := range 3 {
					s := od[i]*g.st[i] - g.padB[i]
					end[i] = min(s+g.k[i], g.in[i])
					start[i] = max(s, 0)
				}
				var sum float32
				for i0 := start[0]; i0 < end[0]; i0++ {
					for i1 := start[1]; i1 < end[1]; i1++ {
						for i2 := start[2]; i2 < end[2]; i2++ {
							q := (i0*g.in[1]+i1)*g.in[2] + i2
							sum += table[uint8(loadI(dt, xb, at(b, ch, q, inSize)))]
						}
					}
				}
				// The window's count, as onnxruntime multiplies it (the
				// extents of an empty window are not clamped at 0).
				count := g.k.prod()
				if !p.includePad {
					count = (end[0] - start[0]) * (end[1] - start[1]) * (end[2] - start[2])
				}
				mean := sum / float32(count)
				v := float32(mean/ys) + float32(yz)
				r := cvtRound(float64(float32(math.RoundToEven(float64(v)))))
				storeI(dt, yb, at(b, ch, o, outSize), min(max(r, lo), hi))
			}
		}
	}
	return nil
}

// mlasQuantize is MLAS's QuantizeLinear of one float32 value: v/scale,
// clamped to [lo − zp, hi − zp] (a NaN to the lower bound), rounded half
// to even, plus zp.
func mlasQuantize(dt kernel.DType, v, scale float32, zp int64) int64 {
	return mlasClampRound(dt, v/scale, zp)
}

// mlasClampRound clamps v to [lo − zp, hi − zp] of dt's range (a NaN to
// the lower bound, as MAXPS gives), rounds it half to even and adds zp.
func mlasClampRound(dt kernel.DType, v float32, zp int64) int64 {
	lo, hi := qRange(dt)
	lof, hif := float32(lo-zp), float32(hi-zp)
	if !(v > lof) {
		v = lof
	}
	if !(v < hif) {
		v = hif
	}
	return int64(math.RoundToEven(float64(v))) + zp
}

// qTable is onnxruntime's 256-entry lookup table of a QLinear op on one
// byte: f of each dequantized value, x_scale·(x − x_zp), quantized to
// y_scale and y_zp. It is indexed by the byte (an int8 value's two's
// complement).
func qTable(dt kernel.DType, xs float32, xz int64, ys float32, yz int64, f func(float32) float32) *[256]int64 {
	var t [256]int64
	for b := range 256 {
		x := int64(b)
		if dt == kernel.Int8 {
			x = int64(int8(uint8(b)))
		}
		t[b] = mlasQuantize(dt, f(float32(xs*float32(x-xz))), ys, yz)
	}
	return &t
}

func newQLinearConcat(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis"); err != nil {
		return nil, wrapAttr(err)
	}
	if _, ok := attrs["axis"]; !ok {
		return nil, errors.New("ops: QLinearConcat: attribute axis is required")
	}
	axis, err := attrs.Int("axis", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	// check validates the operands and returns the output shape and the
	// normalized axis.
	check := func(in []*kernel.Tensor) (kernel.Shape, int, error) {
		if len(in) < 5 || (len(in)-2)%3 != 0 {
			return nil, 0, fmt.Errorf("%d inputs: want Y_scale, Y_zero_point and (X, X_scale, X_zero_point) triples", len(in))
		}
		if err := qScaleIn(in[0], "Y_scale"); err != nil {
			return nil, 0, err
		}
		yz := in[1]
		if qAbsent(yz) {
			return nil, 0, errors.New("input Y_zero_point is required")
		}
		if err := dtypeIn(yz, "Y_zero_point", qTypes...); err != nil {
			return nil, 0, err
		}
		if err := qZeroIn(in, 1, "Y_zero_point", yz.DType); err != nil {
			return nil, 0, err
		}
		first := in[2]
		r := first.Shape.Rank()
		ax := axis
		if ax < 0 {
			ax += int64(r)
		}
		if r == 0 || ax < 0 || ax >= int64(r) {
			return nil, 0, fmt.Errorf("attribute axis %d: out of range for rank %d", axis, r)
		}
		out := first.Shape.Clone()
		out[ax] = 0
		for i := 2; i < len(in); i += 3 {
			n := (i - 2) / 3
			x := in[i]
			if err := dtypeIn(x, fmt.Sprintf("X%d", n+1), yz.DType); err != nil {
				return nil, 0, err
			}
			if err := qScaleIn(in[i+1], fmt.Sprintf("X%d_scale", n+1)); err != nil {
				return nil, 0, err
			}
			name := fmt.Sprintf("X%d_zero_point", n+1)
			if qAbsent(in[i+2]) {
				return nil, 0, fmt.Errorf("input %s is required", name)
			}
			if err := qZeroIn(in, i+2, name, yz.DType); err != nil {
				return nil, 0, err
			}
			if x.Shape.Rank() != r {
				return nil, 0, fmt.Errorf("input X%d %v: want rank %d, as X1 %v", n+1, x.Shape, r, first.Shape)
			}
			for d := range r {
				if int64(d) != ax && x.Shape[d] != first.Shape[d] {
					return nil, 0, fmt.Errorf("input X%d %v: want X1's dimensions %v but on axis %d", n+1, x.Shape, first.Shape, ax)
				}
			}
			out[ax] += x.Shape[ax]
		}
		return out, int(ax), nil
	}
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		s, _, err := check(in)
		if err != nil {
			return err
		}
		setShape(out[0], s, in[1].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		s, ax, err := check(a.In)
		if err != nil {
			return err
		}
		y := a.Out[0]
		dt := a.In[1].DType
		if !y.Shape.Equal(s) || y.DType != dt {
			return errors.New("operands differ from the inferred ones")
		}
		ys, yz := qScale(a.In[0]), qZero(a.In, 1)
		outer := int64(1)
		for d := range ax {
			outer *= s[d]
		}
		inner := int64(1)
		for d := ax + 1; d < len(s); d++ {
			inner *= s[d]
		}
		yb := y.Data()
		yPitch := s[ax] * inner
		var off int64
		for i := 2; i < len(a.In); i += 3 {
			x := a.In[i]
			xb := x.Data()
			xs, xz := qScale(a.In[i+1]), qZero(a.In, i+2)
			var table *[256]int64
			if xs != ys || xz != yz {
				table = qTable(dt, xs, xz, ys, yz, func(v float32) float32 { return v })
			}
			pitch := x.Shape[ax] * inner
			for o := range outer {
				for j := range pitch {
					b := xb[o*pitch+j]
					v := int64(b)
					if table != nil {
						v = table[b]
					}
					yb[o*yPitch+off+j] = byte(v)
				}
			}
			off += pitch
		}
		return nil
	}
	return newKernel(sig{op: "QLinearConcat", minIn: 5, maxIn: -1, nOut: 1}, k), nil
}

// The constants of MLAS's logistic approximation.
var mlasLogistic = struct {
	alpha [5]float32 // alpha_9, alpha_7, alpha_5, alpha_3, alpha_1
	beta  [6]float32 // beta_10 down to beta_0
}{
	[5]float32{4.37031012579801e-11, 1.15627324459942e-07, 6.08574864600143e-05, 8.51377133304701e-03, 2.48287947061529e-01},
	[6]float32{6.10247389755681e-13, 5.76102136993427e-09, 6.29106785017040e-06, 1.70198817374094e-03, 1.16817656904453e-01, 9.93151921023180e-01},
}

// mlasSigmoid is MLAS's logistic function of one value, as its FMA3
// kernel computes it.
func mlasSigmoid(v float32) float32 {
	if v < -18 {
		v = -18
	}
	if v > 18 {
		v = 18
	}
	v2 := float32(v * v)
	c := &mlasLogistic
	p := fmaF32(v2, c.alpha[0], c.alpha[1])
	for _, a := range c.alpha[2:] {
		p = fmaF32(p, v2, a)
	}
	p = float32(p * v)
	q := fmaF32(v2, c.beta[0], c.beta[1])
	for _, b := range c.beta[2:] {
		q = fmaF32(q, v2, b)
	}
	r := float32(p/q) + 0.5
	return min(max(r, 0), 1)
}

func newQLinearLookup(op string) kernel.Factory {
	leaky := op == "QLinearLeakyRelu"
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		names := []string{}
		if leaky {
			names = append(names, "alpha")
		}
		if err := attrs.Check(names...); err != nil {
			return nil, wrapAttr(err)
		}
		a, err := attrs.Float("alpha", 0.01)
		if err != nil {
			return nil, wrapAttr(err)
		}
		alpha := float32(a)
		f := mlasSigmoid
		if leaky {
			f = func(v float32) float32 {
				if v >= 0 {
					return v
				}
				return float32(alpha * v)
			}
		}
		check := func(in []*kernel.Tensor) error {
			x := in[0]
			if err := dtypeIn(x, "X", qTypes...); err != nil {
				return err
			}
			if err := qScaleIn(in[1], "X_scale"); err != nil {
				return err
			}
			if err := qZeroIn(in, 2, "X_zero_point", x.DType); err != nil {
				return err
			}
			if err := qScaleIn(in[3], "Y_scale"); err != nil {
				return err
			}
			return qZeroIn(in, 4, "Y_zero_point", x.DType)
		}
		k := &simple{flops: 1}
		k.inferF = func(in, out []*kernel.Tensor) error {
			if err := check(in); err != nil {
				return err
			}
			setShape(out[0], in[0].Shape, in[0].DType)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			if err := check(a.In); err != nil {
				return err
			}
			x, y := a.In[0], a.Out[0]
			if !y.Shape.Equal(x.Shape) || y.DType != x.DType {
				return errors.New("operands differ from the inferred ones")
			}
			t := qTable(x.DType, qScale(a.In[1]), qZero(a.In, 2), qScale(a.In[3]), qZero(a.In, 4), f)
			yb := y.Data()
			for i, b := range x.Data()[:x.NumElements()] {
				yb[i] = byte(t[b])
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 4, maxIn: 5, nOut: 1}, k), nil
	}
}

// softmaxTable is QLinearSoftmax's table of exponentials for reductions of
// d elements: entry i (0 to 255, i − 255 the distance below the row's
// maximum) is exp((i − 255 + shift)·x_scale) in float64, rounded to
// float32, where shift = max(0, ln(MaxFloat32/d) − 5)/x_scale keeps the
// row sums finite.
func softmaxTable(xs float32, d int64) *[256]float32 {
	var t [256]float32
	shift := math.Log(float64(float32(math.MaxFloat32) / float32(d)))
	shift = math.Max(0, shift-5) / float64(xs)
	for i := range 256 {
		t[i] = float32(expF(float64(float64(i-255)+shift) * float64(xs)))
	}
	return &t
}

// cvttU32 is x86-64's truncating conversion of an integral float32 to
// uint32 (through int64: the low 32 bits; 0 outside int64's range).
func cvttU32(v float32) uint32 {
	if !(v > -9223372036854775808 && v < 9223372036854775808) {
		return 0
	}
	return uint32(int64(v))
}

// cvttI32 is x86's truncating conversion of an integral float32 to int32
// (int32's minimum outside its range).
func cvttI32(v float32) int32 {
	if !(v >= -2147483648 && v < 2147483648) {
		return math.MinInt32
	}
	return int32(v)
}

func newQLinearSoftmax(attrs kernel.Attrs) (kernel.Kernel, error) {
	const op = "QLinearSoftmax"
	if err := attrs.Check("opset", "axis"); err != nil {
		return nil, wrapAttr(err)
	}
	if _, ok := attrs["opset"]; !ok {
		return nil, fmt.Errorf("ops: %s: attribute opset is required", op)
	}
	opset, err := attrs.Int("opset", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	// The schema's default, -1, at every opset (onnxruntime's kernel
	// reads it from the schema).
	axis, err := attrs.Int("axis", -1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	// check validates the operands and returns the normalized axis.
	check := func(in []*kernel.Tensor) (int, error) {
		x := in[0]
		if err := dtypeIn(x, "X", qTypes...); err != nil {
			return 0, err
		}
		r := int64(x.Shape.Rank())
		ax := axis
		if ax < 0 {
			ax += r
		}
		if ax < 0 || ax >= max(r, 1) {
			return 0, fmt.Errorf("attribute axis %d: out of range for rank %d", axis, r)
		}
		if err := qScaleIn(in[1], "X_scale"); err != nil {
			return 0, err
		}
		if err := qZeroIn(in, 2, "x_zero_point", x.DType); err != nil {
			return 0, err
		}
		if err := qScaleIn(in[3], "y_scale"); err != nil {
			return 0, err
		}
		return int(ax), qZeroIn(in, 4, "y_zero_point", x.DType)
	}
	k := &simple{flops: 4}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if _, err := check(in); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		ax, err := check(a.In)
		if err != nil {
			return err
		}
		x, y := a.In[0], a.Out[0]
		if !y.Shape.Equal(x.Shape) || y.DType != x.DType {
			return errors.New("operands differ from the inferred ones")
		}
		if xs := qScale(a.In[1]); !(xs > 0) || math.IsInf(float64(xs), 0) {
			return fmt.Errorf("input X_scale %g: want a positive finite scale (onnxruntime's table is undefined otherwise)", xs)
		}
		if x.NumElements() == 0 {
			return nil
		}
		// Rows of d elements, stride apart: before opset 13 the
		// flattened [N, D] at axis, from 13 the lines along axis.
		sh := x.Shape
		inner := int64(1)
		for i := ax + 1; i < len(sh); i++ {
			inner *= sh[i]
		}
		d, stride, lines := inner, int64(1), int64(1)
		if len(sh) > 0 {
			d = sh[ax] * inner
		}
		if opset >= 13 && len(sh) > 0 {
			d, stride, lines = sh[ax], inner, inner
		}
		table := softmaxTable(qScale(a.In[1]), d)
		ys := float32(math.Floor(float64(1 / qScale(a.In[3]))))
		yz := qZero(a.In, 4)
		dt, xb, yb := x.DType, x.Data(), y.Data()
		rows := x.NumElements() / d
		for r := range rows {
			base := r / lines * d * stride
			if lines > 1 {
				base += r % lines
			}
			xmax := int64(math.MinInt64)
			for j := range d {
				xmax = max(xmax, loadI(dt, xb, base+j*stride))
			}
			var sum float32
			for j := range d {
				sum += table[loadI(dt, xb, base+j*stride)-xmax+255]
			}
			for j := range d {
				i := base + j*stride
				v := float32(float32(table[loadI(dt, xb, i)-xmax+255]*ys) / sum)
				q := float32(math.RoundToEven(float64(v)))
				if dt == kernel.Uint8 {
					vq := cvttU32(q) + uint32(yz)
					yb[i] = byte(min(vq, 255))
					continue
				}
				vq := cvttI32(q) + int32(yz)
				yb[i] = byte(int8(min(max(vq, math.MinInt8), math.MaxInt8)))
			}
		}
		return nil
	}
	return newKernel(sig{op: op, minIn: 4, maxIn: 5, nOut: 1}, k), nil
}

func newQGemm(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("alpha", "transA", "transB"); err != nil {
		return nil, wrapAttr(err)
	}
	a64, err := attrs.Float("alpha", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	alpha := float32(a64)
	ta, err := attrs.Int("transA", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	tb, err := attrs.Int("transB", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	// check validates the operands and returns M, K, N and the output
	// dtype.
	check := func(in []*kernel.Tensor) (int64, int64, int64, kernel.DType, error) {
		a, b := in[0], in[3]
		fail := func(err error) (int64, int64, int64, kernel.DType, error) { return 0, 0, 0, 0, err }
		if err := dtypeIn(a, "A", qTypes...); err != nil {
			return fail(err)
		}
		if err := dtypeIn(b, "B", qTypes...); err != nil {
			return fail(err)
		}
		if a.DType == kernel.Int8 && b.DType != kernel.Int8 {
			return fail(fmt.Errorf("input B has dtype %v: with int8 A, B must be int8", b.DType))
		}
		if a.Shape.Rank() != 2 || b.Shape.Rank() != 2 {
			return fail(fmt.Errorf("inputs A %v and B %v: want both 2-D", a.Shape, b.Shape))
		}
		m, k := a.Shape[0], a.Shape[1]
		if ta != 0 {
			m, k = k, m
		}
		kb, n := b.Shape[0], b.Shape[1]
		if tb != 0 {
			kb, n = n, kb
		}
		if k != kb {
			return fail(fmt.Errorf("inputs A %v and B %v (transA %d, transB %d): inner dimensions %d and %d differ", a.Shape, b.Shape, ta, tb, k, kb))
		}
		if k == 0 {
			return fail(notImplemented("an empty inner dimension (K = 0) is not implemented"))
		}
		if err := qScaleIn(in[1], "a_scale"); err != nil {
			return fail(err)
		}
		if qAbsent(in[2]) {
			return fail(errors.New("input a_zero_point is required"))
		}
		if err := qZeroIn(in, 2, "a_zero_point", a.DType); err != nil {
			return fail(err)
		}
		bs, bz := in[4], in[5]
		if err := dtypeIn(bs, "b_scale", kernel.Float32); err != nil {
			return fail(err)
		}
		if qAbsent(bz) {
			return fail(errors.New("input b_zero_point is required"))
		}
		if bz.DType != b.DType {
			return fail(fmt.Errorf("input b_zero_point has dtype %v, want B's dtype %v", bz.DType, b.DType))
		}
		perB := func(t *kernel.Tensor) bool {
			return t.Shape.Rank() == 0 || t.Shape.Rank() == 1 && (t.Shape[0] == 1 || t.Shape[0] == n)
		}
		if !perB(bs) || !perB(bz) || !bs.Shape.Equal(bz.Shape) {
			return fail(fmt.Errorf("inputs b_scale %v and b_zero_point %v: want one shape, a scalar, [1] or [N] = [%d]", bs.Shape, bz.Shape, n))
		}
		if c := input(in, 6); !qAbsent(c) {
			if err := dtypeIn(c, "C", kernel.Int32); err != nil {
				return fail(err)
			}
			s := c.Shape
			ok := s.NumElements() == 1 && s.Rank() <= 2 ||
				s.Equal(kernel.Shape{n}) || s.Equal(kernel.Shape{1, n}) || s.Equal(kernel.Shape{m, 1}) || s.Equal(kernel.Shape{m, n})
			if !ok {
				return fail(fmt.Errorf("input C %v: want a scalar, [N], [1, N], [M, 1] or [M, N] (M = %d, N = %d)", s, m, n))
			}
		}
		ys, yz := input(in, 7), input(in, 8)
		if qAbsent(ys) != qAbsent(yz) {
			return fail(errors.New("inputs y_scale and y_zero_point: want both (a quantized Y) or neither (a float32 Y)"))
		}
		if qAbsent(ys) {
			return m, k, n, kernel.Float32, nil
		}
		if err := qScaleIn(ys, "y_scale"); err != nil {
			return fail(err)
		}
		if err := qZeroIn(in, 8, "y_zero_point", a.DType); err != nil {
			return fail(err)
		}
		return m, k, n, a.DType, nil
	}
	k := &simple{flops: 2}
	k.inferF = func(in, out []*kernel.Tensor) error {
		m, _, n, dt, err := check(in)
		if err != nil {
			return err
		}
		setShape(out[0], kernel.Shape{m, n}, dt)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		m, kk, n, dt, err := check(a.In)
		if err != nil {
			return err
		}
		y := a.Out[0]
		if !y.Shape.Equal(kernel.Shape{m, n}) || y.DType != dt {
			return errors.New("operands differ from the inferred ones")
		}
		A, B := a.In[0], a.In[3]
		ab, bb := A.Data(), B.Data()
		za := qZero(a.In, 2)
		bs, bz := a.In[4], a.In[5]
		scales := make([]float32, bs.NumElements())
		for i := range scales {
			v := float32(alpha * qScale(a.In[1]))
			v = float32(v * kernel.Float32s(bs.Data())[i])
			if dt != kernel.Float32 {
				v /= qScale(a.In[7])
			}
			scales[i] = v
		}
		var yz int64
		if dt != kernel.Float32 {
			yz = qZero(a.In, 8)
		}
		c := input(a.In, 6)
		if qAbsent(c) {
			c = nil
		}
		for i := range m {
			for j := range n {
				var acc int64
				if c != nil {
					ci := i*n + j
					switch s := c.Shape; {
					case s.NumElements() == 1:
						ci = 0
					case s.Rank() == 1 || s[0] == 1 && s[1] == n:
						ci = j
					case s[1] == 1:
						ci = i
					}
					acc = int64(kernel.Int32s(c.Data())[ci])
				}
				zb := loadI(bz.DType, bz.Data(), min(j, bz.NumElements()-1))
				for t := range kk {
					ai, bi := i*kk+t, t*n+j
					if ta != 0 {
						ai = t*m + i
					}
					if tb != 0 {
						bi = j*kk + t
					}
					acc += (loadI(A.DType, ab, ai) - za) * (loadI(B.DType, bb, bi) - zb)
				}
				sc := scales[min(j, int64(len(scales))-1)]
				o := i*n + j
				if dt == kernel.Float32 {
					kernel.Float32s(y.Data())[o] = float32(float32(int32(acc)) * sc)
					continue
				}
				storeI(dt, y.Data(), o, mlasRequant(dt, int32(acc), sc, yz))
			}
		}
		return nil
	}
	return newKernel(sig{op: "QGemm", minIn: 6, maxIn: 9, nOut: 1}, k), nil
}

// qBParam reports whether a scale or zero point of shape p applies to B
// of shape b as onnxruntime's MatMul integer kernels take it: one value, a
// value per column of a 2-D B, or per column of each matrix of B
// ([…, 1, N] of B's rank).
func qBParam(p, b kernel.Shape) bool {
	pr, br := p.Rank(), b.Rank()
	if pr == 0 || pr == 1 && p[0] == 1 {
		return true
	}
	if pr == 1 && br == 2 {
		return p[0] == b[1]
	}
	if pr != br || pr <= 1 || p[br-2] != 1 {
		return false
	}
	for i := range br {
		if i != br-2 && p[i] != b[i] {
			return false
		}
	}
	return true
}

func newQMatMulToFloat(dynamic bool) kernel.Factory {
	op, minIn, maxIn := "MatMulIntegerToFloat", 4, 7
	// The input positions: b_scale, b_zero_point, bias.
	ibs, ibz, ibias := 3, 5, 6
	if dynamic {
		op, minIn, maxIn = "DynamicQuantizeMatMul", 3, 5
		ibs, ibz, ibias = 2, 3, 4
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check(); err != nil {
			return nil, wrapAttr(err)
		}
		var mm matmul
		// check validates the operands and returns the output shape and
		// N.
		check := func(in []*kernel.Tensor) (kernel.Shape, int64, error) {
			a, b := in[0], in[1]
			if dynamic {
				if err := dtypeIn(a, "A", kernel.Float32); err != nil {
					return nil, 0, err
				}
			} else if err := dtypeIn(a, "A", kernel.Uint8); err != nil {
				return nil, 0, err
			}
			if err := dtypeIn(b, "B", qTypes...); err != nil {
				return nil, 0, err
			}
			var o kernel.Tensor
			ia, ib := &kernel.Tensor{DType: kernel.Int32, Shape: a.Shape}, &kernel.Tensor{DType: kernel.Int32, Shape: b.Shape}
			if err := mm.infer([]*kernel.Tensor{ia, ib}, []*kernel.Tensor{&o}); err != nil {
				return nil, 0, err
			}
			n := int64(1)
			if b.Shape.Rank() > 1 {
				n = b.Shape[b.Shape.Rank()-1]
			}
			if !dynamic {
				if err := qScaleIn(in[2], "a_scale"); err != nil {
					return nil, 0, err
				}
				if err := qZeroIn(in, 4, "a_zero_point", a.DType); err != nil {
					return nil, 0, err
				}
			}
			bs := in[ibs]
			if err := dtypeIn(bs, "b_scale", kernel.Float32); err != nil {
				return nil, 0, err
			}
			if !qBParam(bs.Shape, b.Shape) {
				return nil, 0, fmt.Errorf("input b_scale %v: want one value, [N] for a 2-D B, or [..., 1, N] of B's rank (B is %v)", bs.Shape, b.Shape)
			}
			if bz := input(in, ibz); !qAbsent(bz) {
				if bz.DType != b.DType {
					return nil, 0, fmt.Errorf("input b_zero_point has dtype %v, want B's dtype %v", bz.DType, b.DType)
				}
				if !qBParam(bz.Shape, b.Shape) {
					return nil, 0, fmt.Errorf("input b_zero_point %v: want one value, [N] for a 2-D B, or [..., 1, N] of B's rank (B is %v)", bz.Shape, b.Shape)
				}
			}
			if bias := input(in, ibias); !qAbsent(bias) {
				if err := dtypeIn(bias, "bias", kernel.Float32); err != nil {
					return nil, 0, err
				}
				if !bias.Shape.Equal(kernel.Shape{n}) {
					return nil, 0, fmt.Errorf("input bias %v: want [N] = [%d]", bias.Shape, n)
				}
			}
			return o.Shape, n, nil
		}
		k := &simple{flops: 2}
		k.inferF = func(in, out []*kernel.Tensor) error {
			s, _, err := check(in)
			if err != nil {
				return err
			}
			setShape(out[0], s, kernel.Float32)
			return nil
		}
		var qa []byte
		k.computeF = func(a *kernel.Args) error {
			s, n, err := check(a.In)
			if err != nil {
				return err
			}
			y := a.Out[0]
			if !y.Shape.Equal(s) || y.DType != kernel.Float32 {
				return errors.New("operands differ from the inferred ones")
			}
			A, B := a.In[0], a.In[1]
			var as float32
			var za int64
			aq := A
			if dynamic {
				x := kernel.Float32s(A.Data())[:A.NumElements()]
				var scale float32
				scale, za = dynQuantParams(x)
				if int64(cap(qa)) < A.NumElements() {
					qa = make([]byte, A.NumElements())
				}
				qa = qa[:A.NumElements()]
				for i, v := range x {
					qa[i] = byte(mlasQuantize(kernel.Uint8, v, scale, za))
				}
				aq = &kernel.Tensor{DType: kernel.Uint8, Shape: A.Shape, Host: qa}
				as = scale
			} else {
				as = qScale(a.In[2])
				za = qZero(a.In, 4)
			}
			bs := a.In[ibs]
			bz := input(a.In, ibz)
			if qAbsent(bz) {
				bz = nil
			}
			var bias []float32
			if t := input(a.In, ibias); !qAbsent(t) {
				bias = kernel.Float32s(t.Data())
			}
			bsv := kernel.Float32s(bs.Data())
			yv := kernel.Float32s(y.Data())
			qMatMul(aq, B, za, func(bBatch, j int64) int64 {
				if bz == nil {
					return 0
				}
				return loadI(bz.DType, bz.Data(), (bBatch*n+j)%bz.NumElements())
			}, func(o, bBatch, j int64, acc int32) {
				// a_scale·b_scale, per tensor or per column.
				sc := float32(as * bsv[(bBatch*n+j)%int64(len(bsv))])
				v := float32(float32(acc) * sc)
				if bias != nil {
					v += bias[j]
				}
				yv[o] = v
			})
			return nil
		}
		return newKernel(sig{op: op, minIn: minIn, maxIn: maxIn, nOut: 1}, k), nil
	}
}

// dynQuantParams is onnxruntime's dynamic quantization of a float32 A to
// uint8: scale (max − min)/255 over [min(0, min A), max(0, max A)] (1 when
// the range is empty), zero point round_half_even(clamp(0 − min/scale, 0,
// 255)), the extremes as mlasMinMax finds them and every step as
// onnxruntime's std::min and std::max take a NaN (a NaN extreme gives a
// NaN scale and the zero point 255).
func dynQuantParams(x []float32) (float32, int64) {
	lo, hi := mlasMinMax(x)
	lo, hi = stdMin(lo, 0), stdMax(hi, 0)
	scale := float32(1)
	if hi != lo {
		scale = (hi - lo) / 255
	}
	zp := stdMax(0, stdMin(255, 0-lo/scale))
	return scale, int64(math.RoundToEven(float64(zp)))
}

// stdMin and stdMax are C++'s std::min(a, b) and std::max(a, b): a unless
// b is strictly beyond it, so that a NaN b gives a and a NaN a gives a.
func stdMin(a, b float32) float32 {
	if b < a {
		return b
	}
	return a
}

func stdMax(a, b float32) float32 {
	if a < b {
		return b
	}
	return a
}

// maxps and minps are x86's MAXPS and MINPS on one lane: a when it is
// strictly beyond b, else b, so that a NaN on either side gives b.
func maxps(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

func minps(a, b float32) float32 {
	if a < b {
		return a
	}
	return b
}

// mlasMinMax is the least and the greatest element of x as onnxruntime's
// MLAS finds them on x86 (MlasReduceMinimumMaximumF32KernelAvx), the same
// on finite elements as a plain scan, and NaN as those instructions make
// it: eight lanes (four sets of them while 32 elements remain, merged set
// 1 into 0, 3 into 2, 2 into 0) keep the extreme of every eighth element
// by MAXPS and MINPS, the upper four lanes merge into the lower four and
// those into lane 0 (lanes 2 and 3 into 0 and 1, then 1 into 0), and the
// elements after the last eight follow by std::max and std::min. A NaN
// element is forgotten when its lane takes a later element and kept when
// it is its lane's last (an extreme of NaN); the tail skips NaNs.
func mlasMinMax(x []float32) (lo, hi float32) {
	lo, hi = math.MaxFloat32, -math.MaxFloat32
	if len(x) >= 8 {
		var mn, mx [4][8]float32
		for v := range mn {
			for l := range 8 {
				mn[v][l], mx[v][l] = lo, hi
			}
		}
		if len(x) >= 32 {
			for len(x) >= 32 {
				for v := range 4 {
					for l := range 8 {
						mn[v][l], mx[v][l] = minps(mn[v][l], x[8*v+l]), maxps(mx[v][l], x[8*v+l])
					}
				}
				x = x[32:]
			}
			for _, p := range [][2]int{{0, 1}, {2, 3}, {0, 2}} {
				for l := range 8 {
					mn[p[0]][l], mx[p[0]][l] = minps(mn[p[0]][l], mn[p[1]][l]), maxps(mx[p[0]][l], mx[p[1]][l])
				}
			}
		}
		for len(x) >= 8 {
			for l := range 8 {
				mn[0][l], mx[0][l] = minps(mn[0][l], x[l]), maxps(mx[0][l], x[l])
			}
			x = x[8:]
		}
		n, m := &mn[0], &mx[0]
		for l := range 4 {
			n[l], m[l] = minps(n[l], n[l+4]), maxps(m[l], m[l+4])
		}
		for l := range 2 {
			n[l], m[l] = minps(n[l], n[l+2]), maxps(m[l], m[l+2])
		}
		lo, hi = minps(n[0], n[1]), maxps(m[0], m[1])
	}
	for _, v := range x {
		lo, hi = stdMin(lo, v), stdMax(hi, v)
	}
	return lo, hi
}

// qMatMul walks the numpy matrix product of A − za and B − zb (int8 or
// uint8), calling f with each output index, B's matrix index, the column
// and the int32 sum.
func qMatMul(A, B *kernel.Tensor, za int64, zb func(bBatch, j int64) int64, f func(o, bBatch, j int64, acc int32)) {
	ra, rb := A.Shape.Rank(), B.Shape.Rank()
	m, kk, n := int64(1), A.Shape[ra-1], int64(1)
	if ra > 1 {
		m = A.Shape[ra-2]
	}
	if rb > 1 {
		n = B.Shape[rb-1]
	}
	pra, prb := max(ra, 2), max(rb, 2)
	ob := max(pra, prb) - 2
	abatch, bbatch := batchOf(A.Shape, pra, ob), batchOf(B.Shape, prb, ob)
	outBatch := make(kernel.Shape, ob)
	batch := int64(1)
	for i := range ob {
		outBatch[i] = broadcastDim(abatch[i], bbatch[i])
		batch *= outBatch[i]
	}
	ab, bb := A.Data(), B.Data()
	for p := range batch {
		pa, pb := batchPair(p, outBatch, abatch, bbatch)
		for i := range m {
			for j := range n {
				z := zb(pb, j)
				var acc int64
				for t := range kk {
					acc += (loadI(A.DType, ab, (pa*m+i)*kk+t) - za) * (loadI(B.DType, bb, (pb*kk+t)*n+j) - z)
				}
				f(p*m*n+i*n+j, pb, j, int32(acc))
			}
		}
	}
}
