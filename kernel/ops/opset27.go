package ops

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// opset27Ops are ONNX's ops of opset 27 (ONNX 1.22), which have no earlier
// form: the fused steps of Gated DeltaNet layers (Qwen3.5), the
// convolution also Mamba's:
//
//   - CausalConvWithState(input, weight[, bias[, past_state]])
//     (activation): a causal depthwise 1-D convolution that carries its
//     last k − 1 inputs from call to call; see causalConv.
//   - LinearAttention(query, key, value[, past_state[, decay[, beta]]])
//     (update_rule, q_num_heads, kv_num_heads, scale, chunk_size): the
//     recurrence of linear attention over a state of d_k × d_v per
//     key/value head; see linAttn.
var opset27Ops = []builtin{
	{"CausalConvWithState", newCausalConvWithState},
	{"LinearAttention", newLinearAttention},
}

// causalConv is CausalConvWithState(input, weight[, bias[, past_state]])
// (activation "none"): input is [B, C, L], weight [C, 1, k] (k ≥ 1, the
// depthwise layout of Conv's weight), bias [C] and past_state [B, C, k−1],
// all of one dtype, float32, float16 or bfloat16. Each channel is
// convolved with its own kernel over the sequence p = past_state ‖ input
// (zeros in place of an absent past_state), of length k − 1 + L:
//
//	y[b,c,t] = act(Σ_{j<k} w[c,0,j]·p[b,c,t+j] + bias[c])
//
// the sum in ascending j (zero padding included, so an infinite weight
// facing it gives NaN, as the convolution over the padded sequence does),
// the bias added last; act is the identity for activation "none" and
// SiLU, z·(1/(1 + e^(−z))), for "silu" and its alias "swish" (the form of
// Swish and Sigmoid: z = −∞ gives NaN). output has input's shape;
// present_state [B, C, k−1] holds the last k − 1 elements of p — past
// values or zeros too, when L < k − 1 — copied bit for bit. Products,
// sums and SiLU are evaluated in float64 and each output rounded once to
// the dtype. ONNX's reference (and its function body) rounds the
// convolution to the dtype before a SiLU evaluated in float32 and rounded
// again, so float16 and bfloat16 results with SiLU can differ from it by
// a unit in the last place.
//
// Tiling (words):
//
//	0..4  rows block: rows B·C, rowLen L, rowsPerCore, cores, chunk (4
//	      buffers: input and output double-buffered)
//	5     k
//	6     bias given
//	7     past_state given
//	8     SiLU
//
// Workspace: none. Cost: 2k operations per output element (plus 6 for
// SiLU); bytes of every operand.
type causalConv struct {
	silu bool
}

func newCausalConvWithState(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("activation"); err != nil {
		return nil, wrapAttr(err)
	}
	act, err := attrs.String("activation", "none")
	if err != nil {
		return nil, wrapAttr(err)
	}
	k := &causalConv{}
	switch act {
	case "none":
	case "silu", "swish":
		k.silu = true
	default:
		return nil, fmt.Errorf("ops: CausalConvWithState: attribute \"activation\" is %q, want \"silu\", \"swish\" or \"none\"", act)
	}
	return newKernel(sig{op: "CausalConvWithState", minIn: 2, maxIn: 4, nOut: 2}, k), nil
}

// ccDims are CausalConvWithState's sizes and optional inputs (nil when
// absent).
type ccDims struct {
	b, c, l, k int64
	bias, past *kernel.Tensor
}

// state is present_state's (and past_state's) shape.
func (d ccDims) state() kernel.Shape { return kernel.Shape{d.b, d.c, d.k - 1} }

func (k *causalConv) dims(in []*kernel.Tensor) (ccDims, error) {
	var d ccDims
	x, w := in[0], in[1]
	if err := dtypeIn(x, "input", kernel.Float32, kernel.Float16, kernel.BFloat16); err != nil {
		return d, err
	}
	if x.Shape.Rank() != 3 {
		return d, fmt.Errorf("input input has shape %v, want rank 3 [batch_size, channels, length]", x.Shape)
	}
	d.b, d.c, d.l = x.Shape[0], x.Shape[1], x.Shape[2]
	if elemsOver(d.b, d.c) {
		return d, fmt.Errorf("input input has shape %v: batch_size·channels, its rows, too many", x.Shape)
	}
	if err := checkSameDType(w, "weight", x, "input"); err != nil {
		return d, err
	}
	if w.Shape.Rank() != 3 || w.Shape[0] != d.c || w.Shape[1] != 1 || w.Shape[2] < 1 {
		return d, fmt.Errorf("input weight has shape %v, want [channels, 1, k] = [%d, 1, k] with k ≥ 1", w.Shape, d.c)
	}
	d.k = w.Shape[2]
	if d.bias = optionalIn(in, 2); d.bias != nil {
		if err := checkSameDType(d.bias, "bias", x, "input"); err != nil {
			return d, err
		}
		if !d.bias.Shape.Equal(kernel.Shape{d.c}) {
			return d, fmt.Errorf("input bias has shape %v, want [channels] = [%d]", d.bias.Shape, d.c)
		}
	}
	if d.past = optionalIn(in, 3); d.past != nil {
		if err := checkSameDType(d.past, "past_state", x, "input"); err != nil {
			return d, err
		}
		if !d.past.Shape.Equal(d.state()) {
			return d, fmt.Errorf("input past_state has shape %v, want [batch_size, channels, k − 1] = %v", d.past.Shape, d.state())
		}
	}
	if elemsOver(d.b, d.c, d.k-1) {
		return d, fmt.Errorf("present_state %v has too many elements", d.state())
	}
	return d, nil
}

// elemsOver reports whether a shape of dimensions dims has more than
// maxGridDim elements (checkElems, without moving its operand to the
// heap).
func elemsOver(dims ...int64) bool {
	n := int64(1)
	for _, d := range dims {
		if d == 0 {
			return false
		}
	}
	for _, d := range dims {
		if n > maxGridDim/d {
			return true
		}
		n *= d
	}
	return false
}

func (k *causalConv) infer(in, out []*kernel.Tensor) error {
	d, err := k.dims(in)
	if err != nil {
		return err
	}
	setShape(out[0], in[0].Shape, in[0].DType)
	setShape(out[1], d.state(), in[0].DType)
	return nil
}

func (k *causalConv) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	d, err := k.dims(in)
	if err != nil {
		return 0, err
	}
	e.grow(rowsWords + 4)
	splitRows(d.b*d.c, d.l, in[0].DType.Size(), 4).put(e)
	e.put(d.k)
	e.putBool(d.bias != nil)
	e.putBool(d.past != nil)
	e.putBool(k.silu)
	return 0, nil
}

func (k *causalConv) cost(in, out []*kernel.Tensor) device.Cost {
	c := device.Cost{Bytes: ioBytes(in, out)}
	if in[1].Shape.Rank() == 3 {
		per := mul64(2, float64(in[1].Shape[2]))
		if k.silu {
			per += 6
		}
		c.FLOPs = mul64(per, float64(in[0].NumElements()))
	}
	return c
}

func (k *causalConv) compute(a *kernel.Args) error {
	d, err := k.dims(a.In)
	if err != nil {
		return err
	}
	x, y, ps := a.In[0], a.Out[0], a.Out[1]
	dt := x.DType
	if y.DType != dt || ps.DType != dt || !y.Shape.Equal(x.Shape) || !ps.Shape.Equal(d.state()) {
		return errors.New("operands differ from the inferred ones")
	}
	dec := decoder{b: a.Tiling.Data}
	if err := readRows(&dec, d.b*d.c, d.l); err != nil {
		return err
	}
	kw, hasBias, hasPast, silu := dec.word(), dec.word() != 0, dec.word() != 0, dec.word() != 0
	if err := dec.err(); err != nil {
		return err
	}
	if kw != d.k || hasBias != (d.bias != nil) || hasPast != (d.past != nil) || silu != k.silu {
		return errTiling
	}
	if y.NumElements() == 0 && ps.NumElements() == 0 {
		return nil // every row writes nothing
	}
	K, L, h := d.k, d.l, d.k-1 // h: the carried length
	es := int64(dt.Size())
	xb, wb, yb, sb := x.Data(), a.In[1].Data(), y.Data(), ps.Data()
	var bb, pb []byte
	if d.bias != nil {
		bb = d.bias.Data()
	}
	if d.past != nil {
		pb = d.past.Data()
	}
	// at is element p of row r of the padded sequence past_state ‖ input.
	at := func(r, p int64) float64 {
		if p >= h {
			return loadF(dt, xb, r*L+p-h)
		}
		if pb != nil {
			return loadF(dt, pb, r*h+p)
		}
		return 0
	}
	poll := poller{a: a}
	for r := range d.b * d.c {
		if err := poll.add(L*K + h + 1); err != nil {
			return err // the run ended (kernel.Args.Ctx)
		}
		c := r % d.c
		for t := range L {
			var z float64
			for j := range K {
				z += mul64(loadF(dt, wb, c*K+j), at(r, t+j))
			}
			if bb != nil {
				z += loadF(dt, bb, c)
			}
			if k.silu {
				z *= 1 / (1 + expF(-z))
			}
			storeF(dt, yb, r*L+t, z)
		}
		for i := range h {
			switch p := L + i; {
			case p >= h:
				copyElem(sb, r*h+i, xb, r*L+p-h, es)
			case pb != nil:
				copyElem(sb, r*h+i, pb, r*h+p, es)
			default:
				clear(sb[(r*h+i)*es : (r*h+i+1)*es])
			}
		}
	}
	return nil
}

// The update rules of LinearAttention.
const (
	ruleLinear = iota
	ruleGated
	ruleDelta
	ruleGatedDelta
)

// laRules are the update rules' names, in their constants' order.
var laRules = [...]string{"linear", "gated", "delta", "gated_delta"}

// linAttn is LinearAttention(query, key, value[, past_state[, decay[,
// beta]]]) (update_rule "gated_delta", q_num_heads and kv_num_heads
// required, scale 0, chunk_size 64). query is [B, T, H_q·d_k], key [B, T,
// H_kv·d_k] and value [B, T, H_kv·d_v], heads packed in the last
// dimension; H_q (q_num_heads) is a positive multiple of H_kv
// (kv_num_heads), query head h reading key/value head h / (H_q/H_kv).
// Each key/value head of each batch entry runs a recurrence over the T
// tokens on a state S [d_k, d_v], from past_state [B, H_kv, d_k, d_v] or
// zeros; at token t, with k, v, q the head's vectors:
//
//	gated rules:  S ← e^g ⊙ S            (row i of S times e^(g_i))
//	delta rules:  u = β·(v − Sᵀk)        (else u = v)
//	              S ← S + k ⊗ u
//	output:       o = scale · qᵀS        (for each query head of the group)
//
// update_rule is "linear" (neither), "gated" (decay, no beta), "delta"
// (beta, no decay) or "gated_delta" (both): decay [B, T, H_kv] (g the
// same for every row, per head) or [B, T, H_kv·d_k] (per key dimension)
// is required by the gated rules, beta [B, T, H_kv] or [B, T, 1] (shared
// by the heads) by the delta rules, and the other rules refuse them.
// output is [B, T, H_q·d_v] and present_state [B, H_kv, d_k, d_v] the
// final S. scale 0 is 1/√d_k (d_k 0 then gives NaN outputs, ∞·0, as
// ONNX's reference computes them); another scale must be finite.
// chunk_size, a hint for chunked evaluation that ONNX says does not change
// the results, is read and unused: the recurrence runs token by token.
//
// query, key, value, decay and beta share one dtype, float32, float16 or
// bfloat16; past_state is any of the three, and present_state has its
// dtype (query's without past_state). The recurrence is evaluated in
// float64 — the state too, from token to token — its sums in ascending
// index order, and each output element rounded once to its dtype. ONNX's
// reference keeps the state in float32 and rounds every operation to it,
// so float32 results agree with it to float32 rounding.
//
// Tiling (words):
//
//	0 B  1 T  2 H_q  3 H_kv  4 d_k  5 d_v
//	6 decay: 0 none, 1 per head, 2 per key dimension
//	7 beta elements per token: 0 (none), 1 or H_kv
//	8 past_state given
//	9..11 recurrences B·H_kv, recurrences per core, cores
//
// Workspace: none (the kernel keeps one recurrence's state and two rows
// of d_v, in float64). Cost: per token, per key/value head 2·d_k·d_v for
// the update, 2·d_k·d_v more for Sᵀk and d_k·d_v for the decay where the
// rule has them, and 2·d_k·d_v per query head for the output.
type linAttn struct {
	rule            int
	qHeads, kvHeads int64
	scale           float64 // 0: 1/√d_k
	s, u, o         []float64
}

func newLinearAttention(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("chunk_size", "kv_num_heads", "q_num_heads", "scale", "update_rule"); err != nil {
		return nil, wrapAttr(err)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("ops: LinearAttention: "+format, a...)
	}
	k := &linAttn{}
	name, err := attrs.String("update_rule", "gated_delta")
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.rule = slices.Index(laRules[:], name)
	if k.rule < 0 {
		return nil, fail("attribute \"update_rule\" is %q, want \"linear\", \"gated\", \"delta\" or \"gated_delta\"", name)
	}
	for _, p := range []struct {
		name string
		v    *int64
	}{{"q_num_heads", &k.qHeads}, {"kv_num_heads", &k.kvHeads}} {
		if _, ok := attrs[p.name]; !ok {
			return nil, fail("attribute %q is required", p.name)
		}
		if *p.v, err = attrs.Int(p.name, 0); err != nil {
			return nil, wrapAttr(err)
		}
		if *p.v < 1 {
			return nil, fail("attribute %q is %d, want a positive integer", p.name, *p.v)
		}
	}
	if k.qHeads%k.kvHeads != 0 {
		return nil, fail("attribute \"q_num_heads\" %d is not a multiple of \"kv_num_heads\" %d", k.qHeads, k.kvHeads)
	}
	scale, err := attrs.Float("scale", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.scale = float64(float32(scale)) // a float32 attribute
	if math.IsNaN(k.scale) || math.IsInf(k.scale, 0) {
		return nil, fail("attribute \"scale\" is %g, want a finite number (0 for 1/√d_k)", k.scale)
	}
	if _, err := attrs.Int("chunk_size", 64); err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "LinearAttention", minIn: 3, maxIn: 6, nOut: 2}, k), nil
}

func (k *linAttn) gated() bool { return k.rule == ruleGated || k.rule == ruleGatedDelta }
func (k *linAttn) delta() bool { return k.rule == ruleDelta || k.rule == ruleGatedDelta }

// The forms of LinearAttention's decay.
const (
	decayNone   = iota
	decayHead   // [B, T, H_kv]: one g per head
	decayKeyDim // [B, T, H_kv·d_k]: one g per row of the state
)

// laDims are LinearAttention's sizes and optional inputs (nil when
// absent): decayForm is how decay is given, betaW beta's elements per
// token (0 when absent, 1 or H_kv), output and states the outputs' shapes.
type laDims struct {
	b, t, dk, dv int64
	decayForm    int64
	betaW        int64
	past         *kernel.Tensor
	decay, beta  *kernel.Tensor
	stateDType   kernel.DType
	output       [3]int64
	states       [4]int64
}

func (k *linAttn) dims(in []*kernel.Tensor) (laDims, error) {
	var d laDims
	q, key, v := in[0], in[1], in[2]
	if err := dtypeIn(q, "query", kernel.Float32, kernel.Float16, kernel.BFloat16); err != nil {
		return d, err
	}
	for i, name := range [...]string{"query", "key", "value"} {
		t := in[i]
		if err := checkSameDType(t, name, q, "query"); err != nil {
			return d, err
		}
		if t.Shape.Rank() != 3 {
			return d, fmt.Errorf("input %s has shape %v, want rank 3 [batch, seq, heads·head_size]", name, t.Shape)
		}
	}
	d.b, d.t = q.Shape[0], q.Shape[1]
	hq, hkv := k.qHeads, k.kvHeads
	if q.Shape[2]%hq != 0 {
		return d, fmt.Errorf("input query has shape %v: its last dimension is not a multiple of q_num_heads %d", q.Shape, hq)
	}
	d.dk = q.Shape[2] / hq
	if key.Shape[0] != d.b || key.Shape[1] != d.t || key.Shape[2]%hkv != 0 || key.Shape[2]/hkv != d.dk {
		return d, fmt.Errorf("input key has shape %v, want [batch, seq, kv_num_heads·d_k] = [%d, %d, %d·%d] (d_k = %d from query %v)",
			key.Shape, d.b, d.t, hkv, d.dk, d.dk, q.Shape)
	}
	if v.Shape[0] != d.b || v.Shape[1] != d.t || v.Shape[2]%hkv != 0 {
		return d, fmt.Errorf("input value has shape %v, want [batch, seq, kv_num_heads·d_v] = [%d, %d, %d·d_v]", v.Shape, d.b, d.t, hkv)
	}
	d.dv = v.Shape[2] / hkv
	if elemsOver(d.b, hkv) {
		return d, fmt.Errorf("batch %d times kv_num_heads %d recurrences: too many", d.b, hkv)
	}
	d.states = [4]int64{d.b, hkv, d.dk, d.dv}
	d.stateDType = q.DType
	if d.past = optionalIn(in, 3); d.past != nil {
		if err := dtypeIn(d.past, "past_state", kernel.Float32, kernel.Float16, kernel.BFloat16); err != nil {
			return d, err
		}
		if !d.past.Shape.Equal(d.states[:]) {
			return d, fmt.Errorf("input past_state has shape %v, want [batch, kv_num_heads, d_k, d_v] = %v", d.past.Shape, kernel.Shape{d.b, hkv, d.dk, d.dv})
		}
		d.stateDType = d.past.DType
	}
	rule := laRules[k.rule]
	d.decay, d.beta = optionalIn(in, 4), optionalIn(in, 5)
	switch {
	case k.gated() && d.decay == nil:
		return d, fmt.Errorf("update_rule %q needs input decay", rule)
	case !k.gated() && d.decay != nil:
		return d, fmt.Errorf("update_rule %q takes no input decay (the gated rules do)", rule)
	case k.delta() && d.beta == nil:
		return d, fmt.Errorf("update_rule %q needs input beta", rule)
	case !k.delta() && d.beta != nil:
		return d, fmt.Errorf("update_rule %q takes no input beta (the delta rules do)", rule)
	}
	if g := d.decay; g != nil {
		if err := checkSameDType(g, "decay", q, "query"); err != nil {
			return d, err
		}
		switch {
		case g.Shape.Rank() != 3 || g.Shape[0] != d.b || g.Shape[1] != d.t:
		case g.Shape[2] == hkv:
			d.decayForm = decayHead
		case g.Shape[2] == key.Shape[2]:
			d.decayForm = decayKeyDim
		}
		if d.decayForm == decayNone {
			return d, fmt.Errorf("input decay has shape %v, want [batch, seq, kv_num_heads] = [%d, %d, %d] or [batch, seq, kv_num_heads·d_k] = [%d, %d, %d]",
				g.Shape, d.b, d.t, hkv, d.b, d.t, key.Shape[2])
		}
	}
	if be := d.beta; be != nil {
		if err := checkSameDType(be, "beta", q, "query"); err != nil {
			return d, err
		}
		if be.Shape.Rank() != 3 || be.Shape[0] != d.b || be.Shape[1] != d.t || be.Shape[2] != 1 && be.Shape[2] != hkv {
			return d, fmt.Errorf("input beta has shape %v, want [batch, seq, kv_num_heads] = [%d, %d, %d] or [batch, seq, 1]", be.Shape, d.b, d.t, hkv)
		}
		d.betaW = be.Shape[2]
	}
	// The output's last dimension, H_q·d_v, is a product of dimensions no
	// input holds: bounded before it is formed.
	if d.dv > 0 && hq > maxGridDim/d.dv {
		return d, fmt.Errorf("output: q_num_heads %d times d_v %d elements per token: too many", hq, d.dv)
	}
	if elemsOver(d.b, d.t, hq*d.dv) {
		return d, fmt.Errorf("output [%d,%d,%d] has too many elements", d.b, d.t, hq*d.dv)
	}
	d.output = [3]int64{d.b, d.t, hq * d.dv}
	if elemsOver(d.b, hkv, d.dk, d.dv) {
		return d, fmt.Errorf("present_state [%d,%d,%d,%d] has too many elements", d.b, hkv, d.dk, d.dv)
	}
	return d, nil
}

func (k *linAttn) infer(in, out []*kernel.Tensor) error {
	d, err := k.dims(in)
	if err != nil {
		return err
	}
	setShape(out[0], d.output[:], in[0].DType)
	setShape(out[1], d.states[:], d.stateDType)
	return nil
}

// words are the tiling words of d (see linAttn).
func (k *linAttn) words(d laDims) [12]int64 {
	n := d.b * k.kvHeads
	cores := min(n, numCores)
	var per int64
	if cores > 0 {
		per = ceilDiv(n, cores)
	}
	return [12]int64{d.b, d.t, k.qHeads, k.kvHeads, d.dk, d.dv, d.decayForm, d.betaW, boolWord(d.past != nil), n, per, cores}
}

func boolWord(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

func (k *linAttn) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	d, err := k.dims(in)
	if err != nil {
		return 0, err
	}
	w := k.words(d)
	e.grow(len(w))
	e.puts(w[:])
	return 0, nil
}

func (k *linAttn) cost(in, out []*kernel.Tensor) device.Cost {
	c := device.Cost{Bytes: ioBytes(in, out)}
	d, err := k.dims(in)
	if err != nil {
		return c
	}
	state := mul64(float64(d.dk), float64(d.dv))
	perKV := mul64(2, state)
	if k.gated() {
		perKV += state
	}
	if k.delta() {
		perKV += mul64(2, state)
	}
	perToken := mul64(float64(k.kvHeads), perKV) + mul64(float64(k.qHeads), mul64(2, state))
	c.FLOPs = mul64(float64(d.b)*float64(d.t), perToken)
	return c
}

// grown returns (*buf)[:n], reallocating when its capacity is short.
func grown(buf *[]float64, n int64) []float64 {
	if int64(cap(*buf)) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}

func (k *linAttn) compute(a *kernel.Args) error {
	d, err := k.dims(a.In)
	if err != nil {
		return err
	}
	q, key, v, y, ps := a.In[0], a.In[1], a.In[2], a.Out[0], a.Out[1]
	dt := q.DType
	if y.DType != dt || ps.DType != d.stateDType || !y.Shape.Equal(d.output[:]) || !ps.Shape.Equal(d.states[:]) {
		return errors.New("operands differ from the inferred ones")
	}
	want := k.words(d)
	dec := decoder{b: a.Tiling.Data}
	w := dec.words(int64(len(want)))
	if err := dec.err(); err != nil {
		return err
	}
	for i, x := range want {
		if w.at(i) != x {
			return errTiling
		}
	}
	B, T, hq, hkv, dk, dv := d.b, d.t, k.qHeads, k.kvHeads, d.dk, d.dv
	group := hq / hkv
	scale := k.scale
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(dk))
	}
	qb, kb, vb, yb, sb := q.Data(), key.Data(), v.Data(), y.Data(), ps.Data()
	var pb, gb, bb []byte
	if d.past != nil {
		pb = d.past.Data()
	}
	if d.decay != nil {
		gb = d.decay.Data()
	}
	if d.beta != nil {
		bb = d.beta.Data()
	}
	sdt := d.stateDType
	if y.NumElements() == 0 && ps.NumElements() == 0 {
		return nil // no recurrence writes anything
	}
	S, u, o := grown(&k.s, dk*dv), grown(&k.u, dv), grown(&k.o, dv)
	poll := poller{a: a}
	for b := range B {
		for g := range hkv {
			base := (b*hkv + g) * dk * dv // the head's state in past_state and present_state
			if pb != nil {
				for i := range S {
					S[i] = loadF(sdt, pb, base+int64(i))
				}
			} else {
				clear(S)
			}
			for t := range T {
				if err := poll.add((4 + group) * (dk + 1) * dv); err != nil {
					return err // the run ended (kernel.Args.Ctx)
				}
				tok := b*T + t
				kv := tok*hkv + g // the head's token among key's (and value's) heads
				if gb != nil {
					var e float64
					for i := range dk {
						switch {
						case d.decayForm == decayKeyDim:
							e = expF(loadF(dt, gb, kv*dk+i))
						case i == 0:
							e = expF(loadF(dt, gb, kv))
						}
						row := S[i*dv : (i+1)*dv]
						for m := range row {
							row[m] = mul64(row[m], e)
						}
					}
				}
				if bb != nil {
					// u = β·(v − Sᵀk), Sᵀk accumulated in u over the rows.
					clear(u)
					for i := range dk {
						ki := loadF(dt, kb, kv*dk+i)
						row := S[i*dv : (i+1)*dv]
						for m := range u {
							u[m] += mul64(row[m], ki)
						}
					}
					beta := loadF(dt, bb, tok*d.betaW+min(g, d.betaW-1))
					for m := range u {
						u[m] = mul64(beta, loadF(dt, vb, kv*dv+int64(m))-u[m])
					}
				} else {
					for m := range u {
						u[m] = loadF(dt, vb, kv*dv+int64(m))
					}
				}
				for i := range dk {
					ki := loadF(dt, kb, kv*dk+i)
					row := S[i*dv : (i+1)*dv]
					for m := range row {
						row[m] += mul64(ki, u[m])
					}
				}
				for h := g * group; h < (g+1)*group; h++ {
					qh := tok*hq + h // the query head's token
					clear(o)
					for i := range dk {
						qi := loadF(dt, qb, qh*dk+i)
						row := S[i*dv : (i+1)*dv]
						for m := range o {
							o[m] += mul64(qi, row[m])
						}
					}
					for m, x := range o {
						storeF(dt, yb, qh*dv+int64(m), mul64(scale, x))
					}
				}
			}
			for i, x := range S {
				storeF(sdt, sb, base+int64(i), x)
			}
		}
	}
	return nil
}
