package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The tests of opset 27's ops compare the kernels against references
// written here from ONNX's definitions, in float64: refCausalConv builds
// the padded sequence and convolves it, refLinearAttention runs the
// recurrence on the 4-D state of every key/value head token by token, as
// ONNX's operator text states it.

// refCausalConv is CausalConvWithState from its definition: x [B, C, L],
// w [C, k] (the middle 1 of [C, 1, k] dropped), bias [C] or nil, past
// [B, C, k−1] or nil. Each channel's padded sequence is past (or k − 1
// zeros) then x; y is its valid depthwise convolution plus the bias, then
// z·sigmoid(z) with silu; present is the sequence's last k − 1 elements.
func refCausalConv(x []float64, B, C, L int, w []float64, K int, bias, past []float64, silu bool) (y, present []float64) {
	y = make([]float64, B*C*L)
	present = make([]float64, B*C*(K-1))
	for b := range B {
		for c := range C {
			row := b*C + c
			var p []float64
			if past != nil {
				p = append(p, past[row*(K-1):(row+1)*(K-1)]...)
			} else {
				p = append(p, make([]float64, K-1)...)
			}
			p = append(p, x[row*L:(row+1)*L]...)
			for t := range L {
				var z float64
				for j := range K {
					z += float64(w[c*K+j] * p[t+j])
				}
				if bias != nil {
					z += bias[c]
				}
				if silu {
					z *= 1 / (1 + math.Exp(-z))
				}
				y[row*L+t] = z
			}
			copy(present[row*(K-1):], p[len(p)-(K-1):])
		}
	}
	return y, present
}

// laRef is a LinearAttention problem: the packed 3-D inputs as float64,
// decay nil or [B, T, H_kv] (perKey false) or [B, T, H_kv·d_k], beta nil
// or [B, T, betaW], past nil or [B, H_kv, d_k, d_v].
type laRef struct {
	B, T, Hq, Hkv, dk, dv int
	rule                  string
	q, k, v, past         []float64
	decay, beta           []float64
	perKey                bool
	betaW                 int
	scale                 float64 // 0: 1/√d_k
}

// refLinearAttention runs the recurrence of ONNX's LinearAttention on
// the 4-D state S[b][g][i][m], token after token: S ← exp(g)·S (gated),
// u = β·(v − Sᵀk) (delta) or v, S ← S + k⊗u; each query head h reads the
// state of head h/(H_q/H_kv): o = scale·qᵀS.
func refLinearAttention(c laRef) (out, present []float64) {
	B, T, Hq, Hkv, dk, dv := c.B, c.T, c.Hq, c.Hkv, c.dk, c.dv
	at := func(b, g, i, m int) int { return ((b*Hkv+g)*dk+i)*dv + m }
	S := make([]float64, B*Hkv*dk*dv)
	if c.past != nil {
		copy(S, c.past)
	}
	gated := c.rule == "gated" || c.rule == "gated_delta"
	delta := c.rule == "delta" || c.rule == "gated_delta"
	scale := c.scale
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(dk))
	}
	out = make([]float64, B*T*Hq*dv)
	for t := range T {
		for b := range B {
			for g := range Hkv {
				kv := (b*T+t)*Hkv + g
				if gated {
					for i := range dk {
						gi := c.decay[kv]
						if c.perKey {
							gi = c.decay[kv*dk+i]
						}
						for m := range dv {
							S[at(b, g, i, m)] = float64(S[at(b, g, i, m)] * math.Exp(gi))
						}
					}
				}
				u := make([]float64, dv)
				for m := range dv {
					u[m] = c.v[kv*dv+m]
					if delta {
						var r float64
						for i := range dk {
							r += float64(S[at(b, g, i, m)] * c.k[kv*dk+i])
						}
						beta := c.beta[(b*T+t)*c.betaW]
						if c.betaW > 1 {
							beta = c.beta[(b*T+t)*c.betaW+g]
						}
						u[m] = float64(beta * (u[m] - r))
					}
				}
				for i := range dk {
					for m := range dv {
						S[at(b, g, i, m)] += float64(c.k[kv*dk+i] * u[m])
					}
				}
			}
			for h := range Hq {
				g := h / (Hq / Hkv)
				for m := range dv {
					var o float64
					for i := range dk {
						o += float64(c.q[((b*T+t)*Hq+h)*dk+i] * S[at(b, g, i, m)])
					}
					out[((b*T+t)*Hq+h)*dv+m] = float64(scale * o)
				}
			}
		}
	}
	return out, S
}

// draw returns n values of dtype dt drawn by f, as bit patterns and as
// their exact values.
func draw(dt kernel.DType, n int, f func() float64) ([]uint64, []float64) {
	b, v := make([]uint64, n), make([]float64, n)
	for i := range b {
		b[i] = refBits(dt, f())
		v[i] = refValue(dt, b[i])
	}
	return b, v
}

// rounded returns the bit patterns of v rounded once to dt.
func rounded(dt kernel.DType, v []float64) []uint64 {
	b := make([]uint64, len(v))
	for i, x := range v {
		b[i] = refBits(dt, x)
	}
	return b
}

// opset27Tol is the relative tolerance of the random tests per dtype: the
// kernels round each output once, as the references do, so they differ
// at most by the order of sums (none here) — a few units in the last
// place.
func opset27Tol(dt kernel.DType) float64 {
	switch dt {
	case kernel.Float16:
		return 0x1p-9
	case kernel.BFloat16:
		return 0x1p-6
	}
	return 1e-5
}

// checkNear compares got against want, of dtype dt and shape, within
// opset27Tol relative to 1 + |want|.
func checkNear(t *testing.T, what string, got *kernel.Tensor, dt kernel.DType, shape []int64, want []float64) {
	t.Helper()
	if got.DType != dt || !got.Shape.Equal(shape) {
		t.Fatalf("%s: %v %v, want %v %v", what, got.DType, got.Shape, dt, kernel.Shape(shape))
	}
	tol := opset27Tol(dt)
	for i, g := range values(got) {
		w := refValue(dt, refBits(dt, want[i]))
		if math.IsNaN(g) != math.IsNaN(w) || math.Abs(g-w) > tol*(1+math.Abs(w)) {
			t.Fatalf("%s: element %d is %v, want %v (%v before rounding; tolerance %g)", what, i, g, w, want[i], tol)
		}
	}
}

var opset27DTypes = []kernel.DType{kernel.Float32, kernel.Float16, kernel.BFloat16}

// ccCase is a CausalConvWithState problem.
type ccCase struct {
	b, c, l, k int
	bias, past bool
	act        string
}

func (c ccCase) String() string {
	return fmt.Sprintf("B %d C %d L %d k %d bias %v past %v %s", c.b, c.c, c.l, c.k, c.bias, c.past, c.act)
}

// ccOperands draws c's operands of dtype dt: the inputs in the op's order
// (an absent bias as the importer passes it, a zero-element vector) and
// their values.
func ccOperands(r *rand.Rand, dt kernel.DType, c ccCase) (in []*kernel.Tensor, x, w, bias, past []float64) {
	norm := func() float64 { return r.NormFloat64() }
	xb, x := draw(dt, c.b*c.c*c.l, norm)
	wb, w := draw(dt, c.c*c.k, norm)
	in = []*kernel.Tensor{bitsTensor(dt, shp(int64(c.b), int64(c.c), int64(c.l)), xb), bitsTensor(dt, shp(int64(c.c), 1, int64(c.k)), wb)}
	if c.bias || c.past {
		in = append(in, f32(shp(0)))
	}
	if c.bias {
		var bb []uint64
		bb, bias = draw(dt, c.c, norm)
		in[2] = bitsTensor(dt, shp(int64(c.c)), bb)
	}
	if c.past {
		var pb []uint64
		pb, past = draw(dt, c.b*c.c*(c.k-1), norm)
		in = append(in, bitsTensor(dt, shp(int64(c.b), int64(c.c), int64(c.k-1)), pb))
	}
	return in, x, w, bias, past
}

// TestCausalConvWithStateValues runs CausalConvWithState on random
// operands of every dtype against refCausalConv: prefill and decode steps,
// batches, kernel size 1, inputs shorter than k − 1 with and without a
// past state, bias, each activation, empty inputs. present_state is the
// sequence's tail bit for bit.
func TestCausalConvWithStateValues(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	cases := []ccCase{
		{1, 1, 1, 1, false, false, "none"},
		{2, 4, 8, 4, false, false, "none"},
		{2, 4, 8, 4, true, false, "silu"},
		{2, 3, 5, 3, true, true, "swish"},
		{3, 2, 1, 4, false, true, "silu"},  // a decode step
		{2, 3, 2, 5, false, false, "none"}, // shorter than k − 1, zero padding
		{2, 3, 2, 5, true, true, "silu"},   // shorter than k − 1, past values
		{1, 5, 7, 1, true, true, "none"},   // k 1: an empty state
		{2, 2, 0, 3, false, true, "none"},  // no input: present_state is past_state
		{0, 2, 3, 2, true, false, "silu"},  // no batch
		{2, 0, 3, 2, false, false, "none"}, // no channels
	}
	for _, dt := range opset27DTypes {
		for _, c := range cases {
			what := fmt.Sprintf("%v %v", dt, c)
			in, x, w, bias, past := ccOperands(r, dt, c)
			attrs := kernel.Attrs{}
			if c.act != "none" || r.IntN(2) == 0 {
				attrs["activation"] = c.act
			}
			out, err := runDirty("CausalConvWithState", attrs, in...)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			y, present := refCausalConv(x, c.b, c.c, c.l, w, c.k, bias, past, c.act != "none")
			checkNear(t, what+": output", out[0], dt, shp(int64(c.b), int64(c.c), int64(c.l)), y)
			checkBits(t, what+": present_state", out[1], dt, shp(int64(c.b), int64(c.c), int64(c.k-1)), rounded(dt, present), true,
				func(i int) string { return fmt.Sprint("element ", i) })
		}
	}
}

// TestCausalConvWithStateSteps: a sequence convolved whole gives the same
// bits as its prefix convolved first and the rest fed one token at a
// time, each call taking the previous present_state as past_state.
func TestCausalConvWithStateSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	for _, dt := range opset27DTypes {
		const B, C, L, K, prefix = 2, 3, 9, 4, 2
		in, _, _, _, _ := ccOperands(r, dt, ccCase{B, C, L, K, true, false, "silu"})
		x, w, bias := in[0], in[1], in[2]
		attrs := kernel.Attrs{"activation": "silu"}
		whole, err := runOp("CausalConvWithState", attrs, x, w, bias)
		if err != nil {
			t.Fatal(err)
		}
		es := int64(dt.Size())
		part := func(from, to int64) *kernel.Tensor { // x[:, :, from:to]
			p := kernel.New(dt, B, C, to-from)
			for row := range int64(B * C) {
				copy(p.Host[row*(to-from)*es:], x.Host[(row*L+from)*es:(row*L+to)*es])
			}
			return p
		}
		got := make([][]uint64, B*C) // per row, the outputs so far
		state := f32(shp(0))
		for from := int64(0); from < L; {
			to := from + 1
			if from == 0 {
				to = prefix
			}
			out, err := runOp("CausalConvWithState", attrs, part(from, to), w, bias, state)
			if err != nil {
				t.Fatal(err)
			}
			y := tensorBits(out[0])
			for row := range B * C {
				got[row] = append(got[row], y[int64(row)*(to-from):int64(row+1)*(to-from)]...)
			}
			state, from = out[1], to
		}
		if want := tensorBits(whole[0]); !slices.Equal(slices.Concat(got...), want) {
			t.Errorf("%v: step by step %x, whole %x", dt, slices.Concat(got...), want)
		}
		if !slices.Equal(tensorBits(state), tensorBits(whole[1])) {
			t.Errorf("%v: final state %x, whole %x", dt, tensorBits(state), tensorBits(whole[1]))
		}
	}
}

// TestCausalConvWithStateRefuses covers what CausalConvWithState refuses:
// bad ranks, channels, kernel sizes, states and dtypes, and attributes.
func TestCausalConvWithStateRefuses(t *testing.T) {
	x, w := f32(shp(2, 3, 5)), f32(shp(3, 1, 4))
	absent := f32(shp(0))
	h := func(s ...int64) *kernel.Tensor { return tensor(kernel.Float16, s) }
	for _, c := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []string
	}{
		{nil, []*kernel.Tensor{f32(shp(3, 5)), w}, []string{"input input has shape [3,5], want rank 3 [batch_size, channels, length]"}},
		{nil, []*kernel.Tensor{x, f32(shp(3, 4))}, []string{"input weight has shape [3,4], want [channels, 1, k] = [3, 1, k]"}},
		{nil, []*kernel.Tensor{x, f32(shp(4, 1, 4))}, []string{"input weight has shape [4,1,4]", "[3, 1, k]"}},
		{nil, []*kernel.Tensor{x, f32(shp(3, 3, 4))}, []string{"input weight has shape [3,3,4]"}},
		{nil, []*kernel.Tensor{x, f32(shp(3, 1, 0))}, []string{"input weight has shape [3,1,0]", "k ≥ 1"}},
		{nil, []*kernel.Tensor{x, w, f32(shp(2))}, []string{"input bias has shape [2], want [channels] = [3]"}},
		{nil, []*kernel.Tensor{x, w, f32(shp(3, 1))}, []string{"input bias has shape [3,1]"}},
		{nil, []*kernel.Tensor{x, w, absent, f32(shp(2, 3, 4))}, []string{"input past_state has shape [2,3,4], want [batch_size, channels, k − 1] = [2,3,3]"}},
		{nil, []*kernel.Tensor{x, w, absent, f32(shp(1, 3, 3))}, []string{"input past_state has shape [1,3,3]"}},
		{nil, []*kernel.Tensor{x, w, absent, f32(shp(2, 3))}, []string{"input past_state has shape [2,3]"}},
		{nil, []*kernel.Tensor{x, h(3, 1, 4)}, []string{"input weight has dtype float16, input input has float32"}},
		{nil, []*kernel.Tensor{x, w, h(3)}, []string{"input bias has dtype float16"}},
		{nil, []*kernel.Tensor{x, w, absent, h(2, 3, 3)}, []string{"input past_state has dtype float16"}},
		{nil, []*kernel.Tensor{tensor(kernel.Float64, shp(2, 3, 5)), tensor(kernel.Float64, shp(3, 1, 4))}, []string{"input input has dtype float64"}},
		{nil, []*kernel.Tensor{i64(shp(2, 3, 5)), i64(shp(3, 1, 4))}, []string{"input input has dtype int64"}},
		// A state beyond any buffer: refused, not allocated.
		{nil, []*kernel.Tensor{kernel.Virtual(kernel.Float32, 1<<20, 1<<10, 0), kernel.Virtual(kernel.Float32, 1<<10, 1, 1<<20)}, []string{"present_state", "too many elements"}},
		{nil, []*kernel.Tensor{kernel.Virtual(kernel.Float32, 1<<30, 1<<30, 0), kernel.Virtual(kernel.Float32, 1<<30, 1, 1)}, []string{"batch_size·channels, its rows, too many"}},
		{kernel.Attrs{"activation": "relu"}, nil, []string{`attribute "activation" is "relu", want "silu", "swish" or "none"`}},
		{kernel.Attrs{"activation": "SiLU"}, nil, []string{`"SiLU"`}},
		{kernel.Attrs{"activation": int64(1)}, nil, []string{`attribute "activation": want a string`}},
		{kernel.Attrs{"group": int64(3)}, nil, []string{`unknown attribute "group"`}},
		{nil, []*kernel.Tensor{x}, []string{"want 2 to 4 inputs"}},
	} {
		wantErr(t, "CausalConvWithState", c.attrs, c.in, c.want...)
	}
}

// laCase is a LinearAttention problem's shape and options: decay "head"
// or "key" (per key dimension), beta of width 1 or H_kv, past of dtype
// pastDT (0: none), scale 0 (the default) or given.
type laCase struct {
	b, t, hq, hkv, dk, dv int
	rule                  string
	decay                 string
	betaW                 int
	pastDT                kernel.DType
	scale                 float64
}

func (c laCase) String() string {
	return fmt.Sprintf("%s B %d T %d H_q %d H_kv %d d_k %d d_v %d decay %q beta width %d past %v scale %g",
		c.rule, c.b, c.t, c.hq, c.hkv, c.dk, c.dv, c.decay, c.betaW, c.pastDT, c.scale)
}

// laOperands draws c's operands in dtype dt (keys L2-normalized per head,
// decay in (−1.5, 0], beta in [0, 1)) and returns them with the
// reference's problem.
func laOperands(r *rand.Rand, dt kernel.DType, c laCase) ([]*kernel.Tensor, laRef) {
	B, T, Hq, Hkv, dk, dv := c.b, c.t, c.hq, c.hkv, c.dk, c.dv
	norm := func() float64 { return r.NormFloat64() }
	ref := laRef{B: B, T: T, Hq: Hq, Hkv: Hkv, dk: dk, dv: dv, rule: c.rule, perKey: c.decay == "key", betaW: c.betaW, scale: c.scale}
	qb, q := draw(dt, B*T*Hq*dk, norm)
	kraw := make([]float64, B*T*Hkv*dk)
	for i := range kraw {
		kraw[i] = r.NormFloat64()
	}
	for h := 0; h+dk <= len(kraw) && dk > 0; h += dk {
		var n float64
		for _, x := range kraw[h : h+dk] {
			n += x * x
		}
		for i := range dk {
			kraw[h+i] /= math.Sqrt(n)
		}
	}
	kb := rounded(dt, kraw)
	vb, v := draw(dt, B*T*Hkv*dv, norm)
	ref.q, ref.v, ref.k = q, v, make([]float64, len(kb))
	for i, b := range kb {
		ref.k[i] = refValue(dt, b)
	}
	i64s := func(d ...int) []int64 {
		s := make([]int64, len(d))
		for i, x := range d {
			s[i] = int64(x)
		}
		return s
	}
	in := []*kernel.Tensor{bitsTensor(dt, i64s(B, T, Hq*dk), qb), bitsTensor(dt, i64s(B, T, Hkv*dk), kb), bitsTensor(dt, i64s(B, T, Hkv*dv), vb)}
	absent := f32(shp(0))
	var past, decay, beta *kernel.Tensor = absent, absent, absent
	if c.pastDT != 0 {
		var pb []uint64
		pb, ref.past = draw(c.pastDT, B*Hkv*dk*dv, func() float64 { return 0.3 * r.NormFloat64() })
		past = bitsTensor(c.pastDT, i64s(B, Hkv, dk, dv), pb)
	}
	if c.decay != "" {
		w := Hkv
		if c.decay == "key" {
			w = Hkv * dk
		}
		var gb []uint64
		gb, ref.decay = draw(dt, B*T*w, func() float64 { return -1.5 * r.Float64() })
		decay = bitsTensor(dt, i64s(B, T, w), gb)
	}
	if c.betaW > 0 {
		var bb []uint64
		bb, ref.beta = draw(dt, B*T*c.betaW, r.Float64)
		beta = bitsTensor(dt, i64s(B, T, c.betaW), bb)
	}
	in = append(in, past, decay, beta)
	for len(in) > 3 && in[len(in)-1] == absent {
		in = in[:len(in)-1] // trailing absent inputs left out, as the importer does
	}
	return in, ref
}

func laAttrs(c laCase) kernel.Attrs {
	a := kernel.Attrs{"q_num_heads": int64(c.hq), "kv_num_heads": int64(c.hkv)}
	if c.rule != "gated_delta" {
		a["update_rule"] = c.rule
	}
	if c.scale != 0 {
		a["scale"] = c.scale
	}
	return a
}

// laCases cover every rule; multi-head, grouped-query and multi-query
// heads; prefill and decode steps, with and without a past state (of the
// activations' dtype or float32); decay per head and per key dimension;
// beta per head and shared; the default and given scales; empty
// sequences, batches and value heads; d_k 1, where both decay forms have
// H_kv elements.
func laCases(pastDT kernel.DType) []laCase {
	return []laCase{
		{2, 4, 4, 4, 8, 8, "linear", "", 0, 0, 0},
		{2, 4, 4, 4, 8, 8, "gated", "key", 0, 0, 0},
		{2, 4, 4, 4, 8, 8, "gated", "head", 0, pastDT, 0},
		{2, 4, 4, 4, 8, 8, "delta", "", 4, 0, 0},
		{2, 4, 4, 4, 8, 8, "gated_delta", "key", 4, 0, 0},
		{2, 4, 4, 4, 8, 8, "gated_delta", "key", 1, pastDT, 0},
		{2, 5, 4, 2, 3, 5, "gated_delta", "key", 2, pastDT, 0},         // grouped-query heads
		{2, 5, 6, 3, 2, 4, "gated_delta", "head", 1, 0, 0},             // grouped, per-head decay, shared beta
		{1, 1, 6, 1, 4, 3, "gated_delta", "head", 1, pastDT, 0},        // multi-query, a decode step
		{3, 1, 2, 2, 4, 4, "delta", "", 2, 0, 0},                       // a first decode step
		{2, 3, 4, 2, 5, 2, "delta", "", 1, pastDT, 0.25},               // given scale
		{2, 6, 6, 3, 2, 7, "linear", "", 0, pastDT, -0.3},              // negative scale
		{1, 3, 2, 2, 1, 3, "gated", "head", 0, pastDT, 0},              // d_k 1
		{1, 3, 2, 1, 3, 2, "gated", "key", 0, pastDT, 0},               // one key/value head
		{2, 0, 4, 2, 3, 3, "gated_delta", "key", 2, pastDT, 0},         // no token: present_state is past_state
		{0, 2, 4, 2, 3, 3, "gated_delta", "head", 1, 0, 0},             // no batch
		{2, 2, 4, 2, 3, 0, "gated_delta", "key", 2, pastDT, 0},         // no value dimension
		{1, 2, 2, 1, 2, 2, "gated_delta", "key", 1, kernel.Float16, 0}, // a float16 state
	}
}

// TestLinearAttentionValues runs LinearAttention on random operands of
// every dtype against refLinearAttention.
func TestLinearAttentionValues(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 3))
	for _, dt := range opset27DTypes {
		for _, pastDT := range []kernel.DType{dt, kernel.Float32} {
			for _, c := range laCases(pastDT) {
				what := fmt.Sprintf("%v %v", dt, c)
				in, ref := laOperands(r, dt, c)
				out, err := runDirty("LinearAttention", laAttrs(c), in...)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				y, present := refLinearAttention(ref)
				stateDT := dt
				if c.pastDT != 0 {
					stateDT = c.pastDT
				}
				checkNear(t, what+": output", out[0], dt, shp(int64(c.b), int64(c.t), int64(c.hq*c.dv)), y)
				checkNear(t, what+": present_state", out[1], stateDT, shp(int64(c.b), int64(c.hkv), int64(c.dk), int64(c.dv)), present)
			}
		}
	}
}

// TestLinearAttentionSteps: a sequence run whole and run as a prefill
// then decode steps, each taking the previous present_state (float32) as
// past_state, agree to float32 rounding of the state between calls.
func TestLinearAttentionSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 4))
	c := laCase{2, 6, 4, 2, 4, 3, "gated_delta", "key", 2, 0, 0}
	in, _ := laOperands(r, kernel.Float32, c)
	attrs := laAttrs(c)
	whole, err := runOp("LinearAttention", attrs, in...)
	if err != nil {
		t.Fatal(err)
	}
	slice := func(x *kernel.Tensor, from, to int64) *kernel.Tensor { // x[:, from:to, :]
		n := x.Shape[2]
		p := kernel.New(kernel.Float32, x.Shape[0], to-from, n)
		for b := range x.Shape[0] {
			copy(p.Host[b*(to-from)*n*4:], x.Host[(b*x.Shape[1]+from)*n*4:(b*x.Shape[1]+to)*n*4])
		}
		return p
	}
	y := make([][]float64, c.b)
	state := f32(shp(0))
	for from := int64(0); from < int64(c.t); {
		to := from + 1
		if from == 0 {
			to = 3
		}
		out, err := runOp("LinearAttention", attrs, slice(in[0], from, to), slice(in[1], from, to), slice(in[2], from, to), state,
			slice(in[4], from, to), slice(in[5], from, to))
		if err != nil {
			t.Fatal(err)
		}
		v, n := values(out[0]), int64(c.hq*c.dv)
		for b := range int64(c.b) {
			y[b] = append(y[b], v[b*(to-from)*n:(b+1)*(to-from)*n]...)
		}
		state, from = out[1], to
	}
	checkClose(t, "step by step", whole[0], shp(int64(c.b), int64(c.t), int64(c.hq*c.dv)), slices.Concat(y...), 1e-5)
	checkClose(t, "final state", whole[1], shp(int64(c.b), int64(c.hkv), int64(c.dk), int64(c.dv)), values(state), 1e-5)
}

// TestLinearAttentionEdges: the default scale of d_k 0 is infinite and
// multiplies an empty sum (NaN, as ONNX's reference gives); a given scale
// gives zeros. Many rows or recurrences of empty outputs cost nothing.
// The output has query's dtype, present_state past_state's.
func TestLinearAttentionEdges(t *testing.T) {
	q, k, v := f32(shp(1, 1, 0)), f32(shp(1, 1, 0)), f32(shp(1, 1, 4), 1, 2, 3, 4)
	out, err := runOp("LinearAttention", kernel.Attrs{"q_num_heads": int64(2), "kv_num_heads": int64(2), "update_rule": "linear"}, q, k, v)
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, "d_k 0", out[0], shp(1, 1, 4), []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()})
	checkValues(t, "d_k 0 state", out[1], shp(1, 2, 0, 2), nil)
	out, err = runOp("LinearAttention", kernel.Attrs{"q_num_heads": int64(2), "kv_num_heads": int64(2), "update_rule": "linear", "scale": 0.5}, q, k, v)
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, "d_k 0, scale 0.5", out[0], shp(1, 1, 4), []float64{0, 0, 0, 0})

	// Empty outputs of many empty recurrences: nothing to do, at once.
	e := f32(shp(1<<20, 1<<20, 0))
	out, err = runOp("LinearAttention", kernel.Attrs{"q_num_heads": int64(4), "kv_num_heads": int64(2), "update_rule": "linear"}, e, e, e)
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, "empty", out[1], shp(1<<20, 2, 0, 0), nil)
	out, err = runOp("CausalConvWithState", nil, f32(shp(1<<20, 1<<20, 0)), f32(shp(1<<20, 1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, "empty", out[1], shp(1<<20, 1<<20, 0), nil)

	// One token, one head: S = k⊗v, o = q·k·v/√d_k, exactly.
	h := func(v ...float64) *kernel.Tensor { return tensor(kernel.Float16, shp(1, 1, int64(len(v))), v...) }
	out, err = runOp("LinearAttention", kernel.Attrs{"q_num_heads": int64(1), "kv_num_heads": int64(1), "update_rule": "linear"},
		h(2, 2, 2, 2), h(1, 0, 0, 0.5), h(3, -1), tensor(kernel.BFloat16, shp(1, 1, 4, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if out[0].DType != kernel.Float16 || out[1].DType != kernel.BFloat16 {
		t.Fatalf("dtypes %v, %v: want float16 and bfloat16", out[0].DType, out[1].DType)
	}
	checkValues(t, "float16 output", out[0], shp(1, 1, 2), []float64{4.5, -1.5})
	checkValues(t, "bfloat16 state", out[1], shp(1, 1, 4, 2), []float64{3, -1, 0, 0, 0, 0, 1.5, -0.5})
}

// TestLinearAttentionRefuses covers what LinearAttention refuses: the
// attributes, inputs of the wrong rank, heads or sizes, the optional
// inputs a rule needs or forbids, and dtypes.
func TestLinearAttentionRefuses(t *testing.T) {
	heads := func(q, kv int64, more ...any) kernel.Attrs {
		a := kernel.Attrs{"q_num_heads": q, "kv_num_heads": kv}
		for i := 0; i < len(more); i += 2 {
			a[more[i].(string)] = more[i+1]
		}
		return a
	}
	absent := f32(shp(0))
	// B 2, T 3, H_q 4, H_kv 2, d_k 3, d_v 5.
	q, k, v := f32(shp(2, 3, 12)), f32(shp(2, 3, 6)), f32(shp(2, 3, 10))
	past, decay, beta := f32(shp(2, 2, 3, 5)), f32(shp(2, 3, 2)), f32(shp(2, 3, 1))
	all := []*kernel.Tensor{q, k, v, past, decay, beta}
	with := func(i int, x *kernel.Tensor) []*kernel.Tensor {
		in := slices.Clone(all)
		in[i] = x
		return in
	}
	hh := func(s ...int64) *kernel.Tensor { return tensor(kernel.Float16, s) }
	a := heads(4, 2)
	for _, c := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  []string
	}{
		{kernel.Attrs{"kv_num_heads": int64(2)}, nil, []string{`attribute "q_num_heads" is required`}},
		{kernel.Attrs{"q_num_heads": int64(2)}, nil, []string{`attribute "kv_num_heads" is required`}},
		{heads(0, 1), nil, []string{`attribute "q_num_heads" is 0, want a positive integer`}},
		{heads(2, -2), nil, []string{`attribute "kv_num_heads" is -2, want a positive integer`}},
		{heads(6, 4), nil, []string{`"q_num_heads" 6 is not a multiple of "kv_num_heads" 4`}},
		{heads(2, 4), nil, []string{`"q_num_heads" 2 is not a multiple of "kv_num_heads" 4`}},
		{heads(2, 1, "update_rule", "mamba"), nil, []string{`attribute "update_rule" is "mamba", want "linear", "gated", "delta" or "gated_delta"`}},
		{heads(2, 1, "update_rule", int64(0)), nil, []string{`attribute "update_rule": want a string`}},
		{heads(2, 1, "scale", math.NaN()), nil, []string{`attribute "scale" is NaN, want a finite number`}},
		{heads(2, 1, "scale", math.Inf(1)), nil, []string{`attribute "scale" is +Inf`}},
		{heads(2, 1, "scale", 1e39), nil, []string{`attribute "scale" is +Inf`}}, // beyond float32
		{heads(2, 1, "chunk_size", "big"), nil, []string{`attribute "chunk_size"`}},
		{heads(2, 1, "num_heads", int64(2)), nil, []string{`unknown attribute "num_heads"`}},
		{a, with(0, f32(shp(2, 36))), []string{"input query has shape [2,36], want rank 3 [batch, seq, heads·head_size]"}},
		{a, with(1, f32(shp(2, 3, 2, 3))), []string{"input key has shape [2,3,2,3], want rank 3"}},
		{a, with(2, f32(shp(6, 10))), []string{"input value has shape [6,10], want rank 3"}},
		{a, with(0, f32(shp(2, 3, 10))), []string{"input query has shape [2,3,10]: its last dimension is not a multiple of q_num_heads 4"}},
		{a, with(1, f32(shp(2, 3, 8))), []string{"input key has shape [2,3,8], want [batch, seq, kv_num_heads·d_k] = [2, 3, 2·3] (d_k = 3 from query [2,3,12])"}},
		{a, with(1, f32(shp(2, 3, 7))), []string{"input key has shape [2,3,7]"}},
		{a, with(1, f32(shp(1, 3, 6))), []string{"input key has shape [1,3,6]"}},
		{a, with(1, f32(shp(2, 2, 6))), []string{"input key has shape [2,2,6]"}},
		{a, with(2, f32(shp(2, 3, 9))), []string{"input value has shape [2,3,9], want [batch, seq, kv_num_heads·d_v] = [2, 3, 2·d_v]"}},
		{a, with(2, f32(shp(2, 4, 10))), []string{"input value has shape [2,4,10]"}},
		{a, with(3, f32(shp(2, 2, 5, 3))), []string{"input past_state has shape [2,2,5,3], want [batch, kv_num_heads, d_k, d_v] = [2,2,3,5]"}},
		{a, with(3, f32(shp(2, 30))), []string{"input past_state has shape [2,30]"}},
		{a, with(3, tensor(kernel.Float64, shp(2, 2, 3, 5))), []string{"input past_state has dtype float64"}},
		{a, with(4, absent), []string{`update_rule "gated_delta" needs input decay`}},
		{a, all[:5], []string{`update_rule "gated_delta" needs input beta`}},
		{heads(4, 2, "update_rule", "gated"), all, []string{`update_rule "gated" takes no input beta (the delta rules do)`}},
		{heads(4, 2, "update_rule", "delta"), all, []string{`update_rule "delta" takes no input decay (the gated rules do)`}},
		{heads(4, 2, "update_rule", "delta"), with(5, absent), []string{`update_rule "delta" takes no input decay`}},
		{heads(4, 2, "update_rule", "linear"), all[:5], []string{`update_rule "linear" takes no input decay`}},
		{heads(4, 2, "update_rule", "linear"), []*kernel.Tensor{q, k, v, past, absent, beta}, []string{`update_rule "linear" takes no input beta`}},
		{heads(4, 2, "update_rule", "gated"), []*kernel.Tensor{q, k, v}, []string{`update_rule "gated" needs input decay`}},
		{heads(4, 2, "update_rule", "delta"), []*kernel.Tensor{q, k, v}, []string{`update_rule "delta" needs input beta`}},
		{a, with(4, f32(shp(2, 3, 3))), []string{"input decay has shape [2,3,3], want [batch, seq, kv_num_heads] = [2, 3, 2] or [batch, seq, kv_num_heads·d_k] = [2, 3, 6]"}},
		{a, with(4, f32(shp(2, 1, 2))), []string{"input decay has shape [2,1,2]"}},
		{a, with(4, f32(shp(2, 3, 2, 1))), []string{"input decay has shape [2,3,2,1]"}},
		{a, with(5, f32(shp(2, 3, 3))), []string{"input beta has shape [2,3,3], want [batch, seq, kv_num_heads] = [2, 3, 2] or [batch, seq, 1]"}},
		{a, with(5, f32(shp(1, 3, 1))), []string{"input beta has shape [1,3,1]"}},
		{a, with(5, f32(shp(2, 3))), []string{"input beta has shape [2,3]"}},
		{a, with(1, hh(2, 3, 6)), []string{"input key has dtype float16, input query has float32"}},
		{a, with(2, hh(2, 3, 10)), []string{"input value has dtype float16"}},
		{a, with(4, hh(2, 3, 2)), []string{"input decay has dtype float16"}},
		{a, with(5, hh(2, 3, 1)), []string{"input beta has dtype float16"}},
		{heads(1, 1, "update_rule", "linear"), []*kernel.Tensor{tensor(kernel.Float64, shp(1, 1, 1)), tensor(kernel.Float64, shp(1, 1, 1)), tensor(kernel.Float64, shp(1, 1, 1))},
			[]string{"input query has dtype float64, want one of [float32 float16 bfloat16]"}},
		// Outputs beyond any buffer: refused, not allocated.
		{heads(1<<40, 1, "update_rule", "linear"), []*kernel.Tensor{f32(shp(1, 1, 0)), f32(shp(1, 1, 0)), f32(shp(1, 1, 2))}, []string{"output", "too many"}},
		{heads(1<<40, 1, "update_rule", "linear"), []*kernel.Tensor{f32(shp(0, 1, 0)), f32(shp(0, 1, 0)), f32(shp(0, 1, 2))}, []string{"output: q_num_heads 1099511627776 times d_v 2"}},
		{heads(1, 1, "update_rule", "linear"), []*kernel.Tensor{kernel.Virtual(kernel.Float32, 1, 1, 1<<21), kernel.Virtual(kernel.Float32, 1, 1, 1<<21), kernel.Virtual(kernel.Float32, 1, 1, 1<<21)},
			[]string{"present_state", "too many elements"}},
		{heads(1<<30, 1<<30, "update_rule", "linear"), []*kernel.Tensor{f32(shp(1<<30, 1, 0)), f32(shp(1<<30, 1, 0)), f32(shp(1<<30, 1, 0))},
			[]string{"batch 1073741824 times kv_num_heads 1073741824 recurrences: too many"}},
		{a, []*kernel.Tensor{q, k}, []string{"want 3 to 6 inputs"}},
	} {
		wantErr(t, "LinearAttention", c.attrs, c.in, c.want...)
	}
}

// TestOpset27Costs: the costs count the operations the docs state, and
// Resize refuses outputs of another shape or dtype at Compute.
func TestOpset27Costs(t *testing.T) {
	cost := func(op string, attrs kernel.Attrs, in ...*kernel.Tensor) float64 {
		t.Helper()
		k, err := Builtins().New(op, attrs)
		if err != nil {
			t.Fatal(err)
		}
		out := []*kernel.Tensor{{}, {}}
		if err := k.InferShape(in, out); err != nil {
			t.Fatal(err)
		}
		c := k.Cost(in, out)
		if c.Bytes != ioBytes(in, out) {
			t.Fatalf("%s: %g bytes, want %g", op, c.Bytes, ioBytes(in, out))
		}
		return c.FLOPs
	}
	// 2·3·5 outputs of 2·4 operations, 6 more for SiLU.
	if f := cost("CausalConvWithState", nil, f32(shp(2, 3, 5)), f32(shp(3, 1, 4))); f != 30*8 {
		t.Errorf("CausalConvWithState: %g FLOPs", f)
	}
	if f := cost("CausalConvWithState", kernel.Attrs{"activation": "silu"}, f32(shp(2, 3, 5)), f32(shp(3, 1, 4))); f != 30*14 {
		t.Errorf("CausalConvWithState silu: %g FLOPs", f)
	}
	// B·T = 6 tokens; a state of 3·5 = 15; 2 key/value heads of 2·15 (linear)
	// or 5·15 (gated_delta), 4 query heads of 2·15.
	q, k, v := f32(shp(2, 3, 12)), f32(shp(2, 3, 6)), f32(shp(2, 3, 10))
	if f := cost("LinearAttention", kernel.Attrs{"q_num_heads": int64(4), "kv_num_heads": int64(2), "update_rule": "linear"}, q, k, v); f != 6*(2*30+4*30) {
		t.Errorf("LinearAttention linear: %g FLOPs", f)
	}
	if f := cost("LinearAttention", kernel.Attrs{"q_num_heads": int64(4), "kv_num_heads": int64(2)}, q, k, v, f32(shp(0)), f32(shp(2, 3, 2)), f32(shp(2, 3, 2))); f != 6*(2*75+4*30) {
		t.Errorf("LinearAttention gated_delta: %g FLOPs", f)
	}
	// Operands that are not the inferred ones are refused at Compute.
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
		out   int
		bad   *kernel.Tensor
	}{
		{"CausalConvWithState", nil, []*kernel.Tensor{f32(shp(1, 2, 3)), f32(shp(2, 1, 2))}, 1, f32(shp(1, 2, 2))},
		{"CausalConvWithState", nil, []*kernel.Tensor{f32(shp(1, 2, 3)), f32(shp(2, 1, 2))}, 0, tensor(kernel.Float16, shp(1, 2, 3))},
		{"LinearAttention", kernel.Attrs{"q_num_heads": int64(1), "kv_num_heads": int64(1), "update_rule": "linear"}, []*kernel.Tensor{f32(shp(1, 2, 2)), f32(shp(1, 2, 2)), f32(shp(1, 2, 2))}, 1, tensor(kernel.Float16, shp(1, 1, 2, 2))},
		{"LinearAttention", kernel.Attrs{"q_num_heads": int64(1), "kv_num_heads": int64(1), "update_rule": "linear"}, []*kernel.Tensor{f32(shp(1, 2, 2)), f32(shp(1, 2, 2)), f32(shp(1, 2, 2))}, 0, f32(shp(1, 2, 3))},
	} {
		k, err := Builtins().New(c.op, c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		a, err := prepare(k, 0, c.in...)
		if err != nil {
			t.Fatal(err)
		}
		a.Out[c.out] = c.bad
		if err := k.Compute(a); err == nil {
			t.Errorf("%s: output %d %v accepted", c.op, c.out, c.bad)
		}
	}
}

// TestOpset27ComputeAllocatesNothing: the new ops compute again and
// again without allocating.
func TestOpset27ComputeAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 5))
	ccIn, _, _, _, _ := ccOperands(r, kernel.Float16, ccCase{2, 3, 5, 4, true, true, "silu"})
	laIn, _ := laOperands(r, kernel.BFloat16, laCase{2, 3, 4, 2, 3, 5, "gated_delta", "key", 2, kernel.Float32, 0})
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"CausalConvWithState", kernel.Attrs{"activation": "silu"}, ccIn},
		{"LinearAttention", kernel.Attrs{"q_num_heads": int64(4), "kv_num_heads": int64(2)}, laIn},
	} {
		if n := computeAllocs(t, c.op, c.attrs, c.in); n != 0 {
			t.Errorf("%s: %v allocations per computation", c.op, n)
		}
	}
}
