package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "MSAttention", "MultiHeadAttention", "DecoderMaskedMultiHeadAttention")
}

// msAttnRef is com.microsoft Attention in float64: x [B, S, Hin], w [Hin,
// 3D], bias [3D], past [2, B, N, P, D/N] (nil without), keyMask [B, T]
// (nil without, 0 masks) and causal. It returns output and present.
func msAttnRef(x, w, bias, past []float64, keyMask []int, b, s, hin, n, d, p int, causal bool) (y, present []float64) {
	h, t := d/n, p+s
	proj := func(bi, si, c int) float64 {
		acc := bias[c]
		for i := range hin {
			acc += x[(bi*s+si)*hin+i] * w[i*3*d+c]
		}
		return acc
	}
	present = make([]float64, 2*b*n*t*h)
	at := func(kv, bi, ni, j, i int) *float64 { return &present[(((kv*b+bi)*n+ni)*t+j)*h+i] }
	for bi := range b {
		for ni := range n {
			for j := range t {
				for i := range h {
					if j < p {
						*at(0, bi, ni, j, i) = past[(((0*b+bi)*n+ni)*p+j)*h+i]
						*at(1, bi, ni, j, i) = past[(((1*b+bi)*n+ni)*p+j)*h+i]
					} else {
						*at(0, bi, ni, j, i) = proj(bi, j-p, d+ni*h+i)
						*at(1, bi, ni, j, i) = proj(bi, j-p, 2*d+ni*h+i)
					}
				}
			}
		}
	}
	y = make([]float64, b*s*d)
	for bi := range b {
		for ni := range n {
			for si := range s {
				z := make([]float64, t)
				m := math.Inf(-1)
				for j := range t {
					var dot float64
					for i := range h {
						dot += proj(bi, si, ni*h+i) * *at(0, bi, ni, j, i)
					}
					z[j] = dot / math.Sqrt(float64(h))
					if keyMask != nil && keyMask[bi*t+j] == 0 {
						z[j] -= 10000
					}
					if causal && s > 1 && j > p+si {
						z[j] = math.Inf(-1)
					}
					m = max(m, z[j])
				}
				var sum float64
				for j := range z {
					z[j] = math.Exp(z[j] - m)
					sum += z[j]
				}
				for i := range h {
					var o float64
					for j := range z {
						o += z[j] / sum * *at(1, bi, ni, j, i)
					}
					y[(bi*s+si)*d+ni*h+i] = o
				}
			}
		}
	}
	return y, present
}

func TestContribMSAttention(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vals := func(n int, sc float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(float32(sc * (r.Float64()*2 - 1)))
		}
		return v
	}
	for _, c := range []struct {
		name               string
		b, s, hin, n, d, p int
		keyMask            []int
		causal             bool
	}{
		{"no mask", 2, 3, 5, 2, 8, 0, nil, false},
		{"key mask", 2, 3, 4, 1, 4, 0, []int{1, 0, 1, 1, 1, 0}, false},
		{"causal with past", 1, 3, 6, 3, 6, 2, []int{1, 1, 0, 1, 1}, true},
		{"one token after past", 2, 1, 4, 2, 4, 3, nil, true},
	} {
		x, w, bias := vals(c.b*c.s*c.hin, 1), vals(c.hin*3*c.d, 0.7), vals(3*c.d, 0.5)
		in := []*kernel.Tensor{f32(shp(int64(c.b), int64(c.s), int64(c.hin)), x...), f32(shp(int64(c.hin), int64(3*c.d)), w...), f32(shp(int64(3*c.d)), bias...)}
		if c.keyMask != nil {
			m := make([]float64, len(c.keyMask))
			for i, v := range c.keyMask {
				m[i] = float64(v)
			}
			in = append(in, tensor(kernel.Int32, shp(int64(c.b), int64(c.p+c.s)), m...))
		} else {
			in = append(in, f32(shp(0)))
		}
		var past []float64
		if c.p > 0 {
			past = vals(2*c.b*c.d*c.p, 2)
			in = append(in, f32(shp(2, int64(c.b), int64(c.n), int64(c.p), int64(c.d/c.n)), past...))
		}
		attrs := kernel.Attrs{"num_heads": int64(c.n)}
		if c.causal {
			attrs["unidirectional"] = int64(1)
		}
		out, err := runOp("MSAttention", attrs, in...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		y, present := msAttnRef(x, w, bias, past, c.keyMask, c.b, c.s, c.hin, c.n, c.d, c.p, c.causal)
		for o, want := range [][]float64{y, present} {
			if len(want) != int(out[o].NumElements()) {
				t.Fatalf("%s: output %d %v, want %d elements", c.name, o, out[o].Shape, len(want))
			}
			for i, w := range want {
				if g := value(out[o].Data(), kernel.Float32, i); math.Abs(g-w) > 1e-5*math.Max(1, math.Abs(w)) {
					t.Fatalf("%s: output %d [%d] = %v, want %v", c.name, o, i, g, w)
				}
			}
		}
	}
}

func TestContribMSAttentionRefusals(t *testing.T) {
	base := kernel.Attrs{"num_heads": int64(2)}
	with := func(k string, v any) kernel.Attrs {
		return kernel.Attrs{"num_heads": int64(2), k: v}
	}
	for _, a := range []kernel.Attrs{
		{},
		with("do_rotary", int64(1)),
		with("qkv_hidden_sizes", []int64{4, 2, 4}),
		with("qkv_hidden_sizes", []int64{4, 4, 3}),
		with("softcap", 1.0),
	} {
		if _, err := Builtins().New("MSAttention", a); err == nil {
			t.Errorf("attributes %v accepted", a)
		}
	}
	x, w, bias := f32(shp(1, 2, 3)), f32(shp(3, 12)), f32(shp(12))
	none := f32(shp(0))
	past := f32(shp(2, 1, 2, 1, 2))
	wantErr(t, "MSAttention", base, []*kernel.Tensor{x, w, none}, "bias")
	wantErr(t, "MSAttention", base, []*kernel.Tensor{x, f32(shp(3, 10)), f32(shp(10))}, "weights")
	wantErr(t, "MSAttention", base, []*kernel.Tensor{x, w, bias, tensor(kernel.Int32, shp(1, 1, 3, 3))}, "4-D")
	wantErr(t, "MSAttention", base, []*kernel.Tensor{x, w, bias, tensor(kernel.Int32, shp(1), -1)}, "mask_index[0]")
	wantErr(t, "MSAttention", base, []*kernel.Tensor{x, w, bias, tensor(kernel.Int32, shp(3))}, "mask_index")
	wantErr(t, "MSAttention", base, []*kernel.Tensor{x, w, bias, none, past, f32(shp(1, 2, 2, 3))}, "attention_bias")
	wantErr(t, "MSAttention", with("past_present_share_buffer", int64(1)), []*kernel.Tensor{x, w, bias, none, past}, "past_present_share_buffer")
	wantErr(t, "MSAttention", with("qkv_hidden_sizes", []int64{4, 4, 8}), []*kernel.Tensor{x, f32(shp(3, 16)), f32(shp(16)), none, f32(shp(2, 1, 2, 1, 2))}, "past")
	wantErr(t, "MSAttention", base, []*kernel.Tensor{x, w, bias, none, f32(shp(2, 1, 2, 1, 3))}, "past")
}

// TestContribMSAttentionAllocates checks the steady state: Q, K, V and the
// scores live in buffers the kernel keeps.
func TestContribMSAttentionAllocates(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		k, err := Builtins().New("MSAttention", kernel.Attrs{"num_heads": int64(2), "unidirectional": int64(1)})
		if err != nil {
			t.Fatal(err)
		}
		in := []*kernel.Tensor{randTensor(r, dt, shp(2, 3, 8)), randTensor(r, dt, shp(8, 24)), randTensor(r, dt, shp(24)),
			tensor(kernel.Int32, shp(4), 4, 5, 0, 1), randTensor(r, dt, shp(2, 2, 2, 2, 4))}
		a, err := prepare(k, 0, in...)
		if err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(20, func() {
			if err := k.Compute(a); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%v: %v allocations per computation", dt, n)
		}
	}
}

// mhaRef is MultiHeadAttention in float64 without bias and mask: q [B, S,
// N·H], k and v [B, L, N·H], past [B, N, P, H] (nil without). Query
// tokens s < S − 1 of a causal run drop keys j > P + s. It returns output
// and the present key and value.
func mhaRef(q, k, v, pastK, pastV []float64, b, s, l, n, h, p int, causal bool) (y, pk, pv []float64) {
	t := p + l
	pk, pv = make([]float64, b*n*t*h), make([]float64, b*n*t*h)
	for bi := range b {
		for ni := range n {
			for j := range t {
				for i := range h {
					at := ((bi*n+ni)*t+j)*h + i
					if j < p {
						pk[at], pv[at] = pastK[((bi*n+ni)*p+j)*h+i], pastV[((bi*n+ni)*p+j)*h+i]
					} else {
						pk[at], pv[at] = k[(bi*l+j-p)*n*h+ni*h+i], v[(bi*l+j-p)*n*h+ni*h+i]
					}
				}
			}
		}
	}
	y = make([]float64, b*s*n*h)
	for bi := range b {
		for ni := range n {
			for si := range s {
				end := t
				if causal && si < s-1 {
					end = p + si + 1
				}
				z := make([]float64, end)
				m := math.Inf(-1)
				for j := range z {
					var dot float64
					for i := range h {
						dot += q[(bi*s+si)*n*h+ni*h+i] * pk[((bi*n+ni)*t+j)*h+i]
					}
					z[j] = dot / math.Sqrt(float64(h))
					m = max(m, z[j])
				}
				var sum float64
				for j := range z {
					z[j] = math.Exp(z[j] - m)
					sum += z[j]
				}
				for i := range h {
					var o float64
					for j := range z {
						o += z[j] / sum * pv[((bi*n+ni)*t+j)*h+i]
					}
					y[(bi*s+si)*n*h+ni*h+i] = o
				}
			}
		}
	}
	return y, pk, pv
}

func TestContribMultiHeadAttention(t *testing.T) {
	vals := floats32In(9, 10) // float32 values in [-2, 2)
	for _, c := range []struct {
		name             string
		b, s, l, n, h, p int
		causal           bool
	}{
		{"self attention", 2, 3, 3, 2, 4, 0, false},
		{"cross attention", 1, 2, 5, 3, 2, 0, false},
		{"causal with past", 2, 3, 3, 1, 4, 2, true},
		{"causal, more keys than queries", 1, 2, 4, 2, 3, 0, true},
	} {
		q, k, v := vals(c.b*c.s*c.n*c.h), vals(c.b*c.l*c.n*c.h), vals(c.b*c.l*c.n*c.h)
		kv := shp(int64(c.b), int64(c.l), int64(c.n*c.h))
		in := []*kernel.Tensor{f32(shp(int64(c.b), int64(c.s), int64(c.n*c.h)), q...), f32(kv, k...), f32(kv, v...)}
		var pastK, pastV []float64
		if c.p > 0 {
			pastK, pastV = vals(c.b*c.n*c.p*c.h), vals(c.b*c.n*c.p*c.h)
			ps := shp(int64(c.b), int64(c.n), int64(c.p), int64(c.h))
			none := f32(shp(0))
			in = append(in, none, none, none, f32(ps, pastK...), f32(ps, pastV...))
		}
		attrs := kernel.Attrs{"num_heads": int64(c.n)}
		if c.causal {
			attrs["unidirectional"] = int64(1)
		}
		out, err := runOp("MultiHeadAttention", attrs, in...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		y, pk, pv := mhaRef(q, k, v, pastK, pastV, c.b, c.s, c.l, c.n, c.h, c.p, c.causal)
		for o, want := range [][]float64{y, pk, pv} {
			if len(want) != int(out[o].NumElements()) {
				t.Fatalf("%s: output %d %v, want %d elements", c.name, o, out[o].Shape, len(want))
			}
			for i, w := range want {
				if g := value(out[o].Data(), kernel.Float32, i); math.Abs(g-w) > 1e-5*math.Max(1, math.Abs(w)) {
					t.Fatalf("%s: output %d [%d] = %v, want %v", c.name, o, i, g, w)
				}
			}
		}
	}
}

func TestContribMultiHeadAttentionRefusals(t *testing.T) {
	base := kernel.Attrs{"num_heads": int64(2)}
	for _, a := range []kernel.Attrs{{}, {"num_heads": int64(2), "do_rotary": int64(1)}} {
		if _, err := Builtins().New("MultiHeadAttention", a); err == nil {
			t.Errorf("attributes %v accepted", a)
		}
	}
	q, kv := f32(shp(1, 2, 4)), f32(shp(1, 3, 4))
	none := f32(shp(0))
	past := f32(shp(1, 2, 1, 2))
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q}, "packed Q, K and V")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, f32(shp(1, 3, 2, 2, 2))}, "packed K and V")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, kv}, "key and value")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, f32(shp(1, 2, 3, 2)), f32(shp(1, 2, 3, 3))}, "key")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, kv, kv, none, tensor(kernel.Bool, shp(1, 3))}, "key_padding_mask")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, kv, kv, none, tensor(kernel.Int32, shp(1, 4))}, "key_padding_mask")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, kv, kv, none, none, none, past}, "past_key and past_value")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, kv, f32(shp(1, 3, 6)), none, none, none, past, f32(shp(1, 2, 1, 3))}, "past_value")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, kv, kv, none, none, none, past, past, tensor(kernel.Int32, shp(1), 1)}, "past_sequence_length")
	wantErr(t, "MultiHeadAttention", base, []*kernel.Tensor{q, kv, kv, none, none, f32(shp(1, 2, 2, 2))}, "attention_bias")
}

// TestContribMultiHeadAttentionAllocates checks the steady state: Q, K, V
// and the scores live in buffers the kernel keeps.
func TestContribMultiHeadAttentionAllocates(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		k, err := Builtins().New("MultiHeadAttention", kernel.Attrs{"num_heads": int64(2), "unidirectional": int64(1)})
		if err != nil {
			t.Fatal(err)
		}
		in := []*kernel.Tensor{randTensor(r, dt, shp(2, 3, 8)), randTensor(r, dt, shp(2, 3, 8)), randTensor(r, dt, shp(2, 3, 8)),
			randTensor(r, dt, shp(24)), tensor(kernel.Int32, shp(2, 5), 1, 1, 0, 1, 1, 1, 0, 1, 1, 1),
			randTensor(r, dt, shp(1, 2, 3, 5)), randTensor(r, dt, shp(2, 2, 2, 4)), randTensor(r, dt, shp(2, 2, 2, 4))}
		a, err := prepare(k, 0, in...)
		if err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(20, func() {
			if err := k.Compute(a); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%v: %v allocations per computation", dt, n)
		}
	}
}

// TestContribMultiHeadAttentionBeams checks the shared-buffer form
// (past_sequence_length and cache_indirection) and the cross and self
// attention that ignore them against onnxruntime 1.30's CPU kernel.
func TestContribMultiHeadAttentionBeams(t *testing.T) {
	checkRecorded(t, "MultiHeadAttention", mhaBeamCases)
}

// checkRecorded runs op on each case and compares its outputs with the
// recorded ones, to float32 rounding.
func checkRecorded(t *testing.T, op string, cases []mhaCase) {
	t.Helper()
	for _, c := range cases {
		in := make([]*kernel.Tensor, len(c.in))
		for i, x := range c.in {
			in[i] = f32(shp(0))
			if x.shape != nil {
				in[i] = tensor(x.dt, x.shape, x.v...)
			}
		}
		out, err := runOp(op, c.attrs, in...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for o, want := range c.want {
			if want == nil {
				continue
			}
			if len(want) != int(out[o].NumElements()) {
				t.Fatalf("%s: output %d %v, want %d elements", c.name, o, out[o].Shape, len(want))
			}
			for i, w := range want {
				if g := value(out[o].Data(), kernel.Float32, i); math.Abs(g-w) > 1e-5*math.Max(1, math.Abs(w)) {
					t.Fatalf("%s: output %d [%d] = %v, want %v", c.name, o, i, g, w)
				}
			}
		}
	}
}

// TestContribMultiHeadAttentionBeamRefusals checks that misused
// past_sequence_length and cache_indirection, and the shared-buffer forms
// onnxruntime's CPU kernel does not compute in bounds, are errors naming
// the input.
func TestContribMultiHeadAttentionBeamRefusals(t *testing.T) {
	attrs := kernel.Attrs{"num_heads": int64(2)}
	none := f32(shp(0))
	q, kv := f32(shp(4, 1, 4)), f32(shp(4, 1, 4))
	past := f32(shp(4, 2, 3, 2))
	psl := func(p float64) *kernel.Tensor { return tensor(kernel.Int32, shp(1), p) }
	ci := tensor(kernel.Int32, shp(2, 2, 3), 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1)
	// beams is the shared-buffer form, with the inputs in w replaced.
	type with map[int]*kernel.Tensor
	beams := func(w with) []*kernel.Tensor {
		in := []*kernel.Tensor{q, kv, kv, none, none, none, past, past, psl(2), ci}
		for i, t := range w {
			in[i] = t
		}
		return in
	}
	// The form itself runs.
	if _, err := runOp("MultiHeadAttention", attrs, beams(nil)...); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   []*kernel.Tensor
		frag string
	}{
		{beams(with{8: tensor(kernel.Int64, shp(1), 2)}), "past_sequence_length"},
		{beams(with{8: tensor(kernel.Int32, shp(2), 2, 2)}), "past_sequence_length"},
		{beams(with{8: tensor(kernel.Int32, shp(1, 1), 2)}), "past_sequence_length"},
		{beams(with{8: psl(3)}), "past_sequence_length is 3"},
		{beams(with{8: psl(-1)}), "past_sequence_length is -1"},
		{beams(with{9: tensor(kernel.Int64, shp(2, 2, 3))}), "cache_indirection"},
		{beams(with{9: tensor(kernel.Int32, shp(4, 3))}), "cache_indirection"},
		{beams(with{9: tensor(kernel.Int32, shp(1, 2, 3))}), "cache_indirection"},
		{beams(with{9: tensor(kernel.Int32, shp(2, 2, 4))}), "cache_indirection"},
		{beams(with{9: tensor(kernel.Int32, shp(2, 2, 3), 0, 1, 1, 1, 0, 1, 0, 2, 0, 1, 1, 1)}), "cache_indirection[1, 0, 1] is 2"},
		{beams(with{9: tensor(kernel.Int32, shp(2, 2, 3), 0, -1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1)}), "cache_indirection[0, 0, 1] is -1"},
		{beams(with{9: none}), "without cache_indirection"},
		{beams(with{8: psl(0)}), "past_sequence_length 0"},
		{beams(with{0: f32(shp(4, 2, 4)), 1: f32(shp(4, 2, 4)), 2: f32(shp(4, 2, 4))}), "one query token"},
		{beams(with{1: f32(shp(4, 2, 4)), 2: f32(shp(4, 2, 4))}), "key and value with 2 tokens"},
		{beams(with{4: tensor(kernel.Int32, shp(4))}), "key_padding_mask"},
		{beams(with{4: tensor(kernel.Int32, shp(4, 4))}), "key_padding_mask"},
		{beams(with{5: f32(shp(4, 2, 1, 4))}), "attention_bias"},
		{beams(with{1: f32(shp(4, 2, 1, 2)), 2: f32(shp(4, 2, 1, 2))}), "4-D key and value"},
	} {
		wantErr(t, "MultiHeadAttention", attrs, c.in, c.frag)
	}
	// attention_bias [batch, 1, 1, T] is read at row (b / W)·num_heads:
	// beyond its end with beam width 1 and two heads.
	ci1 := tensor(kernel.Int32, shp(4, 1, 3))
	wantErr(t, "MultiHeadAttention", attrs, beams(with{5: f32(shp(4, 1, 1, 3)), 9: ci1}), "attention_bias")
}
