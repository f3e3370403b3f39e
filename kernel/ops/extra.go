package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/pipert/pipert/kernel"
)

// extraBuiltins lists further ONNX ops, each a single pass (see simple):
//
//   - Hardmax (axis): 1 at the first maximum of each row (a NaN is the
//     maximum), else 0; before
//     opset 13 rows are the 2-D flattening at axis (default 1), from 13
//     the elements along axis (default −1).
//   - QuantizeLinear(x, y_scale[, y_zero_point]) (axis, from 13 for 1-D
//     scales): saturate(round-half-even(x / scale) + zero_point) to the zero
//     point's dtype (uint8 by default, int8, int16 or uint16); x float32,
//     float16, bfloat16, float64 or int32. From opset 19 y_scale has
//     x's dtype, and saturate (for float8 outputs, which pipert lacks) is
//     accepted as 0 or 1 and changes nothing; from 21 output_dtype (uint8,
//     int8, uint16 or int16, the zero point's dtype when both are given)
//     names the output dtype; from 23 precision, the dtype of the
//     division, may be 0 or y_scale's own dtype (the division as before),
//     or float32 for a float16 or bfloat16 scale. The division of float16,
//     bfloat16 and float32 operands rounds in float32 whatever the
//     precision, as onnxruntime's does (ONNX would round a float16
//     scale's in float16).
//   - DequantizeLinear(x, x_scale[, x_zero_point]) (axis): (x − zero_point)
//     · scale, in the scale's dtype; x int8, uint8, int16, uint16 or int32.
//     From opset 23
//     output_dtype may be 0 or the scale's dtype (onnxruntime computes no
//     other). Both take from opset 21 block_size B: with B > 0 the scale
//     and zero point have x's shape except on axis, where they have
//     ⌈D/B⌉ entries, the j-th serving x's entries jB … jB+B−1 there
//     (blocked quantization); a scalar scale (per tensor) needs B = 0, as
//     onnxruntime requires.
//   - GatherND(data, indices) (batch_dims from 12).
//   - EyeLike(input) (dtype, k): a 2-D tensor with ones on diagonal k.
//   - LRN(X) (alpha 1e-4, beta 0.75, bias 1, size): X / (bias +
//     alpha/size · Σ x² over the size channels around)^beta.
//   - MeanVarianceNormalization(X) (axes [0, 2, 3]): (X − mean) /
//     (√variance + 1e-9) over the axes; on an input of rank 1 to 3 the
//     default axes within its rank, as onnxruntime takes them. Before
//     opset 9 the experimental
//     form (across_channels, normalize_variance; see newMVN1).
//   - ReverseSequence(input, sequence_lens) (batch_axis 1, time_axis 0):
//     each batch entry's first sequence_lens steps reversed.
//   - Compress(input, condition) (axis): the slices (elements when axis is
//     absent, of the flattened input) where condition is true (past a
//     shorter condition's end none; a longer one's tail ignored, as
//     onnxruntime ignores it); condition is a value dependency, so the
//     output size is known before launch.
func extraBuiltins() []builtin {
	return []builtin{
		{"Hardmax", newHardmax},
		{"QuantizeLinear", newQuantize(true)},
		{"DequantizeLinear", newQuantize(false)},
		{"GatherND", newGatherND},
		{"EyeLike", newEyeLike},
		{"LRN", newLRN},
		{"MeanVarianceNormalization", newMVN},
		{"ReverseSequence", newReverseSequence},
		{"Compress", newCompress},
	}
}

func newHardmax(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if err := attrs.Check("axis"); err != nil {
		return nil, wrapAttr(err)
	}
	def := int64(-1)
	if opset < 13 {
		def = 1
	}
	axis, err := attrs.Int("axis", def)
	if err != nil {
		return nil, wrapAttr(err)
	}
	rows := func(s kernel.Shape) (outer, n, inner int64, err error) {
		a, err := kernel.NormAxis(axis, s.Rank())
		if err != nil {
			return 0, 0, 0, err
		}
		outer, n, inner = around(s, a)
		if opset < 13 {
			n, inner = n*inner, 1
		}
		return outer, n, inner, nil
	}
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "input", onnxFloats...); err != nil {
			return err
		}
		if _, _, _, err := rows(in[0].Shape); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		outer, n, inner, err := rows(x.Shape)
		if err != nil {
			return err
		}
		xb, ob := x.Data(), o.Data()
		clear(ob)
		for p := range outer {
			for q := range inner {
				best, at := math.Inf(-1), int64(-1)
				for j := range n {
					if v := loadF(x.DType, xb, (p*n+j)*inner+q); at < 0 || v > best || v != v && best == best { // the first NaN is the maximum
						best, at = v, j
					}
				}
				if at >= 0 {
					storeF(o.DType, ob, (p*n+at)*inner+q, 1)
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "Hardmax", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

func newQuantize(quantize bool) kernel.Factory {
	// The scale is of pipert's wide float types, or for QuantizeLinear
	// int32 (ONNX's y_scale is x's type at opsets 19 to 22, and may be
	// int32 from 23); ONNX's float8e8m0 scales (opset 24) are refused.
	op, scaleName, scaleTypes := "DequantizeLinear", "x_scale", onnxFloats
	if quantize {
		op, scaleName, scaleTypes = "QuantizeLinear", "y_scale", append(slices.Clip(onnxFloats), kernel.Int32)
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		opset, err := attrs.Opset(17)
		if err != nil {
			return nil, wrapAttr(err)
		}
		known := []string{"axis"}
		if quantize && opset >= 19 {
			known = append(known, "saturate")
		}
		if opset >= 21 {
			known = append(known, "block_size")
			if quantize || opset >= 23 {
				known = append(known, "output_dtype")
			}
		}
		if quantize && opset >= 23 {
			known = append(known, "precision")
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		// precision (QuantizeLinear) and output_dtype (DequantizeLinear)
		// from opset 23: their values are checked against the scale's
		// dtype.
		precision, err := onnxTypeAttr(attrs, "precision")
		if err != nil {
			return nil, err
		}
		var deqType onnxType
		if !quantize {
			if deqType, err = onnxTypeAttr(attrs, "output_dtype"); err != nil {
				return nil, err
			}
		}
		axis, err := attrs.Int("axis", 1)
		if err != nil {
			return nil, wrapAttr(err)
		}
		// saturate only concerns float8 outputs.
		saturate, err := flagAttr(attrs, "saturate", true)
		if err != nil {
			return nil, wrapAttr(err)
		}
		block, err := attrs.Int("block_size", 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		if block < 0 {
			return nil, fmt.Errorf("ops: %s: block_size %d is negative", op, block)
		}
		var outType kernel.DType
		if quantize {
			if outType, err = quantOutputDType(attrs, op); err != nil {
				return nil, err
			}
		}
		// at returns the scale index of element i of x.
		at := func(x, scale *kernel.Tensor) (func(i int64) int64, error) {
			if perTensor(scale) {
				if block != 0 {
					return nil, fmt.Errorf("block_size %d with a per-tensor scale %v: want 0", block, scale.Shape)
				}
				return func(int64) int64 { return 0 }, nil
			}
			a, err := kernel.NormAxis(axis, x.Shape.Rank())
			if err != nil {
				return nil, err
			}
			if block > 0 {
				want := x.Shape.Clone()
				want[a] = (x.Shape[a] + block - 1) / block
				if !scale.Shape.Equal(want) {
					return nil, fmt.Errorf("scale %v: want %v for blocks of %d on axis %d of %v", scale.Shape, want, block, a, x.Shape)
				}
				_, n, inner := around(x.Shape, a)
				blocks := want[a]
				return func(i int64) int64 {
					return (i/(n*inner)*blocks+i/inner%n/block)*inner + i%inner
				}, nil
			}
			if scale.Shape.Rank() != 1 || scale.Shape[0] != x.Shape[a] {
				return nil, fmt.Errorf("scale %v: want a scalar or [%d] (axis %d of %v)", scale.Shape, x.Shape[a], a, x.Shape)
			}
			_, n, inner := around(x.Shape, a)
			return func(i int64) int64 { return i / inner % n }, nil
		}
		k := &simple{flops: 3}
		k.inferF = func(in, out []*kernel.Tensor) error {
			x, scale := in[0], in[1]
			zp := zeroPoint(in)
			if _, err := at(x, scale); err != nil {
				return err
			}
			if err := dtypeIn(scale, scaleName, scaleTypes...); err != nil {
				return err
			}
			if zp != nil && !zp.Shape.Equal(scale.Shape) && (!perTensor(zp) || !perTensor(scale)) {
				return fmt.Errorf("zero point %v and scale %v differ in shape", zp.Shape, scale.Shape)
			}
			if quantize {
				if err := dtypeIn(x, "x", kernel.Float32, kernel.Float16, kernel.Float64, kernel.BFloat16, kernel.Int32); err != nil {
					return err
				}
				if opset >= 19 {
					if err := checkSameDType(scale, "y_scale", x, "x"); err != nil {
						return err
					}
				}
				half := scale.DType == kernel.Float16 || scale.DType == kernel.BFloat16
				if !precision.none() && precision.dt != scale.DType && (precision.dt != kernel.Float32 || !half) {
					want := fmt.Sprintf("0 or %s", onnxTypeName(scale.DType))
					if half {
						want += " or " + onnxTypeName(kernel.Float32)
					}
					return fmt.Errorf("precision %s with a %v y_scale: want %s", precision, scale.DType, want)
				}
				dt := kernel.Uint8
				if outType != 0 {
					dt = outType
				}
				if zp != nil {
					if err := dtypeIn(zp, "y_zero_point", quantTypes...); err != nil {
						return err
					}
					if outType != 0 && zp.DType != outType {
						return fmt.Errorf("output_dtype %v and y_zero_point's dtype %v differ", outType, zp.DType)
					}
					dt = zp.DType
				}
				setShape(out[0], x.Shape, dt)
				return nil
			}
			if err := dtypeIn(x, "x", dequantTypes...); err != nil {
				return err
			}
			if zp != nil {
				if err := checkSameDType(zp, "x_zero_point", x, "x"); err != nil {
					return err
				}
			}
			if !deqType.none() && deqType.dt != scale.DType {
				return fmt.Errorf("output_dtype %s with a %v x_scale: want 0 or %s (the output has the scale's dtype)", deqType, scale.DType, onnxTypeName(scale.DType))
			}
			setShape(out[0], x.Shape, scale.DType)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			x, scale, o := a.In[0], a.In[1], a.Out[0]
			zp := zeroPoint(a.In)
			idx, err := at(x, scale)
			if err != nil {
				return err
			}
			xb, sb, ob := x.Data(), scale.Data(), o.Data()
			l, h := o.DType.IntRange()
			lo, hi := float64(l), float64(h)
			for i := range x.NumElements() {
				j := idx(i)
				s := loadF(scale.DType, sb, j)
				var z float64
				if zp != nil {
					z = loadF(zp.DType, zp.Data(), j)
				}
				if quantize {
					v := loadF(x.DType, xb, i) / s
					if x.DType != kernel.Float64 {
						// The division rounds in float32, as the reference's.
						v = float64(float32(loadF(x.DType, xb, i)) / float32(s))
					}
					if o.DType.IsFloat() {
						// A float 8 output ignores its zero point (ONNX
						// requires it 0); float4e2m1 adds it.
						if o.DType == kernel.Float4E2M1 {
							v += z
						}
						ob[i] = kernel.F64ToF8(o.DType, v, saturate)
						continue
					}
					q := math.RoundToEven(v) + z
					if q != q {
						q = lo // a NaN quotient: the type's minimum, as onnxruntime's clamp gives
					}
					storeI(o.DType, ob, i, int64(math.Max(lo, math.Min(hi, q))))
				} else {
					// One product rounded to float64 and then to the
					// scale's dtype rounds as once: float64 has more than
					// twice float32's bits. A float64 scale keeps them.
					storeF(o.DType, ob, i, (loadF(x.DType, xb, i)-z)*s)
				}
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 2, maxIn: 3, nOut: 1}, k), nil
	}
}

// perTensor reports whether a scale or zero point of QuantizeLinear or
// DequantizeLinear is per-tensor: one element, a scalar or of shape [1]. A
// per-tensor zero point goes with a per-tensor scale of either shape, as
// in ONNX's reference implementation and onnxruntime (the operator text
// asks for equal shapes; its node tests pair a scalar scale with a [1]
// zero point).
func perTensor(t *kernel.Tensor) bool { return t.NumElements() == 1 && t.Shape.Rank() <= 1 }

// zeroPoint returns the zero point of QuantizeLinear or DequantizeLinear
// (input 2), nil when absent. A zero point of no elements (per axis, along
// an axis of length 0) is there: its dtype is the output's.
func zeroPoint(in []*kernel.Tensor) *kernel.Tensor {
	if len(in) < 3 || in[2].NumElements() == 0 && in[2].DType == kernel.Float32 {
		return nil
	}
	return in[2]
}

// quantTypes are the quantized dtypes QuantizeLinear outputs.
var quantTypes = []kernel.DType{kernel.Uint8, kernel.Int8, kernel.Uint16, kernel.Int16, kernel.Uint4, kernel.Int4,
	kernel.Uint2, kernel.Int2, kernel.Float8E4M3FN, kernel.Float8E4M3FNUZ, kernel.Float8E5M2, kernel.Float8E5M2FNUZ,
	kernel.Float4E2M1}

// dequantTypes are the dtypes DequantizeLinear takes: the quantized ones
// and int32.
var dequantTypes = append(slices.Clip(quantTypes), kernel.Int32)

// quantOutputDType reads QuantizeLinear's output_dtype (opset 21), a
// TensorProto data type: 0 (absent) or one of quantTypes'.
func quantOutputDType(attrs kernel.Attrs, op string) (kernel.DType, error) {
	const want = "want uint8 (2), int8 (3), uint16 (4), int16 (5), a float 8 type (17 to 20), uint4 (21), int4 (22), float4e2m1 (23), uint2 (25) or int2 (26)"
	v, ok := attrs["output_dtype"]
	if !ok {
		return 0, nil
	}
	if dt, ok := v.(kernel.DType); ok {
		if dtypeIn(&kernel.Tensor{DType: dt}, "", quantTypes...) != nil {
			return 0, fmt.Errorf("ops: %s: output_dtype %v: %s", op, dt, want)
		}
		return dt, nil
	}
	i, err := attrs.Int("output_dtype", 0)
	if err != nil {
		return 0, wrapAttr(err)
	}
	if i == 0 {
		return 0, nil
	}
	if dt, ok := onnxCodes[i]; ok && slices.Contains(quantTypes, dt) {
		return dt, nil
	}
	return 0, fmt.Errorf("ops: %s: output_dtype %d is not a quantized type: %s", op, i, want)
}

// onnxType is an attribute naming an ONNX TensorProto data type: its
// code, and the pipert dtype of that code (0 for a type pipert lacks).
// A kernel.DType value stands for its own code.
type onnxType struct {
	code int64
	dt   kernel.DType
}

// onnxCodes are the TensorProto codes of pipert's dtypes.
var onnxCodes = map[int64]kernel.DType{1: kernel.Float32, 2: kernel.Uint8, 3: kernel.Int8, 4: kernel.Uint16,
	5: kernel.Int16, 6: kernel.Int32, 7: kernel.Int64, 9: kernel.Bool, 10: kernel.Float16, 11: kernel.Float64,
	12: kernel.Uint32, 13: kernel.Uint64, 16: kernel.BFloat16, 17: kernel.Float8E4M3FN, 18: kernel.Float8E4M3FNUZ,
	19: kernel.Float8E5M2, 20: kernel.Float8E5M2FNUZ, 21: kernel.Uint4, 22: kernel.Int4, 23: kernel.Float4E2M1,
	24: kernel.Float8E8M0, 25: kernel.Uint2, 26: kernel.Int2}

// onnxTypeAttr reads attribute name as an onnxType; absent, it is 0.
func onnxTypeAttr(attrs kernel.Attrs, name string) (onnxType, error) {
	v, ok := attrs[name]
	if !ok {
		return onnxType{}, nil
	}
	if dt, ok := v.(kernel.DType); ok {
		for c, d := range onnxCodes {
			if d == dt {
				return onnxType{code: c, dt: dt}, nil
			}
		}
		return onnxType{}, fmt.Errorf("ops: attribute %q: dtype %v has no ONNX type", name, dt)
	}
	c, err := attrs.Int(name, 0)
	if err != nil {
		return onnxType{}, wrapAttr(err)
	}
	return onnxType{code: c, dt: onnxCodes[c]}, nil
}

// none reports whether the attribute is absent or 0.
func (t onnxType) none() bool { return t.code == 0 }

func (t onnxType) String() string {
	if t.dt != 0 {
		return onnxTypeName(t.dt)
	}
	return fmt.Sprintf("%d (not one of pipert's dtypes)", t.code)
}

// onnxTypeName is dtype dt with its TensorProto code.
func onnxTypeName(dt kernel.DType) string {
	for c, d := range onnxCodes {
		if d == dt {
			return fmt.Sprintf("%v (%d)", dt, c)
		}
	}
	return dt.String()
}

func newGatherND(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("batch_dims"); err != nil {
		return nil, wrapAttr(err)
	}
	b, err := attrs.Int("batch_dims", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	geom := func(x, ix kernel.Shape) (kernel.Shape, error) {
		q, r := ix.Rank(), x.Rank()
		if b < 0 || int(b) >= min(q, r) {
			return nil, fmt.Errorf("batch_dims %d: want 0 to min(rank of indices, data) − 1", b)
		}
		// An empty index tuple (indices [..., 0]) gathers whole slices,
		// as onnxruntime and ONNX's reference do (the spec asks for 1 or
		// more).
		last := ix[q-1]
		if last < 0 || int(b)+int(last) > r {
			return nil, fmt.Errorf("indices %v address more of data %v than it has", ix, x)
		}
		if !x[:b].Equal(ix[:b]) {
			return nil, fmt.Errorf("batch dimensions of data %v and indices %v differ", x, ix)
		}
		return append(ix[:q-1].Clone(), x[int(b)+int(last):]...), nil
	}
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if !isIndex(in[1].DType) {
			return fmt.Errorf("input indices has dtype %v, want int64", in[1].DType)
		}
		s, err := geom(in[0].Shape, in[1].Shape)
		if err != nil {
			return err
		}
		setShape(out[0], s, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, ix, o := a.In[0], a.In[1], a.Out[0]
		q := ix.Shape.Rank()
		last := ix.Shape[q-1]
		batch := x.Shape[:b].NumElements()
		perBatch := ix.Shape[b : q-1].NumElements()
		slice := x.Shape[int(b)+int(last):].NumElements()
		xBatch := x.Shape[b:].NumElements()
		size := int64(o.DType.Size())
		xb, ib, ob := x.Data(), ix.Data(), o.Data()
		for bi := range batch {
			for t := range perBatch {
				tuple := (bi*perBatch + t) * last
				off := int64(0)
				for d := range last {
					dim := x.Shape[int(b)+int(d)]
					j := loadI(ix.DType, ib, tuple+d)
					if j < 0 {
						j += dim
					}
					if j < 0 || j >= dim {
						return fmt.Errorf("index %d out of range for dimension %d of data %v", loadI(ix.DType, ib, tuple+d), int(b)+int(d), x.Shape)
					}
					off = off*dim + j
				}
				for e := range slice {
					copyElem(ob, (bi*perBatch+t)*slice+e, xb, bi*xBatch+off*slice+e, size)
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "GatherND", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

func newEyeLike(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("dtype", "k"); err != nil {
		return nil, wrapAttr(err)
	}
	diag, err := attrs.Int("k", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	var dt kernel.DType
	if _, ok := attrs["dtype"]; ok {
		if dt, err = attrs.DType("dtype", 0); err != nil {
			return nil, wrapAttr(err)
		}
	}
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if in[0].Shape.Rank() != 2 {
			return fmt.Errorf("input %v: want rank 2", in[0].Shape)
		}
		d := dt
		if d == 0 {
			d = in[0].DType
		}
		if err := checkHasZero(d, "the output"); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, d)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		o := a.Out[0]
		ob := o.Data()
		clear(ob)
		rows, cols := o.Shape[0], o.Shape[1]
		for r := range rows {
			if c := r + diag; c >= 0 && c < cols {
				storeF(o.DType, ob, r*cols+c, 1)
			}
		}
		return nil
	}
	return newKernel(sig{op: "EyeLike", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

func newLRN(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("alpha", "beta", "bias", "size"); err != nil {
		return nil, wrapAttr(err)
	}
	var p [3]float64
	for i, a := range []struct {
		name string
		def  float64
	}{{"alpha", 1e-4}, {"beta", 0.75}, {"bias", 1}} {
		v, err := attrs.Float(a.name, a.def)
		if err != nil {
			return nil, wrapAttr(err)
		}
		p[i] = float64(float32(v))
	}
	size, err := attrs.Int("size", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if size < 1 {
		return nil, fmt.Errorf("ops: LRN: attribute size is required and must be positive")
	}
	k := &simple{flops: float64(size + 4)}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "X", onnxFloats...); err != nil {
			return err
		}
		if in[0].Shape.Rank() < 3 {
			return fmt.Errorf("input %v: want [N,C,D…]", in[0].Shape)
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		n, c := x.Shape[0], x.Shape[1]
		sp := x.Shape[2:].NumElements()
		xb, ob := x.Data(), o.Data()
		lo, hi := (size-1)/2, size-1-(size-1)/2
		for ni := range n {
			for ci := range c {
				for s := range sp {
					var sq float64
					for cj := max(0, ci-lo); cj <= min(c-1, ci+hi); cj++ {
						v := loadF(x.DType, xb, (ni*c+cj)*sp+s)
						sq += mul64(v, v)
					}
					i := (ni*c+ci)*sp + s
					storeF(o.DType, ob, i, loadF(x.DType, xb, i)/math.Pow(p[2]+mul64(p[0]/float64(size), sq), p[1]))
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "LRN", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// mvnEpsilon is the constant of ONNX's MeanVarianceNormalization function
// body, a float 1e-9 added to the standard deviation: y = (x − E[x]) /
// (√Var[x] + 1e-9). The variance accumulates from the centred values.
var mvnEpsilon = float64(float32(1e-9))

func newMVN(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(13)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if opset < 9 {
		return newMVN1(attrs)
	}
	if err := attrs.Check("axes"); err != nil {
		return nil, wrapAttr(err)
	}
	axes, err := attrs.Ints("axes", []int64{0, 2, 3})
	if err != nil {
		return nil, wrapAttr(err)
	}
	red := reduction{op: "ReduceMean"}
	red.axes.hasAxes, red.axes.axes, red.axes.keep = true, axes, true
	// The default axes on an input of rank 1 to 3: those within its rank,
	// as onnxruntime takes them.
	_, given := attrs["axes"]
	var low [4]reduceSum
	for r := 1; r < 4; r++ {
		low[r] = reduceSum{hasAxes: true, keep: true}
		for _, a := range axes {
			if a < int64(r) {
				low[r].axes = append(low[r].axes, a)
			}
		}
	}
	axesOf := func(x *kernel.Tensor) *reduceSum {
		if r := x.Shape.Rank(); !given && r >= 1 && r < 4 {
			return &low[r]
		}
		return &red.axes
	}
	var mean, sq []float64
	var w bcast
	k := &simple{flops: 6}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := dtypeIn(in[0], "X", onnxFloats...); err != nil {
			return err
		}
		if _, err := axesOf(in[0]).reduceAxes(in); err != nil {
			return err
		}
		setShape(out[0], in[0].Shape, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, o := a.In[0], a.Out[0]
		ra := axesOf(x)
		ax, err := ra.reduceAxes(a.In)
		if err != nil {
			return err
		}
		r := x.Shape.Rank()
		keep := x.Shape.Clone()
		count := int64(1)
		for i := range r {
			if ra.reduced(ax, i, r) {
				count *= keep[i]
				keep[i] = 1
			}
		}
		m := keep.NumElements()
		if int64(cap(mean)) < m {
			mean, sq = make([]float64, m), make([]float64, m)
		}
		mean, sq = mean[:m], sq[:m]
		clear(mean)
		clear(sq)
		xb, ob := x.Data(), o.Data()
		n := x.NumElements()
		for pass := range 3 {
			if err := w.set(x.Shape, keep); err != nil {
				return err
			}
			for i := range n {
				j := w.off[0]
				v := loadF(x.DType, xb, i)
				switch pass {
				case 0:
					mean[j] += v / float64(count)
				case 1:
					d := v - mean[j]
					sq[j] += d * d / float64(count)
				default:
					storeF(o.DType, ob, i, (v-mean[j])/(math.Sqrt(sq[j])+mvnEpsilon))
				}
				w.next()
			}
		}
		return nil
	}
	return newKernel(sig{op: "MeanVarianceNormalization", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

func newReverseSequence(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("batch_axis", "time_axis"); err != nil {
		return nil, wrapAttr(err)
	}
	ba, err := attrs.Int("batch_axis", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	ta, err := attrs.Int("time_axis", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if ba == ta || ba < 0 || ba > 1 || ta < 0 || ta > 1 {
		return nil, fmt.Errorf("ops: ReverseSequence: batch_axis %d and time_axis %d must be 0 and 1", ba, ta)
	}
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, l := in[0], in[1]
		if x.Shape.Rank() < 2 {
			return fmt.Errorf("input %v: want rank 2 or more", x.Shape)
		}
		if !l.Shape.Equal(kernel.Shape{x.Shape[ba]}) || l.DType != kernel.Int64 {
			return fmt.Errorf("sequence_lens is %v, want int64[%d]", l, x.Shape[ba])
		}
		setShape(out[0], x.Shape, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, l, o := a.In[0], a.In[1], a.Out[0]
		inner := x.Shape[2:].NumElements()
		size := int64(o.DType.Size())
		xb, ob := x.Data(), o.Data()
		at := func(t, b int64) int64 {
			if ta == 0 {
				return (t*x.Shape[1] + b) * inner
			}
			return (b*x.Shape[1] + t) * inner
		}
		steps := x.Shape[ta]
		for b := range x.Shape[ba] {
			n := loadI(l.DType, l.Data(), b)
			if n < 0 || n > steps {
				return fmt.Errorf("sequence_lens[%d] is %d, want 0 to %d", b, n, steps)
			}
			for t := range steps {
				src := t
				if t < n {
					src = n - 1 - t
				}
				for e := range inner {
					copyElem(ob, at(t, b)+e, xb, at(src, b)+e, size)
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "ReverseSequence", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

func newCompress(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis"); err != nil {
		return nil, wrapAttr(err)
	}
	_, hasAxis := attrs["axis"]
	axis, err := attrs.Int("axis", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	// geometry returns outer, the axis length, inner (flattened input when
	// there is no axis) and the kept count.
	geometry := func(x, cond *kernel.Tensor) (outer, n, inner, kept int64, err error) {
		if cond.DType != kernel.Bool || cond.Shape.Rank() != 1 {
			return 0, 0, 0, 0, fmt.Errorf("condition is %v, want a 1-D bool", cond)
		}
		if cond.Host == nil && cond.NumElements() > 0 {
			return 0, 0, 0, 0, fmt.Errorf("values of condition are not available")
		}
		outer, n, inner = 1, x.NumElements(), 1
		if hasAxis {
			a, err := kernel.NormAxis(axis, x.Shape.Rank())
			if err != nil {
				return 0, 0, 0, 0, err
			}
			outer, n, inner = around(x.Shape, a)
		}
		// A condition longer than the axis has its tail ignored, as
		// onnxruntime ignores it (ONNX says only what a shorter one does).
		for _, c := range cond.Host[:min(n, cond.NumElements())] {
			if c != 0 {
				kept++
			}
		}
		return outer, n, inner, kept, nil
	}
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		_, _, _, kept, err := geometry(in[0], in[1])
		if err != nil {
			return err
		}
		s := kernel.Shape{kept}
		if hasAxis {
			a, _ := kernel.NormAxis(axis, in[0].Shape.Rank())
			s = in[0].Shape.Clone()
			s[a] = kept
		}
		setShape(out[0], s, in[0].DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, cond, o := a.In[0], a.In[1], a.Out[0]
		outer, n, inner, kept, err := geometry(x, cond)
		if err != nil {
			return err
		}
		size := int64(o.DType.Size())
		xb, ob, cb := x.Data(), o.Data(), cond.Host
		for p := range outer {
			j := int64(0)
			for i := range min(n, cond.NumElements()) {
				if cb[i] == 0 {
					continue
				}
				for e := range inner {
					copyElem(ob, (p*kept+j)*inner+e, xb, (p*n+i)*inner+e, size)
				}
				j++
			}
		}
		return nil
	}
	return newKernel(sig{op: "Compress", minIn: 2, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, k), nil
}
