package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// BenchmarkProductsSIMD runs the matrix products with the assembly row
// updates and with the scalar loops, side by side in one run
// (go test -bench ProductsSIMD -count 5 ./kernel/ops, then benchstat).
func BenchmarkProductsSIMD(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	img := randF32(r, 1, 32, 32, 32)
	for _, c := range []struct {
		name  string
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"MatMul", "MatMul", nil, []*kernel.Tensor{randF32(r, 64, 256), randF32(r, 256, 256)}},
		{"Gemm", "Gemm", nil, []*kernel.Tensor{randF32(r, 64, 256), randF32(r, 256, 256), randF32(r, 256)}},
		{"Conv3x3", "Conv", kernel.Attrs{"pads": []int64{1, 1, 1, 1}}, []*kernel.Tensor{img, randF32(r, 32, 32, 3, 3), randF32(r, 32)}},
	} {
		for _, simd := range []bool{false, true} {
			name := c.name + "/scalar"
			if simd {
				name = c.name + "/avx"
			}
			b.Run(name, func(b *testing.B) {
				if simd && !useSIMD {
					b.Skip("no AVX")
				}
				saved := useSIMD
				useSIMD = simd
				defer func() { useSIMD = saved }()
				benchCompute(b, c.op, c.attrs, c.in...)
			})
		}
	}
}

// TestRecurrentSIMDMatchesScalar: LSTM, GRU and RNN give the same bits
// with the assembly row updates (pre-activations from transposed weights)
// as with the scalar dot products, on random shapes, directions, biases,
// initial states, sequence lengths and layouts, special values included.
func TestRecurrentSIMDMatchesScalar(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX on this processor")
	}
	r := rand.New(rand.NewPCG(3, 5))
	gatesOf := map[string]int64{"LSTM": 4, "GRU": 3, "RNN": 1}
	for trial := range 150 {
		cell := []string{"LSTM", "GRU", "RNN"}[trial%3]
		G := gatesOf[cell]
		seq, batch, in, H := 1+r.Int64N(4), 1+r.Int64N(3), 1+r.Int64N(12), 1+r.Int64N(12)
		dirs := int64(1 + r.IntN(2))
		attrs := kernel.Attrs{"hidden_size": H, kernel.OpsetAttr: int64(14), "layout": int64(r.IntN(2))}
		if dirs == 2 {
			attrs["direction"] = "bidirectional"
		}
		if cell == "GRU" {
			attrs["linear_before_reset"] = int64(r.IntN(2))
		}
		x := randF32(r, seq, batch, in)
		if attrs["layout"] == int64(1) {
			x = randF32(r, batch, seq, in)
		}
		vals := kernel.Float32s(x.Host)
		if trial%5 == 0 {
			vals[r.IntN(len(vals))] = axpyValue(r) // now and then a special value
		}
		in4 := []*kernel.Tensor{x, randF32(r, dirs, G*H, in), randF32(r, dirs, G*H, H)}
		if r.IntN(2) == 0 {
			in4 = append(in4, randF32(r, dirs, 2*G*H))
			if r.IntN(2) == 0 {
				lens := kernel.New(kernel.Int32, batch)
				for b := range kernel.Int32s(lens.Host) {
					kernel.Int32s(lens.Host)[b] = int32(r.Int64N(seq + 1))
				}
				in4 = append(in4, lens)
				h0 := randF32(r, dirs, batch, H)
				if attrs["layout"] == int64(1) {
					h0 = randF32(r, batch, dirs, H)
				}
				in4 = append(in4, h0)
			}
		}
		run := func(simd bool) []*kernel.Tensor {
			saved := useSIMD
			useSIMD = simd
			defer func() { useSIMD = saved }()
			out, err := runOp(cell, attrs, in4...)
			if err != nil {
				t.Fatalf("%s %v: %v", cell, attrs, err)
			}
			return out
		}
		want, got := run(false), run(true)
		for i := range want {
			w, g := kernel.Float32s(want[i].Data()), kernel.Float32s(got[i].Data())
			if len(w) == 0 || len(w) != len(g) {
				t.Fatalf("output %d: %d and %d elements", i, len(w), len(g))
			}
			for j := range w {
				if !sameF32(g[j], w[j]) {
					t.Fatalf("trial %d, %s %v, seq %d batch %d in %d: output %d element %d is %v, want %v", trial, cell, attrs, seq, batch, in, i, j, g[j], w[j])
				}
			}
		}
	}
}

// TestMatMulTransBSIMDMatchesScalar: MatMul with transB, whose float32 B
// is transposed into rows for the row updates, gives the strided scalar
// loop's bits.
func TestMatMulTransBSIMDMatchesScalar(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX on this processor")
	}
	r := rand.New(rand.NewPCG(21, 23))
	for trial := range 100 {
		batch, m, n, k := 1+r.Int64N(3), 1+r.Int64N(12), 1+r.Int64N(24), 1+r.Int64N(12)
		A, B := kernel.New(kernel.Float32, batch, m, k), kernel.New(kernel.Float32, batch, n, k)
		copy(kernel.Float32s(A.Host), axpyValues(r, int(batch*m*k)))
		copy(kernel.Float32s(B.Host), axpyValues(r, int(batch*n*k)))
		run := func(simd bool) []float32 {
			saved := useSIMD
			useSIMD = simd
			defer func() { useSIMD = saved }()
			return kernel.Float32s(mustRun(t, "MatMul", kernel.Attrs{"transB": int64(1)}, A, B).Data())
		}
		want, got := run(false), run(true)
		for i := range want {
			if !sameF32(got[i], want[i]) {
				t.Fatalf("trial %d [%d,%d,%d]x[%d,%d,%d]ᵀ: element %d is %v, want %v", trial, batch, m, k, batch, n, k, i, got[i], want[i])
			}
		}
	}
}
