package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "MatMulNBits")
}

// nbitsRef is MatMulNBits in float64 for 4- or 8-bit B of packed uint8
// zero points (nil: the default): y[r][n] = Σ a[r][k]·(q−zp)·scale (+ bias).
func nbitsRef(a []float64, q [][]int, scales []float64, zps [][]int, bias []float64, K, N, bs, bits int) []float64 {
	kb := (K + bs - 1) / bs
	rows := len(a) / K
	y := make([]float64, rows*N)
	for r := range rows {
		for n := range N {
			var s float64
			for k := range K {
				zp := 1 << (bits - 1)
				if zps != nil {
					zp = zps[n][k/bs]
				}
				s += a[r*K+k] * float64(q[n][k]-zp) * scales[n*kb+k/bs]
			}
			if bias != nil {
				s += bias[n]
			}
			y[r*N+n] = s
		}
	}
	return y
}

// nbitsPack packs q ([N][K] of bits-bit values) as MatMulNBits's B, and zp
// ([N][blocks]) as its packed zero points.
func nbitsPack(q, zp [][]int, K, bs, bits int) (b, z []float64) {
	kb := (K + bs - 1) / bs
	blob := bs * bits / 8
	for n := range q {
		row := make([]int, kb*blob)
		for k, v := range q[n] {
			if bits == 8 {
				row[k] = v
			} else {
				row[k/2] |= v << (4 * (k % 2))
			}
		}
		for _, v := range row {
			b = append(b, float64(v))
		}
		if zp != nil {
			zrow := make([]int, (kb*bits+7)/8)
			for i, v := range zp[n] {
				if bits == 8 {
					zrow[i] = v
				} else {
					zrow[i/2] |= v << (4 * (i % 2))
				}
			}
			for _, v := range zrow {
				z = append(z, float64(v))
			}
		}
	}
	return b, z
}

func TestContribMatMulNBits(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		K, N, bs, bits, acc int
		zp, bias            bool
		dt                  kernel.DType
	}{
		{32, 3, 16, 4, 0, false, true, kernel.Float32},
		{40, 5, 16, 4, 0, true, false, kernel.Float32},
		{20, 2, 16, 8, 0, true, true, kernel.Float32},
		{64, 3, 32, 8, 1, false, false, kernel.Float16},
		{48, 4, 16, 4, 4, true, true, kernel.Float32},
		{33, 2, 32, 8, 4, false, false, kernel.Float32},
	} {
		kb := (c.K + c.bs - 1) / c.bs
		q := make([][]int, c.N)
		var zps [][]int
		if c.zp {
			zps = make([][]int, c.N)
		}
		for n := range c.N {
			q[n] = make([]int, c.K)
			for k := range q[n] {
				q[n][k] = r.IntN(1 << c.bits)
			}
			if c.zp {
				zps[n] = make([]int, kb)
				for i := range zps[n] {
					zps[n][i] = r.IntN(1 << c.bits)
				}
			}
		}
		a := make([]float64, 2*c.K)
		for i := range a {
			a[i] = float64(kernel.F16ToF32(f64ToF16(4*r.Float64() - 2)))
		}
		scales := make([]float64, c.N*kb)
		for i := range scales {
			scales[i] = float64(1+r.IntN(64)) / 1024
		}
		var bias []float64
		if c.bias {
			bias = make([]float64, c.N)
			for i := range bias {
				bias[i] = float64(r.IntN(16)-8) / 4
			}
		}
		b, z := nbitsPack(q, zps, c.K, c.bs, c.bits)
		in := []*kernel.Tensor{tensor(c.dt, shp(2, int64(c.K)), a...), tensor(kernel.Uint8, shp(int64(c.N), int64(kb), int64(c.bs*c.bits/8)), b...),
			tensor(c.dt, shp(int64(c.N*kb)), scales...)}
		if c.zp {
			in = append(in, tensor(kernel.Uint8, shp(int64(len(z))), z...))
		} else {
			in = append(in, tensor(kernel.Uint8, shp(0)))
		}
		in = append(in, tensor(kernel.Int32, shp(0)))
		if c.bias {
			in = append(in, tensor(c.dt, shp(int64(c.N)), bias...))
		}
		attrs := kernel.Attrs{"K": int64(c.K), "N": int64(c.N), "bits": int64(c.bits), "block_size": int64(c.bs), "accuracy_level": int64(c.acc)}
		out := mustRun(t, "MatMulNBits", attrs, in...)
		want := nbitsRef(a, q, scales, zps, bias, c.K, c.N, c.bs, c.bits)
		if !out.Shape.Equal(kernel.Shape{2, int64(c.N)}) || out.DType != c.dt {
			t.Fatalf("%+v: output %v", c, out)
		}
		for i, w := range want {
			// Level 4 quantizes A to int8: an error of about
			// max|a|/254 per element, times |w|.
			tol := 1e-5 * math.Max(1, math.Abs(w))
			if c.acc == 4 {
				tol = 0.05 * math.Max(1, math.Abs(w))
			} else if c.dt == kernel.Float16 {
				tol = 2e-3 * math.Max(1, math.Abs(w))
			}
			if g := value(out.Data(), c.dt, i); math.Abs(g-w) > tol {
				t.Errorf("%+v: y[%d] = %v, want %v", c, i, g, w)
			}
		}
	}
	base := kernel.Attrs{"K": int64(32), "N": int64(2), "block_size": int64(16)}
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
		{with("bits", int64(2)), "bits"},
		{with("block_size", int64(24)), "block_size"},
		{with("accuracy_level", int64(5)), "accuracy_level"},
		{kernel.Attrs{"N": int64(2), "block_size": int64(16)}, "K"},
		{with("alpha", 1.0), "alpha"},
	} {
		if _, err := Builtins().New("MatMulNBits", c.attrs); err == nil {
			t.Errorf("attributes %v accepted", c.attrs)
		}
	}
	b := tensor(kernel.Uint8, shp(2, 2, 8))
	s := f32(shp(4))
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 31)), b, s}, "K = 32")
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 32)), tensor(kernel.Uint8, shp(2, 16)), s}, "input B")
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 32)), b, f32(shp(3))}, "scales")
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 32)), b, tensor(kernel.Float16, shp(4))}, "scales")
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 32)), b, s, tensor(kernel.Uint8, shp(4))}, "zero_points")
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 32)), b, s, tensor(kernel.Int32, shp(2))}, "zero_points")
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 32)), b, s, tensor(kernel.Uint8, shp(0)), tensor(kernel.Int32, shp(31))}, "g_idx")
	g := make([]float64, 32)
	g[5] = 2
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 32)), b, s, tensor(kernel.Uint8, shp(0)), tensor(kernel.Int32, shp(32), g...)}, "g_idx[5]")
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{f32(shp(3, 32)), b, s, tensor(kernel.Uint8, shp(0)), tensor(kernel.Int32, shp(0)), f32(shp(3))}, "bias")
	b8 := tensor(kernel.Uint8, shp(2, 2, 16))
	wantErr(t, "MatMulNBits", with("bits", int64(8)), []*kernel.Tensor{f32(shp(3, 32)), b8, s, f32(shp(4))}, "bits 4")
	wantErr(t, "MatMulNBits", with("bits", int64(8)), []*kernel.Tensor{f32(shp(3, 32)), b8, s, tensor(kernel.Uint8, shp(0)), tensor(kernel.Int32, shp(32))}, "bits 4")
	wantErr(t, "MatMulNBits", base, []*kernel.Tensor{tensor(kernel.Float64, shp(3, 32)), b, tensor(kernel.Float64, shp(4))}, "dtype")
}

// TestContribMatMulNBitsZeroPointForms checks g_idx and zero points of A's
// type: w = q·scale + (−scale·zp) with the block g_idx gives, and uint8
// zero points read as 8 with g_idx.
func TestContribMatMulNBitsZeroPointForms(t *testing.T) {
	const K, N, bs = 32, 1, 16
	q := [][]int{make([]int, K)}
	for k := range K {
		q[0][k] = (k * 7) % 16
	}
	b, _ := nbitsPack(q, nil, K, bs, 4)
	a := make([]float64, K)
	a[3], a[20] = 1, 1 // y = w[3] + w[20]
	attrs := kernel.Attrs{"K": int64(K), "N": int64(N), "block_size": int64(bs)}
	scales := f32(shp(2), 0.5, 0.25)
	bt := tensor(kernel.Uint8, shp(N, 2, 8), b...)
	w := func(k int, s, zp float64) float64 { return float64(q[0][k])*s - s*zp }
	// Zero points of A's type.
	out := mustRun(t, "MatMulNBits", attrs, f32(shp(1, K), a...), bt, scales, f32(shp(2), 1.5, 3))
	if g, want := value(out.Data(), kernel.Float32, 0), w(3, 0.5, 1.5)+w(20, 0.25, 3); g != want {
		t.Errorf("float zero points: y = %v, want %v", g, want)
	}
	// g_idx swaps the blocks; uint8 zero points are read as 8.
	g := make([]float64, K)
	for k := range K {
		g[k] = float64(1 - k/bs)
	}
	out = mustRun(t, "MatMulNBits", attrs, f32(shp(1, K), a...), bt, scales, tensor(kernel.Uint8, shp(1), 0x21), tensor(kernel.Int32, shp(K), g...))
	if g, want := value(out.Data(), kernel.Float32, 0), w(3, 0.25, 8)+w(20, 0.5, 8); g != want {
		t.Errorf("g_idx: y = %v, want %v", g, want)
	}
}

func TestContribMatMulNBitsAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	rt := func(dt kernel.DType, s ...int64) *kernel.Tensor { return randTensor(r, dt, s) }
	for _, c := range []struct {
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{kernel.Attrs{"K": int64(32), "N": int64(3), "block_size": int64(16)}, []*kernel.Tensor{rt(kernel.Float32, 2, 32), rt(kernel.Uint8, 3, 2, 8), rt(kernel.Float32, 6)}},
		{kernel.Attrs{"K": int64(32), "N": int64(3), "block_size": int64(16), "accuracy_level": int64(4), "bits": int64(8)},
			[]*kernel.Tensor{rt(kernel.Float16, 2, 32), rt(kernel.Uint8, 3, 2, 16), rt(kernel.Float16, 6), rt(kernel.Uint8, 6), tensor(kernel.Int32, shp(0)), rt(kernel.Float16, 3)}},
		{kernel.Attrs{"K": int64(32), "N": int64(3), "block_size": int64(16)}, []*kernel.Tensor{rt(kernel.Float32, 2, 32), rt(kernel.Uint8, 3, 2, 8), rt(kernel.Float32, 6), rt(kernel.Float32, 6)}},
	} {
		k, err := Builtins().New("MatMulNBits", c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		a, err := prepare(k, 0, c.in...)
		if err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(20, func() {
			if err := k.Compute(a); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("MatMulNBits %v: %v allocations per computation", c.attrs, n)
		}
	}
}
