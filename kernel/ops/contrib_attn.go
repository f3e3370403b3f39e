package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// gqaDims are GroupQueryAttention's sizes: batch, new tokens (S), query
// and key/value heads, head size, the past buffer's length (0 without
// past), total_sequence_length, the present buffers' length, the rotary
// dimension (0 without caches), whether Q, K and V come packed in query,
// and whether the run is a first prompt (S = total_sequence_length).
type gqaDims struct {
	b, s, n, nkv, h         int64
	past, total, present    int64
	rot                     int64
	packed, first, hasCache bool
}

// gqa is GroupQueryAttention's impl state: its attributes and the scratch
// it keeps from run to run.
type gqa struct {
	numHeads, kvHeads int64
	scale, softcap    float32
	window            int64
	rotary            bool
	interleaved       bool
	smooth            bool
	q, k              []float64 // the rotated Q [B, N, S, H] and new K [B, Nkv, S, H]
	row               []float64 // one row of scores
}

// newGroupQueryAttention builds com.microsoft's GroupQueryAttention, the
// attention of onnxruntime GenAI's LLM exports, as onnxruntime's CPU
// kernel computes it.
//
// query is [batch, S, num_heads·H] of float32 or float16, with key and
// value [batch, S, kv_num_heads·H]; or, key and value absent, query
// [batch, S, (num_heads + 2·kv_num_heads)·H] holds each token's Q, K and
// V heads in that order. H is a multiple of 8 (16 with the rotary
// caches). past_key and past_value, both or neither, are [batch,
// kv_num_heads, P, H]; seqlens_k (int32 [batch], or [batch, 1]) gives
// each batch's total length less one, L_b − 1, and total_sequence_length
// (an int32 scalar, a value dependency) the longest, T; every L_b is at
// most T. A run with S =
// T is a first prompt: batches shorter than T are right-padded, their new
// tokens all written, past_key's content unused. Otherwise the run follows
// past context, S = 1 (token generation) or batch 1 (a prompt after
// context); each batch's L_b − S past tokens (at most P) come from
// past_key, past_value.
//
// present_key and present_value are [batch, kv_num_heads, max(T, P), H]:
// zeros, then each batch's past tokens and its S new ones after them (at
// positions 0 to S − 1 in a first prompt, right padding included), K
// rotated. pipert never shares them with past_key and past_value.
//
// With do_rotary 1, Q and K are rotated (cos_cache and sin_cache [positions,
// R/2], R/2 a multiple of 8 and at most H/2, of query's dtype; the first R
// elements of each head rotated, the rest copied; halves, or pairs with
// rotary_interleaved 1) at token s's position: in a first prompt p0 + s,
// p0 position_ids[0] or 0; otherwise position_ids (int64 [batch, ≥ S],
// read with row stride S, as onnxruntime reads it) or L_b − S + s. The
// rotation is evaluated in float32 as onnxruntime's kernel (the pair's
// first product exact, the other rounded, their sum rounded once) and
// rounded to query's dtype. Without do_rotary the caches are checked and
// unused, and position_ids unused.
//
// Query token s of batch b sees keys j < c = L_b − S + s + 1 (s + 1 in a
// first prompt) and j < L_b; with local_window_size w ≥ 0, only j ≥ c − w
// (so w = 0 sees none, and its output is zero). Its score is
// float32(q·k)·scale (scale 0: 1/√H in float32), softcap·tanh(score/softcap)
// with softcap > 0, plus attention_bias ([batch or 1, num_heads or 1, S,
// T], of query's dtype) at [b, n, s, j]. The probabilities are the softmax
// of the scores seen; with smooth_softmax 1, or head_sink ([num_heads],
// not with smooth_softmax) giving head n's logit (0 for smooth_softmax),
// the softmax of the scores and that logit, whose share is dropped; a row
// whose every score is −∞ or at most the lowest float32 (a mask) has zero
// probabilities, as onnxruntime gives it. output
// [batch, S, num_heads·H] is Σ p·v. Scores, softmax and sums are evaluated
// in float64 and output rounded once to query's dtype: results agree with
// onnxruntime's float32 evaluation to float32 rounding (float16 to its
// rounding of the same). In a first prompt with local_window_size, the
// rows of right padding (s ≥ L_b) read scores onnxruntime leaves
// uninitialized; pipert gives them the window above.
//
// Refused: qk_output other than 0 (the output_qk output), quantized caches
// (k_quant_type, v_quant_type other than NONE, kv_cache_bit_width other
// than 0), a run after past context without past_key, position values
// outside the caches, and seqlens_k values outside the lengths above.
//
// Workspace: none (the rotated Q and K and a row of scores the kernel
// keeps).
func newGroupQueryAttention(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("num_heads", "kv_num_heads", "scale", "softcap", "local_window_size", "do_rotary",
		"rotary_interleaved", "smooth_softmax", "qk_output", "k_quant_type", "v_quant_type", "kv_cache_bit_width"); err != nil {
		return nil, wrapAttr(err)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("ops: GroupQueryAttention: "+format, a...)
	}
	g := &gqa{}
	var err error
	if g.numHeads, err = attrs.Int("num_heads", 0); err != nil {
		return nil, wrapAttr(err)
	}
	if g.kvHeads, err = attrs.Int("kv_num_heads", 0); err != nil {
		return nil, wrapAttr(err)
	}
	if g.numHeads < 1 || g.kvHeads < 1 || g.numHeads%g.kvHeads != 0 {
		return nil, fail("attributes \"num_heads\" %d and \"kv_num_heads\" %d: want both given, ≥ 1, num_heads a multiple of kv_num_heads", g.numHeads, g.kvHeads)
	}
	for _, p := range []struct {
		name string
		v    *float32
	}{{"scale", &g.scale}, {"softcap", &g.softcap}} {
		v, err := attrs.Float(p.name, 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		*p.v = float32(v)
	}
	if g.window, err = attrs.Int("local_window_size", -1); err != nil {
		return nil, wrapAttr(err)
	}
	for _, p := range []struct {
		name string
		v    *bool
	}{{"do_rotary", &g.rotary}, {"rotary_interleaved", &g.interleaved}, {"smooth_softmax", &g.smooth}} {
		v, err := attrs.Int(p.name, 0)
		if err != nil {
			return nil, wrapAttr(err)
		}
		*p.v = v == 1
	}
	if v, err := attrs.Int("qk_output", 0); err != nil {
		return nil, wrapAttr(err)
	} else if v != 0 {
		return nil, fail("attribute \"qk_output\" is %d: the output_qk output is not implemented (want 0)", v)
	}
	for _, name := range []string{"k_quant_type", "v_quant_type"} {
		if v, err := attrs.String(name, "NONE"); err != nil {
			return nil, wrapAttr(err)
		} else if v != "NONE" {
			return nil, fail("attribute %q is %q: quantized caches are not implemented (want NONE)", name, v)
		}
	}
	if v, err := attrs.Int("kv_cache_bit_width", 0); err != nil {
		return nil, wrapAttr(err)
	} else if v != 0 {
		return nil, fail("attribute \"kv_cache_bit_width\" is %d: quantized caches are not implemented (want 0)", v)
	}
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		d, err := g.dims(in)
		if err != nil {
			return err
		}
		dt := in[0].DType
		setShape(out[0], kernel.Shape{d.b, d.s, d.n * d.h}, dt)
		setShape(out[1], kernel.Shape{d.b, d.nkv, d.present, d.h}, dt)
		setShape(out[2], kernel.Shape{d.b, d.nkv, d.present, d.h}, dt)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		d, err := g.dims(a.In)
		if err != nil {
			return err
		}
		dt := a.In[0].DType
		for i, want := range []kernel.Shape{{d.b, d.s, d.n * d.h}, {d.b, d.nkv, d.present, d.h}, {d.b, d.nkv, d.present, d.h}} {
			if o := a.Out[i]; o.DType != dt || !o.Shape.Equal(want) {
				return errors.New("operands differ from the inferred ones")
			}
		}
		return g.run(a.In, a.Out, d)
	}
	return newKernel(sig{op: "GroupQueryAttention", minIn: 7, maxIn: 12, nOut: 3, deps: kernel.Deps{Value: []int{6}}}, &gqaCost{k, g}), nil
}

// gqaCost is GroupQueryAttention's impl: simple's, with the products' cost.
type gqaCost struct {
	*simple
	g *gqa
}

func (c *gqaCost) cost(in, out []*kernel.Tensor) device.Cost {
	d, err := c.g.dims(in)
	if err != nil {
		return c.simple.cost(in, out)
	}
	return device.Cost{FLOPs: float64(4 * d.b * d.n * d.s * d.total * d.h), Bytes: ioBytes(in, out)}
}

// dims validates GroupQueryAttention's operands (all but the values of
// seqlens_k and position_ids) and returns its sizes.
func (g *gqa) dims(in []*kernel.Tensor) (gqaDims, error) {
	var d gqaDims
	q := in[0]
	key, value := optional(in, 1), optional(in, 2)
	pastK, pastV := optional(in, 3), optional(in, 4)
	seqlens, total := in[5], in[6]
	cosC, sinC := optional(in, 7), optional(in, 8)
	pos, bias, sink := optional(in, 9), optional(in, 10), optional(in, 11)
	if err := dtypeIn(q, "query", kernel.Float32, kernel.Float16); err != nil {
		return d, err
	}
	if q.Shape.Rank() != 3 || q.Shape[0] < 1 || q.Shape[1] < 1 {
		return d, fmt.Errorf("input query %v: want [batch, sequence, hidden], batch and sequence ≥ 1", q.Shape)
	}
	d.b, d.s, d.n, d.nkv = q.Shape[0], q.Shape[1], g.numHeads, g.kvHeads
	switch {
	case key == nil && value == nil:
		d.packed = true
		d.h = q.Shape[2] / (d.n + 2*d.nkv)
		if d.h*(d.n+2*d.nkv) != q.Shape[2] {
			return d, fmt.Errorf("input query %v (packed Q, K and V): want its last dimension (num_heads + 2·kv_num_heads)·head_size, num_heads %d, kv_num_heads %d", q.Shape, d.n, d.nkv)
		}
	case key == nil || value == nil:
		return d, errors.New("inputs key and value: want both or neither (Q, K and V packed in query)")
	default:
		d.h = q.Shape[2] / d.n
		if d.h*d.n != q.Shape[2] {
			return d, fmt.Errorf("input query %v: want its last dimension num_heads·head_size, num_heads %d", q.Shape, d.n)
		}
		for i, t := range []*kernel.Tensor{key, value} {
			name := [...]string{"key", "value"}[i]
			if err := checkSameDType(t, name, q, "query"); err != nil {
				return d, err
			}
			if !t.Shape.Equal(kernel.Shape{d.b, d.s, d.nkv * d.h}) {
				return d, fmt.Errorf("input %s %v: want [batch, sequence, kv_num_heads·head_size] = [%d, %d, %d]", name, t.Shape, d.b, d.s, d.nkv*d.h)
			}
		}
	}
	if d.h < 1 || d.h%8 != 0 {
		return d, fmt.Errorf("input query %v: head size %d, want a multiple of 8 (as onnxruntime)", q.Shape, d.h)
	}
	switch {
	case pastK != nil && pastV != nil:
		for i, t := range []*kernel.Tensor{pastK, pastV} {
			name := [...]string{"past_key", "past_value"}[i]
			if err := checkSameDType(t, name, q, "query"); err != nil {
				return d, err
			}
			if t.Shape.Rank() != 4 || t.Shape[0] != d.b || t.Shape[1] != d.nkv || t.Shape[3] != d.h || !t.Shape.Equal(pastK.Shape) {
				return d, fmt.Errorf("input %s %v: want [batch, kv_num_heads, past, head_size] = [%d, %d, past, %d], past_key's shape", name, t.Shape, d.b, d.nkv, d.h)
			}
		}
		d.past = pastK.Shape[2]
	case pastK != nil || pastV != nil:
		return d, errors.New("inputs past_key and past_value: want both or neither")
	}
	if err := dtypeIn(seqlens, "seqlens_k", kernel.Int32); err != nil {
		return d, err
	}
	// [batch], or [batch, 1…] as onnxruntime-genai's builder wrote it
	// (a ReduceSum kept its axis), which onnxruntime reads alike.
	if seqlens.Shape.Rank() < 1 || seqlens.Shape[0] != d.b || seqlens.NumElements() != d.b {
		return d, fmt.Errorf("input seqlens_k %v: want [batch] = [%d] (or [batch, 1])", seqlens.Shape, d.b)
	}
	if err := dtypeIn(total, "total_sequence_length", kernel.Int32); err != nil {
		return d, err
	}
	if total.NumElements() != 1 || total.Shape.Rank() > 1 {
		return d, fmt.Errorf("input total_sequence_length %v: want a scalar", total.Shape)
	}
	if total.IsVirtual() {
		return d, errors.New("input total_sequence_length: its value is unknown")
	}
	d.total = int64(kernel.Int32s(total.Data())[0])
	if d.total < 1 {
		return d, fmt.Errorf("input total_sequence_length is %d, want ≥ 1", d.total)
	}
	d.present = max(d.total, d.past)
	if d.s > 1 && d.s != d.total && d.b != 1 {
		return d, fmt.Errorf("sequence length %d with total_sequence_length %d (a prompt after past context) needs batch 1, have %d", d.s, d.total, d.b)
	}
	d.first = d.s == d.total
	if !d.first && pastK == nil {
		return d, fmt.Errorf("sequence length %d below total_sequence_length %d needs past_key and past_value", d.s, d.total)
	}
	switch {
	case cosC != nil && sinC != nil:
		for i, t := range []*kernel.Tensor{cosC, sinC} {
			name := [...]string{"cos_cache", "sin_cache"}[i]
			if err := checkSameDType(t, name, q, "query"); err != nil {
				return d, err
			}
			if t.Shape.Rank() != 2 || !t.Shape.Equal(cosC.Shape) {
				return d, fmt.Errorf("input %s %v: want [positions, rotary_dim/2], cos_cache's shape", name, t.Shape)
			}
		}
		if d.h%16 != 0 {
			return d, fmt.Errorf("head size %d with cos_cache and sin_cache: want a multiple of 16 (as onnxruntime)", d.h)
		}
		if cosC.Shape[0] < d.total {
			return d, fmt.Errorf("input cos_cache %v: want at least total_sequence_length %d positions", cosC.Shape, d.total)
		}
		if c := cosC.Shape[1]; c < 8 || c > d.h/16*8 || c%8 != 0 {
			return d, fmt.Errorf("input cos_cache %v: want its last dimension a multiple of 8, at most head_size/2 = %d", cosC.Shape, d.h/2)
		}
		d.rot, d.hasCache = 2*cosC.Shape[1], true
	case cosC != nil || sinC != nil:
		return d, errors.New("inputs cos_cache and sin_cache: want both or neither")
	}
	if g.rotary && !d.hasCache {
		return d, errors.New("attribute do_rotary 1 needs inputs cos_cache and sin_cache")
	}
	if pos != nil {
		if err := dtypeIn(pos, "position_ids", kernel.Int64); err != nil {
			return d, err
		}
		if pos.Shape.Rank() != 2 || pos.Shape[0] != d.b || pos.Shape[1] < d.s {
			return d, fmt.Errorf("input position_ids %v: want [batch, ≥ sequence] = [%d, ≥ %d]", pos.Shape, d.b, d.s)
		}
	}
	if bias != nil {
		if err := checkSameDType(bias, "attention_bias", q, "query"); err != nil {
			return d, err
		}
		s := bias.Shape
		if s.Rank() != 4 || s[0] != d.b && s[0] != 1 || s[1] != d.n && s[1] != 1 || s[2] != d.s || s[3] != d.total {
			return d, fmt.Errorf("input attention_bias %v: want [batch or 1, num_heads or 1, sequence, total_sequence_length] = [%d or 1, %d or 1, %d, %d]", s, d.b, d.n, d.s, d.total)
		}
	}
	if sink != nil {
		if g.smooth {
			return d, errors.New("input head_sink with attribute smooth_softmax 1: want one or the other")
		}
		if err := checkSameDType(sink, "head_sink", q, "query"); err != nil {
			return d, err
		}
		if !sink.Shape.Equal(kernel.Shape{d.n}) {
			return d, fmt.Errorf("input head_sink %v: want [num_heads] = [%d]", sink.Shape, d.n)
		}
	}
	return d, nil
}

// roundTo rounds v to dtype dt (float32 or float16).
func roundTo(dt kernel.DType, v float64) float64 {
	if dt == kernel.Float16 {
		return float64(kernel.F16ToF32(f64ToF16(v)))
	}
	return float64(float32(v))
}

// rotate writes the rotary embedding of the head row x (at position p)
// to dst, rounded to dt: the first rot elements rotated in float32 (the
// two products rounded, then summed), the rest copied.
func (g *gqa) rotate(dst []float64, dt kernel.DType, xb []byte, at int64, d gqaDims, cb, sb []byte, p int64) {
	half := d.rot / 2
	for i := range d.h {
		xi := float32(loadF(dt, xb, at+i))
		if i >= d.rot {
			dst[i] = float64(xi)
			continue
		}
		c, j, sign := rotaryPartner(i, d.rot, g.interleaved)
		xj := float32(loadF(dt, xb, at+j))
		cv, sv := float64(float32(loadF(dt, cb, p*half+c))), float64(float32(loadF(dt, sb, p*half+c)))
		// The pair's first element times its factor is exact in float64;
		// the other product is rounded to float32, and their sum once.
		var v float32
		if sign < 0 {
			v = float32(float64(float64(xi)*cv) - float64(float32(float64(xj)*sv)))
		} else {
			v = float32(float64(float64(xj)*sv) + float64(float32(float64(xi)*cv)))
		}
		dst[i] = roundTo(dt, float64(v))
	}
}

func (g *gqa) run(in, out []*kernel.Tensor, d gqaDims) error {
	q := in[0]
	dt := q.DType
	size := int64(dt.Size())
	pastK, pastV := optional(in, 3), optional(in, 4)
	pos, bias, sink := optional(in, 9), optional(in, 10), optional(in, 11)
	lens := kernel.Int32s(in[5].Data())
	for b, l := range lens {
		tb := int64(l) + 1
		switch {
		case tb < 1 || tb > d.total:
			return fmt.Errorf("seqlens_k[%d] is %d: want 0 to total_sequence_length − 1 = %d", b, l, d.total-1)
		case !d.first && tb < d.s:
			return fmt.Errorf("seqlens_k[%d] is %d: want at least sequence length − 1 = %d after past context", b, l, d.s-1)
		case !d.first && tb-d.s > d.past:
			return fmt.Errorf("seqlens_k[%d] is %d: its past of %d tokens exceeds past_key's %d", b, l, tb-d.s, d.past)
		}
	}
	// Q and the new K, rotated when do_rotary is 1, as [batch, heads, seq,
	// head_size]; packed, query's rows hold Q's heads, then K's, then V's.
	qw := d.n * d.h
	kw := d.nkv * d.h
	rowW := qw
	kb, vb := q.Data(), q.Data()
	kOff, vOff := qw, qw+kw
	if d.packed {
		rowW = qw + 2*kw
	} else {
		kb, vb, kOff, vOff = in[1].Data(), in[2].Data(), 0, 0
	}
	kRowW := rowW
	if !d.packed {
		kRowW = kw
	}
	g.q = grownFloats(g.q, int(d.b*d.n*d.s*d.h))
	g.k = grownFloats(g.k, int(d.b*d.nkv*d.s*d.h))
	g.row = grownFloats(g.row, int(d.total))
	var cb, sb []byte
	var cacheRows int64
	if g.rotary {
		cb, sb, cacheRows = in[7].Data(), in[8].Data(), in[7].Shape[0]
	}
	var posv []int64
	if pos != nil {
		posv = kernel.Int64s(pos.Data())
	}
	qb := q.Data()
	for b := range d.b {
		tb := int64(lens[b]) + 1
		for s := range d.s {
			var p int64
			if g.rotary {
				if d.first {
					base := int64(0)
					if posv != nil {
						base = posv[0]
					}
					if base < 0 || base > cacheRows-d.s {
						return fmt.Errorf("position_ids[0] is %d: want 0 to %d (cos_cache's %d positions less the sequence)", base, cacheRows-d.s, cacheRows)
					}
					p = base + s
				} else {
					p = tb - d.s + s
					if posv != nil {
						p = posv[b*d.s+s]
					}
					if p < 0 || p >= cacheRows {
						return fmt.Errorf("position %d of token [%d, %d] is outside cos_cache's %d positions", p, b, s, cacheRows)
					}
				}
			}
			for n := range d.n {
				dst := g.q[((b*d.n+n)*d.s+s)*d.h:][:d.h]
				at := (b*d.s+s)*rowW + n*d.h
				if g.rotary {
					g.rotate(dst, dt, qb, at, d, cb, sb, p)
				} else {
					for i := range d.h {
						dst[i] = loadF(dt, qb, at+i)
					}
				}
			}
			for n := range d.nkv {
				dst := g.k[((b*d.nkv+n)*d.s+s)*d.h:][:d.h]
				at := (b*d.s+s)*kRowW + kOff + n*d.h
				if g.rotary {
					g.rotate(dst, dt, kb, at, d, cb, sb, p)
				} else {
					for i := range d.h {
						dst[i] = loadF(dt, kb, at+i)
					}
				}
			}
		}
	}
	// present_key and present_value: zeros, then each batch's past tokens
	// and its new ones after them.
	pk, pv := out[1].Data(), out[2].Data()
	clear(pk)
	clear(pv)
	rowBytes := d.h * size
	for b := range d.b {
		tb := int64(lens[b]) + 1
		pastLen := tb - d.s
		if d.first {
			pastLen = 0
		}
		for n := range d.nkv {
			head := (b*d.nkv + n) * d.present
			if pastLen > 0 {
				src := (b*d.nkv + n) * d.past * rowBytes
				copy(pk[head*rowBytes:], pastK.Data()[src:src+pastLen*rowBytes])
				copy(pv[head*rowBytes:], pastV.Data()[src:src+pastLen*rowBytes])
			}
			for s := range d.s {
				r := (head + pastLen + s) * d.h
				src := g.k[((b*d.nkv+n)*d.s+s)*d.h:][:d.h]
				for i, v := range src {
					storeF(dt, pk, r+int64(i), v)
				}
				at := ((b*d.s+s)*kRowW + vOff + n*d.h) * size
				if !d.packed {
					at = ((b*d.s+s)*kw + n*d.h) * size
				}
				copy(pv[r*size:(r+d.h)*size], vb[at:at+rowBytes])
			}
		}
	}
	// The scores of each query row against the keys it sees, their softmax
	// and the weighted sum of the values.
	alpha := g.scale
	if alpha == 0 {
		alpha = 1 / float32(math.Sqrt(float64(d.h)))
	}
	group := d.n / d.nkv
	yb := out[0].Data()
	var biasb, sinkb []byte
	if bias != nil {
		biasb = bias.Data()
	}
	if sink != nil {
		sinkb = sink.Data()
	}
	for b := range d.b {
		tb := int64(lens[b]) + 1
		pastLen := tb - d.s
		if d.first {
			pastLen = 0
		}
		for n := range d.n {
			head := (b*d.nkv + n/group) * d.present
			for s := range d.s {
				causal := pastLen + s + 1
				end := min(causal, tb)
				start := int64(0)
				if g.window >= 0 && causal > g.window {
					start = min(causal-g.window, end)
				}
				qr := g.q[((b*d.n+n)*d.s+s)*d.h:][:d.h]
				row := g.row[start:end]
				for j := range row {
					kr := (head + start + int64(j)) * d.h
					var acc float64
					for i, qv := range qr {
						acc += float64(qv * loadF(dt, pk, kr+int64(i)))
					}
					z := float64(float32(acc) * alpha)
					if g.softcap > 0 {
						c := float64(g.softcap)
						z = c * math.Tanh(z/c)
					}
					if biasb != nil {
						bb, bn := b, n
						if bias.Shape[0] == 1 {
							bb = 0
						}
						if bias.Shape[1] == 1 {
							bn = 0
						}
						z += loadF(dt, biasb, ((bb*bias.Shape[1]+bn)*d.s+s)*d.total+start+int64(j))
					}
					row[j] = z
				}
				useSink := g.smooth || sinkb != nil
				var sinkV float64
				if sinkb != nil {
					sinkV = loadF(dt, sinkb, n)
				}
				if gqaMasked(row) {
					clear(row) // zero probabilities, as onnxruntime gives
				} else {
					gqaSoftmax(row, useSink, sinkV)
				}
				at := (b*d.s+s)*d.n*d.h + n*d.h
				for i := range d.h {
					var acc float64
					for j, p := range row {
						acc += float64(p * loadF(dt, pv, (head+start+int64(j))*d.h+i))
					}
					storeF(dt, yb, at+i, acc)
				}
			}
		}
	}
	return nil
}

// gqaSoftmax replaces z by its softmax; with a sink, the softmax of z and
// the sink's logit, the sink's share dropped (smooth softmax).
func gqaSoftmax(z []float64, sink bool, logit float64) {
	if len(z) == 0 {
		return
	}
	m := z[0]
	for _, v := range z[1:] {
		m = max(m, v)
	}
	if sink {
		m = max(m, logit)
	}
	var sum float64
	for i, v := range z {
		z[i] = expF(v - m)
		sum += z[i]
	}
	if sink {
		sum += expF(logit - m)
	}
	for i := range z {
		z[i] /= sum
	}
}

// gqaMasked reports whether every score of GroupQueryAttention's row z
// is masked: −∞ or, in float32 where onnxruntime adds the bias, at most
// the lowest float32, the value exporters write for a masked key.
func gqaMasked(z []float64) bool {
	for _, v := range z {
		if !(float32(v) <= -math.MaxFloat32) {
			return false
		}
	}
	return true
}
