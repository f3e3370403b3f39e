package ops

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "GroupQueryAttention")
}

// gqaRef is GroupQueryAttention without rotary embedding in float64:
// q [B, S, N·H], k and v [B, S, Nkv·H], past [B, Nkv, P, H] (nil without),
// lens the seqlens_k values. It returns y and the present key and value of
// length tp.
func gqaRef(q, k, v, pastK, pastV []float64, lens []int, b, s, n, nkv, h, p, total, tp, window int, softcap float64) (y, pk, pv []float64) {
	y = make([]float64, b*s*n*h)
	pk, pv = make([]float64, b*nkv*tp*h), make([]float64, b*nkv*tp*h)
	first := s == total
	for bi := range b {
		tb := lens[bi] + 1
		past := tb - s
		if first {
			past = 0
		}
		for kh := range nkv {
			for t := range past {
				for i := range h {
					pk[((bi*nkv+kh)*tp+t)*h+i] = pastK[((bi*nkv+kh)*p+t)*h+i]
					pv[((bi*nkv+kh)*tp+t)*h+i] = pastV[((bi*nkv+kh)*p+t)*h+i]
				}
			}
			for si := range s {
				for i := range h {
					pk[((bi*nkv+kh)*tp+past+si)*h+i] = k[((bi*s+si)*nkv+kh)*h+i]
					pv[((bi*nkv+kh)*tp+past+si)*h+i] = v[((bi*s+si)*nkv+kh)*h+i]
				}
			}
		}
		for hi := range n {
			kh := hi / (n / nkv)
			for si := range s {
				causal := past + si + 1
				end, start := min(causal, tb), 0
				if window >= 0 && causal > window {
					start = min(causal-window, end)
				}
				z := make([]float64, end-start)
				m := math.Inf(-1)
				for j := range z {
					var d float64
					for i := range h {
						d += q[((bi*s+si)*n+hi)*h+i] * pk[((bi*nkv+kh)*tp+start+j)*h+i]
					}
					z[j] = d / math.Sqrt(float64(h))
					if softcap > 0 {
						z[j] = softcap * math.Tanh(z[j]/softcap)
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
						o += z[j] / sum * pv[((bi*nkv+kh)*tp+start+j)*h+i]
					}
					y[((bi*s+si)*n+hi)*h+i] = o
				}
			}
		}
	}
	return y, pk, pv
}

func TestContribGroupQueryAttention(t *testing.T) {
	vals := floats32In(7, 8) // float32 values in [-2, 2)
	for _, c := range []struct {
		name                   string
		b, s, n, nkv, h, p, tl int
		lens                   []int
		window                 int
		softcap                float64
	}{
		{"prompt, right padded", 2, 4, 4, 2, 8, 0, 4, []int{3, 1}, -1, 0},
		{"prompt with a window", 1, 5, 2, 1, 16, 0, 5, []int{4}, 2, 0},
		{"token generation", 3, 1, 6, 3, 8, 5, 6, []int{5, 2, 3}, -1, 0},
		{"token generation, static cache", 2, 1, 2, 2, 8, 7, 4, []int{3, 1}, 1, 3},
		{"prompt after past context", 1, 3, 2, 1, 8, 4, 6, []int{5}, -1, 0},
	} {
		q, k, v := vals(c.b*c.s*c.n*c.h), vals(c.b*c.s*c.nkv*c.h), vals(c.b*c.s*c.nkv*c.h)
		tp := max(c.tl, c.p)
		lens := make([]float64, c.b)
		for i, l := range c.lens {
			lens[i] = float64(l)
		}
		attrs := kernel.Attrs{"num_heads": int64(c.n), "kv_num_heads": int64(c.nkv), "local_window_size": int64(c.window)}
		if c.softcap > 0 {
			attrs["softcap"] = c.softcap
		}
		in := []*kernel.Tensor{f32(shp(int64(c.b), int64(c.s), int64(c.n*c.h)), q...), f32(shp(int64(c.b), int64(c.s), int64(c.nkv*c.h)), k...),
			f32(shp(int64(c.b), int64(c.s), int64(c.nkv*c.h)), v...)}
		var pastK, pastV []float64
		if c.p > 0 {
			pastK, pastV = vals(c.b*c.nkv*c.p*c.h), vals(c.b*c.nkv*c.p*c.h)
			ps := shp(int64(c.b), int64(c.nkv), int64(c.p), int64(c.h))
			in = append(in, f32(ps, pastK...), f32(ps, pastV...))
		} else {
			in = append(in, f32(shp(0)), f32(shp(0)))
		}
		in = append(in, tensor(kernel.Int32, shp(int64(c.b)), lens...), tensor(kernel.Int32, shp(), float64(c.tl)))
		out, err := runOp("GroupQueryAttention", attrs, in...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// seqlens_k as [batch, 1], as onnxruntime-genai's builder wrote
		// it, reads alike.
		in[5] = tensor(kernel.Int32, shp(int64(c.b), 1), lens...)
		out2, err := runOp("GroupQueryAttention", attrs, in...)
		if err != nil {
			t.Fatalf("%s, seqlens_k [batch, 1]: %v", c.name, err)
		}
		for o := range out {
			if !out2[o].Shape.Equal(out[o].Shape) || !bytes.Equal(out2[o].Data(), out[o].Data()) {
				t.Fatalf("%s, seqlens_k [batch, 1]: output %d differs", c.name, o)
			}
		}
		y, pk, pv := gqaRef(q, k, v, pastK, pastV, c.lens, c.b, c.s, c.n, c.nkv, c.h, c.p, c.tl, tp, c.window, c.softcap)
		for o, want := range [][]float64{y, pk, pv} {
			if len(want) != int(out[o].NumElements()) {
				t.Fatalf("%s: output %d %v, want %d elements", c.name, o, out[o].Shape, len(want))
			}
			for i, w := range want {
				if g := value(out[o].Data(), kernel.Float32, i); math.Abs(g-w) > 2e-6*math.Max(1, math.Abs(w)) {
					t.Fatalf("%s: output %d [%d] = %v, want %v", c.name, o, i, g, w)
				}
			}
		}
	}
}

func TestContribGroupQueryAttentionRefusals(t *testing.T) {
	base := kernel.Attrs{"num_heads": int64(2), "kv_num_heads": int64(1)}
	with := func(k string, v any) kernel.Attrs {
		a := kernel.Attrs{}
		for n, x := range base {
			a[n] = x
		}
		a[k] = v
		return a
	}
	for _, c := range []struct {
		attrs kernel.Attrs
		frag  string
	}{
		{kernel.Attrs{"num_heads": int64(2)}, "kv_num_heads"},
		{kernel.Attrs{"num_heads": int64(3), "kv_num_heads": int64(2)}, "multiple"},
		{with("qk_output", int64(1)), "qk_output"},
		{with("k_quant_type", "PER_TENSOR"), "k_quant_type"},
		{with("kv_cache_bit_width", int64(8)), "kv_cache_bit_width"},
		{with("mask_filter_value", -1.0), "mask_filter_value"},
	} {
		if _, err := Builtins().New("GroupQueryAttention", c.attrs); err == nil {
			t.Errorf("attributes %v accepted", c.attrs)
		}
	}
	q, kv := f32(shp(1, 2, 16)), f32(shp(1, 2, 8))
	none := f32(shp(0))
	lens, tl := tensor(kernel.Int32, shp(1), 1), tensor(kernel.Int32, shp(), 2)
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{f32(shp(1, 2, 8)), f32(shp(1, 2, 4)), f32(shp(1, 2, 4)), none, none, lens, tl}, "multiple of 8")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, none, none, none, lens, tl}, "key and value")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, kv, f32(shp(1, 1, 2, 8)), none, lens, tl}, "past_key and past_value")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, kv, none, none, tensor(kernel.Int32, shp(1), 2), tl}, "seqlens_k[0]")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, kv, none, none, tensor(kernel.Int64, shp(1), 1), tl}, "seqlens_k")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, kv, none, none, tensor(kernel.Int32, shp(1, 2), 1, 1), tl}, "seqlens_k", "[batch, 1]")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, kv, none, none, tensor(kernel.Int32, shp(2), 1, 1), tl}, "seqlens_k", "[batch]")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, kv, none, none, tensor(kernel.Int32, shp(), 1), tl}, "seqlens_k")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, kv, none, none, lens, tensor(kernel.Int32, shp(), 3)}, "past_key and past_value")
	wantErr(t, "GroupQueryAttention", with("do_rotary", int64(1)), []*kernel.Tensor{q, kv, kv, none, none, lens, tl}, "cos_cache")
	wantErr(t, "GroupQueryAttention", base, []*kernel.Tensor{q, kv, kv, none, none, lens, tl, none, none, none, f32(shp(1, 2, 2, 3))}, "attention_bias")
	wantErr(t, "GroupQueryAttention", with("smooth_softmax", int64(1)), []*kernel.Tensor{q, kv, kv, none, none, lens, tl, none, none, none, none, f32(shp(2))}, "head_sink")
	pk := f32(shp(1, 1, 2, 8))
	tok := []*kernel.Tensor{f32(shp(1, 1, 16)), f32(shp(1, 1, 8)), f32(shp(1, 1, 8)), pk, pk, tensor(kernel.Int32, shp(1), 4), tensor(kernel.Int32, shp(), 5)}
	wantErr(t, "GroupQueryAttention", base, tok, "exceeds past_key")
}

// TestContribGroupQueryAttentionAllocates checks the steady state: the
// rotated Q and K and the scores live in buffers the kernel keeps.
func TestContribGroupQueryAttentionAllocates(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		k, err := Builtins().New("GroupQueryAttention", kernel.Attrs{"num_heads": int64(4), "kv_num_heads": int64(2), "do_rotary": int64(1)})
		if err != nil {
			t.Fatal(err)
		}
		cos := tensor(dt, shp(8, 8))
		in := []*kernel.Tensor{randTensor(r, dt, shp(2, 1, 64)), randTensor(r, dt, shp(2, 1, 32)), randTensor(r, dt, shp(2, 1, 32)),
			randTensor(r, dt, shp(2, 2, 4, 16)), randTensor(r, dt, shp(2, 2, 4, 16)), tensor(kernel.Int32, shp(2), 4, 2), tensor(kernel.Int32, shp(), 5), cos, cos}
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
