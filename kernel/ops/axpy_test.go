package ops

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// axpyValue draws a float32: mostly ordinary values, sometimes a special
// one (±0, ±Inf, NaN, subnormal, huge), so that overflow, signed zeros and
// NaN propagation are compared too.
func axpyValue(r *rand.Rand) float32 {
	switch r.IntN(16) {
	case 0:
		return float32(math.Copysign(0, -1))
	case 1:
		return 0
	case 2:
		return float32(math.Inf(1 - 2*r.IntN(2)))
	case 3:
		return float32(math.NaN())
	case 4:
		return math.Float32frombits(uint32(r.IntN(1 << 23))) // subnormal
	case 5:
		return float32(3e38 * (2*r.Float64() - 1))
	}
	return float32(4*r.Float64() - 2)
}

func axpyValues(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = axpyValue(r)
	}
	return v
}

// sameF32 compares bits, any NaN equal to any NaN (a NaN's payload may
// differ where both operands are NaN).
func sameF32(a, b float32) bool {
	if a != a && b != b {
		return true
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

// TestAxpyMatchesScalar: the row updates give the scalar loops' bits at
// every length up to 70 (the eight-wide steps and every tail), at unaligned
// starts, on random and special values; the elements past the row stay.
func TestAxpyMatchesScalar(t *testing.T) {
	if !useSIMD {
		t.Log("no assembly on this processor: the scalar loops are compared with themselves")
	}
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 400 {
		n := trial % 71
		off := r.IntN(3)
		a := [4]float32{axpyValue(r), axpyValue(r), axpyValue(r), axpyValue(r)}
		var rows, want [4][]float32
		var bs [4][]float32
		for i := range 4 {
			rows[i] = axpyValues(r, n+off+2)
			want[i] = append([]float32(nil), rows[i]...)
			bs[i] = axpyValues(r, n+off)
		}
		check := func(what string, got, want []float32) {
			t.Helper()
			for j := range got {
				if !sameF32(got[j], want[j]) {
					t.Fatalf("%s, n %d, offset %d: element %d is %v (%#x), want %v (%#x)", what, n, off, j, got[j], math.Float32bits(got[j]), want[j], math.Float32bits(want[j]))
				}
			}
		}

		// axpyRows4: four rows from one row of B.
		axpyRows4(rows[0][off:], rows[1][off:], rows[2][off:], rows[3][off:], bs[0][off:off+n], a[0], a[1], a[2], a[3])
		for i := range 4 {
			for j := range n {
				want[i][off+j] += float32(a[i] * bs[0][off+j])
			}
			check("axpyRows4", rows[i], want[i])
		}

		// axpySum4: four products summed, then added.
		axpySum4(rows[0][off:off+n], bs[0][off:], bs[1][off:], bs[2][off:], bs[3][off:], a[0], a[1], a[2], a[3])
		for j := range n {
			s := float32(a[0]*bs[0][off+j]) + float32(a[1]*bs[1][off+j])
			s += float32(a[2] * bs[2][off+j])
			s += float32(a[3] * bs[3][off+j])
			want[0][off+j] += s
		}
		check("axpySum4", rows[0], want[0])

		// axpy1: one product.
		axpy1(rows[1][off:off+n], bs[2][off:], a[2])
		for j := range n {
			want[1][off+j] += float32(a[2] * bs[2][off+j])
		}
		check("axpy1", rows[1], want[1])
	}
}

// TestAxpyFloat64 keeps the float64 instances on the scalar loops.
func TestAxpyFloat64(t *testing.T) {
	row := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	b := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}
	axpySum4(row, b, b, b, b, 0.5, 0.25, 0.125, 0.0625)
	axpy1(row, b, -1)
	for j, v := range row {
		if want := float64(j+1) + 0.9375 - 1; v != want {
			t.Fatalf("element %d is %v, want %v", j, v, want)
		}
	}
}

// TestInBounds compares im2col's valid output range with a scan.
func TestInBounds(t *testing.T) {
	for i0 := int64(-12); i0 <= 12; i0++ {
		for s := int64(1); s <= 4; s++ {
			for in := int64(0); in <= 9; in++ {
				for n := int64(0); n <= 9; n++ {
					lo, hi := inBounds(i0, s, in, n)
					for ow := range n {
						inside := i0+ow*s >= 0 && i0+ow*s < in
						if inside != (ow >= lo && ow < hi) {
							t.Fatalf("inBounds(%d, %d, %d, %d) = [%d, %d): output %d is inside %v", i0, s, in, n, lo, hi, ow, inside)
						}
					}
					if lo > hi || hi > n {
						t.Fatalf("inBounds(%d, %d, %d, %d) = [%d, %d)", i0, s, in, n, lo, hi)
					}
				}
			}
		}
	}
}

// TestIm2colMatchesNaive compares im2col with an element-by-element copy
// on random geometries: paddings larger than the input, strides,
// dilations, windows outside the input altogether.
func TestIm2colMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for trial := range 3000 {
		var g geom
		for d := range 3 {
			g.in[d], g.k[d] = 1+r.Int64N(5), 1+r.Int64N(3)
			g.stride[d], g.dil[d], g.padB[d] = 1+r.Int64N(3), 1+r.Int64N(2), r.Int64N(6)
			g.out[d] = 1 + r.Int64N(5)
		}
		ch := 1 + r.Int64N(2)
		x := make([]float32, ch*g.in.prod())
		for i := range x {
			x[i] = float32(i + 1)
		}
		rows := ch * g.k.prod()
		got := make([]float32, rows*g.out.prod())
		for i := range got {
			got[i] = -1 // every element is written
		}
		im2col(got, x, &g, ch)
		at := 0
		for c := range ch {
			for kd := range g.k[0] {
				for kh := range g.k[1] {
					for kw := range g.k[2] {
						for od := range g.out[0] {
							for oh := range g.out[1] {
								for ow := range g.out[2] {
									id := od*g.stride[0] - g.padB[0] + kd*g.dil[0]
									ih := oh*g.stride[1] - g.padB[1] + kh*g.dil[1]
									iw := ow*g.stride[2] - g.padB[2] + kw*g.dil[2]
									want := float32(0)
									if id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2] {
										want = x[c*g.in.prod()+(id*g.in[1]+ih)*g.in[2]+iw]
									}
									if got[at] != want {
										t.Fatalf("trial %d, %+v: element %d is %v, want %v", trial, g, at, got[at], want)
									}
									at++
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestFusedMatMulRowsMatchScalar: FusedMatMul's float32 rows give the bits
// of the scalar loop (a sum from +0 over k ascending, then times alpha),
// with A and B transposed or not, batched, special values included.
func TestFusedMatMulRowsMatchScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	for trial := range 200 {
		batch, m, n, k := 1+r.Int64N(3), 1+r.Int64N(9), 1+r.Int64N(20), r.Int64N(12)
		ta, tb := r.IntN(2) == 1, r.IntN(2) == 1
		alpha := []float64{1, 0.5, -2, 0.1}[r.IntN(4)]
		as, bs := shp(batch, m, k), shp(batch, k, n)
		if ta {
			as = shp(batch, k, m)
		}
		if tb {
			bs = shp(batch, n, k)
		}
		av, bv := axpyValues(r, int(batch*m*k)), axpyValues(r, int(batch*k*n))
		A, B := kernel.New(kernel.Float32, as...), kernel.New(kernel.Float32, bs...)
		copy(kernel.Float32s(A.Host), av)
		copy(kernel.Float32s(B.Host), bv)
		out := mustRun(t, "FusedMatMul", kernel.Attrs{"transA": b2i(ta), "transB": b2i(tb), "alpha": alpha}, A, B)
		got := kernel.Float32s(out.Data())
		for p := range batch {
			for i := range m {
				for j := range n {
					var s float32
					for kk := range k {
						ai := p*m*k + i*k + kk
						if ta {
							ai = p*m*k + kk*m + i
						}
						bi := p*k*n + kk*n + j
						if tb {
							bi = p*k*n + j*k + kk
						}
						s += float32(av[ai] * bv[bi])
					}
					want := float32(s * float32(alpha))
					if g := got[(p*m+i)*n+j]; !sameF32(g, want) {
						t.Fatalf("trial %d (%v %v transA %v transB %v): element [%d,%d,%d] is %v, want %v", trial, as, bs, ta, tb, p, i, j, g, want)
					}
				}
			}
		}
	}
}

// TestTransposeMat compares the tiled transpose with the definition at
// sizes around the tile's.
func TestTransposeMat(t *testing.T) {
	for _, r := range []int64{0, 1, 31, 32, 33, 70} {
		for _, c := range []int64{0, 1, 5, 32, 65} {
			m := make([]float32, r*c)
			for i := range m {
				m[i] = float32(i)
			}
			got := make([]float32, r*c)
			transposeMat(got, m, r, c)
			for i := range r {
				for j := range c {
					if got[j*r+i] != m[i*c+j] {
						t.Fatalf("%d×%d: element (%d,%d) is %v, want %v", r, c, j, i, got[j*r+i], m[i*c+j])
					}
				}
			}
		}
	}
}

// TestFusedMatMulEmpty: products with no output element or no term read
// no operand (an empty operand's offsets point past its end).
func TestFusedMatMulEmpty(t *testing.T) {
	for _, c := range []struct {
		a, b  []int64
		attrs kernel.Attrs
		out   []int64
	}{
		{shp(1, 2, 3, 5), shp(0, 5), kernel.Attrs{"transB": int64(1)}, shp(1, 2, 3, 0)},
		{shp(2, 0, 5), shp(4, 5), kernel.Attrs{"transB": int64(1)}, shp(2, 0, 4)},
		{shp(3, 4, 0), shp(0, 6), nil, shp(3, 4, 6)},
		// transBatch: the batch dimension moves; an empty A or B then has
		// offsets past its end.
		{shp(0, 2, 4), shp(1, 2, 4), kernel.Attrs{"transBatchA": int64(1), "transBatchB": int64(1), "transB": int64(1)}, nil},
		{shp(3, 1, 4), shp(0, 2, 4), kernel.Attrs{"transBatchA": int64(1), "transBatchB": int64(1), "transB": int64(1)}, nil},
		{shp(3, 2, 4), shp(0, 2, 4), kernel.Attrs{"transBatchA": int64(1), "transBatchB": int64(1), "transB": int64(1)}, nil},
	} {
		if c.out == nil {
			out, err := runOp("FusedMatMul", c.attrs, kernel.New(kernel.Float32, c.a...), kernel.New(kernel.Float32, c.b...))
			if err != nil && strings.Contains(err.Error(), "panic") {
				t.Fatalf("%v × %v: %v", c.a, c.b, err)
			}
			for _, o := range out {
				for _, v := range kernel.Float32s(o.Data()) {
					if v != 0 {
						t.Fatalf("%v × %v: %v, want zeros", c.a, c.b, kernel.Float32s(o.Data()))
					}
				}
			}
			continue
		}
		out := mustRun(t, "FusedMatMul", c.attrs, kernel.New(kernel.Float32, c.a...), kernel.New(kernel.Float32, c.b...))
		want := make([]float64, kernel.Shape(c.out).NumElements()) // sums of no term: +0
		checkValues(t, "FusedMatMul", out, c.out, want)
	}
}
