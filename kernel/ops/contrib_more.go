package ops

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// contribMoreOps are more of onnxruntime's contrib ops (domain
// com.microsoft), those of BERT exports optimized by onnxruntime and of
// models saved after onnxruntime's graph optimizations, each computed as
// onnxruntime's CPU kernel computes it.
//
//   - EmbedLayerNormalization(input_ids, segment_ids, word_embedding,
//     position_embedding, segment_embedding, gamma, beta[, mask[,
//     position_ids]]) (epsilon 1e-12, mask_index_type accepted) → output,
//     mask_index, embedding_sum: for each token (b, s) the float32 sum e =
//     word_embedding[input_ids[b,s]] + position_embedding[p] (+
//     segment_embedding[segment_ids[b,s]] when segment_ids is given), with
//     p = s, or position_ids[b,s] ([batch, S]), or position_ids[0,s] ([1,
//     S]); embedding_sum is e and output its layer normalization,
//     y = (e − mean)/√(mean((e − mean)²) + epsilon)·gamma + beta, in
//     float32 as onnxruntime: sums in ascending order, (e − mean)/σ
//     rounded, then times gamma, then plus beta. mask_index (int32
//     [batch]) counts the mask's ones in each row, 0 without a mask.
//     input_ids, segment_ids, mask and position_ids are int32 [batch, S];
//     the embeddings are [rows, H], gamma and beta [H], all float32 or
//     all float16; float16 computes in float32 and rounds output and
//     embedding_sum once, as onnxruntime's CPU provider runs it (it has
//     no float16 kernel and casts around the float32 one). An id out
//     of its table's rows, or segment_ids without segment_embedding, is an
//     error (onnxruntime reports "input index out of range"; a negative
//     position, which onnxruntime reads outside its table, is one too).
//     segment_ids and segment_embedding may be omitted (DistilBERT): then
//     no segment is added.
//   - FusedConv(X, W[, B[, Z]]) (Conv's attributes; activation,
//     activation_params) and FusedGemm(A, B[, C]) (Gemm's attributes;
//     activation required, activation_alpha, activation_beta,
//     activation_gamma): float32 Conv and Gemm, as pipert's Conv and Gemm
//     compute them, then FusedConv adds Z (of Y's shape) before the bias,
//     y = (conv + z) + b as onnxruntime's MLAS does, and both apply the
//     activation. FusedConv's activations are MLAS's: Relu, Tanh,
//     Sigmoid, LeakyRelu (activation_params [alpha]), Clip ([min, max]),
//     HardSigmoid ([alpha, beta]: min(max(alpha·y + beta, 0), 1), the
//     product rounded); none is the identity. FusedGemm's are onnxruntime's
//     element-wise functors: Relu, Tanh, Sigmoid, LeakyRelu (alpha),
//     HardSigmoid (alpha, beta), Elu (alpha), Selu (alpha, gamma),
//     ThresholdedRelu (alpha), Softsign, Softplus, each parameter required
//     as onnxruntime requires it. Sigmoid is MLAS's approximation (as
//     QLinearSigmoid's); Tanh and Softplus (log(1 + e^x), as x +
//     log(1 + e^−x) above 0) evaluate in float64 and round once (MLAS's
//     and onnxruntime's approximations agree to a few units in the last
//     place); Elu alpha·(e^x − 1), Selu gamma·(max(x, 0) + min(alpha·(e^x
//     − 1), 0)) and Softsign (1/(1 + |x|))·x are the functors' float32
//     operations in their order, e^x rounded to float32 where Eigen's
//     approximation may differ by a unit in the last place (which the
//     subtraction of 1 magnifies near 0). The matrix products agree with
//     onnxruntime's to float32 rounding, not bit for bit.
//   - MSQuantizeLinear(x, y_scale[, y_zero_point]) and
//     MSDequantizeLinear(x, x_scale[, x_zero_point]) (axis 1):
//     com.microsoft's QuantizeLinear and DequantizeLinear, those of
//     onnxruntime's QDQ models of 16-bit integers, per tensor or per axis,
//     with the default domain's checks (opset 19), computed as
//     onnxruntime's kernels compute them: q = clamp(round_half_even(x /
//     scale) + zp), the division in float32, a NaN quotient giving the
//     type's minimum (as MLAS's clamp gives it); y = float32(x − zp)·scale,
//     x − zp in int32 (wrapping for int32 x), the product in float32,
//     then rounded to float16 for a float16 scale (as onnxruntime rounds
//     twice). The forms are onnxruntime's kernels': QuantizeLinear
//     takes float32 or float16 x with a scale of x's dtype and gives
//     uint8 (without a zero point), int8, uint16 or int16;
//     DequantizeLinear takes uint8, int8, uint16, int16 or int32 x (the
//     zero point of x's dtype) and a float32 or float16 scale, the
//     output's dtype. axis is the only attribute (block_size and saturate
//     are refused, as onnxruntime's schema refuses them).
//   - MSTrilu(input[, k]) (upper 1): com.microsoft's Trilu, the default
//     domain's on the dtypes of onnxruntime's kernel: float32, float64,
//     float16 and int64 (k int64).
//   - ExpandDims(X, axis): X with a dimension of 1 inserted at axis (an
//     int32 scalar, a value dependency, in [−r−1, r] for X of rank r;
//     negative counts from the end), any dtype.
//   - NhwcMaxPool(x) (kernel_shape required; auto_pad, pads, strides,
//     dilations, ceil_mode): the maximum of each window of x [N,
//     spatial…, C] (uint8 or int8, one or more spatial dimensions), the
//     output [N, out…, C], with onnxruntime's geometry (see nhwcMaxPool:
//     SAME_UPPER and SAME_LOWER pad as if undilated); a tap outside the
//     input reads the type's minimum, as onnxruntime pads. Pads not
//     smaller than the kernel are refused, as onnxruntime refuses them,
//     and so are pads with auto_pad (which onnxruntime ignores); a
//     window that fits nowhere leaves an empty output, as in
//     onnxruntime, and a negative output size is an error.
//   - Inverse(X): the inverse of each matrix of X [..., n, n], float32 or
//     float64, as onnxruntime's Eigen computes it: LU with partial
//     pivoting (the first largest |pivot|, row swaps, the column divided
//     by the pivot, the rank-1 update of the rest), then the permuted
//     identity solved forward with L (unit diagonal) and backward with U,
//     each element's dot product accumulated in ascending order and the
//     backward step multiplied by 1/u_ii, all in X's type. A singular
//     matrix gives infinities or NaNs, as in onnxruntime. Eigen blocks
//     larger matrices, so results agree to rounding, not bit for bit;
//     float16 (which onnxruntime computes in float16 arithmetic) is
//     refused.
//   - GatherBlockQuantized(data, indices, scales[, zero_points])
//     (gather_axis, quantize_axis, block_size, bits; UnpackedAttr): the
//     embedding lookup of block-quantized language models, Gather then
//     per-block dequantization; see gatherBlockQuantized.
var contribMoreOps = []builtin{
	{"EmbedLayerNormalization", newEmbedLayerNorm},
	{"FusedConv", newFusedConv},
	{"FusedGemm", newFusedGemm},
	{"MSQuantizeLinear", newMSQuantize(true)},
	{"MSDequantizeLinear", newMSQuantize(false)},
	{"MSTrilu", newMSTrilu},
	{"ExpandDims", newExpandDims},
	{"NhwcMaxPool", newNhwcMaxPool},
	{"Inverse", newInverse},
	{"GatherBlockQuantized", newGatherBlockQuantized},
}

func newEmbedLayerNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("epsilon", "mask_index_type"); err != nil {
		return nil, wrapAttr(err)
	}
	eps, err := attrs.Float("epsilon", 1e-12)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if _, err := attrs.Int("mask_index_type", 1); err != nil {
		return nil, wrapAttr(err)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("ops: EmbedLayerNormalization: attribute \"epsilon\" is %v, want a finite number ≥ 0", eps)
	}
	epsF := float32(eps)
	var scratch []float32 // float16 operands' rows widened, kept from run to run
	k := &simple{flops: 8}
	k.inferF = func(in, out []*kernel.Tensor) error {
		ids := in[0]
		if err := dtypeIn(ids, "input_ids", kernel.Int32); err != nil {
			return err
		}
		if ids.Shape.Rank() != 2 {
			return fmt.Errorf("input_ids %v: want 2 dimensions [batch, sequence]", ids.Shape)
		}
		batch, seq := ids.Shape[0], ids.Shape[1]
		for _, c := range []struct {
			i    int
			name string
		}{{1, "segment_ids"}, {7, "mask"}} {
			t := optional(in, c.i)
			if t == nil {
				continue
			}
			if err := dtypeIn(t, c.name, kernel.Int32); err != nil {
				return err
			}
			if !t.Shape.Equal(ids.Shape) {
				return fmt.Errorf("input %s %v: want input_ids' shape %v", c.name, t.Shape, ids.Shape)
			}
		}
		if p := optional(in, 8); p != nil {
			if err := dtypeIn(p, "position_ids", kernel.Int32); err != nil {
				return err
			}
			if p.Shape.Rank() != 2 || p.Shape[1] != seq || p.Shape[0] != batch && p.Shape[0] != 1 {
				return fmt.Errorf("input position_ids %v: want [%d, %d] or [1, %d]", p.Shape, batch, seq, seq)
			}
		}
		we := in[2]
		if err := dtypeIn(we, "word_embedding", kernel.Float32, kernel.Float16); err != nil {
			return err
		}
		dt := we.DType
		if we.Shape.Rank() != 2 {
			return fmt.Errorf("input word_embedding %v: want 2 dimensions [vocabulary, hidden]", we.Shape)
		}
		h := we.Shape[1]
		for _, c := range []struct {
			i    int
			name string
		}{{3, "position_embedding"}, {4, "segment_embedding"}} {
			t := in[c.i]
			if c.i == 4 && optional(in, 4) == nil {
				continue
			}
			if t.DType != dt {
				return fmt.Errorf("input %s has dtype %v, want word_embedding's %v", c.name, t.DType, dt)
			}
			if t.Shape.Rank() != 2 || t.Shape[1] != h {
				return fmt.Errorf("input %s %v: want [rows, %d] (word_embedding's hidden size)", c.name, t.Shape, h)
			}
		}
		for i, name := range []string{"gamma", "beta"} {
			t := in[5+i]
			if t.DType != dt {
				return fmt.Errorf("input %s has dtype %v, want word_embedding's %v", name, t.DType, dt)
			}
			if !t.Shape.Equal(kernel.Shape{h}) {
				return fmt.Errorf("input %s %v: want [%d]", name, t.Shape, h)
			}
		}
		setShape(out[0], kernel.Shape{batch, seq, h}, dt)
		setShape(out[1], kernel.Shape{batch}, kernel.Int32)
		setShape(out[2], kernel.Shape{batch, seq, h}, dt)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		ids := a.In[0]
		batch, seq := ids.Shape[0], ids.Shape[1]
		we, pe := a.In[2], a.In[3]
		h := we.Shape[1]
		dt := we.DType
		if !a.Out[0].Shape.Equal(kernel.Shape{batch, seq, h}) || a.Out[0].DType != dt {
			return errors.New("operands differ from the inferred ones")
		}
		idv := kernel.Int32s(ids.Data())
		// Float16 operands compute in float32 and round once: each row
		// read is widened into the scratch, and the results rounded from
		// it into the outputs.
		half := dt == kernel.Float16
		if half && int64(len(scratch)) < 7*h {
			scratch = make([]float32, 7*h)
		}
		rowOf := func(t *kernel.Tensor, r int64, slot int) []float32 {
			if !half {
				return kernel.Float32s(t.Data())[r*h : (r+1)*h]
			}
			dst := scratch[int64(slot)*h : int64(slot+1)*h]
			for j, v := range kernel.Uint16s(t.Data())[r*h : (r+1)*h] {
				dst[j] = kernel.F16ToF32(v)
			}
			return dst
		}
		gamma, beta := rowOf(a.In[5], 0, 0), rowOf(a.In[6], 0, 1)
		var segIDs, posIDs []int32
		var segT *kernel.Tensor
		var segRows int64
		if t := optional(a.In, 1); t != nil {
			segIDs = kernel.Int32s(t.Data())
		}
		if t := optional(a.In, 4); t != nil {
			segT, segRows = t, t.Shape[0]
		}
		posBroadcast := false
		if t := optional(a.In, 8); t != nil {
			posIDs, posBroadcast = kernel.Int32s(t.Data()), t.Shape[0] == 1 && batch != 1
		}
		var y, sum []float32
		if !half {
			y, sum = kernel.Float32s(a.Out[0].Data()), kernel.Float32s(a.Out[2].Data())
		}
		hf := float32(h)
		for i := range batch * seq {
			wi := int64(idv[i])
			if wi < 0 || wi >= we.Shape[0] {
				return fmt.Errorf("input_ids[%d, %d] = %d is outside word_embedding's %d rows", i/seq, i%seq, wi, we.Shape[0])
			}
			pi := i % seq
			if posIDs != nil {
				if posBroadcast {
					pi = int64(posIDs[i%seq])
				} else {
					pi = int64(posIDs[i])
				}
			}
			if pi < 0 || pi >= pe.Shape[0] {
				return fmt.Errorf("position %d of token [%d, %d] is outside position_embedding's %d rows", pi, i/seq, i%seq, pe.Shape[0])
			}
			var si int64 = -1
			if segIDs != nil {
				si = int64(segIDs[i])
				if si < 0 || si >= segRows {
					return fmt.Errorf("segment_ids[%d, %d] = %d is outside segment_embedding's %d rows", i/seq, i%seq, si, segRows)
				}
			}
			var row, rs []float32
			if half {
				row, rs = scratch[5*h:6*h], scratch[6*h:7*h]
			} else {
				row, rs = y[i*h:(i+1)*h], sum[i*h:(i+1)*h]
			}
			wr, pr := rowOf(we, wi, 2), rowOf(pe, pi, 3)
			var sr []float32
			if si >= 0 {
				sr = rowOf(segT, si, 4)
			}
			var total float32
			for j := range h {
				v := wr[j] + pr[j]
				if si >= 0 {
					v += sr[j]
				}
				row[j], rs[j] = v, v
				total += v
			}
			mean := total / hf
			var sq float32
			for j := range h {
				d := row[j] - mean
				row[j] = d
				sq += float32(d * d)
			}
			e := float32(math.Sqrt(float64(sq/hf + epsF)))
			for j := range h {
				row[j] = float32(float32(row[j]/e)*gamma[j]) + beta[j]
			}
			if half {
				yh, sh := kernel.Uint16s(a.Out[0].Data())[i*h:(i+1)*h], kernel.Uint16s(a.Out[2].Data())[i*h:(i+1)*h]
				for j := range h {
					yh[j], sh[j] = kernel.F32ToF16(row[j]), kernel.F32ToF16(rs[j])
				}
			}
		}
		maskIndex(kernel.Int32s(a.Out[1].Data()), optional(a.In, 7), batch, seq)
		return nil
	}
	return newKernel(sig{op: "EmbedLayerNormalization", minIn: 7, maxIn: 9, nOut: 3}, k), nil
}

// maskIndex writes the embedding layer normalizations' mask_index: the
// mask's ones of each of batch sequences of seq (0 without a mask).
func maskIndex(mi []int32, mask *kernel.Tensor, batch, seq int64) {
	for b := range batch {
		var n int32
		if mask != nil {
			for _, v := range kernel.Int32s(mask.Data())[b*seq : (b+1)*seq] {
				if v == 1 {
					n++
				}
			}
		}
		mi[b] = n
	}
}

// fusedAct is the activation of a FusedConv or FusedGemm.
type fusedAct struct {
	name               string
	alpha, beta, gamma float32
}

// apply applies the activation to every element of y.
func (f *fusedAct) apply(y []float32) {
	switch f.name {
	case "", "Identity":
		return
	}
	for i, v := range y {
		y[i] = f.one(v)
	}
}

// one is the activation of one value.
func (f *fusedAct) one(v float32) float32 {
	w := float64(v)
	switch f.name {
	case "Relu":
		if v < 0 {
			return 0
		}
		return v
	case "LeakyRelu":
		if v >= 0 {
			return v
		}
		return float32(f.alpha * v)
	case "Clip":
		if v < f.alpha {
			v = f.alpha
		}
		if v > f.beta {
			v = f.beta
		}
		return v
	case "HardSigmoid":
		r := float32(f.alpha*v) + f.beta
		if r > 1 {
			r = 1
		}
		if r < 0 {
			r = 0
		}
		return r
	case "Sigmoid":
		if v != v {
			return v
		}
		return mlasSigmoid(v)
	case "Tanh":
		return float32(math.Tanh(w))
	case "Elu":
		if v >= 0 {
			return v
		}
		return float32(f.alpha * (exp32(v) - 1))
	case "Selu":
		t := min(float32(f.alpha*(exp32(v)-1)), 0)
		return float32(f.gamma * (max(v, 0) + t))
	case "ThresholdedRelu":
		if v > f.alpha {
			return v
		}
		return 0
	case "Softsign":
		a := v
		if a < 0 {
			a = -a
		}
		return float32((1 / (1 + a)) * v)
	case "Softplus":
		if v > 0 {
			return float32(w + math.Log1p(expF(-w)))
		}
		return float32(math.Log1p(expF(w)))
	}
	return v
}

// exp32 is e^v rounded to float32.
func exp32(v float32) float32 { return float32(expF(float64(v))) }

// convActivation reads FusedConv's activation as onnxruntime does: absent
// is the identity; LeakyRelu, Clip and HardSigmoid take their parameters
// from activation_params, exactly as many as they need.
func convActivation(attrs kernel.Attrs) (fusedAct, error) {
	var f fusedAct
	name, err := attrs.String("activation", "")
	if err != nil {
		return f, err
	}
	if _, ok := attrs["activation"]; !ok {
		if _, ok := attrs["activation_params"]; ok {
			return f, errors.New("activation_params without activation")
		}
		return f, nil
	}
	need := 0
	switch name {
	case "Relu", "Tanh", "Sigmoid":
	case "LeakyRelu":
		need = 1
	case "Clip", "HardSigmoid":
		need = 2
	default:
		return f, fmt.Errorf("activation %q: want Relu, Tanh, Sigmoid, LeakyRelu, Clip or HardSigmoid", name)
	}
	f.name = name
	if need == 0 {
		return f, nil
	}
	ps, err := attrs.Floats("activation_params", nil)
	if err != nil {
		return f, err
	}
	if len(ps) != need {
		return f, fmt.Errorf("activation %s: activation_params %v: want %d values", name, ps, need)
	}
	f.alpha = float32(ps[0])
	if need == 2 {
		f.beta = float32(ps[1])
	}
	return f, nil
}

// gemmActivation reads FusedGemm's activation as onnxruntime does: one of
// its element-wise functors, required, with the parameters it requires
// from activation_alpha, activation_beta and activation_gamma.
func gemmActivation(attrs kernel.Attrs) (fusedAct, error) {
	var f fusedAct
	if _, ok := attrs["activation"]; !ok {
		return f, errors.New("attribute \"activation\" is required")
	}
	name, err := attrs.String("activation", "")
	if err != nil {
		return f, err
	}
	var params []string
	switch name {
	case "Relu", "Tanh", "Sigmoid", "Softsign", "Softplus":
	case "LeakyRelu", "Elu", "ThresholdedRelu":
		params = []string{"alpha"}
	case "HardSigmoid":
		params = []string{"alpha", "beta"}
	case "Selu":
		params = []string{"alpha", "gamma"}
	default:
		return f, fmt.Errorf("activation %q: want Relu, Tanh, Sigmoid, LeakyRelu, HardSigmoid, Elu, Selu, ThresholdedRelu, Softsign or Softplus", name)
	}
	f.name = name
	for _, p := range params {
		a := "activation_" + p
		if _, ok := attrs[a]; !ok {
			return f, fmt.Errorf("activation %s needs attribute %q", name, a)
		}
		v, err := attrs.Float(a, 0)
		if err != nil {
			return f, err
		}
		switch p {
		case "alpha":
			f.alpha = float32(v)
		case "beta":
			f.beta = float32(v)
		default:
			f.gamma = float32(v)
		}
	}
	return f, nil
}

// withoutActivation returns attrs without the activation attributes:
// activation and activation_params (FusedConv's), or activation and every
// attribute named activation_… (FusedGemm's, as onnxruntime collects them).
func withoutActivation(attrs kernel.Attrs, prefixed bool) kernel.Attrs {
	c := maps.Clone(attrs)
	for k := range c {
		if k == "activation" || k == "activation_params" && !prefixed || prefixed && strings.HasPrefix(k, "activation_") {
			delete(c, k)
		}
	}
	if c == nil {
		c = kernel.Attrs{}
	}
	return c
}

// innerErr names op in the error of the Conv or Gemm it builds on.
func innerErr(op string, err error) error {
	return fmt.Errorf("ops: %s: %s", op, strings.TrimPrefix(err.Error(), "ops: "))
}

// fusedConv is FusedConv: pipert's Conv without its bias, then Z, the
// bias and the activation.
type fusedConv struct {
	conv *conv
	act  fusedAct
	sub  kernel.Args // the Conv's operands (X and W)
}

func newFusedConv(attrs kernel.Attrs) (kernel.Kernel, error) {
	act, err := convActivation(attrs)
	if err != nil {
		return nil, fmt.Errorf("ops: FusedConv: %w", err)
	}
	inner, err := newConv(false)(withoutActivation(attrs, false))
	if err != nil {
		return nil, innerErr("FusedConv", err)
	}
	c, ok := inner.(*opKernel).impl.(*conv)
	if !ok {
		return nil, errors.New("ops: FusedConv: no Conv kernel")
	}
	return newKernel(sig{op: "FusedConv", minIn: 2, maxIn: 4, nOut: 1}, &fusedConv{conv: c, act: act}), nil
}

func (k *fusedConv) check(in []*kernel.Tensor) error {
	if err := dtypeIn(in[0], "X", kernel.Float32); err != nil {
		return err
	}
	return nil
}

func (k *fusedConv) infer(in, out []*kernel.Tensor) error {
	if err := k.check(in); err != nil {
		return err
	}
	if err := k.conv.infer(in[:min(len(in), 3)], out); err != nil {
		return err
	}
	if z := optional(in, 3); z != nil {
		if err := checkSameDType(z, "Z", in[0], "X"); err != nil {
			return err
		}
		if !z.Shape.Equal(out[0].Shape) {
			return fmt.Errorf("input Z %v: want the output's shape %v", z.Shape, out[0].Shape)
		}
	}
	return nil
}

func (k *fusedConv) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if err := k.check(in); err != nil {
		return 0, err
	}
	return k.conv.resize(in[:min(len(in), 3)], out, e)
}

func (k *fusedConv) cost(in, out []*kernel.Tensor) device.Cost {
	c := k.conv.cost(in[:min(len(in), 3)], out)
	c.FLOPs += float64(3 * out[0].NumElements())
	return c
}

func (k *fusedConv) compute(a *kernel.Args) error {
	y := a.Out[0]
	if y.DType != kernel.Float32 || a.In[0].DType != kernel.Float32 {
		return errors.New("operands differ from the inferred ones")
	}
	k.sub = *a
	k.sub.In = a.In[:2]
	err := k.conv.compute(&k.sub)
	k.sub = kernel.Args{}
	if err != nil {
		return err
	}
	ys := kernel.Float32s(y.Data())[:y.NumElements()]
	if z := optional(a.In, 3); z != nil {
		if !z.Shape.Equal(y.Shape) || z.DType != kernel.Float32 {
			return fmt.Errorf("input Z %v: want the output's shape %v", z.Shape, y.Shape)
		}
		for i, v := range kernel.Float32s(z.Data())[:len(ys)] {
			ys[i] += v
		}
	}
	if b := optional(a.In, 2); b != nil {
		bs := kernel.Float32s(b.Data())
		m := int64(len(bs))
		if y.Shape.Rank() < 2 || y.Shape[1] != m {
			return fmt.Errorf("bias B %v does not fit the output %v", b.Shape, y.Shape)
		}
		inner := y.Shape[2:].NumElements()
		for i := range ys {
			ys[i] += bs[(int64(i)/inner)%m]
		}
	}
	k.act.apply(ys)
	return nil
}

// fusedGemm is FusedGemm: pipert's Gemm, then the activation.
type fusedGemm struct {
	gemm *gemm
	act  fusedAct
}

func newFusedGemm(attrs kernel.Attrs) (kernel.Kernel, error) {
	ga := withoutActivation(attrs, true)
	if err := ga.Check("alpha", "beta", "transA", "transB"); err != nil {
		return nil, wrapAttr(err)
	}
	act, err := gemmActivation(attrs)
	if err != nil {
		return nil, fmt.Errorf("ops: FusedGemm: %w", err)
	}
	ga[kernel.OpsetAttr] = int64(13) // C is optional
	inner, err := newGemm(ga)
	if err != nil {
		return nil, innerErr("FusedGemm", err)
	}
	g, ok := inner.(*opKernel).impl.(*gemm)
	if !ok {
		return nil, errors.New("ops: FusedGemm: no Gemm kernel")
	}
	return newKernel(sig{op: "FusedGemm", minIn: 2, maxIn: 3, nOut: 1}, &fusedGemm{gemm: g, act: act}), nil
}

func (k *fusedGemm) infer(in, out []*kernel.Tensor) error {
	if err := dtypeIn(in[0], "A", kernel.Float32); err != nil {
		return err
	}
	return k.gemm.infer(in, out)
}

func (k *fusedGemm) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if err := dtypeIn(in[0], "A", kernel.Float32); err != nil {
		return 0, err
	}
	return k.gemm.resize(in, out, e)
}

func (k *fusedGemm) cost(in, out []*kernel.Tensor) device.Cost {
	c := k.gemm.cost(in, out)
	c.FLOPs += float64(2 * out[0].NumElements())
	return c
}

func (k *fusedGemm) compute(a *kernel.Args) error {
	y := a.Out[0]
	if y.DType != kernel.Float32 || a.In[0].DType != kernel.Float32 {
		return errors.New("operands differ from the inferred ones")
	}
	if err := k.gemm.compute(a); err != nil {
		return err
	}
	k.act.apply(kernel.Float32s(y.Data())[:y.NumElements()])
	return nil
}

// msQuantize is MSQuantizeLinear or MSDequantizeLinear: the dtype checks
// of onnxruntime's com.microsoft kernels, then the default domain's
// QuantizeLinear or DequantizeLinear.
type msQuantize struct {
	impl
	quantize bool
	axis     int64
}

func newMSQuantize(quantize bool) kernel.Factory {
	op, base := "MSDequantizeLinear", "DequantizeLinear"
	if quantize {
		op, base = "MSQuantizeLinear", "QuantizeLinear"
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check("axis"); err != nil {
			return nil, wrapAttr(err)
		}
		axis, err := attrs.Int("axis", 1)
		if err != nil {
			return nil, wrapAttr(err)
		}
		inner, err := newQuantize(quantize)(kernel.Attrs{kernel.OpsetAttr: int64(19), "axis": axis})
		if err != nil {
			return nil, innerErr(op, err)
		}
		ok, isOp := inner.(*opKernel)
		if !isOp || ok.op != base {
			return nil, fmt.Errorf("ops: %s: no %s kernel", op, base)
		}
		return newKernel(sig{op: op, minIn: 2, maxIn: 3, nOut: 1}, &msQuantize{impl: ok.impl, quantize: quantize, axis: axis}), nil
	}
}

func (k *msQuantize) check(in []*kernel.Tensor) error {
	x, scale, zp := in[0], in[1], optional(in, 2)
	if k.quantize {
		if err := dtypeIn(x, "x", kernel.Float32, kernel.Float16); err != nil {
			return err
		}
		if err := checkSameDType(scale, "y_scale", x, "x"); err != nil {
			return err
		}
		if zp != nil {
			return dtypeIn(zp, "y_zero_point", kernel.Uint8, kernel.Int8, kernel.Uint16, kernel.Int16)
		}
		return nil
	}
	if err := dtypeIn(x, "x", kernel.Uint8, kernel.Int8, kernel.Uint16, kernel.Int16, kernel.Int32, kernel.Uint4, kernel.Int4); err != nil {
		return err
	}
	return dtypeIn(scale, "x_scale", kernel.Float32, kernel.Float16)
}

func (k *msQuantize) infer(in, out []*kernel.Tensor) error {
	if err := k.check(in); err != nil {
		return err
	}
	return k.impl.infer(in, out)
}

func (k *msQuantize) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if err := k.check(in); err != nil {
		return 0, err
	}
	return k.impl.resize(in, out, e)
}

// compute quantizes or dequantizes as onnxruntime's kernels: q =
// clamp(round_half_even(x/scale) + zp) with the division in float32 (a
// NaN quotient gives the type's minimum, as MLAS's clamp does), and y =
// float32(x − zp)·scale with x − zp in int32 (wrapping), converted to
// float32 and multiplied in float32, then rounded to the output's dtype.
func (k *msQuantize) compute(a *kernel.Args) error {
	x, scale, o := a.In[0], a.In[1], a.Out[0]
	zp := optional(a.In, 2)
	if err := k.check(a.In); err != nil {
		return err
	}
	if !o.Shape.Equal(x.Shape) {
		return errors.New("operands differ from the inferred ones")
	}
	// The scale index of element i: (i/inner) mod n, per tensor n = 1.
	n, inner := int64(1), int64(1)
	if scale.NumElements() != 1 || scale.Shape.Rank() > 1 {
		ax, err := kernel.NormAxis(k.axis, x.Shape.Rank())
		if err != nil {
			return err
		}
		n, inner = x.Shape[ax], x.Shape[ax+1:].NumElements()
	}
	if scale.NumElements() != n || zp != nil && zp.NumElements() != n {
		return fmt.Errorf("scale %v does not fit x %v on axis %d", scale.Shape, x.Shape, k.axis)
	}
	xb, sb, ob := x.Data(), scale.Data(), o.Data()
	for i := range x.NumElements() {
		j := i / max(inner, 1) % n
		s := float32(loadF(scale.DType, sb, j))
		var z int64
		if zp != nil {
			z = loadI(zp.DType, zp.Data(), j)
		}
		if k.quantize {
			lo, hi := o.DType.IntRange()
			v := float32(loadF(x.DType, xb, i)) / s
			q := lo
			if v == v {
				q = int64(max(float64(lo), min(float64(hi), math.RoundToEven(float64(v))+float64(z))))
			}
			storeI(o.DType, ob, i, q)
			continue
		}
		d := float32(int32(loadI(x.DType, xb, i)) - int32(z))
		storeF(o.DType, ob, i, float64(float32(d*s)))
	}
	return nil
}

// msTrilu is MSTrilu: onnxruntime's dtype checks, then Trilu.
type msTrilu struct{ impl }

func newMSTrilu(attrs kernel.Attrs) (kernel.Kernel, error) {
	inner, err := newTrilu(attrs)
	if err != nil {
		return nil, innerErr("MSTrilu", err)
	}
	ok, isOp := inner.(*opKernel)
	if !isOp {
		return nil, errors.New("ops: MSTrilu: no Trilu kernel")
	}
	return newKernel(sig{op: "MSTrilu", minIn: 1, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, &msTrilu{impl: ok.impl}), nil
}

func (k *msTrilu) check(in []*kernel.Tensor) error {
	if err := dtypeIn(in[0], "input", kernel.Float32, kernel.Float64, kernel.Float16, kernel.Int64); err != nil {
		return err
	}
	if d := optional(in, 1); d != nil {
		return dtypeIn(d, "k", kernel.Int64)
	}
	return nil
}

func (k *msTrilu) infer(in, out []*kernel.Tensor) error {
	if err := k.check(in); err != nil {
		return err
	}
	return k.impl.infer(in, out)
}

func (k *msTrilu) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if err := k.check(in); err != nil {
		return 0, err
	}
	return k.impl.resize(in, out, e)
}

// expandDims is ExpandDims: a view whose shape gains a dimension of 1.
type expandDims struct{ view }

func newExpandDims(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "ExpandDims", minIn: 2, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, &expandDims{view{op: "ExpandDims"}}), nil
}

func (k *expandDims) infer(in, out []*kernel.Tensor) error {
	x, a := in[0], in[1]
	if err := dtypeIn(a, "axis", kernel.Int32); err != nil {
		return err
	}
	if a.Shape.Rank() != 0 {
		return fmt.Errorf("input axis %v: want a scalar", a.Shape)
	}
	l, err := valueInts(a, "axis", 0)
	if err != nil {
		return err
	}
	axis, r := l.at(0), int64(x.Shape.Rank())
	if axis < -r-1 || axis > r {
		return fmt.Errorf("axis %d out of range [%d, %d] for X %v", axis, -r-1, r, x.Shape)
	}
	if axis < 0 {
		axis += r + 1
	}
	s := make(kernel.Shape, 0, r+1)
	s = append(s, x.Shape[:axis]...)
	s = append(s, 1)
	s = append(s, x.Shape[axis:]...)
	out[0].Shape, out[0].DType = s, x.DType
	return nil
}

// nhwcMaxPool is NhwcMaxPool, with onnxruntime's geometry: for each
// spatial axis of size in, with kernel k, stride s and dilation d, the
// pads are the attribute's (NOTSET), none (VALID), or, for SAME_UPPER and
// SAME_LOWER, p = (⌈in/s⌉ − 1)·s + k − in split as ⌊p/2⌋ before (SAME_LOWER:
// ⌊(p+1)/2⌋; truncated toward zero, so that p may be negative), the
// kernel's dilation left out as onnxruntime leaves it out; the output
// size is (in + pads − d·(k−1) − 1)/s + 1, the quotient truncated toward
// zero (so that a window reaching past the input's end from inside it is
// an output, as in onnxruntime 1.30), or with ceil_mode ⌈…⌉ computed in
// float32, less one where the last window would start past the input and
// its leading padding. Output o reads input o·s − pad_before + t·d for
// tap t.
type nhwcMaxPool struct {
	w                       window
	ceil                    bool
	padB, out, in, tap, pos []int64 // per spatial axis; reused
	tlo, thi                []int64 // the taps inside the input, per axis; reused
}

func newNhwcMaxPool(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("auto_pad", "kernel_shape", "pads", "strides", "dilations", "ceil_mode"); err != nil {
		return nil, wrapAttr(err)
	}
	w, err := parseWindow("NhwcMaxPool", attrs)
	if err != nil {
		return nil, fmt.Errorf("ops: NhwcMaxPool: %w", err)
	}
	if len(w.kernel) == 0 {
		return nil, errors.New("ops: NhwcMaxPool: attribute kernel_shape is required, one value or more")
	}
	nd := len(w.kernel)
	for name, v := range map[string][]int64{"strides": w.strides, "dilations": w.dilations} {
		if v != nil && len(v) != nd {
			return nil, fmt.Errorf("ops: NhwcMaxPool: %s %v: want %d values, one per axis of kernel_shape %v", name, v, nd, w.kernel)
		}
	}
	if w.pads != nil && len(w.pads) != 2*nd {
		return nil, fmt.Errorf("ops: NhwcMaxPool: pads %v: want %d values for kernel_shape %v", w.pads, 2*nd, w.kernel)
	}
	for i, pad := range w.pads {
		if pad >= w.kernel[i%nd] {
			return nil, fmt.Errorf("ops: NhwcMaxPool: pads %v: each must be smaller than kernel_shape %v", w.pads, w.kernel)
		}
	}
	ceil, err := flagAttr(attrs, "ceil_mode", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k := &nhwcMaxPool{w: w, ceil: ceil, padB: make([]int64, nd), out: make([]int64, nd), in: make([]int64, nd), tap: make([]int64, nd), pos: make([]int64, nd),
		tlo: make([]int64, nd), thi: make([]int64, nd)}
	return newKernel(sig{op: "NhwcMaxPool", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// geometry checks x and fills k.in, k.padB and k.out.
func (k *nhwcMaxPool) geometry(x *kernel.Tensor) error {
	if err := dtypeIn(x, "x", kernel.Uint8, kernel.Int8); err != nil {
		return err
	}
	nd, r := len(k.w.kernel), x.Shape.Rank()
	if r != nd+2 {
		return fmt.Errorf("input x has shape %v: want [N, spatial…, C] with %d spatial dimensions (kernel_shape %v)", x.Shape, nd, k.w.kernel)
	}
	if x.Shape.NumElements() == 0 && x.Shape[0] != 0 {
		return fmt.Errorf("input x has shape %v: only N may be 0", x.Shape)
	}
	for i := range nd {
		in, kk := x.Shape[1+i], k.w.kernel[i]
		s, d := attrAt(k.w.strides, i, 1), attrAt(k.w.dilations, i, 1)
		var head, pads int64
		switch k.w.autoPad {
		case "NOTSET":
			head, pads = attrAt(k.w.pads, i, 0), attrAt(k.w.pads, i, 0)+attrAt(k.w.pads, nd+i, 0)
		case "VALID":
		default:
			pads = ((in+s-1)/s-1)*s + kk - in
			head = pads / 2
			if k.w.autoPad == "SAME_LOWER" {
				head = (pads + 1) / 2
			}
		}
		// Without ceil_mode an integer quotient, truncated toward zero:
		// a window that starts in the input but reaches past its end
		// (in + pads − extent in (−s, 0)) is one output, as in
		// onnxruntime 1.30.
		out := (in+pads-d*(kk-1)-1)/s + 1
		if k.ceil {
			out = int64(float32(math.Ceil(float64(float32(in+pads-d*(kk-1)-1)/float32(s) + 1))))
			if out > 1 && (out-1)*s >= in+head {
				out-- // the last window would start in the end padding
			}
		}
		if out < 0 {
			return fmt.Errorf("kernel_shape %v with dilations %v does not fit input x %v on spatial axis %d", k.w.kernel, k.w.dilations, x.Shape, i)
		}
		k.in[i], k.padB[i], k.out[i] = in, head, out
	}
	return nil
}

// outShape is the output's shape, [N, out…, C].
func (k *nhwcMaxPool) outShape(x kernel.Shape) kernel.Shape {
	s := kernel.Shape{x[0]}
	s = append(s, k.out...)
	return append(s, x[x.Rank()-1])
}

func (k *nhwcMaxPool) infer(in, out []*kernel.Tensor) error {
	if err := k.geometry(in[0]); err != nil {
		return err
	}
	setShape(out[0], k.outShape(in[0].Shape), in[0].DType)
	return nil
}

func (k *nhwcMaxPool) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if err := k.geometry(in[0]); err != nil {
		return 0, err
	}
	if want := k.outShape(in[0].Shape); !out[0].Shape.Equal(want) {
		return 0, fmt.Errorf("output %v differs from the inferred %v", out[0].Shape, want)
	}
	return 0, nil
}

func (k *nhwcMaxPool) cost(in, out []*kernel.Tensor) device.Cost {
	// The taps inside the input: at most the kernel's and the input's.
	taps := 1.0
	for i, v := range k.w.kernel {
		taps *= float64(min(v, in[0].Shape[1+i]))
	}
	return device.Cost{FLOPs: float64(out[0].NumElements()) * taps, Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *nhwcMaxPool) compute(a *kernel.Args) error {
	x, y := a.In[0], a.Out[0]
	if err := k.geometry(x); err != nil {
		return err
	}
	if !y.Shape.Equal(k.outShape(x.Shape)) || y.DType != x.DType {
		return errors.New("operands differ from the inferred ones")
	}
	nd := len(k.w.kernel)
	c := x.Shape[nd+1]
	lo, _ := x.DType.IntRange()
	xb, yb := x.Data(), y.Data()
	ip, op := int64(1), int64(1)
	for i := range nd {
		ip, op = ip*k.in[i], op*k.out[i]
	}
	for n := range x.Shape[0] {
		for o := range op {
			// The output position, last axis fastest, and on each axis
			// the taps t with 0 ≤ base + t·d < in: the others read the
			// padding, the type's minimum, which a max does not need.
			rem, empty := o, false
			for i := nd - 1; i >= 0; i-- {
				k.pos[i], rem = rem%k.out[i], rem/k.out[i]
				d := attrAt(k.w.dilations, i, 1)
				base := k.pos[i]*attrAt(k.w.strides, i, 1) - k.padB[i]
				k.tlo[i], k.thi[i] = 0, k.w.kernel[i]
				if base < 0 {
					k.tlo[i] = (-base + d - 1) / d
				}
				if lim := (k.in[i] - base + d - 1) / d; lim < k.thi[i] {
					k.thi[i] = lim
				}
				empty = empty || k.tlo[i] >= k.thi[i]
			}
			for ch := range c {
				best := lo
				if !empty {
					copy(k.tap, k.tlo)
					for {
						at := int64(0)
						for i := range nd {
							at = at*k.in[i] + k.pos[i]*attrAt(k.w.strides, i, 1) - k.padB[i] + k.tap[i]*attrAt(k.w.dilations, i, 1)
						}
						best = max(best, loadI(x.DType, xb, (n*ip+at)*c+ch))
						i := nd - 1
						for ; i >= 0; i-- { // the next tap, last axis fastest
							if k.tap[i]++; k.tap[i] < k.thi[i] {
								break
							}
							k.tap[i] = k.tlo[i]
						}
						if i < 0 {
							break
						}
					}
				}
				storeI(y.DType, yb, (n*op+o)*c+ch, best)
			}
		}
	}
	return nil
}

func newInverse(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	var (
		lu32 []float32
		lu64 []float64
		perm []int64
	)
	k := &simple{flops: 2}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x := in[0]
		if err := dtypeIn(x, "X", kernel.Float32, kernel.Float64); err != nil {
			return err
		}
		r := x.Shape.Rank()
		if r < 2 || x.Shape[r-1] != x.Shape[r-2] {
			return fmt.Errorf("input X %v: want square matrices [..., n, n]", x.Shape)
		}
		setShape(out[0], x.Shape, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, y := a.In[0], a.Out[0]
		r := x.Shape.Rank()
		if r < 2 || !y.Shape.Equal(x.Shape) || y.DType != x.DType || x.Shape[r-1] != x.Shape[r-2] {
			return errors.New("operands differ from the inferred ones")
		}
		n := x.Shape[r-1]
		if n == 0 {
			return nil
		}
		count := x.NumElements() / (n * n)
		if int64(cap(perm)) < n {
			perm = make([]int64, n)
		}
		if x.DType == kernel.Float64 {
			if int64(cap(lu64)) < n*n {
				lu64 = make([]float64, n*n)
			}
			invertAll(kernel.Float64s(x.Data()), kernel.Float64s(y.Data()), lu64[:n*n], perm[:n], n, count)
		} else {
			if int64(cap(lu32)) < n*n {
				lu32 = make([]float32, n*n)
			}
			invertAll(kernel.Float32s(x.Data()), kernel.Float32s(y.Data()), lu32[:n*n], perm[:n], n, count)
		}
		return nil
	}
	return newKernel(sig{op: "Inverse", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// invertAll inverts count row-major n×n matrices of x into y, with lu
// (n·n) and perm (n) as workspace.
func invertAll[T float32 | float64](x, y, lu []T, perm []int64, n, count int64) {
	for b := range count {
		copy(lu, x[b*n*n:(b+1)*n*n])
		invert(lu, y[b*n*n:(b+1)*n*n], perm, n)
	}
}

// invert computes y = lu⁻¹ as Eigen's PartialPivLU does (see contribMoreOps),
// overwriting lu with its factors.
func invert[T float32 | float64](lu, y []T, perm []int64, n int64) {
	for i := range perm {
		perm[i] = int64(i)
	}
	abs := func(v T) T {
		if v < 0 {
			return -v
		}
		return v
	}
	for k := range n {
		p, big := k, abs(lu[k*n+k])
		for i := k + 1; i < n; i++ {
			if v := abs(lu[i*n+k]); v > big {
				p, big = i, v
			}
		}
		if big != 0 {
			if p != k {
				for j := range n {
					lu[k*n+j], lu[p*n+j] = lu[p*n+j], lu[k*n+j]
				}
				perm[k], perm[p] = perm[p], perm[k]
			}
			for i := k + 1; i < n; i++ {
				lu[i*n+k] /= lu[k*n+k]
			}
		}
		for i := k + 1; i < n; i++ {
			l := lu[i*n+k]
			for j := k + 1; j < n; j++ {
				lu[i*n+j] -= T(l * lu[k*n+j])
			}
		}
	}
	// y = P·I: row i of y is the unit row perm[i].
	clear(y)
	for i := range n {
		y[i*n+perm[i]] = 1
	}
	for j := range n {
		// Forward with L (unit diagonal), then backward with U.
		for i := range n {
			var s T
			for t := range i {
				s += T(lu[i*n+t] * y[t*n+j])
			}
			y[i*n+j] -= s
		}
		for i := n - 1; i >= 0; i-- {
			var s T
			for t := i + 1; t < n; t++ {
				s += T(lu[i*n+t] * y[t*n+j])
			}
			y[i*n+j] = T((y[i*n+j] - s) * (1 / lu[i*n+i]))
		}
	}
}
