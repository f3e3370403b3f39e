package ops

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestAttentionValues checks Attention on inputs whose results are exact
// by hand: equal scores average the values, masks pick them out.
func TestAttentionValues(t *testing.T) {
	absent := f32(shp(0))
	run := func(attrs kernel.Attrs, in ...*kernel.Tensor) []*kernel.Tensor {
		t.Helper()
		out, err := runOp("Attention", attrs, in...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	q1 := f32(shp(1, 1, 1, 1), 1)
	k2, v2 := f32(shp(1, 1, 2, 1), 0, 0), f32(shp(1, 1, 2, 1), 4, 8)
	// Equal scores: the mean; the present caches are K and V; mode 0
	// gives the scores.
	out := run(nil, q1, k2, v2)
	checkValues(t, "plain Y", out[0], shp(1, 1, 1, 1), []float64{6})
	checkValues(t, "plain present_value", out[2], shp(1, 1, 2, 1), []float64{4, 8})
	checkValues(t, "plain qk", out[3], shp(1, 1, 1, 2), []float64{0, 0})
	// A bool mask keeps the first key; a fully masked row is zero.
	out = run(nil, f32(shp(1, 1, 2, 1), 1, 1), k2, v2, tensor(kernel.Bool, shp(2, 2), 1, 0, 0, 0))
	checkValues(t, "bool mask", out[0], shp(1, 1, 2, 1), []float64{4, 0})
	// A float mask adds ln 3 to the second score: probabilities 1/4, 3/4.
	out = run(kernel.Attrs{"qk_matmul_output_mode": int64(3)}, q1, k2, v2, f32(shp(1, 2), 0, math.Log(3)))
	if y := values(out[0])[0]; math.Abs(y-7) > 1e-6 {
		t.Errorf("float mask: Y %g, want 7", y)
	}
	// Causal: the first query sees the first key only.
	out = run(kernel.Attrs{"is_causal": int64(1)}, f32(shp(1, 1, 2, 1), 1, 1), k2, v2)
	checkValues(t, "causal", out[0], shp(1, 1, 2, 1), []float64{4, 6})
	// A cache: present is past then new; causal with one past key lets
	// the only query see both.
	out = run(kernel.Attrs{"is_causal": int64(1)}, q1, f32(shp(1, 1, 1, 1), 0), f32(shp(1, 1, 1, 1), 10), absent,
		f32(shp(1, 1, 1, 1), 0), f32(shp(1, 1, 1, 1), 2))
	checkValues(t, "past Y", out[0], shp(1, 1, 1, 1), []float64{6})
	checkValues(t, "present_key", out[1], shp(1, 1, 2, 1), []float64{0, 0})
	checkValues(t, "present_value", out[2], shp(1, 1, 2, 1), []float64{2, 10})
	// Grouped query heads, 3-D: two query heads read the one key/value head.
	out = run(kernel.Attrs{"q_num_heads": int64(2), "kv_num_heads": int64(1), "qk_matmul_output_mode": int64(3)},
		f32(shp(1, 1, 2), 1, -1), f32(shp(1, 2, 1), 0, 0), f32(shp(1, 2, 1), 4, 8))
	checkValues(t, "3-D Y", out[0], shp(1, 1, 2), []float64{6, 6})
	checkValues(t, "3-D probabilities", out[3], shp(1, 2, 1, 2), []float64{0.5, 0.5, 0.5, 0.5})
	// scale 2 and softcap 1: mode 1 gives tanh of the scaled scores.
	out = run(kernel.Attrs{"scale": 2.0, "softcap": 1.0, "qk_matmul_output_mode": int64(1)}, q1, f32(shp(1, 1, 2, 1), 0, 0.5), v2)
	checkValues(t, "softcap", out[3], shp(1, 1, 1, 2), []float64{0, float64(float32(math.Tanh(1)))})
	// nonpad_kv_seqlen (opset 24) keeps the first key of batch 0 and none
	// of batch 1.
	out = run(kernel.Attrs{kernel.OpsetAttr: int64(24)}, f32(shp(2, 1, 1, 1), 1, 1), f32(shp(2, 1, 2, 1)), f32(shp(2, 1, 2, 1), 4, 8, 1, 2),
		absent, absent, absent, i64(shp(2), 1, 0))
	checkValues(t, "nonpad", out[0], shp(2, 1, 1, 1), []float64{4, 0})
}

// TestAttentionWindow checks opset 25's sliding window on equal scores
// (Q zero), where the probabilities are uniform over the keys each query
// sees and mode 2 is 0 there and −∞ elsewhere: the example of ONNX's
// text (4 queries, 6 keys, left 2, right 1), the window with is_causal,
// with nonpad_kv_seqlen's and with a past cache's offsets, and
// nonpad_kv_seqlen alone in mode 2.
func TestAttentionWindow(t *testing.T) {
	inf := math.Inf(-1)
	// sees lists, by query row, the keys it sees (first, last).
	check := func(name string, attrs kernel.Attrs, in []*kernel.Tensor, rows, total int, sees [][2]int) {
		t.Helper()
		attrs[kernel.OpsetAttr] = int64(25)
		out := make([][]*kernel.Tensor, 4)
		for _, mode := range []int64{2, 3} {
			attrs["qk_matmul_output_mode"] = mode
			o, err := runOp("Attention", attrs, in...)
			if err != nil {
				t.Fatalf("%s, mode %d: %v", name, mode, err)
			}
			out[mode] = o
		}
		biased, probs := values(out[2][3]), values(out[3][3])
		if len(biased) != rows*total || len(probs) != rows*total {
			t.Fatalf("%s: qk_matmul_output of %d and %d values, want %d", name, len(biased), len(probs), rows*total)
		}
		for r := range rows {
			lo, hi := sees[r][0], sees[r][1]
			for j := range total {
				wantB, wantP := inf, 0.0
				if j >= lo && j <= hi {
					wantB, wantP = 0, 1/float64(hi-lo+1)
				}
				if got := biased[r*total+j]; got != wantB {
					t.Errorf("%s: row %d key %d: scores plus bias %g, want %g", name, r, j, got, wantB)
				}
				if got := probs[r*total+j]; math.Abs(got-wantP) > 1e-7 {
					t.Errorf("%s: row %d key %d: probability %g, want %g", name, r, j, got, wantP)
				}
			}
		}
	}
	absent := f32(shp(0))
	zeros := func(s ...int64) *kernel.Tensor { return f32(s) }
	// ONNX's example: q0 sees k0–k1, q1 k0–k2, q2 k0–k3, q3 k1–k4.
	check("example", kernel.Attrs{"left_window_size": int64(2), "right_window_size": int64(1)},
		[]*kernel.Tensor{zeros(1, 1, 4, 1), zeros(1, 1, 6, 1), zeros(1, 1, 6, 1)}, 4, 6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 4}})
	// With is_causal the causal bound wins over right 1.
	check("causal", kernel.Attrs{"left_window_size": int64(2), "right_window_size": int64(1), "is_causal": int64(1)},
		[]*kernel.Tensor{zeros(1, 1, 4, 1), zeros(1, 1, 6, 1), zeros(1, 1, 6, 1)}, 4, 6, [][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 3}})
	// nonpad_kv_seqlen 6 and 4 with 2 queries: offsets 4 and 2; causal,
	// left 1: batch 0 rows see 3–4 and 4–5, batch 1 rows 1–2 and 2–3.
	check("nonpad", kernel.Attrs{"left_window_size": int64(1), "is_causal": int64(1)},
		[]*kernel.Tensor{zeros(2, 1, 2, 1), zeros(2, 1, 6, 1), zeros(2, 1, 6, 1), absent, absent, absent, i64(shp(2), 6, 4)},
		4, 6, [][2]int{{3, 4}, {4, 5}, {1, 2}, {2, 3}})
	// nonpad_kv_seqlen alone: mode 2 is −∞ past each batch's length.
	check("nonpad alone", kernel.Attrs{},
		[]*kernel.Tensor{zeros(2, 1, 1, 1), zeros(2, 1, 3, 1), zeros(2, 1, 3, 1), absent, absent, absent, i64(shp(2), 2, 3)},
		2, 3, [][2]int{{0, 1}, {0, 2}})
	// A past cache of 3 keys and one new: the query is at position 3;
	// left 1, right unbounded: keys 2–3.
	check("past", kernel.Attrs{"left_window_size": int64(1)},
		[]*kernel.Tensor{zeros(1, 1, 1, 1), zeros(1, 1, 1, 1), zeros(1, 1, 1, 1), absent, zeros(1, 1, 3, 1), zeros(1, 1, 3, 1)},
		1, 4, [][2]int{{2, 3}})
	// left 0 and right 0: each query sees its own position only; a query
	// whose window holds no key (position 2 of 2 keys) is all −∞ and zero.
	check("point", kernel.Attrs{"left_window_size": int64(0), "right_window_size": int64(0)},
		[]*kernel.Tensor{zeros(1, 1, 3, 1), zeros(1, 1, 2, 1), zeros(1, 1, 2, 1)}, 3, 2, [][2]int{{0, 0}, {1, 1}, {1, 0}})
}

// TestAttentionSoftmaxPrecision: every float softmax_precision gives the
// outputs of the default, as onnxruntime's kernel (which reads none).
func TestAttentionSoftmaxPrecision(t *testing.T) {
	vals := floats32In(3, 4) // float32 values in [-2, 2)
	q, k, v := f32(shp(1, 2, 2, 2), vals(8)...), f32(shp(1, 2, 3, 2), vals(12)...), f32(shp(1, 2, 3, 2), vals(12)...)
	ref, err := runOp("Attention", kernel.Attrs{kernel.OpsetAttr: int64(23)}, q, k, v)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int64{1, 10, 11, 16} {
		got, err := runOp("Attention", kernel.Attrs{kernel.OpsetAttr: int64(23), "softmax_precision": p}, q, k, v)
		if err != nil {
			t.Fatalf("softmax_precision %d: %v", p, err)
		}
		if !slices.Equal(got[0].Data(), ref[0].Data()) {
			t.Errorf("softmax_precision %d: %v, want %v", p, got[0], ref[0])
		}
	}
}

// TestAttentionErrors covers what Attention refuses.
func TestAttentionErrors(t *testing.T) {
	absent := f32(shp(0))
	q, k, v := f32(shp(1, 2, 2, 2)), f32(shp(1, 2, 3, 2)), f32(shp(1, 2, 3, 2))
	qkv := func(more ...*kernel.Tensor) []*kernel.Tensor { return append([]*kernel.Tensor{q, k, v}, more...) }
	at := func(opset int64, kv ...any) kernel.Attrs {
		a := kernel.Attrs{kernel.OpsetAttr: opset}
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	h := func(s ...int64) *kernel.Tensor { return tensor(kernel.Float16, s) }
	wantErr(t, "Attention", nil, []*kernel.Tensor{h(1, 2, 2, 2), k, v}, "input K", "dtype")
	wantErr(t, "Attention", nil, []*kernel.Tensor{i64(shp(1, 2, 2, 2)), i64(shp(1, 2, 3, 2)), i64(shp(1, 2, 3, 2))}, "input Q", "dtype")
	wantErr(t, "Attention", nil, []*kernel.Tensor{h(1, 2, 2, 2), h(1, 2, 3, 2), h(1, 2, 3, 2), absent, h(1, 2, 1, 2), absent}, "past_key and past_value")
	wantErr(t, "Attention", nil, qkv(tensor(kernel.Int64, shp(2, 3))), "attn_mask", "bool")
	wantErr(t, "Attention", nil, qkv(f32(shp(3))), "attn_mask", "rank 2 to 4")
	wantErr(t, "Attention", nil, qkv(f32(shp(2, 2))), "last dimension 2", "total_sequence_length 3")
	wantErr(t, "Attention", at(24), qkv(f32(shp(2, 4))), "last dimension 4", "at most total_sequence_length 3")
	wantErr(t, "Attention", at(24), qkv(f32(shp(3, 2))), "does not broadcast")
	wantErr(t, "Attention", nil, qkv(f32(shp(3, 2, 3))), "does not broadcast")
	wantErr(t, "Attention", nil, []*kernel.Tensor{f32(shp(1, 2, 4)), f32(shp(1, 3, 4)), f32(shp(1, 3, 4))}, "q_num_heads and kv_num_heads")
	wantErr(t, "Attention", at(23, "q_num_heads", int64(3), "kv_num_heads", int64(2)),
		[]*kernel.Tensor{f32(shp(1, 2, 6)), f32(shp(1, 3, 4)), f32(shp(1, 3, 4))}, "do not divide")
	wantErr(t, "Attention", nil, []*kernel.Tensor{f32(shp(1, 3, 2, 2)), k, v}, "do not divide")
	wantErr(t, "Attention", nil, qkv(absent, f32(shp(1, 2, 1, 2))), "together")
	wantErr(t, "Attention", nil, qkv(absent, f32(shp(1, 2, 1, 2)), f32(shp(1, 2, 1, 3))), "past_value")
	wantErr(t, "Attention", at(23, "qk_matmul_output_mode", int64(4)), qkv(), "qk_matmul_output_mode 4")
	wantErr(t, "Attention", at(23, "softmax_precision", int64(7)), qkv(), "softmax_precision 7: want a float type")
	wantErr(t, "Attention", at(23, "scale", 0.0), qkv(), "scale 0")
	wantErr(t, "Attention", at(23, "softcap", -1.0), qkv(), "softcap -1")
	wantErr(t, "Attention", at(23, "is_causal", int64(2)), qkv(), "is_causal")
	wantErr(t, "Attention", at(23, "left_window_size", int64(1)), qkv(), "left_window_size")
	wantErr(t, "Attention", at(25, "left_window_size", int64(-2)), qkv(), "left_window_size -2", "want -1")
	wantErr(t, "Attention", at(25, "right_window_size", int64(-3)), qkv(), "right_window_size -3")
	wantErr(t, "Attention", at(25, "q_num_heads", int64(2)), qkv(), "must not be given with 4-D")
	wantErr(t, "Attention", at(23, "q_num_heads", int64(4)), qkv(), "differ from the heads")
	wantErr(t, "Attention", at(23), qkv(absent, absent, absent, i64(shp(1), 3)), "7 inputs")
	wantErr(t, "Attention", at(24), qkv(absent, f32(shp(1, 2, 1, 2)), f32(shp(1, 2, 1, 2)), i64(shp(1), 3)), "cannot be combined")
	wantErr(t, "Attention", at(24), qkv(absent, absent, absent, i64(shp(1), 4)), "nonpad_kv_seqlen[0] is 4")
	wantErr(t, "Attention", at(24), qkv(absent, absent, absent, i64(shp(2), 3, 3)), "want [batch]")
}

// TestAttentionDTypes checks float16, bfloat16 and float64: every output
// is the float64 evaluation of the float32 path rounded once to the
// dtype. The float16 and bfloat16 results equal the float64 kernel's on
// the widened inputs rounded once; the float64 results agree with the
// float32 kernel's on the same values to float32's precision.
func TestAttentionDTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	attrs := kernel.Attrs{"is_causal": int64(1), "qk_matmul_output_mode": int64(3)}
	shapes := [][]int64{shp(2, 4, 3, 8), shp(2, 2, 3, 8), shp(2, 2, 3, 8), shp(1, 3, 5), shp(2, 2, 2, 8), shp(2, 2, 2, 8)}
	widen := func(x *kernel.Tensor, dt kernel.DType) *kernel.Tensor {
		return tensor(dt, x.Shape, values(x)...)
	}
	for _, dt := range []kernel.DType{kernel.Float16, kernel.BFloat16, kernel.Float32} {
		var in, wide []*kernel.Tensor
		for i, s := range shapes {
			x := randTensor(r, dt, s)
			if i == 3 { // a float mask of Q's dtype, [q_seq, total]
				x = randTensor(r, dt, shp(3, 5))
			}
			in, wide = append(in, x), append(wide, widen(x, kernel.Float64))
		}
		got, err := runOp("Attention", attrs, in...)
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		want, err := runOp("Attention", attrs, wide...)
		if err != nil {
			t.Fatalf("%v widened to float64: %v", dt, err)
		}
		for o := range got {
			if got[o].DType != dt || !got[o].Shape.Equal(want[o].Shape) {
				t.Fatalf("%v: output %d is %v%v, want %v%v", dt, o, got[o].DType, got[o].Shape, dt, want[o].Shape)
			}
			w := kernel.Float64s(want[o].Data())
			for i, g := range values(got[o]) {
				var rounded float64
				switch dt {
				case kernel.Float16:
					rounded = float64(kernel.F16ToF32(f64ToF16(w[i])))
				case kernel.BFloat16:
					rounded = float64(kernel.BF16ToF32(f64ToBF16(w[i])))
				default:
					rounded = float64(float32(w[i]))
				}
				if g != rounded {
					t.Fatalf("%v: output %d [%d] = %v, want %v (the float64 result %v rounded once)", dt, o, i, g, rounded, w[i])
				}
			}
		}
	}
}

// TestAttentionShortMask: from opset 24 a mask whose last dimension is
// shorter than total_sequence_length is the mask padded with −∞ (false):
// bit for bit the results of the padded mask, float and bool.
func TestAttentionShortMask(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 1))
	rnd := func(s ...int64) *kernel.Tensor {
		x := tensor(kernel.Float32, s)
		v := kernel.Float32s(x.Host)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return x
	}
	q, k, v := rnd(2, 2, 3, 4), rnd(2, 2, 5, 4), rnd(2, 2, 5, 3)
	short, full := rnd(2, 1, 3, 2), tensor(kernel.Float32, shp(2, 1, 3, 5))
	bshort, bfull := tensor(kernel.Bool, shp(3, 2)), tensor(kernel.Bool, shp(3, 5))
	sv, fv := kernel.Float32s(short.Host), kernel.Float32s(full.Host)
	for i := range 6 {
		for j := range 5 {
			if j < 2 {
				fv[i*5+j] = sv[i*2+j]
			} else {
				fv[i*5+j] = float32(math.Inf(-1))
			}
		}
	}
	for i := range 3 {
		for j := range 2 {
			if (i+j)%2 == 0 {
				bshort.Host[i*2+j], bfull.Host[i*5+j] = 1, 1
			}
		}
	}
	attrs := kernel.Attrs{kernel.OpsetAttr: int64(24), "qk_matmul_output_mode": int64(3)}
	for _, c := range []struct {
		name        string
		short, full *kernel.Tensor
	}{{"float", short, full}, {"bool", bshort, bfull}} {
		got, err := runOp("Attention", attrs, q, k, v, c.short)
		if err != nil {
			t.Fatalf("%s short mask: %v", c.name, err)
		}
		want, err := runOp("Attention", attrs, q, k, v, c.full)
		if err != nil {
			t.Fatalf("%s padded mask: %v", c.name, err)
		}
		for i := range got {
			if !got[i].Shape.Equal(want[i].Shape) || !bytes.Equal(got[i].Data(), want[i].Data()) {
				t.Errorf("%s mask: output %d differs from the padded mask's", c.name, i)
			}
		}
	}
}
