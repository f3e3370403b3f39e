package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "BiasGelu", "FastGelu", "QuickGelu", "SkipLayerNormalization",
		"SkipSimplifiedLayerNormalization", "SimplifiedLayerNormalization", "FusedMatMul", "MSRotaryEmbedding")
}

// TestContribGelu checks the GELU family on values against float64
// references, special values included, in float32 and float16.
func TestContribGelu(t *testing.T) {
	xs := []float64{-3, -1, -0.5, 0, 0.25, 1, 2.5, math.Inf(1), math.Inf(-1), math.NaN()}
	bias := []float64{0.5}
	erfGelu := func(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) }
	tanhGelu := func(v float64) float64 {
		return 0.5 * v * (1 + math.Tanh(v*(float64(fastGeluB)+float64(fastGeluC)*v*v)))
	}
	quick := func(a float64) func(float64) float64 {
		return func(v float64) float64 { return v / (1 + math.Exp(-a*v)) }
	}
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		for _, c := range []struct {
			op    string
			attrs kernel.Attrs
			bias  bool
			ref   func(float64) float64
		}{
			{"BiasGelu", nil, false, erfGelu},
			{"BiasGelu", nil, true, erfGelu},
			{"FastGelu", nil, false, tanhGelu},
			{"FastGelu", nil, true, tanhGelu},
			{"QuickGelu", nil, false, quick(float64(float32(1.702)))},
			{"QuickGelu", kernel.Attrs{"alpha": 0.5}, false, quick(0.5)},
		} {
			in := []*kernel.Tensor{tensor(dt, shp(int64(len(xs)), 1), xs...)}
			if c.bias {
				in = append(in, tensor(dt, shp(1), bias...))
			}
			out := mustRun(t, c.op, c.attrs, in...)
			for i, x := range xs {
				v := value(in[0].Data(), dt, i)
				if c.bias {
					v = float64(float32(v) + float32(value(in[1].Data(), dt, 0)))
				}
				want := c.ref(v)
				got := value(out.Data(), dt, i)
				tol := 1e-6
				if dt == kernel.Float16 {
					tol = 1e-3
				}
				switch {
				case math.IsNaN(want) || math.IsInf(want, 0) || math.IsInf(v, 0):
					// tanh and erf saturate: GELU(±Inf) is +Inf or NaN
					// (−Inf·0) as the formula gives.
					if !(math.IsNaN(want) && math.IsNaN(got)) && got != want {
						t.Errorf("%s%v %v(%v): got %v, want %v", c.op, c.attrs, dt, x, got, want)
					}
				case math.Abs(got-want) > tol*math.Max(1, math.Abs(want)):
					t.Errorf("%s%v %v(%v): got %v, want %v", c.op, c.attrs, dt, x, got, want)
				}
			}
		}
	}
	wantErr(t, "BiasGelu", nil, []*kernel.Tensor{f32(shp(2, 3)), f32(shp(2))}, "bias")
	wantErr(t, "FastGelu", nil, []*kernel.Tensor{f32(shp(2, 3)), f32(shp(2, 3))}, "bias")
	wantErr(t, "QuickGelu", nil, []*kernel.Tensor{tensor(kernel.Float64, shp(2))}, "dtype")
	if _, err := Builtins().New("QuickGelu", kernel.Attrs{"beta": 1.0}); err == nil {
		t.Error("QuickGelu takes an unknown attribute")
	}
}

// skipLNRef is SkipLayerNormalization in float64.
func skipLNRef(x, skip, gamma, beta, bias []float64, h int, eps float64, simplified bool) (y, mean, inv, sum []float64) {
	rows := len(x) / h
	for r := range rows {
		s := make([]float64, h)
		var m, sq float64
		for j := range h {
			s[j] = x[r*h+j] + skip[(r*h+j)%len(skip)]
			if bias != nil {
				s[j] += bias[j]
			}
			m += s[j]
			sq += s[j] * s[j]
		}
		m /= float64(h)
		d := math.Sqrt(sq/float64(h) - m*m + eps)
		if simplified {
			d = math.Sqrt(sq/float64(h) + eps)
			mean = append(mean, 0)
		} else {
			mean = append(mean, m)
		}
		inv = append(inv, 1/d)
		for j := range h {
			sum = append(sum, s[j])
			var o float64
			if simplified {
				o = s[j] / d * gamma[j]
			} else {
				o = (s[j] - m) / d * gamma[j]
				if beta != nil {
					o += beta[j]
				}
			}
			y = append(y, o)
		}
	}
	return
}

func TestContribSkipLayerNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(float32(4*r.Float64() - 2))
		}
		return v
	}
	const h = 8
	x, gamma, beta, bias := vals(2*3*h), vals(h), vals(h), vals(h)
	for _, simplified := range []bool{false, true} {
		op := "SkipLayerNormalization"
		if simplified {
			op = "SkipSimplifiedLayerNormalization"
		}
		for _, sk := range [][]int64{{2, 3, h}, {1, 3, h}, {3, h}} {
			skip := vals(int(kernel.Shape(sk).NumElements()))
			in := []*kernel.Tensor{f32(shp(2, 3, h), x...), f32(sk, skip...), f32(shp(h), gamma...)}
			b := beta
			if simplified {
				b = nil
				in = append(in, f32(shp(h), bias...))
			} else {
				in = append(in, f32(shp(h), beta...), f32(shp(h), bias...))
			}
			out, err := runOp(op, kernel.Attrs{"epsilon": 1e-5}, in...)
			if err != nil {
				t.Fatal(err)
			}
			y, mean, inv, sum := skipLNRef(x, skip, gamma, b, bias, h, float64(float32(1e-5)), simplified)
			for name, p := range map[string]struct {
				got  *kernel.Tensor
				want []float64
			}{"output": {out[0], y}, "mean": {out[1], mean}, "inv_std_var": {out[2], inv}, "input_skip_bias_sum": {out[3], sum}} {
				if int(p.got.NumElements()) != len(p.want) {
					t.Fatalf("%s skip %v: %s has %d elements, want %d", op, sk, name, p.got.NumElements(), len(p.want))
				}
				for i, w := range p.want {
					if g := value(p.got.Data(), kernel.Float32, i); math.Abs(g-w) > 1e-5*math.Max(1, math.Abs(w)) {
						t.Errorf("%s skip %v: %s[%d] = %v, want %v", op, sk, name, i, g, w)
					}
				}
			}
			if !out[1].Shape.Equal(kernel.Shape{2, 3, 1}) {
				t.Errorf("%s: mean shape %v", op, out[1].Shape)
			}
		}
		// A NaN poisons its row only.
		xn := append([]float64(nil), x...)
		xn[0] = math.NaN()
		out := mustRun(t, op, nil, f32(shp(2, 3, h), xn...), f32(shp(2, 3, h), x...), f32(shp(h), gamma...))
		for i := range 2 * 3 * h {
			if g := value(out.Data(), kernel.Float32, i); math.IsNaN(g) != (i < h) {
				t.Fatalf("%s: NaN in row 0: output[%d] = %v", op, i, g)
			}
		}
	}
	wantErr(t, "SkipLayerNormalization", nil, []*kernel.Tensor{f32(shp(2, 3, 4)), f32(shp(2, 1, 4)), f32(shp(4))}, "skip")
	wantErr(t, "SkipLayerNormalization", nil, []*kernel.Tensor{f32(shp(1, 2, 3, 4)), f32(shp(1, 2, 3, 4)), f32(shp(4))}, "2 or 3 dimensions")
	wantErr(t, "SkipLayerNormalization", nil, []*kernel.Tensor{f32(shp(2, 4)), f32(shp(2, 4)), f32(shp(3))}, "gamma")
	wantErr(t, "SkipLayerNormalization", nil, []*kernel.Tensor{tensor(kernel.Float64, shp(2, 4)), tensor(kernel.Float64, shp(2, 4)), tensor(kernel.Float64, shp(4))}, "dtype")
}

func TestContribSimplifiedLayerNorm(t *testing.T) {
	x := []float64{1, 2, 3, 4, -1, 0.5, 0, 2}
	out, err := runOp("SimplifiedLayerNormalization", kernel.Attrs{"epsilon": 0.0}, tensor(kernel.Float16, shp(2, 4), x...), f32(shp(4), 1, 2, 1, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	if out[0].DType != kernel.Float32 || !out[1].Shape.Equal(kernel.Shape{2, 1}) {
		t.Fatalf("outputs %v %v", out[0], out[1])
	}
	scale := []float64{1, 2, 1, 0.5}
	for r := range 2 {
		var ss float64
		for j := range 4 {
			ss += x[r*4+j] * x[r*4+j]
		}
		rms := math.Sqrt(ss / 4)
		if g := value(out[1].Data(), kernel.Float32, r); math.Abs(g-1/rms) > 1e-6 {
			t.Errorf("inv_std_var[%d] = %v, want %v", r, g, 1/rms)
		}
		for j := range 4 {
			if g, w := value(out[0].Data(), kernel.Float32, r*4+j), x[r*4+j]/rms*scale[j]; math.Abs(g-w) > 1e-6 {
				t.Errorf("y[%d,%d] = %v, want %v", r, j, g, w)
			}
		}
	}
	wantErr(t, "SimplifiedLayerNormalization", kernel.Attrs{"stash_type": int64(0)}, []*kernel.Tensor{f32(shp(2)), f32(shp(2))}, "stash_type")
	wantErr(t, "SimplifiedLayerNormalization", nil, []*kernel.Tensor{f32(shp(2, 4)), f32(shp(3))}, "scale")
}

func TestContribFusedMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	// ref computes alpha·A'×B' from logical operands built by index maps.
	type op struct {
		a, b    []int64
		attrs   kernel.Attrs
		out     []int64
		aAt     func(a []float64, p, i, k int) float64 // element (i,k) of A' in batch p
		bAt     func(b []float64, p, k, j int) float64
		m, n, k int
	}
	cases := []op{
		{a: shp(2, 3), b: shp(4, 3), attrs: kernel.Attrs{"transB": int64(1), "alpha": 0.5}, out: shp(2, 4), m: 2, n: 4, k: 3,
			aAt: func(a []float64, _, i, k int) float64 { return a[i*3+k] }, bAt: func(b []float64, _, k, j int) float64 { return b[j*3+k] }},
		{a: shp(3, 2), b: shp(3, 4), attrs: kernel.Attrs{"transA": int64(1)}, out: shp(2, 4), m: 2, n: 4, k: 3,
			aAt: func(a []float64, _, i, k int) float64 { return a[k*2+i] }, bAt: func(b []float64, _, k, j int) float64 { return b[k*4+j] }},
		// transBatchA: A [K0=2 (batch moved), B=3, M=4... ]: A physical [2,3,4] is read as [3,2,4]: batch 3, M 2, K 4.
		{a: shp(2, 3, 4), b: shp(3, 4, 5), attrs: kernel.Attrs{"transBatchA": int64(1)}, out: shp(3, 2, 5), m: 2, n: 5, k: 4,
			aAt: func(a []float64, p, i, k int) float64 { return a[i*12+p*4+k] }, bAt: func(b []float64, p, k, j int) float64 { return b[p*20+k*5+j] }},
		// transBatchB with transB: B physical [5,3,4] read as [3,4,5] then its last two swapped: [3,5... ] K=4? B'[p,k,j] = B[j,p,k].
		{a: shp(3, 2, 4), b: shp(5, 3, 4), attrs: kernel.Attrs{"transBatchB": int64(1), "transB": int64(1)}, out: shp(3, 2, 5), m: 2, n: 5, k: 4,
			aAt: func(a []float64, p, i, k int) float64 { return a[p*8+i*4+k] }, bAt: func(b []float64, p, k, j int) float64 { return b[j*12+p*4+k] }},
	}
	for _, c := range cases {
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64, kernel.Float16} {
			at, bt := randTensor(r, dt, c.a), randTensor(r, dt, c.b)
			av := make([]float64, at.NumElements())
			for i := range av {
				av[i] = value(at.Data(), dt, i)
			}
			bv := make([]float64, bt.NumElements())
			for i := range bv {
				bv[i] = value(bt.Data(), dt, i)
			}
			out := mustRun(t, "FusedMatMul", c.attrs, at, bt)
			if !out.Shape.Equal(c.out) {
				t.Fatalf("%v %v×%v: shape %v, want %v", c.attrs, c.a, c.b, out.Shape, c.out)
			}
			alpha := 1.0
			if v, ok := c.attrs["alpha"].(float64); ok {
				alpha = v
			}
			batch := int(out.NumElements()) / (c.m * c.n)
			for p := range batch {
				for i := range c.m {
					for j := range c.n {
						var s float64
						for k := range c.k {
							s += c.aAt(av, p, i, k) * c.bAt(bv, p, k, j)
						}
						want := alpha * s
						got := value(out.Data(), dt, (p*c.m+i)*c.n+j)
						tol := 1e-5
						if dt == kernel.Float16 {
							tol = 4e-3
						}
						if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
							t.Errorf("%v %v %v×%v [%d,%d,%d] = %v, want %v", dt, c.attrs, c.a, c.b, p, i, j, got, want)
						}
					}
				}
			}
		}
	}
	wantErr(t, "FusedMatMul", nil, []*kernel.Tensor{f32(shp(2, 3)), f32(shp(4, 3))}, "inner dimensions")
	wantErr(t, "FusedMatMul", kernel.Attrs{"transBatchA": int64(1)}, []*kernel.Tensor{f32(shp(2, 3, 4)), f32(shp(4, 3))}, "transBatch")
	wantErr(t, "FusedMatMul", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(2, 2)), tensor(kernel.Int32, shp(2, 2))}, "dtype")
}

// TestContribAllocatesNothing: the contrib ops compute without allocating
// in steady state.
func TestContribAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	rt := func(dt kernel.DType, s ...int64) *kernel.Tensor { return randTensor(r, dt, s) }
	f, h := kernel.Float32, kernel.Float16
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"BiasGelu", nil, []*kernel.Tensor{rt(h, 4, 16), rt(h, 16)}},
		{"FastGelu", nil, []*kernel.Tensor{rt(f, 4, 16)}},
		{"QuickGelu", nil, []*kernel.Tensor{rt(f, 4, 16)}},
		{"SkipLayerNormalization", nil, []*kernel.Tensor{rt(h, 2, 3, 16), rt(h, 3, 16), rt(h, 16), rt(h, 16), rt(h, 16)}},
		{"SkipSimplifiedLayerNormalization", nil, []*kernel.Tensor{rt(f, 2, 3, 16), rt(f, 2, 3, 16), rt(f, 16)}},
		{"SimplifiedLayerNormalization", nil, []*kernel.Tensor{rt(h, 2, 3, 16), rt(f, 16)}},
		{"FusedMatMul", kernel.Attrs{"transBatchA": int64(1), "transB": int64(1)}, []*kernel.Tensor{rt(f, 3, 2, 4), rt(f, 2, 5, 4)}},
		{"FusedMatMul", nil, []*kernel.Tensor{rt(h, 4), rt(h, 2, 4, 3)}},
		{"MSRotaryEmbedding", kernel.Attrs{"num_heads": int64(2)}, []*kernel.Tensor{rt(h, 1, 3, 16), i64(shp(1), 1), rt(h, 4, 4), rt(h, 4, 4)}},
	} {
		k, err := Builtins().New(c.op, c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		a, err := prepare(k, 0, c.in...)
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		n := testing.AllocsPerRun(20, func() {
			if err := k.Compute(a); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per computation", c.op, n)
		}
	}
}

// value returns element i of b, of dtype dt, as a float64.
func value(b []byte, dt kernel.DType, i int) float64 { return loadF(dt, b, int64(i)) }

func TestContribRotaryEmbedding(t *testing.T) {
	// One head of 6 elements, 4 of them rotated, at positions 0 and 2 (a
	// start position of 1 for the two tokens would be 1 and 2).
	x := []float64{1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6}
	cos := []float64{1, 1, 0.5, 0.25, 0, -1}
	sin := []float64{0, 0, 0.75, 0.5, 1, 0.5}
	for _, c := range []struct {
		interleaved int64
		pos         *kernel.Tensor
		want        []float64
	}{
		// Not interleaved: pairs (0,2) and (1,3).
		{0, i64(shp(1, 2), 0, 2), []float64{1, 2, 3, 4, 5, 6, 3, 4, -1, 3, -5, -6}},
		// Interleaved: pairs (0,1) and (2,3); positions 1 and 2.
		{1, i64(shp(1), 1), []float64{0.5 - 1.5, 0.75 + 1, 0.25*3 - 0.5*4, 0.5*3 + 0.25*4, 5, 6, 2, -1, 5, 2.5, -5, -6}},
	} {
		out := mustRun(t, "MSRotaryEmbedding", kernel.Attrs{"num_heads": int64(1), "rotary_embedding_dim": int64(4), "interleaved": c.interleaved},
			f32(shp(1, 2, 6), x...), c.pos, f32(shp(3, 2), cos...), f32(shp(3, 2), sin...))
		for i, w := range c.want {
			if g := value(out.Data(), kernel.Float32, i); g != w {
				t.Errorf("interleaved %d: y[%d] = %v, want %v", c.interleaved, i, g, w)
			}
		}
	}
	wantErr(t, "MSRotaryEmbedding", nil, []*kernel.Tensor{f32(shp(1, 2, 4)), i64(shp(1), 2), f32(shp(3, 2)), f32(shp(3, 2))}, "outside the caches")
	wantErr(t, "MSRotaryEmbedding", nil, []*kernel.Tensor{f32(shp(1, 2, 6)), i64(shp(1), 0), f32(shp(3, 2)), f32(shp(3, 2))}, "hidden size")
	if _, err := Builtins().New("MSRotaryEmbedding", kernel.Attrs{"is_packed_batching": int64(1)}); err == nil {
		t.Error("is_packed_batching 1 accepted")
	}
	if _, err := Builtins().New("MSRotaryEmbedding", kernel.Attrs{"rotary_embedding_dim": int64(4)}); err == nil {
		t.Error("rotary_embedding_dim without num_heads accepted")
	}
}
