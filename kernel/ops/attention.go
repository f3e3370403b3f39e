package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// attentionOps holds ONNX's Attention (opsets 23 to 25).
var attentionOps = []builtin{{"Attention", newAttention}}

// newAttention builds Attention(Q, K, V[, attn_mask[, past_key[,
// past_value[, nonpad_kv_seqlen]]]]) → (Y, present_key, present_value,
// qk_matmul_output), scaled dot-product attention (ONNX opsets 23 to 25;
// nonpad_kv_seqlen from 24). All four outputs are always computed.
//
// Q, K and V are 4-D, [batch, q_heads, q_seq, head_size], [batch,
// kv_heads, kv_seq, head_size] and [batch, kv_heads, kv_seq, v_head_size],
// or 3-D, [batch, seq, heads·size], with the attributes q_num_heads and
// kv_num_heads both given (with 4-D inputs they may be given only at
// opsets 23 and 24, and must then equal the inputs' heads). kv_heads must
// divide q_heads: query head h reads key/value head h / (q_heads /
// kv_heads). past_key and past_value ([batch, kv_heads, past_seq, …]) come
// together or not at all; present_key and present_value are past and
// new keys and values concatenated along the sequence, always 4-D, with
// total_seq = past_seq + kv_seq.
//
// Each score is s = scale · Σ q·k over the head (scale defaults to
// 1/√head_size; a given scale must be positive), then softcap · tanh(s /
// softcap) when softcap is positive, then plus the bias: attn_mask, bool
// (false gives −∞) or float32 (added), of rank 2 to 4 and
// broadcasting to [batch, q_heads, q_seq, total_seq] aligned at the end,
// its last dimension total_seq, or from opset 24 shorter (the keys past it
// get −∞, as the mask is padded with); with is_causal 1, −∞ where key j > i +
// offset for query i, offset being past_seq with a cache,
// nonpad_kv_seqlen[b] − q_seq with nonpad_kv_seqlen, 0 otherwise; with
// nonpad_kv_seqlen (int64 [batch], each in [0, kv_seq], not with a
// cache), −∞ where j ≥ nonpad_kv_seqlen[b]; with left_window_size or
// right_window_size (opset 25, −1 by default: that side unbounded), −∞
// where j < p − left_window_size or j > p + right_window_size for the
// query's position p = i + offset, the offset of is_causal whether or not
// is_causal is set. A query row whose every
// bias is −∞ has zero probabilities; others take the softmax over the
// keys. Y is Σ p·v, 3-D [batch, q_seq, q_heads·v_head_size] for 3-D
// inputs. qk_matmul_output ([batch, q_heads, q_seq, total_seq]) holds,
// by qk_matmul_output_mode, the scaled scores (0), the softcapped scores
// (1), the scores plus bias (2: −∞ where a bool mask, the causal mask, a
// shorter mask's padding, nonpad_kv_seqlen or the window masks, as ONNX's
// text and its reference give;
// onnxruntime 1.30 writes the lowest float32 there) or the
// probabilities (3).
//
// Q, K, V, the caches and a float mask share one dtype: float32, float16,
// bfloat16 or float64. Scores, softmax and each output's sum are
// evaluated in float64 and every output element is rounded once,
// whatever softmax_precision gives (a float type: 1, 10, 11 or 16), as
// onnxruntime computes the softmax whatever it gives. onnxruntime 1.30
// rounds float16 intermediate results (its outputs are within about an
// ulp of pipert's), and its float64 kernel gives NaN, not zero, for a
// fully masked row. Refused: integer masks, masks of rank 1 or, before
// opset 24, with a shorter last dimension, a non-positive
// scale, a negative softcap, and window sizes below −1.
//
// Workspace: none (a row of scores the kernel keeps).
func newAttention(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(23)
	if err != nil {
		return nil, wrapAttr(err)
	}
	names := []string{"is_causal", "kv_num_heads", "q_num_heads", "qk_matmul_output_mode", "scale", "softcap", "softmax_precision"}
	if opset >= 25 {
		names = append(names, "left_window_size", "right_window_size")
	}
	if err := attrs.Check(names...); err != nil {
		return nil, wrapAttr(err)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("ops: Attention: "+format, a...)
	}
	causal, err := flagAttr(attrs, "is_causal", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	var heads [2]int64 // q_num_heads, kv_num_heads; 0 when absent
	for i, name := range [...]string{"q_num_heads", "kv_num_heads"} {
		v, err := attrs.Int(name, 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		if _, ok := attrs[name]; ok && v < 1 {
			return nil, fail("attribute %q is %d, want a positive integer", name, v)
		}
		heads[i] = v
	}
	mode, err := attrs.Int("qk_matmul_output_mode", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if mode < 0 || mode > 3 {
		return nil, fail("qk_matmul_output_mode %d, want 0, 1, 2 or 3", mode)
	}
	scale, err := attrs.Float("scale", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	_, hasScale := attrs["scale"]
	scale = float64(float32(scale)) // a float32 attribute
	if hasScale && !(scale > 0 && !math.IsInf(scale, 1)) {
		return nil, fail("scale %g: only a positive finite scale is implemented", scale)
	}
	softcap, err := attrs.Float("softcap", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	softcap = float64(float32(softcap))
	if !(softcap >= 0) || math.IsInf(softcap, 1) {
		return nil, fail("softcap %g: want 0 (none) or a positive finite value", softcap)
	}
	if err := floatTypeAttr(attrs, "Attention", "softmax_precision"); err != nil {
		return nil, err
	}
	var window [2]int64 // left, right; −1: that side unbounded
	for i, name := range [...]string{"left_window_size", "right_window_size"} {
		w, err := attrs.Int(name, -1)
		if err != nil {
			return nil, wrapAttr(err)
		}
		if w < -1 {
			return nil, fail("%s %d: want -1 (unbounded) or a size of 0 or more", name, w)
		}
		window[i] = w
	}
	maxIn := 6
	if opset >= 24 {
		maxIn = 7
	}
	k := &attention{opset: opset, causal: causal, qHeads: heads[0], kvHeads: heads[1], mode: mode,
		scale: scale, softcap: softcap, left: window[0], right: window[1]}
	k.inferF = k.inferAttention
	k.computeF = k.computeAttention
	return newKernel(sig{op: "Attention", minIn: 3, maxIn: maxIn, nOut: 4}, k), nil
}

// attention is the Attention kernel: a simple kernel with its attributes,
// its cost and the row of scores it keeps.
type attention struct {
	simple
	opset                 int64
	causal                bool
	qHeads, kvHeads, mode int64
	// left and right bound the keys a query at position p sees to
	// [p − left, p + right] (opset 25's sliding window; −1: unbounded).
	left, right    int64
	scale, softcap float64
	z              []float64 // one query row's scores plus bias
}

// attnDims are the sizes of one Attention call.
type attnDims struct {
	batch, qHeads, kvHeads, qSeq, kvSeq, past, total, size, vSize int64
	threeD                                                        bool
}

// optionalIn returns input i, or nil when it is absent: not given, or given
// as a zero-element vector (how the importer passes an omitted input).
func optionalIn(in []*kernel.Tensor, i int) *kernel.Tensor {
	if len(in) <= i || in[i].Shape.Rank() == 1 && in[i].NumElements() == 0 {
		return nil
	}
	return in[i]
}

// dims checks the operands and returns the sizes.
func (k *attention) dims(in []*kernel.Tensor) (attnDims, error) {
	var d attnDims
	q, kk, v := in[0], in[1], in[2]
	dt := q.DType
	if err := dtypeIn(q, "Q", kernel.Float32, kernel.Float16, kernel.BFloat16, kernel.Float64); err != nil {
		return d, err
	}
	if err := checkSameDType(kk, "K", q, "Q"); err != nil {
		return d, err
	}
	if err := checkSameDType(v, "V", q, "Q"); err != nil {
		return d, err
	}
	r := q.Shape.Rank()
	if r != 3 && r != 4 || kk.Shape.Rank() != r || v.Shape.Rank() != r {
		return d, fmt.Errorf("inputs Q %v, K %v, V %v: want all 4-D [batch, heads, seq, head_size] or all 3-D [batch, seq, hidden]", q.Shape, kk.Shape, v.Shape)
	}
	if r == 3 {
		if k.qHeads == 0 || k.kvHeads == 0 {
			return d, fmt.Errorf("3-D inputs need the attributes q_num_heads and kv_num_heads")
		}
		d = attnDims{batch: q.Shape[0], qHeads: k.qHeads, kvHeads: k.kvHeads, qSeq: q.Shape[1], kvSeq: kk.Shape[1], threeD: true}
		if q.Shape[2]%k.qHeads != 0 || kk.Shape[2]%k.kvHeads != 0 || v.Shape[2]%k.kvHeads != 0 {
			return d, fmt.Errorf("hidden sizes of Q %v, K %v, V %v are not multiples of q_num_heads %d and kv_num_heads %d", q.Shape, kk.Shape, v.Shape, k.qHeads, k.kvHeads)
		}
		d.size, d.vSize = q.Shape[2]/k.qHeads, v.Shape[2]/k.kvHeads
		if kk.Shape[2]/k.kvHeads != d.size {
			return d, fmt.Errorf("input K %v has head size %d, input Q %v head size %d", kk.Shape, kk.Shape[2]/k.kvHeads, q.Shape, d.size)
		}
		if kk.Shape[0] != d.batch || v.Shape[0] != d.batch || v.Shape[1] != d.kvSeq {
			return d, fmt.Errorf("inputs Q %v, K %v, V %v disagree on batch or sequence", q.Shape, kk.Shape, v.Shape)
		}
	} else {
		if k.opset >= 25 && (k.qHeads != 0 || k.kvHeads != 0) {
			return d, fmt.Errorf("q_num_heads and kv_num_heads must not be given with 4-D inputs (opset %d)", k.opset)
		}
		d = attnDims{batch: q.Shape[0], qHeads: q.Shape[1], kvHeads: kk.Shape[1], qSeq: q.Shape[2], kvSeq: kk.Shape[2], size: q.Shape[3], vSize: v.Shape[3]}
		if kk.Shape[0] != d.batch || v.Shape[0] != d.batch || v.Shape[1] != d.kvHeads || v.Shape[2] != d.kvSeq || kk.Shape[3] != d.size {
			return d, fmt.Errorf("inputs Q %v, K %v, V %v: want [b, hq, sq, d], [b, hkv, skv, d], [b, hkv, skv, dv]", q.Shape, kk.Shape, v.Shape)
		}
		if k.qHeads != 0 && k.qHeads != d.qHeads || k.kvHeads != 0 && k.kvHeads != d.kvHeads {
			return d, fmt.Errorf("q_num_heads %d and kv_num_heads %d differ from the heads of Q %v and K %v", k.qHeads, k.kvHeads, q.Shape, kk.Shape)
		}
	}
	if d.kvHeads < 1 || d.qHeads%d.kvHeads != 0 {
		return d, fmt.Errorf("%d key/value heads do not divide %d query heads", d.kvHeads, d.qHeads)
	}
	pk, pv := optionalIn(in, 4), optionalIn(in, 5)
	if (pk == nil) != (pv == nil) {
		return d, fmt.Errorf("past_key and past_value must be given together")
	}
	if pk != nil {
		if err := checkSameDType(pk, "past_key", q, "Q"); err != nil {
			return d, err
		}
		if err := checkSameDType(pv, "past_value", q, "Q"); err != nil {
			return d, err
		}
		if pk.Shape.Rank() != 4 {
			return d, fmt.Errorf("input past_key %v: want [batch, kv_heads, past_seq, head_size]", pk.Shape)
		}
		d.past = pk.Shape[2]
		if !pk.Shape.Equal(kernel.Shape{d.batch, d.kvHeads, d.past, d.size}) || !pv.Shape.Equal(kernel.Shape{d.batch, d.kvHeads, d.past, d.vSize}) {
			return d, fmt.Errorf("inputs past_key %v and past_value %v: want [%d, %d, past_seq, %d] and [%d, %d, past_seq, %d]",
				pk.Shape, pv.Shape, d.batch, d.kvHeads, d.size, d.batch, d.kvHeads, d.vSize)
		}
	}
	d.total = d.past + d.kvSeq
	if m := optionalIn(in, 3); m != nil {
		if m.DType != kernel.Bool && m.DType != dt {
			return d, fmt.Errorf("input attn_mask has dtype %v, want bool or Q's %v", m.DType, dt)
		}
		mr := m.Shape.Rank()
		if mr < 2 || mr > 4 {
			return d, fmt.Errorf("input attn_mask %v: want rank 2 to 4", m.Shape)
		}
		if last := m.Shape[mr-1]; last > d.total || last < d.total && k.opset < 24 {
			want := fmt.Sprint("total_sequence_length ", d.total)
			if k.opset >= 24 {
				want = fmt.Sprint("at most total_sequence_length ", d.total)
			}
			return d, fmt.Errorf("input attn_mask %v: last dimension %d, want %s", m.Shape, last, want)
		}
		padded := m.Shape.Clone()
		padded[mr-1] = d.total
		if !broadcastsTo(padded, kernel.Shape{d.batch, d.qHeads, d.qSeq, d.total}) {
			return d, fmt.Errorf("input attn_mask %v does not broadcast to [%d, %d, %d, %d]", m.Shape, d.batch, d.qHeads, d.qSeq, d.total)
		}
	}
	if n := optionalIn(in, 6); n != nil {
		if pk != nil {
			return d, fmt.Errorf("nonpad_kv_seqlen cannot be combined with past_key and past_value")
		}
		if err := dtypeIn(n, "nonpad_kv_seqlen", kernel.Int64); err != nil {
			return d, err
		}
		if !n.Shape.Equal(kernel.Shape{d.batch}) {
			return d, fmt.Errorf("input nonpad_kv_seqlen %v: want [batch] = [%d]", n.Shape, d.batch)
		}
	}
	return d, nil
}

func (k *attention) inferAttention(in, out []*kernel.Tensor) error {
	d, err := k.dims(in)
	if err != nil {
		return err
	}
	dt := in[0].DType
	y := kernel.Shape{d.batch, d.qHeads, d.qSeq, d.vSize}
	if d.threeD {
		y = kernel.Shape{d.batch, d.qSeq, d.qHeads * d.vSize}
	}
	setShape(out[0], y, dt)
	setShape(out[1], kernel.Shape{d.batch, d.kvHeads, d.total, d.size}, dt)
	setShape(out[2], kernel.Shape{d.batch, d.kvHeads, d.total, d.vSize}, dt)
	setShape(out[3], kernel.Shape{d.batch, d.qHeads, d.qSeq, d.total}, dt)
	return nil
}

func (k *attention) cost(in, out []*kernel.Tensor) device.Cost {
	c := k.simple.cost(in, out)
	if len(out) == 4 && len(in[0].Shape) > 0 {
		qk := float64(out[3].NumElements()) // one score per query and key
		per := 8.0
		if r := in[0].Shape.Rank(); r == 3 || r == 4 {
			per += mul64(2, float64(in[0].Shape[r-1])) // the dot product (roughly)
		}
		total := float64(out[3].Shape[len(out[3].Shape)-1])
		c.FLOPs = mul64(qk, per) + mul64(2*float64(out[0].NumElements()), total)
	}
	return c
}

// cacheCopy writes the new rows of K (or V) and the past rows into present
// ([batch, kv_heads, total, size]).
func cacheCopy(present, past, x *kernel.Tensor, d attnDims, size int64) {
	es := int64(x.DType.Size())
	pb, xb, ob := []byte(nil), x.Data(), present.Data()
	if past != nil {
		pb = past.Data()
	}
	for b := range d.batch {
		for g := range d.kvHeads {
			row := (b*d.kvHeads + g) * d.total // present's first row of the head
			if d.past > 0 {
				src := (b*d.kvHeads + g) * d.past * size
				copy(ob[row*size*es:(row+d.past)*size*es], pb[src*es:(src+d.past*size)*es])
			}
			for j := range d.kvSeq {
				src := ((b*d.kvHeads+g)*d.kvSeq + j) * size
				if d.threeD {
					src = ((b*d.kvSeq+j)*d.kvHeads + g) * size
				}
				dst := (row + d.past + j) * size
				copy(ob[dst*es:(dst+size)*es], xb[src*es:(src+size)*es])
			}
		}
	}
}

func (k *attention) computeAttention(a *kernel.Args) error {
	d, err := k.dims(a.In)
	if err != nil {
		return err
	}
	q, y, pk, pv, qk := a.In[0], a.Out[0], a.Out[1], a.Out[2], a.Out[3]
	dt := q.DType
	for _, o := range a.Out {
		if o.DType != dt {
			return fmt.Errorf("output %v differs from Q's dtype %v", o, dt)
		}
	}
	cacheCopy(pk, optionalIn(a.In, 4), a.In[1], d, d.size)
	cacheCopy(pv, optionalIn(a.In, 5), a.In[2], d, d.vSize)
	var nonpad []int64
	if n := optionalIn(a.In, 6); n != nil {
		nonpad = kernel.Int64s(n.Data())
		for b, v := range nonpad {
			if v < 0 || v > d.total {
				return fmt.Errorf("nonpad_kv_seqlen[%d] is %d, out of range [0, %d]", b, v, d.total)
			}
		}
	}
	// The mask's strides over [batch, q_heads, q_seq, total], 0 where it
	// broadcasts.
	mask := optionalIn(a.In, 3)
	var mstride [4]int64
	var mb []byte
	mlen := d.total // keys from mlen on are masked: a shorter mask's padding
	if mask != nil {
		mb = mask.Data()
		mlen = mask.Shape[mask.Shape.Rank()-1]
		s, full := int64(1), kernel.Shape{d.batch, d.qHeads, d.qSeq, d.total}
		mr := mask.Shape.Rank()
		for i := mr - 1; i >= 0; i-- {
			if dim := mask.Shape[i]; dim != 1 || full[4-mr+i] == 1 {
				mstride[4-mr+i] = s
			}
			s *= mask.Shape[i]
		}
	}
	scale := k.scale
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(d.size))
	}
	if int64(cap(k.z)) < d.total {
		k.z = make([]float64, d.total)
	}
	z := k.z[:d.total]
	qb, kb, vb, yb, ob := q.Data(), pk.Data(), pv.Data(), y.Data(), qk.Data()
	group := d.qHeads / d.kvHeads
	negInf := math.Inf(-1)
	for b := range d.batch {
		offset := d.past
		if nonpad != nil {
			offset = nonpad[b] - d.qSeq
		}
		for h := range d.qHeads {
			if err := a.Err(); err != nil {
				return err // the run ended (kernel.Args.Ctx)
			}
			g := h / group
			kBase := (b*d.kvHeads + g) * d.total
			for i := range d.qSeq {
				qAt := ((b*d.qHeads+h)*d.qSeq + i) * d.size
				if d.threeD {
					qAt = ((b*d.qSeq+i)*d.qHeads + h) * d.size
				}
				oRow := ((b*d.qHeads+h)*d.qSeq + i) * d.total
				masked := true // every bias of the row is −∞
				for j := range d.total {
					var dot float64
					kAt := (kBase + j) * d.size
					for e := range d.size {
						dot += mul64(loadF(dt, qb, qAt+e), loadF(dt, kb, kAt+e))
					}
					s := mul64(scale, dot)
					if k.mode == 0 {
						storeF(dt, ob, oRow+j, s)
					}
					if k.softcap > 0 {
						s = mul64(k.softcap, math.Tanh(s/k.softcap))
					}
					if k.mode == 1 {
						storeF(dt, ob, oRow+j, s)
					}
					var bias float64
					if j >= mlen {
						bias += negInf
					} else if mask != nil {
						mv := loadF(mask.DType, mb, b*mstride[0]+h*mstride[1]+i*mstride[2]+j*mstride[3])
						if mask.DType == kernel.Bool {
							if mv == 0 {
								mv = negInf
							} else {
								mv = 0
							}
						}
						bias += mv
					}
					if k.causal && j > i+offset {
						bias += negInf
					}
					if nonpad != nil && j >= nonpad[b] {
						bias += negInf
					}
					if p := i + offset; k.left >= 0 && j < p-k.left || k.right >= 0 && j > p+k.right {
						bias += negInf
					}
					masked = masked && bias == negInf
					z[j] = s + bias
					if k.mode == 2 {
						storeF(dt, ob, oRow+j, z[j])
					}
				}
				softmaxRow(z, masked)
				if k.mode == 3 {
					for j, p := range z {
						storeF(dt, ob, oRow+int64(j), p)
					}
				}
				for e := range d.vSize {
					var sum float64
					for j, p := range z {
						sum += mul64(p, loadF(dt, vb, (kBase+int64(j))*d.vSize+e))
					}
					yAt := ((b*d.qHeads+h)*d.qSeq+i)*d.vSize + e
					if d.threeD {
						yAt = ((b*d.qSeq+i)*d.qHeads+h)*d.vSize + e
					}
					storeF(dt, yb, yAt, sum)
				}
			}
		}
	}
	return nil
}

// softmaxRow replaces the scores z by their softmax, or by zeros when the
// row is fully masked.
func softmaxRow(z []float64, masked bool) {
	if masked {
		clear(z)
		return
	}
	m := math.Inf(-1)
	for _, v := range z {
		if v > m || v != v {
			m = v
		}
	}
	var sum float64
	for j, v := range z {
		z[j] = expF(v - m)
		sum += z[j]
	}
	for j := range z {
		z[j] /= sum
	}
}
