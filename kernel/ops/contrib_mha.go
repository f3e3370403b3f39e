package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// msAttnDims are com.microsoft Attention's sizes: batch, sequence (S),
// the input's hidden size, heads, the head sizes of Q and K (h) and of V
// (hv), the past's length (0 without past) and the total length T = P +
// S; noMask is set for a mask_index of [batch or 1, 1], which masks
// nothing.
type msAttnDims struct {
	b, s, hin, n, h, hv, p, t int64
	noMask                    bool
}

// msAttn is com.microsoft Attention's impl state: its attributes and the
// scratch it keeps from run to run.
type msAttn struct {
	numHeads    int64
	qkvSizes    []int64 // qkv_hidden_sizes, nil when not given
	uni         bool
	scale       float32
	filter      float32
	q, k, v     []float64 // Q [B, N, S, H], K [B, N, T, H] and V [B, N, T, Hv], float32 values
	row, addend []float64 // one row of scores and of the values added to it
}

// newMSAttention builds com.microsoft's Attention, the self-attention of
// BERT-family models fused by onnxruntime's transformer optimizer, as
// onnxruntime's CPU kernel computes it.
//
// input is [batch, S, hidden_in] of float32 or float16, weights
// [hidden_in, D + D + Dv] and bias [D + D + Dv] of its dtype: Q, K and V
// are input·weights + bias, split in that order, D = Dv = weights' last
// dimension / 3, or qkv_hidden_sizes [D, D, Dv] (Q and K of one size),
// each a multiple of num_heads; H = D/num_heads, Hv = Dv/num_heads. The
// products are summed and rounded to float32, then the bias added in
// float32.
//
// past, when given, is [2, batch, num_heads, P, H] (Dv = D): the keys and
// the values of P earlier tokens. present, [2, batch, num_heads, P + S,
// Hv], holds them followed by this run's K and V (rounded to input's
// dtype). With Dv ≠ D its first half holds K's values in their [batch,
// num_heads, S, H] order, as many as fit, zeros after them (onnxruntime's
// CPU kernel writes K's rows of H there, leaving the rest unset or
// writing past the tensor).
//
// Query token s of batch b reads every key j < T = P + S. Its score is
// float32(q·k)·scale (scale 0: 1/√H in float32), rounded to float32, plus
// the float32 sum of attention_bias ([batch or 1, num_heads or 1, S, T])
// at [b, n, s, j] and the mask's value there, rounded to float32. The mask
// is mask_filter_value (default −10000) where mask_index (int32) masks the
// key and 0 elsewhere: mask_index [batch] masks keys j ≥ its value (≥ 0),
// [2·batch] also keys j below its second half's value; [batch, T] and
// [batch, S, T] mask where the value is ≤ 0; [batch or 1, 1] masks
// nothing. With unidirectional 1 and S > 1, keys j > P + s are dropped
// (their score the lowest float32, as onnxruntime's). Masked keys stay in
// the softmax with a large negative score, as in onnxruntime: a row with
// every key masked reads them all. The probabilities are the softmax of the row, output
// [batch, S, Dv] is Σ p·v. Scores, softmax and sums are evaluated in
// float64 from the float32 scores and output rounded once to input's
// dtype: results agree with onnxruntime's float32 evaluation to float32
// rounding; float16 is computed as float32, as onnxruntime's CPU provider
// runs it, and rounded.
//
// Refused, as onnxruntime's CPU kernel refuses them: a missing bias, do_rotary
// 1, past_present_share_buffer 1 with past, past with attention_bias,
// past with Dv ≠ D, a 4-D mask_index and negative mask_index end
// positions. rotary_embedding_dim is unused (do_rotary 0), and so is
// past_sequence_length, which onnxruntime's CPU kernel reads only with
// past_present_share_buffer.
//
// Workspace: none (Q, K, V and a row of scores the kernel keeps).
func newMSAttention(attrs kernel.Attrs) (kernel.Kernel, error) {
	m, share, err := msAttnAttrs(attrs, "Attention (com.microsoft)", "num_heads", "qkv_hidden_sizes", "unidirectional", "scale",
		"mask_filter_value", "do_rotary", "rotary_embedding_dim", "past_present_share_buffer")
	if err != nil {
		return nil, err
	}
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		d, err := m.dims(in, share)
		if err != nil {
			return err
		}
		dt := in[0].DType
		setShape(out[0], kernel.Shape{d.b, d.s, d.n * d.hv}, dt)
		setShape(out[1], m.presentShape(d), dt)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		d, err := m.dims(a.In, share)
		if err != nil {
			return err
		}
		dt := a.In[0].DType
		for i, want := range []kernel.Shape{{d.b, d.s, d.n * d.hv}, m.presentShape(d)} {
			if o := a.Out[i]; o.DType != dt || !o.Shape.Equal(want) {
				return errors.New("operands differ from the inferred ones")
			}
		}
		return m.run(a.In, a.Out, d)
	}
	return newKernel(sig{op: "MSAttention", minIn: 3, maxIn: 7, nOut: 2}, &msAttnCost{k, func(in []*kernel.Tensor) (msAttnDims, error) {
		return m.dims(in, false)
	}}), nil
}

// msAttnAttrs reads the attributes of com.microsoft Attention (op, for
// errors) that names lists, every one it accepts: the state they give and
// past_present_share_buffer.
func msAttnAttrs(attrs kernel.Attrs, op string, names ...string) (*msAttn, bool, error) {
	if err := attrs.Check(names...); err != nil {
		return nil, false, wrapAttr(err)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("ops: "+op+": "+format, a...)
	}
	m := &msAttn{}
	var err error
	if m.numHeads, err = attrs.Int("num_heads", 0); err != nil {
		return nil, false, wrapAttr(err)
	}
	if m.numHeads < 1 {
		return nil, false, fail("attribute \"num_heads\" is %d: want it given, ≥ 1", m.numHeads)
	}
	if m.qkvSizes, err = attrs.Ints("qkv_hidden_sizes", nil); err != nil {
		return nil, false, wrapAttr(err)
	}
	if m.qkvSizes != nil {
		s := m.qkvSizes
		if len(s) != 3 || s[0] != s[1] || s[0] < 1 || s[2] < 1 || s[0]%m.numHeads != 0 || s[2]%m.numHeads != 0 {
			return nil, false, fail("attribute \"qkv_hidden_sizes\" is %v: want [D, D, Dv], D and Dv ≥ 1 multiples of num_heads %d", s, m.numHeads)
		}
	}
	uni, err := attrs.Int("unidirectional", 0)
	if err != nil {
		return nil, false, wrapAttr(err)
	}
	m.uni = uni == 1
	if err := scaleAttrs(attrs, &m.scale, &m.filter); err != nil {
		return nil, false, err
	}
	if v, err := attrs.Int("do_rotary", 0); err != nil {
		return nil, false, wrapAttr(err)
	} else if v == 1 {
		return nil, false, fail("attribute \"do_rotary\" is 1: rotary embedding is not implemented, as in onnxruntime's CPU kernel (want 0)")
	}
	if _, err := attrs.Int("rotary_embedding_dim", 0); err != nil {
		return nil, false, wrapAttr(err)
	}
	share, err := attrs.Int("past_present_share_buffer", 0)
	if err != nil {
		return nil, false, wrapAttr(err)
	}
	return m, share == 1, nil
}

// msAttnCost is com.microsoft Attention's impl: simple's, with the
// products' cost.
type msAttnCost struct {
	*simple
	dims func(in []*kernel.Tensor) (msAttnDims, error)
}

func (c *msAttnCost) cost(in, out []*kernel.Tensor) device.Cost {
	d, err := c.dims(in)
	if err != nil {
		return c.simple.cost(in, out)
	}
	proj := 2 * d.b * d.s * d.hin * d.n * (2*d.h + d.hv)
	return device.Cost{FLOPs: float64(proj + 2*d.b*d.n*d.s*d.t*(d.h+d.hv)), Bytes: ioBytes(in, out)}
}

// presentShape is present's shape: [2, batch, num_heads, T, Hv].
func (m *msAttn) presentShape(d msAttnDims) kernel.Shape {
	return kernel.Shape{2, d.b, d.n, d.t, d.hv}
}

// dims validates com.microsoft Attention's operands (all but mask_index's
// values) and returns its sizes.
func (m *msAttn) dims(in []*kernel.Tensor, share bool) (msAttnDims, error) {
	var d msAttnDims
	x, w, bias := in[0], in[1], optional(in, 2)
	mask, past, ab := optional(in, 3), optional(in, 4), optional(in, 5)
	if err := dtypeIn(x, "input", kernel.Float32, kernel.Float16); err != nil {
		return d, err
	}
	if x.Shape.Rank() != 3 || x.Shape[0] < 1 || x.Shape[1] < 1 || x.Shape[2] < 1 {
		return d, fmt.Errorf("input input %v: want [batch, sequence, hidden], each ≥ 1", x.Shape)
	}
	d.b, d.s, d.hin, d.n = x.Shape[0], x.Shape[1], x.Shape[2], m.numHeads
	if err := checkSameDType(w, "weights", x, "input"); err != nil {
		return d, err
	}
	if err := m.split(&d, w, bias); err != nil {
		return d, err
	}
	if err := checkSameDType(bias, "bias", x, "input"); err != nil {
		return d, err
	}
	return d, m.extras(&d, x.DType, mask, past, ab, optional(in, 6), share)
}

// split sets the head sizes of d from weights w ([hidden_in, D + D + Dv];
// d's hin and n set) and checks bias's shape ([D + D + Dv]).
func (m *msAttn) split(d *msAttnDims, w, bias *kernel.Tensor) error {
	if w.Shape.Rank() != 2 || w.Shape[0] != d.hin {
		return fmt.Errorf("input weights %v: want [hidden, D + D + Dv] = [%d, …]", w.Shape, d.hin)
	}
	qs, vs := w.Shape[1]/3, w.Shape[1]/3
	if m.qkvSizes != nil {
		qs, vs = m.qkvSizes[0], m.qkvSizes[2]
	}
	if 2*qs+vs != w.Shape[1] || qs < 1 || qs%d.n != 0 || vs%d.n != 0 {
		return fmt.Errorf("input weights %v: want its last dimension D + D + Dv, D = Dv = a third of it or qkv_hidden_sizes, multiples of num_heads %d", w.Shape, d.n)
	}
	d.h, d.hv = qs/d.n, vs/d.n
	if bias == nil {
		return errors.New("input bias is missing: onnxruntime's CPU kernel needs it")
	}
	if !bias.Shape.Equal(kernel.Shape{w.Shape[1]}) {
		return fmt.Errorf("input bias %v: want [D + D + Dv] = [%d]", bias.Shape, w.Shape[1])
	}
	return nil
}

// extras checks the inputs after the projection's (each may be nil): past
// and attention_bias of dtype dt, mask_index and past_sequence_length;
// it sets d's past and total lengths and noMask.
func (m *msAttn) extras(d *msAttnDims, dt kernel.DType, mask, past, ab, psl *kernel.Tensor, share bool) error {
	if past != nil {
		if share {
			return notImplemented("attribute past_present_share_buffer 1 with input past: not implemented, as in onnxruntime's CPU kernel (want 0)")
		}
		if ab != nil {
			return errors.New("inputs past and attention_bias: want one or the other, as onnxruntime")
		}
		if d.h != d.hv {
			return fmt.Errorf("input past needs the hidden sizes of K and V equal, have %d and %d", d.n*d.h, d.n*d.hv)
		}
		if past.DType != dt {
			return fmt.Errorf("input past has dtype %v, want input's %v", past.DType, dt)
		}
		s := past.Shape
		if s.Rank() != 5 || s[0] != 2 || s[1] != d.b || s[2] != d.n || s[4] != d.h {
			return fmt.Errorf("input past %v: want [2, batch, num_heads, past, head_size] = [2, %d, %d, past, %d]", s, d.b, d.n, d.h)
		}
		d.p = s[3]
	}
	d.t = d.p + d.s
	if mask != nil {
		if err := dtypeIn(mask, "mask_index", kernel.Int32); err != nil {
			return err
		}
		s := mask.Shape
		switch {
		case s.Rank() == 1 && (s[0] == d.b || s[0] == 2*d.b):
		case s.Rank() == 2 && s[0] == d.b && s[1] == d.t:
		case s.Rank() == 2 && (s[0] == d.b || s[0] == 1) && s[1] == 1:
			d.noMask = true
		case s.Rank() == 3 && s[0] == d.b && s[1] == d.s && s[2] == d.t:
		case s.Rank() == 4:
			return notImplemented("input mask_index %v: a 4-D mask is not implemented, as in onnxruntime's CPU kernel", s)
		default:
			return fmt.Errorf("input mask_index %v: want [batch], [2·batch], [batch, total], [batch, sequence, total] or [batch or 1, 1], batch %d, sequence %d, total %d", s, d.b, d.s, d.t)
		}
	}
	if ab != nil {
		if ab.DType != dt {
			return fmt.Errorf("input attention_bias has dtype %v, want input's %v", ab.DType, dt)
		}
		s := ab.Shape
		if s.Rank() != 4 || s[0] != d.b && s[0] != 1 || s[1] != d.n && s[1] != 1 || s[2] != d.s || s[3] != d.t {
			return fmt.Errorf("input attention_bias %v: want [batch or 1, num_heads or 1, sequence, total] = [%d or 1, %d or 1, %d, %d]", s, d.b, d.n, d.s, d.t)
		}
	}
	if psl != nil {
		if err := dtypeIn(psl, "past_sequence_length", kernel.Int32); err != nil {
			return err
		}
	}
	return nil
}

func (m *msAttn) run(in, out []*kernel.Tensor, d msAttnDims) error {
	x, w, bias := in[0], in[1], in[2]
	dt := x.DType
	// Q, K and V: input·weights + bias.
	xb, wb, bb := x.Data(), w.Data(), bias.Data()
	cols := w.Shape[1]
	m.project(d, cols, func(b, s, c int64) float64 {
		xr := (b*d.s + s) * d.hin
		var acc float64
		for i := range d.hin {
			acc += float64(loadF(dt, xb, xr+i) * loadF(dt, wb, i*cols+c))
		}
		return float64(float32(float64(float32(acc)) + loadF(dt, bb, c)))
	})
	return m.attend(out, d, dt, optional(in, 3), optional(in, 4), optional(in, 5))
}

// project sizes Q, K and V for d and fills them with qkv(b, s, c), the
// projection's column c (of cols: Q's, K's then V's) for token s of batch
// b, as [batch, heads, seq, head_size], K and V after the past's rows.
func (m *msAttn) project(d msAttnDims, cols int64, qkv func(b, s, c int64) float64) {
	m.q = grownFloats(m.q, int(d.b*d.n*d.s*d.h))
	m.k = grownFloats(m.k, int(d.b*d.n*d.t*d.h))
	m.v = grownFloats(m.v, int(d.b*d.n*d.t*d.hv))
	for b := range d.b {
		for s := range d.s {
			for c := range cols {
				v := qkv(b, s, c)
				switch dd := d.n * d.h; {
				case c < dd:
					m.q[((b*d.n+c/d.h)*d.s+s)*d.h+c%d.h] = v
				case c < 2*dd:
					m.k[((b*d.n+(c-dd)/d.h)*d.t+d.p+s)*d.h+(c-dd)%d.h] = v
				default:
					m.v[((b*d.n+(c-2*dd)/d.hv)*d.t+d.p+s)*d.hv+(c-2*dd)%d.hv] = v
				}
			}
		}
	}
}

// attend completes the attention from the projected Q, K and V: the
// past's rows of K and V, present (out[1]), the scores with mask_index,
// the causal mask and attention_bias, and output (out[0]), both of dtype
// dt as past and attention_bias are.
func (m *msAttn) attend(out []*kernel.Tensor, d msAttnDims, dt kernel.DType, mask, past, ab *kernel.Tensor) error {
	var mv []int32
	if mask != nil && !d.noMask {
		mv = kernel.Int32s(mask.Data())
		if mask.Shape.Rank() == 1 {
			for b, e := range mv[:d.b] {
				if e < 0 {
					return fmt.Errorf("mask_index[%d] is %d: want an end position ≥ 0", b, e)
				}
			}
		}
	}
	if past != nil {
		pb := past.Data()
		half := d.b * d.n * d.p * d.h
		for bn := range d.b * d.n {
			for j := range d.p * d.h {
				m.k[bn*d.t*d.h+j] = loadF(dt, pb, bn*d.p*d.h+j)
				m.v[bn*d.t*d.h+j] = loadF(dt, pb, half+bn*d.p*d.h+j)
			}
		}
	}
	// present: K's values in their [batch, heads, T, H] order, as many as
	// the first half holds (zeros after them), then V's.
	pr := out[1].Data()
	half := int64(len(m.v))
	for i := range half {
		var v float64
		if i < int64(len(m.k)) {
			v = m.k[i]
		}
		storeF(dt, pr, i, v)
		storeF(dt, pr, half+i, m.v[i])
	}
	alpha := m.scale
	if alpha == 0 {
		alpha = 1 / float32(math.Sqrt(float64(d.h)))
	}
	causal := m.uni && d.s > 1
	masked := mv != nil || causal
	m.row = grownFloats(m.row, int(d.t))
	m.addend = grownFloats(m.addend, int(d.t))
	yb := out[0].Data()
	filter := float64(m.filter)
	for b := range d.b {
		for n := range d.n {
			for s := range d.s {
				var add []float64
				if masked || ab != nil {
					add = m.addend
					maskRow(add, mv, mask, mask != nil && mask.Shape[0] == 2*d.b, b, n, s, d.s, d.p, causal, filter, ab, dt)
				}
				qr := m.q[((b*d.n+n)*d.s+s)*d.h:][:d.h]
				kh := m.k[(b*d.n+n)*d.t*d.h:][:d.t*d.h]
				vh := m.v[(b*d.n+n)*d.t*d.hv:][:d.t*d.hv]
				attendRow(m.row, qr, kh, vh, alpha, nil, add, dt, yb, ((b*d.s+s)*d.n+n)*d.hv, nil, 0)
			}
		}
	}
	return nil
}

// maskRow writes the addend of query token s of batch b (of S tokens,
// after P past ones, T keys in all) to add: 0, or filter where the int32
// mask (values mv) masks key j — a 1-D mask gives end positions, and with
// 2·batch values (startToo) start positions after them; a 2-D mask [batch,
// T] and a 3-D mask [batch, S, T] mask where ≤ 0 — and the lowest float32 where the causal
// mask drops key j > P + s (−MaxFloat32 there, as onnxruntime). With ab (attention_bias of dtype dt, [batch or
// 1, heads or 1, S, T]), its value at [b, n, s, j] is added in float32.
func maskRow(add []float64, mv []int32, mask *kernel.Tensor, startToo bool, b, n, s, S, P int64, causal bool, filter float64, ab *kernel.Tensor, dt kernel.DType) {
	clear(add)
	t := int64(len(add))
	if mv != nil {
		switch mask.Shape.Rank() {
		case 1:
			nb := mask.Shape[0]
			end, start := int64(mv[b]), int64(0)
			if startToo {
				start = min(int64(mv[nb/2+b]), t)
			}
			for j := range add {
				if int64(j) >= end || int64(j) < start {
					add[j] = filter
				}
			}
		case 2, 3:
			at := b * t
			if mask.Shape.Rank() == 3 {
				at = (b*S + s) * t
			}
			for j := range add {
				if mv[at+int64(j)] <= 0 {
					add[j] = filter
				}
			}
		}
	}
	if ab != nil {
		addBias(add, ab, dt, b, n, s, S)
	}
	if causal && s < S-1 {
		for j := P + s + 1; j < t; j++ {
			add[j] = -math.MaxFloat32
		}
	}
}

// addBias adds to add the row of attention_bias ab (of dtype dt, [batch
// or 1, heads or 1, S, T]) at [b, n, s], each sum rounded to float32.
func addBias(add []float64, ab *kernel.Tensor, dt kernel.DType, b, n, s, S int64) {
	bb, bn := b, n
	if ab.Shape[0] == 1 {
		bb = 0
	}
	if ab.Shape[1] == 1 {
		bn = 0
	}
	abb := ab.Data()
	at := ((bb*ab.Shape[1]+bn)*S + s) * int64(len(add))
	for j := range add {
		add[j] = float64(float32(loadF(dt, abb, at+int64(j)) + add[j]))
	}
}

// attendRow computes one query row's attention: the scores of q against
// the T keys of k (rows of len(q)), float32(q·k)·alpha rounded to float32,
// plus bias[j] and then add[j] (each when not nil), each sum rounded to
// float32 again, written to qk from element qkAt on when qk is not nil;
// their softmax; and Σ p·v over the T rows of v, written to y from
// element at on, rounded to dt. z is scratch of T scores.
func attendRow(z, q, k, v []float64, alpha float32, bias, add []float64, dt kernel.DType, y []byte, at int64, qk []byte, qkAt int64) {
	h := int64(len(q))
	for j := range z {
		kr := k[int64(j)*h:][:h]
		var acc float64
		for i, qv := range q {
			acc += float64(qv * kr[i])
		}
		sc := float64(float32(acc) * alpha)
		if bias != nil {
			sc = float64(float32(sc + bias[j]))
		}
		if add != nil {
			sc = float64(float32(sc + add[j]))
		}
		z[j] = sc
		if qk != nil {
			storeF(dt, qk, qkAt+int64(j), sc)
		}
	}
	gqaSoftmax(z, false, 0)
	hv := int64(len(v)) / int64(len(z))
	for i := range hv {
		var acc float64
		for j, p := range z {
			acc += float64(p * v[int64(j)*hv+i])
		}
		storeF(dt, y, at+i, acc)
	}
}

// mhaDims are MultiHeadAttention's sizes: batch, query tokens (S), new
// keys (L), heads, the head sizes of Q and K (h) and of V (hv), the
// past's length (0 without past) and the total T = P + L; bnsh is set for
// key and value given as [batch, heads, L, head_size].
//
// With a shared buffer (past_key, past_value and past_sequence_length
// given), past_key and past_value are [batch, num_heads, M, H] of which
// the first P rows (P past_sequence_length's value) are the past: share
// is set, m is M and w the beam width (cache_indirection's second
// dimension). Otherwise m is T, the present outputs' length.
type mhaDims struct {
	b, s, l, n, h, hv, p, t int64
	m, w                    int64
	bnsh, share             bool
}

// mha is MultiHeadAttention's impl state: its attributes and the scratch
// it keeps from run to run.
type mha struct {
	numHeads    int64
	uni         bool
	scale       float32
	filter      float32
	q, k, v     []float64 // Q [B, N, S, H], K [B, N, T, H] and V [B, N, T, Hv], float32 values
	row, addend []float64 // one row of scores and of the mask's values added to it
	bias        []float64 // one row of attention_bias, added before the mask
	// decoder is set for DecoderMaskedMultiHeadAttention, whose operands
	// the kernel reorders into MultiHeadAttention's (in, absent ones
	// none) and whose shared buffer it reads without cache_indirection
	// too; share is its past_present_share_buffer.
	decoder, share bool
	in             []*kernel.Tensor
	none           *kernel.Tensor
}

// newMultiHeadAttention builds com.microsoft's MultiHeadAttention, the
// attention of T5, Whisper and other encoder-decoder exports fused by
// onnxruntime's transformer optimizer, as onnxruntime's CPU kernel
// computes it.
//
// query is [batch, S, D] of float32 or float16, D = num_heads·H. key and
// value are [batch, L, D] and [batch, L, Dv] (Dv = num_heads·Hv), or, for
// cross attention over keys already split in heads, [batch, num_heads, L,
// H] and [batch, num_heads, L, Hv]. bias [D + D + Dv] of query's dtype is
// added in float32 to Q, and to K and V when they are 3-D. past_key and
// past_value, both or neither, are [batch, num_heads, P, H] (Hv = H);
// present_key and present_value, [batch, num_heads, P + L, H] and [batch,
// num_heads, P + L, Hv], hold them followed by this run's K and V.
//
// Query token s of batch b reads every key j < T = P + L. Its score is
// float32(q·k)·scale (scale 0: 1/√H in float32), rounded to float32, plus
// attention_bias ([batch or 1, num_heads or 1, S, T]) at [b, n, s, j],
// rounded to float32, plus the mask's value there, rounded to float32
// (com.microsoft Attention adds the float32 sum of the two). The mask
// is mask_filter_value (default −10000) where key_padding_mask (int32)
// masks the key and 0 elsewhere: [batch] masks keys j ≥ its value (all
// of them when it is negative), [3·batch + 2] the same by its first batch
// values; [batch, T] and [batch, S, T] mask where the value is ≤ 0. With
// unidirectional 1 and S > 1, query tokens s < S − 1 drop keys j > P + s
// (their score the lowest float32), as onnxruntime's CPU kernel does: the
// last query token reads every key, also when L > S. Masked keys stay in
// the softmax with a large negative score, as in onnxruntime: a row with
// every key masked reads them all. The fourth output, qk [batch, num_heads, S, T], holds the
// scores before the softmax. The probabilities are the softmax of the
// row, output [batch, S, Dv] is Σ p·v. Scores, softmax and sums are
// evaluated in float64 from the float32 scores and output rounded once to
// query's dtype: results agree with onnxruntime's float32 evaluation to
// float32 rounding; float16 is computed as float32 and rounded.
//
// past_sequence_length (int32, a scalar or [1]) with past_key and
// past_value makes them a shared buffer, [batch, num_heads, M, H], of
// which the first P rows are the past, P its value, 0 ≤ P < M; present_key
// and present_value are [batch, num_heads, M, H] too. cache_indirection
// (int32 [batch / W, W, M], W the beam width) names the beam each past
// row comes from. onnxruntime's CPU kernel computes this form, the one
// its transformer optimizer emits for the self attention of Whisper and
// T5 decoders run by BeamSearch, for one query token and one key after
// P ≥ 1 rows, with key_padding_mask absent or [batch, P + 1]: query
// token b reads past row j < P of batch (b / W)·W + c, c
// cache_indirection's value at [b / W, b mod W, j] (0 ≤ c < W), then
// its own key. Its score is float32(q·k)·scale rounded to float32, plus
// attention_bias ([batch or 1, num_heads or 1, 1, P + 1]) read at batch
// b / W (at row (b / W)·num_heads for [batch, 1, 1, P + 1], as
// onnxruntime does), plus mask_filter_value where key_padding_mask is 0
// (only 0: a negative value masks nothing here), each sum rounded to
// float32. present_key and present_value are past_key and past_value
// with row P replaced by this run's K and V; qk is [batch, num_heads, 1,
// P + 1]. Other uses of a shared buffer are refused: onnxruntime's CPU
// kernel takes all M rows of past_key for the past there and writes
// beyond present_key's end (without cache_indirection, with P = 0, more
// than one query token or key, 4-D key and value, a mask of another
// shape), and so is an attention_bias [batch, 1, 1, P + 1] it would read
// beyond its end. Without past_key, or without past_sequence_length,
// both inputs are checked (cache_indirection [batch / W, W, any]) and
// not read, as in onnxruntime.
//
// Refused, as onnxruntime's CPU kernel refuses them: packed Q, K and V (a
// 5-D query or query alone) and packed K and V (a 5-D key), a bool mask,
// a 2-D mask [batch, L] after past, past or 4-D key and value with Hv ≠
// H. onnxruntime's kernel ignores past_key and past_value when neither
// present output is used (and fails in the shared-buffer form); pipert
// always reads them.
//
// Workspace: none (Q, K, V and a row of scores the kernel keeps).
func newMultiHeadAttention(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("num_heads", "unidirectional", "scale", "mask_filter_value"); err != nil {
		return nil, wrapAttr(err)
	}
	m := &mha{}
	if err := m.readAttrs("MultiHeadAttention", attrs); err != nil {
		return nil, err
	}
	uni, err := attrs.Int("unidirectional", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	m.uni = uni == 1
	k := m.simple(m.dims, func(in []*kernel.Tensor) []*kernel.Tensor { return in })
	return newKernel(sig{op: "MultiHeadAttention", minIn: 1, maxIn: 10, nOut: 4, deps: kernel.Deps{Value: []int{8}}}, &mhaCost{k, m.dims}), nil
}

// simple returns the kernel of m: dims checks the operands and gives
// their dimensions, operands the inputs, in MultiHeadAttention's order,
// that run reads (after dims).
func (m *mha) simple(dims func(in []*kernel.Tensor) (mhaDims, error), operands func(in []*kernel.Tensor) []*kernel.Tensor) *simple {
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		d, err := dims(in)
		if err != nil {
			return err
		}
		sh := d.outputs()
		for i := range sh {
			setShape(out[i], sh[i][:mhaRanks[i]], in[0].DType)
		}
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		d, err := dims(a.In)
		if err != nil {
			return err
		}
		sh := d.outputs()
		for i := range sh {
			if o := a.Out[i]; o.DType != a.In[0].DType || !o.Shape.Equal(sh[i][:mhaRanks[i]]) {
				return errors.New("operands differ from the inferred ones")
			}
		}
		return m.run(operands(a.In), a.Out, d)
	}
	return k
}

// readAttrs reads the attributes op shares with MultiHeadAttention:
// num_heads, scale and mask_filter_value.
func (m *mha) readAttrs(op string, attrs kernel.Attrs) error {
	var err error
	if m.numHeads, err = attrs.Int("num_heads", 0); err != nil {
		return wrapAttr(err)
	}
	if m.numHeads < 1 {
		return fmt.Errorf("ops: %s: attribute \"num_heads\" is %d: want it given, ≥ 1", op, m.numHeads)
	}
	return scaleAttrs(attrs, &m.scale, &m.filter)
}

// scaleAttrs reads the attention ops' scale (0: 1/√head_size) and
// mask_filter_value attributes.
func scaleAttrs(attrs kernel.Attrs, scale, filter *float32) error {
	for _, p := range []struct {
		name string
		def  float64
		v    *float32
	}{{"scale", 0, scale}, {"mask_filter_value", -10000, filter}} {
		v, err := attrs.Float(p.name, p.def)
		if err != nil {
			return wrapAttr(err)
		}
		*p.v = float32(v)
	}
	return nil
}

// mhaRanks are the ranks of the attention ops' outputs: output, present
// key and value, qk.
var mhaRanks = [4]int{3, 4, 4, 4}

// outputs returns the output shapes of d, each in an array of rank 4
// (see mhaRanks), so that checking them allocates nothing.
func (d mhaDims) outputs() [4][4]int64 {
	return [4][4]int64{{d.b, d.s, d.n * d.hv}, {d.b, d.n, d.m, d.h}, {d.b, d.n, d.m, d.hv}, {d.b, d.n, d.s, d.t}}
}

// mhaCost is the impl of MultiHeadAttention and its decoder form:
// simple's, with the products' cost; dims gives the sizes.
type mhaCost struct {
	*simple
	dims func(in []*kernel.Tensor) (mhaDims, error)
}

func (c *mhaCost) cost(in, out []*kernel.Tensor) device.Cost {
	d, err := c.dims(in)
	if err != nil {
		return c.simple.cost(in, out)
	}
	return device.Cost{FLOPs: float64(2 * d.b * d.n * d.s * d.t * (d.h + d.hv)), Bytes: ioBytes(in, out)}
}

// dims validates MultiHeadAttention's operands (all but the mask's values)
// and returns its sizes.
func (m *mha) dims(in []*kernel.Tensor) (mhaDims, error) {
	var d mhaDims
	q, key, value, bias := in[0], optional(in, 1), optional(in, 2), optional(in, 3)
	mask, ab, pastK, pastV := optional(in, 4), optional(in, 5), optional(in, 6), optional(in, 7)
	if err := dtypeIn(q, "query", kernel.Float32, kernel.Float16); err != nil {
		return d, err
	}
	if q.Shape.Rank() == 5 || key == nil && value == nil {
		return d, notImplemented("input query: packed Q, K and V (query without key and value) are not implemented, as in onnxruntime's CPU kernel")
	}
	if key != nil && key.Shape.Rank() == 5 {
		return d, notImplemented("input key: packed K and V (a 5-D key) are not implemented, as in onnxruntime's CPU kernel")
	}
	if key == nil || value == nil {
		return d, errors.New("inputs key and value: want both")
	}
	if q.Shape.Rank() != 3 || q.Shape[0] < 1 || q.Shape[1] < 1 || q.Shape[2]%m.numHeads != 0 || q.Shape[2] < 1 {
		return d, fmt.Errorf("input query %v: want [batch, sequence, num_heads·head_size], num_heads %d", q.Shape, m.numHeads)
	}
	d.b, d.s, d.n = q.Shape[0], q.Shape[1], m.numHeads
	d.h = q.Shape[2] / d.n
	for i, t := range []*kernel.Tensor{key, value} {
		if err := checkSameDType(t, [...]string{"key", "value"}[i], q, "query"); err != nil {
			return d, err
		}
	}
	ks, vs := key.Shape, value.Shape
	switch {
	case ks.Rank() == 3 && vs.Rank() == 3:
		if ks[0] != d.b || ks[2] != d.n*d.h || ks[1] < 1 || vs[0] != d.b || vs[1] != ks[1] || vs[2]%d.n != 0 || vs[2] < 1 {
			return d, fmt.Errorf("inputs key %v and value %v: want [batch, L, D] and [batch, L, Dv] = [%d, L, %d] and [%d, L, num_heads·Hv]", ks, vs, d.b, d.n*d.h, d.b)
		}
		d.l, d.hv = ks[1], vs[2]/d.n
	case ks.Rank() == 4 && vs.Rank() == 4:
		if ks[0] != d.b || ks[1] != d.n || ks[3] != d.h || ks[2] < 1 || !vs.Equal(ks) {
			return d, fmt.Errorf("inputs key %v and value %v: want both [batch, num_heads, L, head_size] = [%d, %d, L, %d]", ks, vs, d.b, d.n, d.h)
		}
		d.l, d.hv, d.bnsh = ks[2], vs[3], true
	default:
		return d, fmt.Errorf("inputs key %v and value %v: want both 3-D [batch, L, hidden] or both 4-D [batch, num_heads, L, head_size]", ks, vs)
	}
	if bias != nil {
		if err := checkSameDType(bias, "bias", q, "query"); err != nil {
			return d, err
		}
		if want := d.n * (2*d.h + d.hv); !bias.Shape.Equal(kernel.Shape{want}) {
			return d, fmt.Errorf("input bias %v: want [D + D + Dv] = [%d]", bias.Shape, want)
		}
	}
	switch {
	case pastK != nil && pastV != nil:
		for i, t := range []*kernel.Tensor{pastK, pastV} {
			name := [...]string{"past_key", "past_value"}[i]
			if err := checkSameDType(t, name, q, "query"); err != nil {
				return d, err
			}
			if s := t.Shape; s.Rank() != 4 || s[0] != d.b || s[1] != d.n || s[2] != pastK.Shape[2] || s[3] != d.h {
				return d, fmt.Errorf("input %s %v: want [batch, num_heads, past, head_size] = [%d, %d, past, %d] (Hv = H with past)", name, s, d.b, d.n, d.h)
			}
		}
		d.p = pastK.Shape[2]
	case pastK != nil || pastV != nil:
		return d, errors.New("inputs past_key and past_value: want both or neither")
	}
	d.t = d.p + d.l
	if err := m.beamDims(&d, in); err != nil {
		return d, err
	}
	if mask != nil {
		if err := dtypeIn(mask, m.maskName(), kernel.Int32); err != nil {
			return d, err
		}
		s := mask.Shape
		switch {
		case s.Rank() == 1 && (s[0] == d.b || s[0] == 3*d.b+2):
		case s.Rank() == 2 && s[0] == d.b && s[1] == d.t:
		case s.Rank() == 3 && s[0] == d.b && s[1] == d.s && s[2] == d.t:
		default:
			return d, fmt.Errorf("input %s %v: want [batch], [3·batch + 2], [batch, total] or [batch, sequence, total], batch %d, sequence %d, total %d", m.maskName(), s, d.b, d.s, d.t)
		}
	}
	if ab != nil {
		if err := checkSameDType(ab, "attention_bias", q, "query"); err != nil {
			return d, err
		}
		s := ab.Shape
		if s.Rank() != 4 || s[0] != d.b && s[0] != 1 || s[1] != d.n && s[1] != 1 || s[2] != d.s || s[3] != d.t {
			return d, fmt.Errorf("input attention_bias %v: want [batch or 1, num_heads or 1, sequence, total] = [%d or 1, %d or 1, %d, %d]", s, d.b, d.n, d.s, d.t)
		}
	}
	return d, m.beamForm(d, mask, ab)
}

// beamDims checks past_sequence_length and cache_indirection and, with a
// shared buffer, sets d's past, total and buffer lengths and beam width:
// the operands onnxruntime's CPU kernel runs in its beam-search form. The
// other inputs are checked, and d's lengths set as without a shared
// buffer.
func (m *mha) beamDims(d *mhaDims, in []*kernel.Tensor) error {
	psl, ci, pastK := optional(in, 8), optional(in, 9), optional(in, 6)
	d.m = d.t
	if psl != nil {
		if err := dtypeIn(psl, "past_sequence_length", kernel.Int32); err != nil {
			return err
		}
		if psl.Shape.Rank() > 1 || psl.NumElements() != 1 {
			return fmt.Errorf("input past_sequence_length %v: want a scalar or [1]", psl.Shape)
		}
	}
	d.share = pastK != nil && psl != nil
	if m.decoder && pastK != nil {
		if !m.share {
			return notImplemented("input past_key with attribute past_present_share_buffer 0: not implemented, as in onnxruntime's CPU kernel (want 1)")
		}
		if psl == nil {
			return errors.New("input past_sequence_length is missing: want it with past_key and past_present_share_buffer 1")
		}
	}
	if d.share {
		if psl.IsVirtual() {
			return errors.New("input past_sequence_length: its value is unknown")
		}
		d.m = pastK.Shape[2]
		d.p = int64(kernel.Int32s(psl.Data())[0])
		if d.p < 0 || d.p >= d.m {
			return fmt.Errorf("input past_sequence_length is %d: want 0 to past_key's max sequence length − 1 = %d", d.p, d.m-1)
		}
		d.t = d.p + d.l
	}
	if ci != nil {
		if err := dtypeIn(ci, "cache_indirection", kernel.Int32); err != nil {
			return err
		}
		s := ci.Shape
		if s.Rank() != 3 || s[1] < 1 || s[0]*s[1] != d.b || d.share && s[2] != d.m {
			want := "want [batch / beam_width, beam_width, max_sequence_length]"
			if d.share {
				want += fmt.Sprintf(", max_sequence_length past_key's %d", d.m)
			}
			return fmt.Errorf("input cache_indirection %v: %s, batch %d", s, want, d.b)
		}
		d.w = s[1]
	}
	return nil
}

// beamForm checks that a shared buffer's operands (d's share set) are of
// the form onnxruntime's CPU kernel computes.
func (m *mha) beamForm(d mhaDims, mask, ab *kernel.Tensor) error {
	if m.decoder {
		return m.decoderForm(d, mask, ab)
	}
	if !d.share {
		return nil
	}
	// onnxruntime's CPU kernel runs a shared buffer only in this form;
	// otherwise it takes all M rows of past_key for the past and writes
	// present_key and present_value beyond their end.
	switch {
	case d.w == 0:
		return notImplemented("input past_sequence_length with past_key but without cache_indirection: not implemented, as onnxruntime's CPU kernel reads all of past_key's rows and writes beyond present_key's end there")
	case d.bnsh:
		return notImplemented("input past_sequence_length with past_key and 4-D key and value: not implemented, as onnxruntime's CPU kernel reads all of past_key's rows and writes beyond present_key's end there")
	case d.p == 0, d.s != 1:
		return notImplemented("input past_sequence_length %d with sequence length %d: only past_sequence_length ≥ 1 with one query token is implemented, as onnxruntime's CPU kernel reads all of past_key's rows and writes beyond present_key's end otherwise", d.p, d.s)
	case d.l != 1:
		return notImplemented("inputs key and value with %d tokens and past_sequence_length: one token is implemented, as onnxruntime's CPU kernel reads its keys at the wrong rows otherwise", d.l)
	case d.hv != d.h:
		return notImplemented("input value: head size %d with past_sequence_length: want query's %d, as onnxruntime's CPU kernel", d.hv, d.h)
	case mask != nil && mask.Shape.Rank() != 2:
		return notImplemented("input key_padding_mask %v with past_sequence_length: only [batch, total] is implemented, as onnxruntime's CPU kernel reads all of past_key's rows and writes beyond present_key's end otherwise", mask.Shape)
	}
	// onnxruntime reads attention_bias [batch, 1, …] at the row
	// (b / beam_width)·num_heads.
	if ab != nil && ab.Shape[0] != 1 && ab.Shape[1] == 1 && (d.b/d.w-1)*d.n+1 > d.b {
		return notImplemented("input attention_bias %v with cache_indirection: onnxruntime's CPU kernel reads it at row (batch / beam width)·num_heads, beyond its end", ab.Shape)
	}
	return nil
}

func (m *mha) run(in, out []*kernel.Tensor, d mhaDims) error {
	q, key, value, bias := in[0], in[1], in[2], optional(in, 3)
	mask, ab, pastK, pastV := optional(in, 4), optional(in, 5), optional(in, 6), optional(in, 7)
	dt := q.DType
	var mv []int32
	if mask != nil {
		mv = kernel.Int32s(mask.Data())
	}
	m.q = grownFloats(m.q, int(d.b*d.n*d.s*d.h))
	m.k = grownFloats(m.k, int(d.b*d.n*d.t*d.h))
	m.v = grownFloats(m.v, int(d.b*d.n*d.t*d.hv))
	var bb []byte
	if bias != nil {
		bb = bias.Data()
	}
	// plus adds bias element c (when bias is given) in float32.
	plus := func(v float64, c int64, with bool) float64 {
		if bb == nil || !with {
			return v
		}
		return float64(float32(v + loadF(dt, bb, c)))
	}
	qb, kb, vb := q.Data(), key.Data(), value.Data()
	dq := d.n * d.h
	for b := range d.b {
		for n := range d.n {
			for s := range d.s {
				for i := range d.h {
					m.q[((b*d.n+n)*d.s+s)*d.h+i] = plus(loadF(dt, qb, (b*d.s+s)*dq+n*d.h+i), n*d.h+i, true)
				}
			}
			for j := range d.l {
				kat, vat := ((b*d.n+n)*d.l+j)*d.h, ((b*d.n+n)*d.l+j)*d.hv
				if !d.bnsh {
					kat, vat = (b*d.l+j)*dq+n*d.h, (b*d.l+j)*d.n*d.hv+n*d.hv
				}
				for i := range d.h {
					m.k[((b*d.n+n)*d.t+d.p+j)*d.h+i] = plus(loadF(dt, kb, kat+i), dq+n*d.h+i, !d.bnsh)
				}
				for i := range d.hv {
					m.v[((b*d.n+n)*d.t+d.p+j)*d.hv+i] = plus(loadF(dt, vb, vat+i), 2*dq+n*d.hv+i, !d.bnsh)
				}
			}
		}
	}
	switch {
	case d.share:
		if err := m.gatherBeams(in, out, d); err != nil {
			return err
		}
	case pastK != nil:
		pk, pv := pastK.Data(), pastV.Data()
		for bn := range d.b * d.n {
			for j := range d.p * d.h {
				m.k[bn*d.t*d.h+j] = loadF(dt, pk, bn*d.p*d.h+j)
				m.v[bn*d.t*d.h+j] = loadF(dt, pv, bn*d.p*d.h+j)
			}
		}
	}
	if !d.share {
		pk, pv := out[1].Data(), out[2].Data()
		for i, v := range m.k {
			storeF(dt, pk, int64(i), v)
		}
		for i, v := range m.v {
			storeF(dt, pv, int64(i), v)
		}
	}
	alpha := m.scale
	if alpha == 0 {
		alpha = 1 / float32(math.Sqrt(float64(d.h)))
	}
	causal := m.uni && d.s > 1
	m.row = grownFloats(m.row, int(d.t))
	m.addend = grownFloats(m.addend, int(d.t))
	if ab != nil {
		m.bias = grownFloats(m.bias, int(d.t))
	}
	yb, qkb := out[0].Data(), out[3].Data()
	for b := range d.b {
		for n := range d.n {
			for s := range d.s {
				// onnxruntime adds attention_bias to the scores,
				// then the mask: each sum rounded to float32.
				var bias, add []float64
				switch {
				case d.share:
					bias, add = m.beamRow(d, ab, mv, b, n, dt)
				case ab != nil:
					bias = m.bias
					clear(bias)
					addBias(bias, ab, dt, b, n, s, d.s)
				}
				if !d.share && (mv != nil || causal) {
					add = m.addend
					maskRow(add, mv, mask, false, b, n, s, d.s, d.p, causal, float64(m.filter), nil, dt)
				}
				qr := m.q[((b*d.n+n)*d.s+s)*d.h:][:d.h]
				kh := m.k[(b*d.n+n)*d.t*d.h:][:d.t*d.h]
				vh := m.v[(b*d.n+n)*d.t*d.hv:][:d.t*d.hv]
				attendRow(m.row, qr, kh, vh, alpha, bias, add, dt, yb, ((b*d.s+s)*d.n+n)*d.hv, qkb, ((b*d.n+n)*d.s+s)*d.t)
			}
		}
	}
	return nil
}

// gatherBeams fills the past rows of K and V (d's share set: one query
// token and one key after P ≥ 1 past rows) from past_key and past_value
// through cache_indirection, and writes present_key and present_value:
// past_key and past_value with row P replaced by this run's K and V.
// Past row j of batch b is that of batch (b / W)·W + c, W the beam width
// and c cache_indirection's value at [b / W, b mod W, j], as onnxruntime's
// CPU kernel reads it; c is checked to be 0 to W − 1 before anything is
// written.
func (m *mha) gatherBeams(in, out []*kernel.Tensor, d mhaDims) error {
	pastK, pastV := in[6], in[7]
	var ci []int32
	if c := optional(in, 9); c != nil {
		ci = kernel.Int32s(c.Data())
	}
	dt := pastK.DType
	for b := range d.b {
		if ci == nil {
			break
		}
		for j := range d.p {
			if c := int64(ci[b*d.m+j]); c < 0 || c >= d.w {
				return fmt.Errorf("cache_indirection[%d, %d, %d] is %d: want a beam index 0 to beam width − 1 = %d", b/d.w, b%d.w, j, c, d.w-1)
			}
		}
	}
	pk, pv := pastK.Data(), pastV.Data()
	for b := range d.b {
		for n := range d.n {
			for j := range d.p {
				src := b
				if ci != nil {
					src = (b/d.w)*d.w + int64(ci[b*d.m+j])
				}
				from, to := ((src*d.n+n)*d.m+j)*d.h, ((b*d.n+n)*d.t+j)*d.h
				for i := range d.h {
					m.k[to+i] = loadF(dt, pk, from+i)
					m.v[to+i] = loadF(dt, pv, from+i)
				}
			}
		}
	}
	ok, ov := out[1].Data(), out[2].Data()
	for i := range d.b * d.n * d.m * d.h {
		storeF(dt, ok, i, loadF(dt, pk, i))
		storeF(dt, ov, i, loadF(dt, pv, i))
	}
	for bn := range d.b * d.n {
		for i := range d.h {
			storeF(dt, ok, (bn*d.m+d.p)*d.h+i, m.k[(bn*d.t+d.p)*d.h+i])
			storeF(dt, ov, (bn*d.m+d.p)*d.h+i, m.v[(bn*d.t+d.p)*d.h+i])
		}
	}
	return nil
}

// beamRow returns the addends of query row (b, n) in the shared-buffer
// form (nil when there are none): attention_bias ab's row, read at batch
// b / W as onnxruntime's CPU kernel does (at row (b / W)·num_heads when
// ab is [batch, 1, 1, T]), and the mask: mask_filter_value where
// key_padding_mask mv ([batch, T]) is 0.
func (m *mha) beamRow(d mhaDims, ab *kernel.Tensor, mv []int32, b, n int64, dt kernel.DType) (bias, add []float64) {
	indirect := d.w > 0
	if ab != nil {
		bias = m.bias
		if !indirect {
			clear(bias)
			addBias(bias, ab, dt, b, n, 0, 1)
		} else {
			var at int64
			if ab.Shape[0] != 1 {
				at += b / d.w * d.n
			}
			if ab.Shape[1] != 1 {
				at += n
			}
			abb := ab.Data()
			for j := range bias {
				bias[j] = loadF(dt, abb, at*d.t+int64(j))
			}
		}
	}
	if mv != nil {
		add = m.addend
		for j := range add {
			add[j] = 0
			if v := mv[b*d.t+int64(j)]; v == 0 || !indirect && v < 0 {
				add[j] = float64(m.filter)
			}
		}
	}
	return bias, add
}

// maskName is the name of the key mask input: key_padding_mask, or
// DecoderMaskedMultiHeadAttention's mask_index.
func (m *mha) maskName() string {
	if m.decoder {
		return "mask_index"
	}
	return "key_padding_mask"
}
