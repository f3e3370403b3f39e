package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// contribOps are onnxruntime's contrib ops (domain com.microsoft) that
// optimized transformer models contain, and SimplifiedLayerNormalization,
// which onnxruntime takes in the default domain, each computed as
// onnxruntime's CPU kernel computes it. SkipSimplifiedLayerNormalization,
// FusedMatMul and MSRotaryEmbedding evaluate the float32 operations
// of that kernel in its order (for float16 too, widened), each rounded by
// an explicit conversion so that no fused multiply-add changes a result,
// and round float16 results once at the end; the GELUs evaluate their
// function in float64 and round once, where onnxruntime uses float32
// approximations of erf, tanh and exp (the float32 results agree to about
// 1e-7).
//
//   - BiasGelu(X[, bias]): the exact GELU of v = x + bias, 0.5·v·(1 +
//     erf(v/√2)); bias, when given, is 1-D of X's last dimension and
//     repeats along the others (the sum rounds in float32). Without bias
//     it is com.microsoft's Gelu. float32, float16. No attributes. The
//     GELU evaluates in float64 on the float32 sum and rounds once.
//   - FastGelu(X[, bias]): the tanh GELU of v = x + bias, 0.5·v·(1 +
//     tanh(v·(0.0356774·v² + 0.797885))), bias as BiasGelu's. float32,
//     float16. No attributes.
//   - QuickGelu(X) (alpha 1.702): x·sigmoid(alpha·x), in float64 from
//     alpha as a float32, rounded once. float32, float16.
//     For float16 onnxruntime's CPU provider rounds intermediates of these
//     three to float16; they round once, so a float16 result may differ
//     from onnxruntime's by a few units in the last place.
//   - SkipLayerNormalization(input, skip, gamma[, beta[, bias]])
//     (epsilon 1e-12) → output, mean, inv_std_var, input_skip_bias_sum:
//     each row (the last axis, of size H) of s = input + skip (+ bias),
//     summed in float32, is normalized, y = (s − mean)/√(var + epsilon)·
//     gamma (+ beta), mean and the biased variance in float64 in two
//     passes (as LayerNormalization; onnxruntime 1.30 keeps the precision
//     of rows whose values share a large offset), y evaluated in float64
//     and rounded once. input is 2-D or
//     3-D; skip has input's shape, or [1, S, H] or [S, H] for a 3-D
//     input [B, S, H] (repeated over the batch); gamma,
//     beta and bias are 1-D of size H. mean and inv_std_var (1/√…) are
//     float32 of input's shape with the last dimension 1;
//     input_skip_bias_sum is s. float32, float16.
//   - SkipSimplifiedLayerNormalization(input, skip, gamma[, bias])
//     (epsilon 1e-12): without centring, y = s/√(E[s²] + epsilon)·gamma,
//     in float32 with sums in ascending order, as onnxruntime's kernel;
//     the same outputs, mean all zeros (as onnxruntime gives it).
//   - SimplifiedLayerNormalization(X, scale) (axis −1, epsilon 1e-5,
//     stash_type 1) → Y, inv_std_var: onnxruntime's RMS normalization,
//     Y = x/√(mean(x²) + epsilon)·scale over the axes from axis on,
//     evaluated in float64 and rounded once (as RMSNormalization).
//     scale broadcasts to X and may have another float type than X; Y has
//     scale's type; inv_std_var is float32 of X's shape with the
//     normalized dimensions 1. float32, float16, float64, bfloat16.
//   - FusedMatMul(A, B) (alpha 1, transA 0, transB 0, transBatchA 0,
//     transBatchB 0): alpha·(A'×B') with MatMul's broadcasting, where
//     transBatchA moves A's first dimension behind its other batch
//     dimensions (A of shape [d0, d1, …, dr−2, dr−1] is read as [d1, …,
//     dr−2, d0, dr−1]) and transA then swaps its last two; B likewise.
//     With a 1-D B, transA swaps A's last two dimensions but leaves its
//     data as it is (the matrices are read row-major as [M, K]), as
//     onnxruntime does.
//     transA and transB need rank ≥ 2; transBatchA and transBatchB need
//     A and B of one rank, 3 or more (as onnxruntime requires).
//     Products accumulate in float32 (float16 widened; float64 in
//     float64), k ascending, then alpha scales the sum. float32, float16,
//     float64.
//   - MSRotaryEmbedding(input, position_ids, cos_cache, sin_cache)
//     (interleaved 0, num_heads 0, rotary_embedding_dim 0, scale 1,
//     is_packed_batching 0): com.microsoft's RotaryEmbedding; see
//     newMSRotaryEmbedding.
//   - MatMulNBits(A, B, scales[, zero_points[, g_idx[, bias]]]) (K, N,
//     block_size required; bits 4, accuracy_level 0): Y = A × Bᵀ (+ bias)
//     with B [N, K] quantized blockwise along K. A is [..., K] of float32
//     or float16, Y is [..., N] of A's type. B is uint8 [N, ⌈K/block_size⌉,
//     block_size·bits/8]: the values of column k, in block k/block_size,
//     are packed in ascending k, two 4-bit values a byte (the low nibble
//     first) or one 8-bit value a byte; the last block is padded. scales
//     (of A's type) hold one scale per block, [N·blocks] or [N, blocks].
//     zero_points are absent (each zero point 2^(bits−1)), uint8 packed as
//     B per row ([N·⌈blocks·bits/8⌉]), or of A's type, one per block
//     (bits 4 only); g_idx (int32 [K], bits 4 only) gives the block of
//     each column; bias is [N]. block_size is a power of 2 ≥ 16; bits 4
//     or 8 (2 is refused). B's value is w = (q − zp)·scale, rounded to
//     float32; with g_idx or zero points of A's type it is q·scale +
//     (−scale·zp), each term rounded, and with g_idx uint8 zero points
//     are read as 8, as onnxruntime's CPU kernel reads them. Products
//     accumulate in float32, k ascending, each step rounded once (as a
//     fused multiply-add), then bias is added; float16 operands are
//     widened and Y rounded once. accuracy_level 4 (without g_idx and
//     without zero points of A's type) computes as onnxruntime's int8
//     path: each block of a row of A is quantized to int8 with scale
//     max|a|/127 (values rounded half to even), the block's integer dot
//     product with q − zp is scaled by both scales and accumulated in
//     float32. Levels 0 to 3 compute in float32, as onnxruntime's CPU
//     provider does. onnxruntime sums in its own order, so results agree
//     to float32 rounding (a few units in the last place; level 4 to
//     about 2e-6 relative), not always bit for bit; float16 results, one
//     rounding of those, agree. onnxruntime takes its int8 path only when
//     B is an initializer, pipert whenever level 4 is given.
//   - GroupQueryAttention(query, key, value, past_key, past_value,
//     seqlens_k, total_sequence_length[, cos_cache, sin_cache[,
//     position_ids[, attention_bias[, head_sink]]]]) (num_heads and
//     kv_num_heads required, num_heads a multiple of kv_num_heads; scale
//     0, softcap 0, local_window_size −1, do_rotary 0, rotary_interleaved
//     0, smooth_softmax 0) → output, present_key, present_value: causal
//     attention of LLM decoders, query head n reading key/value head
//     n/(num_heads/kv_num_heads); see newGroupQueryAttention.
//   - MSAttention(input, weights, bias[, mask_index[, past[,
//     attention_bias[, past_sequence_length]]]]) (num_heads required;
//     qkv_hidden_sizes, unidirectional 0, scale 0, mask_filter_value
//     −10000, do_rotary 0, past_present_share_buffer 0) → output, present:
//     com.microsoft Attention, the self-attention of BERT-family models
//     with packed QKV weights; see newMSAttention.
//   - QAttention(input, weight, bias, input_scale, weight_scale[,
//     mask_index[, input_zero_point[, weight_zero_point[, past]]]])
//     (MSAttention's attributes but qkv_hidden_sizes) → output, present:
//     MSAttention on 8-bit input and weight, what onnxruntime's
//     quantize_dynamic makes of it; see newQAttention.
//   - MultiHeadAttention(query, key, value[, bias[, key_padding_mask[,
//     attention_bias[, past_key, past_value]]]]) (num_heads required;
//     unidirectional 0, scale 0, mask_filter_value −10000) → output,
//     present_key, present_value, qk: the attention of encoder-decoder
//     exports, self or cross; see newMultiHeadAttention.
//
// The quantized contrib ops (QLinearAdd and the others) are those of
// contribQuantOps; EmbedLayerNormalization, FusedConv, FusedGemm and the
// others of BERT exports and optimized models those of contribMoreOps.
var contribOps = append(append([]builtin{
	{"BiasGelu", newGeluFamily("BiasGelu")},
	{"FastGelu", newGeluFamily("FastGelu")},
	{"QuickGelu", newGeluFamily("QuickGelu")},
	{"SkipLayerNormalization", newSkipLayerNorm(false)},
	{"SkipSimplifiedLayerNormalization", newSkipLayerNorm(true)},
	{"SimplifiedLayerNormalization", newSimplifiedLayerNorm},
	{"FusedMatMul", newFusedMatMul},
	{"MSRotaryEmbedding", newMSRotaryEmbedding},
	{"MatMulNBits", newMatMulNBits},
	{"GroupQueryAttention", newGroupQueryAttention},
	{"MSAttention", newMSAttention},
	{"QAttention", newQAttention},
	{"MultiHeadAttention", newMultiHeadAttention},
	{"DecoderMaskedMultiHeadAttention", newDecoderMaskedMultiHeadAttention},
}, contribQuantOps...), contribMoreOps...)

// float32 and float16, the dtypes of onnxruntime's GELU contrib kernels.
var msGeluTypes = []kernel.DType{kernel.Float32, kernel.Float16}

// The tanh GELU's constants, as float32: √(2/π) and 0.044715·√(2/π).
const (
	fastGeluB = float32(0.7978845608028654)
	fastGeluC = float32(0.035677408136300125)
)

func newGeluFamily(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		names := []string{}
		if op == "QuickGelu" {
			names = append(names, "alpha")
		}
		if err := attrs.Check(names...); err != nil {
			return nil, wrapAttr(err)
		}
		alpha, err := attrs.Float("alpha", 1.702)
		if err != nil {
			return nil, wrapAttr(err)
		}
		alpha = float64(float32(alpha))
		maxIn := 2
		if op == "QuickGelu" {
			maxIn = 1
		}
		k := &simple{flops: 14}
		k.inferF = func(in, out []*kernel.Tensor) error {
			x := in[0]
			if err := dtypeIn(x, "X", msGeluTypes...); err != nil {
				return err
			}
			if len(in) > 1 && in[1].NumElements() > 0 {
				b := in[1]
				if err := checkSameDType(b, "bias", x, "X"); err != nil {
					return err
				}
				if b.Shape.Rank() != 1 || x.Shape.Rank() == 0 || b.Shape[0] != x.Shape[x.Shape.Rank()-1] {
					return fmt.Errorf("input bias %v: want 1-D of X's last dimension (X is %v)", b.Shape, x.Shape)
				}
			}
			setShape(out[0], x.Shape, x.DType)
			return nil
		}
		k.computeF = func(a *kernel.Args) error {
			x, y := a.In[0], a.Out[0]
			if y.DType != x.DType || y.NumElements() != x.NumElements() {
				return errors.New("operands differ from the inferred ones")
			}
			var bb []byte
			var h int64
			if len(a.In) > 1 && a.In[1].NumElements() > 0 {
				bb, h = a.In[1].Data(), a.In[1].NumElements()
			}
			dt, xb, yb := x.DType, x.Data(), y.Data()
			for i := range x.NumElements() {
				v := float32(loadF(dt, xb, i))
				if bb != nil {
					v += float32(loadF(dt, bb, i%h))
				}
				w := float64(v)
				var r float64
				switch op {
				case "BiasGelu":
					r = mul64(0.5*w, 1+math.Erf(w/math.Sqrt2))
				case "FastGelu":
					inner := float64(fastGeluB) + mul64(float64(fastGeluC)*w, w)
					r = mul64(0.5*w, 1+math.Tanh(mul64(w, inner)))
				default:
					r = w / (1 + expF(-mul64(alpha, w)))
				}
				storeF(dt, yb, i, r)
			}
			return nil
		}
		return newKernel(sig{op: op, minIn: 1, maxIn: maxIn, nOut: 1}, k), nil
	}
}

// skipLNTypes are SkipLayerNormalization's dtypes.
var skipLNTypes = []kernel.DType{kernel.Float32, kernel.Float16}

func newSkipLayerNorm(simplified bool) kernel.Factory {
	op := "SkipLayerNormalization"
	if simplified {
		op = "SkipSimplifiedLayerNormalization"
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		eps, err := epsilonAttr(op, attrs)
		if err != nil {
			return nil, err
		}
		// Inputs: input, skip, gamma, then beta and bias (the simplified
		// form has no beta: its fourth input is bias).
		names := [...]string{"input", "skip", "gamma", "beta", "bias"}
		if simplified {
			names[3] = "bias"
		}
		maxIn := 5
		if simplified {
			maxIn = 4
		}
		k := &simple{flops: 8}
		k.inferF = func(in, out []*kernel.Tensor) error {
			x, s := in[0], in[1]
			if err := dtypeIn(x, "input", skipLNTypes...); err != nil {
				return err
			}
			r := x.Shape.Rank()
			if r != 2 && r != 3 {
				return fmt.Errorf("input %v: want 2 or 3 dimensions", x.Shape)
			}
			if err := checkSameDType(s, "skip", x, "input"); err != nil {
				return err
			}
			sr := s.Shape.Rank()
			if sr != 2 && sr != 3 || s.Shape[sr-1] != x.Shape[r-1] || s.Shape[sr-2] != x.Shape[r-2] ||
				!s.Shape.Equal(x.Shape) && !(r == 3 && (sr == 2 || s.Shape[0] == 1)) {
				return fmt.Errorf("skip %v: want input's shape %v, or [1, S, H] or [S, H] for a 3-D input", s.Shape, x.Shape)
			}
			h := x.Shape[r-1]
			for i := 2; i < len(in); i++ {
				t := in[i]
				if i > 2 && t.NumElements() == 0 {
					continue // an omitted optional input
				}
				if err := checkSameDType(t, names[i], x, "input"); err != nil {
					return err
				}
				if t.Shape.Rank() != 1 || t.Shape[0] != h {
					return fmt.Errorf("input %s %v: want 1-D of size %d (input's last dimension)", names[i], t.Shape, h)
				}
			}
			setShape(out[0], x.Shape, x.DType)
			stat := shapeOf(out[1], r)
			copy(stat, x.Shape)
			stat[r-1] = 1
			out[1].Shape, out[1].DType = stat, kernel.Float32
			setShape(out[2], stat, kernel.Float32)
			setShape(out[3], x.Shape, x.DType)
			return nil
		}
		var row []float64
		k.computeF = func(a *kernel.Args) error {
			x, s := a.In[0], a.In[1]
			if !a.Out[0].Shape.Equal(x.Shape) || a.Out[0].DType != x.DType {
				return errors.New("operands differ from the inferred ones")
			}
			h := x.Shape[x.Shape.Rank()-1]
			var beta, bias *kernel.Tensor
			if simplified {
				if len(a.In) > 3 && a.In[3].NumElements() > 0 {
					bias = a.In[3]
				}
			} else {
				if len(a.In) > 3 && a.In[3].NumElements() > 0 {
					beta = a.In[3]
				}
				if len(a.In) > 4 && a.In[4].NumElements() > 0 {
					bias = a.In[4]
				}
			}
			if h == 0 {
				return nil
			}
			row = grownFloats(row, int(h))
			p := skipLN{dt: x.DType, x: x.Data(), skip: s.Data(), skipN: s.NumElements(), gamma: a.In[2].Data(),
				y: a.Out[0].Data(), mean: kernel.Float32s(a.Out[1].Data()), inv: kernel.Float32s(a.Out[2].Data()),
				sum: a.Out[3].Data(), h: h, eps: eps, simplified: simplified, row: row}
			if beta != nil {
				p.beta = beta.Data()
			}
			if bias != nil {
				p.bias = bias.Data()
			}
			skipLNRows(&p, x.NumElements()/h)
			return nil
		}
		return newKernel(sig{op: op, minIn: 3, maxIn: maxIn, nOut: 4}, k), nil
	}
}

// skipLN holds one SkipLayerNormalization computation's operands.
type skipLN struct {
	dt                         kernel.DType
	x, skip, gamma, beta, bias []byte
	y, sum                     []byte
	mean, inv                  []float32
	skipN, h                   int64
	eps                        float64
	simplified                 bool
	row                        []float64 // the row's sums, of T's values
}

// skipLNRows normalizes rows rows in float32.
func skipLNRows(p *skipLN, rows int64) {
	type T = float32
	h, dt := p.h, p.dt
	eps := T(p.eps)
	for r := range rows {
		base := r * h
		sb := base % p.skipN
		var sq T // the simplified form's E[s²], in float32 as onnxruntime
		for j := range h {
			v := T(loadF(dt, p.x, base+j)) + T(loadF(dt, p.skip, sb+j))
			if p.bias != nil {
				v += T(loadF(dt, p.bias, j))
			}
			p.row[j] = float64(v)
			storeF(dt, p.sum, base+j, float64(v))
			sq += T(v * v)
		}
		if !p.simplified {
			// Mean and variance in float64, in two passes, as
			// LayerNormalization: onnxruntime 1.30's kernel keeps the
			// precision of rows whose values share a large offset,
			// where E[s²] − mean² in float32 would cancel.
			var sum64 float64
			for j := range h {
				sum64 += p.row[j]
			}
			mean := sum64 / float64(h)
			var sq64 float64
			for j := range h {
				c := p.row[j] - mean
				sq64 += float64(c * c)
			}
			rstd := 1 / math.Sqrt(sq64/float64(h)+p.eps)
			p.mean[r], p.inv[r] = float32(mean), float32(rstd)
			for j := range h {
				y := float64((p.row[j] - mean) * rstd * loadF(dt, p.gamma, j))
				if p.beta != nil {
					y += loadF(dt, p.beta, j)
				}
				storeF(dt, p.y, base+j, y)
			}
			continue
		}
		d := T(math.Sqrt(float64(sq/T(h) + eps)))
		p.mean[r] = 0
		p.inv[r] = float32(1 / d)
		for j := range h {
			v := T(p.row[j])
			g := T(loadF(dt, p.gamma, j))
			storeF(dt, p.y, base+j, float64(T(T(v/d)*g)))
		}
	}
}

func grownFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// newSimplifiedLayerNorm builds SimplifiedLayerNormalization: RMSNormalization
// with an inv_std_var output, and scale (and Y) of a float type of its own.
func newSimplifiedLayerNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	axis, eps, err := axisEpsilon(attrs)
	if err != nil {
		return nil, err
	}
	if st, err := attrs.Int("stash_type", 1); err != nil {
		return nil, wrapAttr(err)
	} else if st != 1 {
		return nil, fmt.Errorf("ops: SimplifiedLayerNormalization: stash_type %d (only 1, float32 statistics)", st)
	}
	k := &simple{flops: 4}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, scale := in[0], in[1]
		if err := dtypeIn(x, "X", onnxFloats...); err != nil {
			return err
		}
		if err := dtypeIn(scale, "scale", onnxFloats...); err != nil {
			return err
		}
		ax, err := kernel.NormAxis(axis, x.Shape.Rank())
		if err != nil || x.Shape.Rank() == 0 {
			return fmt.Errorf("axis %d is out of range for X %v: want [-r, r) for its rank r ≥ 1", axis, x.Shape)
		}
		if !broadcastsTo(scale.Shape, x.Shape) {
			return fmt.Errorf("input scale %v does not broadcast to X %v", scale.Shape, x.Shape)
		}
		setShape(out[0], x.Shape, scale.DType)
		stat := shapeOf(out[1], x.Shape.Rank())
		copy(stat, x.Shape)
		for i := ax; i < len(stat); i++ {
			stat[i] = 1
		}
		out[1].Shape, out[1].DType = stat, kernel.Float32
		return nil
	}
	var w bcast
	k.computeF = func(a *kernel.Args) error {
		x, scale, y := a.In[0], a.In[1], a.Out[0]
		if y.DType != scale.DType || !x.Shape.Equal(y.Shape) {
			return fmt.Errorf("operand %v differs from the output %v", x, y)
		}
		ax, err := kernel.NormAxis(axis, x.Shape.Rank())
		if err != nil {
			return err
		}
		if err := w.set(x.Shape, scale.Shape); err != nil {
			return err
		}
		n := x.Shape[ax:].NumElements()
		groups := x.Shape[:ax].NumElements()
		xb, sb, yb := x.Data(), scale.Data(), y.Data()
		inv := kernel.Float32s(a.Out[1].Data())
		for g := range groups {
			if n == 0 {
				break
			}
			base := g * n
			var ss float64
			for i := range n {
				v := loadF(x.DType, xb, base+i)
				ss += mul64(v, v)
			}
			rms := math.Sqrt(ss/float64(n) + eps)
			inv[g] = float32(1 / rms)
			for i := range n {
				storeF(y.DType, yb, base+i, loadF(x.DType, xb, base+i)/rms*loadF(scale.DType, sb, w.off[0]))
				w.next()
			}
		}
		return nil
	}
	return newKernel(sig{op: "SimplifiedLayerNormalization", minIn: 2, maxIn: 2, nOut: 2}, k), nil
}

// fusedMatMul is FusedMatMul's impl state: the logical shapes and strides
// of its operands, kept from run to run.
type fusedMatMul struct {
	alpha                    float64
	transA, transB           bool
	transBatchA, transBatchB bool
	// Per output batch dimension: its size and A's and B's strides (0
	// where broadcast); idx walks it.
	dims, sa, sb, idx []int64
	scratch           [4][]int64 // A's and B's logical batch dimensions and strides
	bRows             []float32  // a float32 B's logical rows [k, n], when strided
}

func newFusedMatMul(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("alpha", "transA", "transB", "transBatchA", "transBatchB"); err != nil {
		return nil, wrapAttr(err)
	}
	f := &fusedMatMul{}
	alpha, err := attrs.Float("alpha", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	f.alpha = float64(float32(alpha))
	for _, p := range []struct {
		name string
		v    *bool
	}{{"transA", &f.transA}, {"transB", &f.transB}, {"transBatchA", &f.transBatchA}, {"transBatchB", &f.transBatchB}} {
		if *p.v, err = flagAttr(attrs, p.name, false); err != nil {
			return nil, wrapAttr(err)
		}
	}
	k := &simple{flops: 0}
	k.inferF = func(in, out []*kernel.Tensor) error {
		a, b := in[0], in[1]
		if err := dtypeIn(a, "A", kernel.Float32, kernel.Float16, kernel.Float64); err != nil {
			return err
		}
		if err := checkSameDType(b, "B", a, "A"); err != nil {
			return err
		}
		shape, err := f.geometry(a.Shape, b.Shape, nil)
		if err != nil {
			return err
		}
		setShape(out[0], shape, a.DType)
		return nil
	}
	k.computeF = func(args *kernel.Args) error {
		a, b, y := args.In[0], args.In[1], args.Out[0]
		var g mmGeometry
		if _, err := f.geometry(a.Shape, b.Shape, &g); err != nil {
			return err
		}
		if y.DType != a.DType || y.NumElements() != g.batch*g.m*g.n {
			return errors.New("operands differ from the inferred ones")
		}
		f.run(a, b, y, &g)
		return nil
	}
	return newKernel(sig{op: "FusedMatMul", minIn: 2, maxIn: 2, nOut: 1}, &fusedCost{k, f}), nil
}

// fusedCost is FusedMatMul's impl: simple's, with the product's cost.
type fusedCost struct {
	*simple
	f *fusedMatMul
}

func (c *fusedCost) cost(in, out []*kernel.Tensor) device.Cost {
	var g mmGeometry
	if _, err := c.f.geometry(in[0].Shape, in[1].Shape, &g); err != nil {
		return device.Cost{}
	}
	return device.Cost{FLOPs: 2 * float64(g.batch*g.m*g.n*g.k), Bytes: float64(in[0].Bytes() + in[1].Bytes() + out[0].Bytes())}
}

// mmGeometry is one FusedMatMul's product: batch products of [m,k]×[k,n],
// with the element strides of A's rows and columns (am, ak) and B's (bk,
// bn).
type mmGeometry struct {
	batch, m, n, k, am, ak, bk, bn int64
}

// logicalOperand returns the logical matrix of an operand of shape s of
// rank ≥ 2 (rows, cols and their element strides) after transBatch and
// trans, and appends its logical batch dimensions and strides to dims and
// strides.
func logicalOperand(s kernel.Shape, transBatch, trans bool, dims, strides []int64) (rows, cols, rs, cs int64, d, st []int64) {
	r := s.Rank()
	// phys is the element stride of dimension i; at(p) the physical
	// dimension at logical position p: with transBatch, dimension 0 moves
	// behind the other batch dimensions (just before the last).
	phys := func(i int) int64 { return s[i+1:].NumElements() }
	at := func(p int) int {
		switch {
		case !transBatch || p == r-1:
			return p
		case p == r-2:
			return 0
		}
		return p + 1
	}
	for p := range r - 2 {
		dims = append(dims, s[at(p)])
		strides = append(strides, phys(at(p)))
	}
	ri, ci := at(r-2), at(r-1)
	if trans {
		ri, ci = ci, ri
	}
	return s[ri], s[ci], phys(ri), phys(ci), dims, strides
}

// geometry checks the operand shapes and returns the output shape; with g
// it also fills g and the batch walk of f.
func (f *fusedMatMul) geometry(as, bs kernel.Shape, g *mmGeometry) (kernel.Shape, error) {
	// A 1-D A is a row [1, K], a 1-D B a column [K, 1].
	var m, ka, am, ak, kb, n, bk, bn int64
	adims, astr := f.scratch[0][:0], f.scratch[1][:0]
	bdims, bstr := f.scratch[2][:0], f.scratch[3][:0]
	switch {
	case as.Rank() == 0 || bs.Rank() == 0:
		return nil, fmt.Errorf("operands A %v and B %v: want rank ≥ 1", as, bs)
	case as.Rank() == 1 && f.transA, bs.Rank() == 1 && f.transB:
		return nil, fmt.Errorf("operands A %v and B %v: a 1-D operand takes no trans", as, bs)
	case (f.transBatchA || f.transBatchB) && (as.Rank() < 3 || as.Rank() != bs.Rank()):
		return nil, fmt.Errorf("operands A %v and B %v: with transBatchA or transBatchB both need one rank, 3 or more", as, bs)
	}
	if as.Rank() == 1 {
		m, ka, am, ak = 1, as[0], 0, 1
	} else {
		m, ka, am, ak, adims, astr = logicalOperand(as, f.transBatchA, f.transA, adims, astr)
	}
	if bs.Rank() == 1 {
		kb, n, bk, bn = bs[0], 1, 1, 0
		if f.transA {
			// onnxruntime reads A's matrices unmoved, as row-major [M, K]
			// of the swapped dimensions.
			am, ak = ka, 1
		}
	} else {
		kb, n, bk, bn, bdims, bstr = logicalOperand(bs, f.transBatchB, f.transB, bdims, bstr)
	}
	f.scratch = [4][]int64{adims, astr, bdims, bstr}
	if ka != kb {
		return nil, fmt.Errorf("operands A %v and B %v (transA %v, transB %v, transBatchA %v, transBatchB %v): inner dimensions %d and %d differ",
			as, bs, f.transA, f.transB, f.transBatchA, f.transBatchB, ka, kb)
	}
	r := max(len(adims), len(bdims))
	var out kernel.Shape
	if g == nil {
		out = make(kernel.Shape, 0, r+2)
	}
	f.dims, f.sa, f.sb = f.dims[:0], f.sa[:0], f.sb[:0]
	batch := int64(1)
	for i := range r {
		da, db := int64(1), int64(1)
		var sa, sb int64
		if j := i - (r - len(adims)); j >= 0 {
			da, sa = adims[j], astr[j]
		}
		if j := i - (r - len(bdims)); j >= 0 {
			db, sb = bdims[j], bstr[j]
		}
		d := da
		switch {
		case da == db:
		case da == 1:
			d, sa = db, 0
		case db == 1:
			sb = 0
		default:
			return nil, fmt.Errorf("batch dimensions of A %v and B %v do not broadcast", as, bs)
		}
		if da == 1 {
			sa = 0
		}
		if db == 1 {
			sb = 0
		}
		if g == nil {
			out = append(out, d)
		}
		batch *= d
		f.dims, f.sa, f.sb = append(f.dims, d), append(f.sa, sa), append(f.sb, sb)
	}
	if g == nil && as.Rank() > 1 {
		out = append(out, m)
	}
	if g == nil && bs.Rank() > 1 {
		out = append(out, n)
	}
	if g != nil {
		*g = mmGeometry{batch: batch, m: m, n: n, k: ka, am: am, ak: ak, bk: bk, bn: bn}
	}
	return out, nil
}

// run computes the products, walking the output batch dimensions.
func (f *fusedMatMul) run(a, b, y *kernel.Tensor, g *mmGeometry) {
	dt := a.DType
	ab, bb, yb := a.Data(), b.Data(), y.Data()
	f.idx = grownInts(f.idx, len(f.dims))
	clear(f.idx)
	var offA, offB int64
	for p := range g.batch {
		base := p * g.m * g.n
		if dt == kernel.Float32 {
			var a32, b32 []float32 // no output or no term (k 0): no operand to read
			if g.k > 0 && g.m > 0 && g.n > 0 {
				a32, b32 = kernel.Float32s(ab)[offA:], kernel.Float32s(bb)[offB:]
			}
			f.rows32(a32, b32, kernel.Float32s(yb)[base:base+g.m*g.n], g)
		}
		for i := range g.m {
			if dt == kernel.Float32 {
				break
			}
			for j := range g.n {
				if dt == kernel.Float64 {
					var s float64
					for kk := range g.k {
						s += mul64(kernel.Float64s(ab)[offA+i*g.am+kk*g.ak], kernel.Float64s(bb)[offB+kk*g.bk+j*g.bn])
					}
					kernel.Float64s(yb)[base+i*g.n+j] = mul64(s, f.alpha)
					continue
				}
				var s float32
				for kk := range g.k {
					x := float32(loadF(dt, ab, offA+i*g.am+kk*g.ak))
					w := float32(loadF(dt, bb, offB+kk*g.bk+j*g.bn))
					s += float32(x * w)
				}
				storeF(dt, yb, base+i*g.n+j, float64(float32(s*float32(f.alpha))))
			}
		}
		// Next batch position.
		for d := len(f.dims) - 1; d >= 0; d-- {
			f.idx[d]++
			offA += f.sa[d]
			offB += f.sb[d]
			if f.idx[d] < f.dims[d] {
				break
			}
			offA -= f.sa[d] * f.dims[d]
			offB -= f.sb[d] * f.dims[d]
			f.idx[d] = 0
		}
	}
}

// rows32 computes one float32 product of g into y by row updates: each
// output row from +0, adding a[i, kk]·B[kk, :] for kk ascending, then
// times alpha: per element the scalar loop's sum s += x·w from +0, in
// the same order, so the same bits. B's logical rows are copied out first
// when they are not contiguous.
func (f *fusedMatMul) rows32(a, b, y []float32, g *mmGeometry) {
	if g.m == 0 || g.n == 0 {
		return // no output: a and b may be empty
	}
	bt, ldb := b, g.bk
	if g.bn != 1 && g.k > 0 {
		need := g.k * g.n
		if int64(cap(f.bRows)) < need {
			f.bRows = make([]float32, need)
		}
		bt, ldb = f.bRows[:need], g.n
		for kk := range g.k {
			for j := range g.n {
				bt[kk*g.n+j] = b[kk*g.bk+j*g.bn]
			}
		}
	}
	alpha := float32(f.alpha)
	for i := range g.m {
		row := y[i*g.n : (i+1)*g.n]
		clear(row)
		for kk := range g.k {
			axpy1(row, bt[kk*ldb:], a[i*g.am+kk*g.ak])
		}
		for j := range row {
			row[j] = float32(row[j] * alpha)
		}
	}
}

// newMSRotaryEmbedding builds com.microsoft's RotaryEmbedding (pipert op
// MSRotaryEmbedding). input is [batch, seq, hidden] or [batch, heads, seq,
// head_size], float32 or float16; position_ids int64 [batch, seq], or one
// element p0 giving position p0 + s to token s; cos_cache and sin_cache
// [max_positions, rotary_dim/2] of input's dtype. The head size is
// 2·cos_cache's last dimension, or with rotary_embedding_dim (which needs
// num_heads) hidden/num_heads; the rotated part of each head is its first
// rotary_embedding_dim elements (all of it by default), the rest is
// copied. Element i of the rotated part of a head at position p is
// x[i]·cos[p][c] + sign·x[j]·sin[p][c], where without interleaved c = i mod
// half, j the element half away and sign −1 in the first half, and with
// interleaved c = i/2, j the other element of i's pair and sign −1 on even
// i; evaluated in float32 (the two products rounded, then summed) and
// rounded to input's dtype. scale is accepted and, as in onnxruntime's CPU
// kernel, unused; is_packed_batching must be 0. A position outside the
// caches is an error.
func newMSRotaryEmbedding(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("interleaved", "num_heads", "rotary_embedding_dim", "scale", "is_packed_batching"); err != nil {
		return nil, wrapAttr(err)
	}
	interleaved, err := flagAttr(attrs, "interleaved", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	packed, err := flagAttr(attrs, "is_packed_batching", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if packed {
		return nil, notImplemented("ops: MSRotaryEmbedding: is_packed_batching 1 (packed batches) is not implemented")
	}
	if _, err := attrs.Float("scale", 1); err != nil {
		return nil, wrapAttr(err)
	}
	heads, err := attrs.Int("num_heads", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	rotDim, err := attrs.Int("rotary_embedding_dim", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if heads < 0 || rotDim < 0 {
		return nil, fmt.Errorf("ops: MSRotaryEmbedding: num_heads %d and rotary_embedding_dim %d: want ≥ 0", heads, rotDim)
	}
	if rotDim > 0 && heads == 0 {
		return nil, errors.New("ops: MSRotaryEmbedding: rotary_embedding_dim needs num_heads")
	}
	type dims struct{ batch, heads, seq, size, rot int64 }
	layout := func(x, cos kernel.Shape) (dims, error) {
		var d dims
		if cos.Rank() != 2 {
			return d, fmt.Errorf("cos_cache %v: want [max_positions, rotary_dim/2]", cos)
		}
		var hidden int64
		switch x.Rank() {
		case 3:
			d.batch, d.seq, hidden = x[0], x[1], x[2]
		case 4:
			d.batch, d.seq, hidden = x[0], x[2], x[1]*x[3]
		default:
			return d, fmt.Errorf("input %v: want [batch, seq, hidden] or [batch, heads, seq, head_size]", x)
		}
		if rotDim == 0 {
			d.size = 2 * cos[1]
		} else {
			d.size = hidden / heads
		}
		d.heads = heads
		if d.heads == 0 && d.size > 0 {
			d.heads = hidden / d.size
		}
		if d.size == 0 || d.heads*d.size != hidden || x.Rank() == 4 && (x[1] != d.heads || x[3] != d.size) {
			return d, fmt.Errorf("input %v: hidden size %d is not num_heads %d × head_size %d (cos_cache %v, rotary_embedding_dim %d)", x, hidden, d.heads, d.size, cos, rotDim)
		}
		d.rot = d.size
		if rotDim > 0 {
			if rotDim > d.size {
				return d, fmt.Errorf("rotary_embedding_dim %d exceeds the head size %d", rotDim, d.size)
			}
			d.rot = rotDim
		}
		if d.rot%2 != 0 || cos[1] != d.rot/2 {
			return d, fmt.Errorf("cos_cache %v: want last dimension %d, half the rotary dimension %d (an even number)", cos, d.rot/2, d.rot)
		}
		return d, nil
	}
	k := &simple{flops: 3}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, pos, cos, sin := in[0], in[1], in[2], in[3]
		if err := dtypeIn(x, "input", kernel.Float32, kernel.Float16); err != nil {
			return err
		}
		if err := dtypeIn(pos, "position_ids", kernel.Int64); err != nil {
			return err
		}
		d, err := layout(x.Shape, cos.Shape)
		if err != nil {
			return err
		}
		if pos.NumElements() != 1 && !pos.Shape.Equal(kernel.Shape{d.batch, d.seq}) {
			return fmt.Errorf("position_ids %v: want one element or [batch, seq] = [%d, %d]", pos.Shape, d.batch, d.seq)
		}
		for i, t := range []*kernel.Tensor{cos, sin} {
			if err := checkSameDType(t, [...]string{"cos_cache", "sin_cache"}[i], x, "input"); err != nil {
				return err
			}
		}
		if !sin.Shape.Equal(cos.Shape) {
			return fmt.Errorf("sin_cache %v and cos_cache %v differ", sin.Shape, cos.Shape)
		}
		setShape(out[0], x.Shape, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, pos, cos, sin, y := a.In[0], a.In[1], a.In[2], a.In[3], a.Out[0]
		if x.DType != y.DType || !x.Shape.Equal(y.Shape) {
			return fmt.Errorf("operand %v differs from the output %v", x, y)
		}
		d, err := layout(x.Shape, cos.Shape)
		if err != nil {
			return err
		}
		half, dt := d.rot/2, x.DType
		xb, cb, sb, yb, pb := x.Data(), cos.Data(), sin.Data(), y.Data(), kernel.Int64s(pos.Data())
		size := int64(dt.Size())
		for b := range d.batch {
			for s := range d.seq {
				var p int64
				if pos.NumElements() == 1 {
					p = pb[0] + s
				} else {
					p = pb[b*d.seq+s]
				}
				if p < 0 || p >= cos.Shape[0] {
					return fmt.Errorf("position %d of token [%d, %d] is outside the caches' %d positions", p, b, s, cos.Shape[0])
				}
				for h := range d.heads {
					at := ((b*d.seq+s)*d.heads + h) * d.size
					if x.Shape.Rank() == 4 {
						at = ((b*d.heads+h)*d.seq + s) * d.size
					}
					for i := range d.rot {
						c, j, sign := rotaryPartner(i, d.rot, interleaved)
						xi, xj := float32(loadF(dt, xb, at+i)), float32(loadF(dt, xb, at+j))
						cv, sv := float32(loadF(dt, cb, p*half+c)), float32(loadF(dt, sb, p*half+c))
						v := float32(xi*cv) + float32(sign*float32(xj*sv))
						storeF(dt, yb, at+i, float64(v))
					}
					for e := d.rot; e < d.size; e++ {
						copyElem(yb, at+e, xb, at+e, size)
					}
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "MSRotaryEmbedding", minIn: 4, maxIn: 4, nOut: 1}, k), nil
}

// rotaryPartner returns, for element i of the rot rotated elements of a
// head, the index c of its cos and sin entries, the index j of the element
// it rotates with and the sign of that element's term: interleaved pairs
// (2c, 2c+1), or halves (c, c+rot/2).
func rotaryPartner(i, rot int64, interleaved bool) (c, j int64, sign float32) {
	if interleaved {
		if i%2 == 1 {
			return i / 2, i - 1, 1
		}
		return i / 2, i + 1, -1
	}
	half := rot / 2
	if i < half {
		return i % half, (i + half) % rot, -1
	}
	return i % half, (i + half) % rot, 1
}

// epsilonAttr reads the only attribute of op, epsilon (default 1e-12, as
// onnxruntime's contrib normalizations have it): finite and at least 0.
func epsilonAttr(op string, attrs kernel.Attrs) (float64, error) {
	if err := attrs.Check("epsilon"); err != nil {
		return 0, wrapAttr(err)
	}
	eps, err := attrs.Float("epsilon", 1e-12)
	if err != nil {
		return 0, wrapAttr(err)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return 0, fmt.Errorf("ops: %s: attribute \"epsilon\" is %v, want a finite number ≥ 0", op, eps)
	}
	return eps, nil
}
