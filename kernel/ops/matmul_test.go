package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// refMatMul multiplies one pair of matrices stored row-major, honoring
// transposition, summing float32-rounded products over k ascending.
func refMatMul(dt kernel.DType, a, b []float64, m, n, k int, ta, tb bool) []float64 {
	out := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var acc float32
			for p := range k {
				ai := i*k + p
				if ta {
					ai = p*m + i
				}
				bi := p*n + j
				if tb {
					bi = j*k + p
				}
				acc += float32(float32(a[ai]) * float32(b[bi]))
			}
			if dt == kernel.Float16 {
				acc = kernel.F16ToF32(kernel.F32ToF16(acc))
			}
			out[i*n+j] = float64(acc)
		}
	}
	return out
}

func TestMatMulRandomMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 150 {
		m, n, k := r.IntN(7), r.IntN(7), r.IntN(7)
		if r.IntN(10) == 0 {
			m, n, k = 1+r.IntN(40), 1+r.IntN(150), 1+r.IntN(300)
		}
		ta, tb := r.IntN(2) == 1, r.IntN(2) == 1
		dt := kernel.Float32
		if r.IntN(3) == 0 {
			dt = kernel.Float16
		}
		as, bs := shp(int64(m), int64(k)), shp(int64(k), int64(n))
		if ta {
			as = shp(int64(k), int64(m))
		}
		if tb {
			bs = shp(int64(n), int64(k))
		}
		av, bv := randValues(r, dt, numel(as)), randValues(r, dt, numel(bs))
		got := mustRun(t, "MatMul", kernel.Attrs{"transA": ta, "transB": tb}, tensor(dt, as, av...), tensor(dt, bs, bv...))
		checkValues(t, "MatMul", got, shp(int64(m), int64(n)), refMatMul(dt, av, bv, m, n, k, ta, tb))
	}
}

func TestBatchMatMulBroadcastsBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cases := []struct{ a, b, out []int64 }{
		{shp(2, 3, 4), shp(2, 4, 5), shp(2, 3, 5)},
		{shp(2, 3, 4), shp(4, 5), shp(2, 3, 5)},
		{shp(3, 4), shp(3, 4, 2), shp(3, 3, 2)},
		{shp(2, 1, 3, 4), shp(1, 3, 4, 2), shp(2, 3, 3, 2)},
		{shp(0, 3, 4), shp(1, 4, 2), shp(0, 3, 2)},
		{shp(2, 3, 0), shp(2, 0, 2), shp(2, 3, 2)},
	}
	for _, c := range cases {
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
			av, bv := randValues(r, dt, numel(c.a)), randValues(r, dt, numel(c.b))
			got := mustRun(t, "BatchMatMul", nil, tensor(dt, c.a, av...), tensor(dt, c.b, bv...))
			m, k, n := c.a[len(c.a)-2], c.a[len(c.a)-1], c.b[len(c.b)-1]
			batch := c.out[:len(c.out)-2]
			var want []float64
			for bi := range numel(batch) {
				idx := unravel(bi, batch)
				pick := func(s []int64, v []float64) []float64 {
					bs := s[:len(s)-2]
					in := make([]int64, len(bs))
					for j := range bs {
						if bs[j] != 1 {
							in[j] = idx[j+len(batch)-len(bs)]
						}
					}
					size := s[len(s)-2] * s[len(s)-1]
					off := ravel(in, bs) * size
					return v[off : off+size]
				}
				want = append(want, refMatMul(dt, pick(c.a, av), pick(c.b, bv), int(m), int(n), int(k), false, false)...)
			}
			checkValues(t, "BatchMatMul "+kernel.Shape(c.a).String()+kernel.Shape(c.b).String(), got, c.out, want)
		}
	}
}

func TestMatMulErrors(t *testing.T) {
	wantErr(t, "MatMul", nil, []*kernel.Tensor{f32(shp(2, 3)), f32(shp(4, 2))}, "inner dimensions differ")
	wantErr(t, "MatMul", nil, []*kernel.Tensor{f32(shp()), f32(shp(3, 2))}, "rank 1 or more")
	wantErr(t, "MatMul", nil, []*kernel.Tensor{f32(shp(2, 3)), f32(shp(2))}, "inner dimensions differ")
	wantErr(t, "MatMul", kernel.Attrs{"transA": true}, []*kernel.Tensor{f32(shp(3)), f32(shp(3, 2))}, "1-D")
	wantErr(t, "MatMul", nil, []*kernel.Tensor{tensor(kernel.Bool, shp(2, 3)), tensor(kernel.Bool, shp(3, 2))}, "input A", "bool")
	wantErr(t, "MatMul", nil, []*kernel.Tensor{f32(shp(2, 3)), tensor(kernel.Float16, shp(3, 2))}, "input B", "float16")
	wantErr(t, "MatMul", kernel.Attrs{"transA": "yes"}, nil, "transA")
	wantErr(t, "BatchMatMul", nil, []*kernel.Tensor{f32(shp(2, 3)), f32(shp(3, 2))}, "batch dimension")
	wantErr(t, "BatchMatMul", nil, []*kernel.Tensor{f32(shp(2, 2, 3)), f32(shp(3, 3, 2))}, "batch dimensions", "do not broadcast")
}

func TestMatMulTilingAndCost(t *testing.T) {
	for _, c := range []struct {
		m, n, k int64
		dt      kernel.DType
	}{{1, 1, 1, kernel.Float32}, {4096, 4096, 4096, kernel.Float32}, {7, 5000, 3, kernel.Float16}, {512, 64, 100000, kernel.Float16}} {
		k, err := Builtins().New("MatMul", nil)
		if err != nil {
			t.Fatal(err)
		}
		in := []*kernel.Tensor{kernel.Virtual(c.dt, c.m, c.k), kernel.Virtual(c.dt, c.k, c.n)}
		out := []*kernel.Tensor{{}}
		if err := k.InferShape(in, out); err != nil {
			t.Fatal(err)
		}
		var tl kernel.Tiling
		if err := k.Resize(in, out, &tl); err != nil {
			t.Fatal(err)
		}
		d := decoder{b: tl.Data}
		w := make([]int64, matmulWords)
		for i := range w {
			w[i] = d.word()
		}
		if d.err() != nil || w[0] != 1 || w[1] != c.m || w[2] != c.n || w[3] != c.k {
			t.Fatalf("%+v: header %v", c, w)
		}
		tm, tn, tk := w[6], w[7], w[8]
		es := int64(c.dt.Size())
		if 2*(tm*tk+tk*tn)*es+4*tm*tn > localMem || tm%16 != 0 || tn%16 != 0 || tk%16 != 0 {
			t.Fatalf("%+v: blocks %d×%d×%d do not fit local memory aligned", c, tm, tn, tk)
		}
		if w[9] != ceilDiv(c.m, tm) || w[10] != ceilDiv(c.n, tn) || w[11] != ceilDiv(c.k, tk) || w[12] > numCores {
			t.Fatalf("%+v: tile counts %v", c, w[9:14])
		}
		cost := k.Cost(in, out)
		if cost.FLOPs != 2*float64(c.m*c.n*c.k) || cost.Bytes != float64((c.m*c.k+c.k*c.n+c.m*c.n)*es) {
			t.Fatalf("%+v: cost %+v", c, cost)
		}
	}
}
