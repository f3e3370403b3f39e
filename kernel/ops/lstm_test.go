package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestRecurrentEmptySequence: a batch entry of sequence length 0 has zero
// Y rows and zero Y_h (and Y_c), whatever initial_h (and initial_c) hold,
// as onnxruntime computes it, in every direction; the other entries start
// from their initial states. Layout 1 (which onnxruntime's CPU kernels
// refuse) gives the same values, its axes swapped.
func TestRecurrentEmptySequence(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	const seq, batch, in, h = 3, 3, 2, 2
	lens := []int32{0, 3, 2}
	rnd := func(n int64) []float64 {
		v := randValues(r, kernel.Float32, n)
		for i := range v {
			v[i] /= 8
		}
		return v
	}
	for _, cell := range []string{"LSTM", "GRU", "RNN"} {
		g := map[string]int64{"LSTM": 4, "GRU": 3, "RNN": 1}[cell]
		for _, dir := range []string{"forward", "reverse", "bidirectional"} {
			name := fmt.Sprintf("%s %s", cell, dir)
			dirs := int64(1)
			if dir == "bidirectional" {
				dirs = 2
			}
			x, h0, c0 := rnd(seq*batch*in), rnd(dirs*batch*h), rnd(dirs*batch*h)
			w, rt, b := f32(shp(dirs, g*h, in), rnd(dirs*g*h*in)...), f32(shp(dirs, g*h, h), rnd(dirs*g*h*h)...), f32(shp(dirs, 2*g*h), rnd(dirs*2*g*h)...)
			run := func(layout int64, x, h0, c0 []float64, xs, ss []int64) []*kernel.Tensor {
				t.Helper()
				ins := []*kernel.Tensor{f32(xs, x...), w, rt, b, kernel.FromInt32(lens, batch), f32(ss, h0...)}
				if cell == "LSTM" {
					ins = append(ins, f32(ss, c0...))
				}
				out, err := runOp(cell, kernel.Attrs{"hidden_size": int64(h), "direction": dir, "layout": layout}, ins...)
				if err != nil {
					t.Fatalf("%s layout %d: %v", name, layout, err)
				}
				return out
			}
			out := run(0, x, h0, c0, shp(seq, batch, in), shp(dirs, batch, h))
			y, states := values(out[0]), out[1:]
			for d := range dirs {
				for j := range int64(h) {
					for ti := range int64(seq) {
						if v := y[((ti*dirs+d)*batch)*h+j]; v != 0 {
							t.Errorf("%s: Y[%d, %d, 0, %d] is %v, want 0", name, ti, d, j, v)
						}
					}
					for i, s := range states {
						if v := values(s)[(d*batch)*h+j]; v != 0 {
							t.Errorf("%s: output %d [%d, 0, %d] is %v, want 0 (sequence length 0)", name, i+1, d, j, v)
						}
					}
				}
			}
			// The initial state still counts where the sequence is not
			// empty.
			zero := make([]float64, dirs*batch*h)
			fresh := run(0, x, zero, zero, shp(seq, batch, in), shp(dirs, batch, h))
			if got, base := values(out[1])[h:2*h], values(fresh[1])[h:2*h]; got[0] == base[0] && got[1] == base[1] {
				t.Errorf("%s: Y_h of batch entry 1 is %v with or without initial states", name, got)
			}
			// Layout 1: [batch, seq, in], [batch, dirs, h], Y [batch, seq, dirs, h].
			out1 := run(1, permuteVals(x, shp(seq, batch, in), 1, 0, 2), permuteVals(h0, shp(dirs, batch, h), 1, 0, 2),
				permuteVals(c0, shp(dirs, batch, h), 1, 0, 2), shp(batch, seq, in), shp(batch, dirs, h))
			checkValues(t, name+" layout 1 Y", out1[0], shp(batch, seq, dirs, h), permuteVals(y, shp(seq, dirs, batch, h), 2, 0, 1, 3))
			for i, s := range states {
				checkValues(t, fmt.Sprintf("%s layout 1 output %d", name, i+1), out1[i+1], shp(batch, dirs, h), permuteVals(values(s), shp(dirs, batch, h), 1, 0, 2))
			}
		}
	}
}

// permuteVals transposes v, of shape s, as Transpose with perm does.
func permuteVals(v []float64, s []int64, perm ...int) []float64 {
	ps := make([]int64, len(s))
	for i, p := range perm {
		ps[i] = s[p]
	}
	out := make([]float64, len(v))
	for i := range int64(len(v)) {
		idx := unravel(i, s)
		pi := make([]int64, len(s))
		for k, p := range perm {
			pi[k] = idx[p]
		}
		out[ravel(pi, ps)] = v[i]
	}
	return out
}

// TestRecurrentTransposedSums: a run of transposeSteps steps or more takes
// the pre-activations from the weights transposed (row updates), a
// shorter one from dot products; both give the same sums, bit for bit.
// The first step of a long run is checked against a run of that step
// alone, for every cell, direction and a hidden size that takes the
// assembly, with a batch of one and of two.
func TestRecurrentTransposedSums(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	const in, h = 24, 16
	rnd := func(n int64) []float64 {
		v := randValues(r, kernel.Float32, n)
		for i := range v {
			v[i] /= 4
		}
		return v
	}
	for _, cell := range []string{"LSTM", "GRU", "RNN"} {
		g := map[string]int64{"LSTM": 4, "GRU": 3, "RNN": 1}[cell]
		for _, batch := range []int64{1, 2} {
			seq := (transposeSteps + batch - 1) / batch
			x := rnd(seq * batch * in)
			w, rt, b := f32(shp(1, g*h, in), rnd(g*h*in)...), f32(shp(1, g*h, h), rnd(g*h*h)...), f32(shp(1, 2*g*h), rnd(2*g*h)...)
			run := func(seq int64) []float64 {
				t.Helper()
				out, err := runOp(cell, kernel.Attrs{"hidden_size": int64(h)}, f32(shp(seq, batch, in), x[:seq*batch*in]...), w, rt, b)
				if err != nil {
					t.Fatalf("%s: %v", cell, err)
				}
				return values(out[0])
			}
			long, short := run(seq), run(1)
			for i, v := range short {
				if v != long[i] {
					t.Fatalf("%s batch %d: first step's Y[%d] is %v alone, %v in a run of %d steps", cell, batch, i, v, long[i], seq)
				}
			}
		}
	}
}

// BenchmarkLSTMOneStep times one step of an LSTM of input and hidden size
// 128 (a streaming voice-activity detector's), and eight steps.
func BenchmarkLSTMOneStep(b *testing.B) {
	r := rand.New(rand.NewPCG(45, 46))
	const in, h = 128, 128
	w, rt := f32(shp(1, 4*h, in), randValues(r, kernel.Float32, 4*h*in)...), f32(shp(1, 4*h, h), randValues(r, kernel.Float32, 4*h*h)...)
	for _, seq := range []int64{1, 8, 64} {
		b.Run(fmt.Sprintf("seq=%d", seq), func(b *testing.B) {
			k, err := Builtins().New("LSTM", kernel.Attrs{"hidden_size": int64(h)})
			if err != nil {
				b.Fatal(err)
			}
			a, err := prepare(k, 1, f32(shp(seq, 1, in), randValues(r, kernel.Float32, seq*in)...), w, rt)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := k.Compute(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
