package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The ops built on the blocked axpy product (Conv, ConvTranspose, Gemm)
// and the recurrent cells (LSTM, GRU, RNN) compute float64 operands in
// float64 and float16 operands in float32. The tests here check the first
// against naive float64 references written from the ONNX definitions, on
// values with float64's full precision and on values beyond float32's
// range, and the second against the float32 results rounded once.

// productCase is one op on float64 operands with its naive reference.
type productCase struct {
	name  string
	op    string
	attrs kernel.Attrs
	in    []*kernel.Tensor
	want  []float64 // the reference's output 0
}

// TestFloat64KernelsComputeInFloat64: each op's float64 result is within
// float64 rounding of the naive float64 reference, where the same op on the
// operands rounded to float32 is not (or is not even finite, for values
// beyond float32's range); a workspace with contents and one without give
// the same bits.
func TestFloat64KernelsComputeInFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(64, 65))
	const tol = 1e-12
	for _, c := range float64Cases(r) {
		t.Run(c.name, func(t *testing.T) {
			got := mustRun(t, c.op, c.attrs, c.in...)
			if got.DType != kernel.Float64 || got.NumElements() != int64(len(c.want)) {
				t.Fatalf("output %v, want %d float64 elements", got, len(c.want))
			}
			for i, w := range c.want {
				if g := loadF(kernel.Float64, got.Data(), int64(i)); !(math.Abs(g-w) <= tol*(1+math.Abs(w))) {
					t.Fatalf("element %d is %v, want %v (tolerance %g)", i, g, w, tol)
				}
			}
			// The same op in float32 misses the reference: the tolerance above
			// tells float64 from float32 computation.
			in32 := make([]*kernel.Tensor, len(c.in))
			for i, x := range c.in {
				if x.DType != kernel.Float64 {
					in32[i] = x
					continue
				}
				in32[i] = kernel.New(kernel.Float32, x.Shape...)
				for j := range x.NumElements() {
					storeF(kernel.Float32, in32[i].Host, j, loadF(kernel.Float64, x.Host, j))
				}
			}
			got32 := mustRun(t, c.op, c.attrs, in32...)
			worst := 0.0
			for i, w := range c.want {
				g := loadF(kernel.Float32, got32.Data(), int64(i))
				worst = max(worst, math.Abs(g-w)/(1+math.Abs(w)))
				if math.IsNaN(g) || math.IsInf(g, 0) {
					worst = math.Inf(1)
				}
			}
			if !(worst > 1e3*tol) {
				t.Errorf("the float32 computation is within %g of the reference: the case does not tell float64 from float32", worst)
			}
			// A workspace with contents (the runtime's) gives the same bits as
			// the kernel's own buffer (a virtual workspace).
			k, err := Builtins().New(c.op, c.attrs)
			if err != nil {
				t.Fatal(err)
			}
			a, err := prepare(k, 1, c.in...)
			if err != nil {
				t.Fatal(err)
			}
			if a.Tiling.Workspace > 0 {
				if a.Workspace, err = testDev.Alloc(a.Tiling.Workspace, true); err != nil {
					t.Fatal(err)
				}
			}
			if err := launch(k, a); err != nil {
				t.Fatal(err)
			}
			for i := range c.want {
				g, w := loadF(kernel.Float64, a.Out[0].Data(), int64(i)), loadF(kernel.Float64, got.Data(), int64(i))
				if math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("with a real workspace: element %d is %v, want %v", i, g, w)
				}
			}
		})
	}
}

// float64Cases are the ops on random float64 operands, some scaled beyond
// float32's range, with their naive references.
func float64Cases(r *rand.Rand) []productCase {
	var cs []productCase
	for _, scale := range []float64{1, 1e30} {
		// Conv: 2 groups, stride 2, pads, bias. With scale 1e30 every
		// product is about 1e60, beyond float32's 3.4e38.
		{
			const n, c, h, w, m, kh, kw, group, stride, pad = 1, 4, 6, 5, 4, 3, 2, 2, 2, 1
			x, X := randF64(r, scale, n, c, h, w)
			wt, W := randF64(r, scale, m, c/group, kh, kw)
			b, B := randF64(r, scale*scale, m)
			oh, ow := (h+2*pad-kh)/stride+1, (w+2*pad-kw)/stride+1
			want := make([]float64, n*m*oh*ow)
			cg, mg := c/group, m/group
			for mi := range m {
				gr := mi / mg
				for y := range oh {
					for z := range ow {
						acc := B[mi]
						for ci := range cg {
							for a := range kh {
								for e := range kw {
									iy, iz := y*stride-pad+a, z*stride-pad+e
									if iy >= 0 && iy < h && iz >= 0 && iz < w {
										acc += X[((gr*cg+ci)*h+iy)*w+iz] * W[((mi*cg+ci)*kh+a)*kw+e]
									}
								}
							}
						}
						want[(mi*oh+y)*ow+z] = acc
					}
				}
			}
			cs = append(cs, productCase{fmt.Sprintf("Conv×%g", scale), "Conv",
				kernel.Attrs{"group": int64(group), "strides": []int64{stride, stride}, "pads": []int64{pad, pad, pad, pad}},
				[]*kernel.Tensor{x, wt, b}, want})
		}
		// ConvTranspose: stride 2 and pads, through col2im.
		{
			const c, ih, iw, mg, kh, kw, stride, pad = 3, 3, 4, 2, 3, 3, 2, 1
			x, X := randF64(r, scale, 1, c, ih, iw)
			wt, W := randF64(r, scale, c, mg, kh, kw)
			b, B := randF64(r, scale*scale, mg)
			oh, ow := stride*(ih-1)+kh-2*pad, stride*(iw-1)+kw-2*pad
			want := make([]float64, mg*oh*ow)
			for mi := range mg {
				for i := range oh * ow {
					want[mi*oh*ow+i] = B[mi]
				}
			}
			for ci := range c {
				for mi := range mg {
					for y := range ih {
						for z := range iw {
							for a := range kh {
								for e := range kw {
									py, pz := y*stride-pad+a, z*stride-pad+e
									if py >= 0 && py < oh && pz >= 0 && pz < ow {
										want[(mi*oh+py)*ow+pz] += X[(ci*ih+y)*iw+z] * W[((ci*mg+mi)*kh+a)*kw+e]
									}
								}
							}
						}
					}
				}
			}
			cs = append(cs, productCase{fmt.Sprintf("ConvTranspose×%g", scale), "ConvTranspose",
				kernel.Attrs{"strides": []int64{stride, stride}, "pads": []int64{pad, pad, pad, pad}},
				[]*kernel.Tensor{x, wt, b}, want})
		}
		// Gemm with transA, transB, alpha, beta and a [N] C.
		for _, trans := range [][2]bool{{false, false}, {true, true}} {
			const m, n, kk = 3, 5, 70 // K beyond one reduction block (64)
			as, bs := shp(m, kk), shp(kk, n)
			if trans[0] {
				as = shp(kk, m)
			}
			if trans[1] {
				bs = shp(n, kk)
			}
			a, A := randF64(r, scale, as...)
			b, B := randF64(r, scale, bs...)
			cc, C := randF64(r, scale*scale, n)
			alpha, beta := 0.5, float64(float32(0.3))
			want := make([]float64, m*n)
			for i := range m {
				for j := range n {
					var acc float64
					for p := range kk {
						av, bv := A[i*kk+p], B[p*n+j]
						if trans[0] {
							av = A[p*m+i]
						}
						if trans[1] {
							bv = B[j*kk+p]
						}
						acc += av * bv
					}
					want[i*n+j] = alpha*acc + beta*C[j]
				}
			}
			cs = append(cs, productCase{fmt.Sprintf("Gemm%v×%g", trans, scale), "Gemm",
				kernel.Attrs{"transA": b2i(trans[0]), "transB": b2i(trans[1]), "alpha": alpha, "beta": beta},
				[]*kernel.Tensor{a, b, cc}, want})
		}
	}
	// The recurrent cells. Scale 1 has float64's full precision; the other
	// pairs inputs below float32's normal range with weights beyond its
	// largest value, so that their products are of order one in float64
	// and Inf or NaN in float32.
	for _, scale := range []float64{1, 1e40} {
		for _, cell := range []string{"LSTM", "GRU", "RNN"} {
			const seq, batch, inSize, h = 3, 2, 4, 3
			g := map[string]int64{"LSTM": 4, "GRU": 3, "RNN": 1}[cell]
			x, X := randF64(r, 1/scale, seq, batch, inSize)
			w, W := randF64(r, scale, 1, g*h, inSize)
			rt, R := randF64(r, 1, 1, g*h, h)
			b, B := randF64(r, 1, 1, 2*g*h)
			h0, H0 := randF64(r, 1, 1, batch, h)
			c0, C0 := randF64(r, 1, 1, batch, h)
			in := []*kernel.Tensor{x, w, rt, b, kernel.New(kernel.Int64, 0), h0} // sequence_lens absent
			if cell == "LSTM" {
				in = append(in, c0)
			}
			want := recurrentRef(cell, X, W, R, B, H0, C0, seq, batch, inSize, h)
			cs = append(cs, productCase{fmt.Sprintf("%s×%g", cell, scale), cell, kernel.Attrs{"hidden_size": int64(h)}, in, want})
		}
	}
	return cs
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// randF64 returns a float64 tensor of normal values times scale, with
// their full float64 precision, and its values.
func randF64(r *rand.Rand, scale float64, shape ...int64) (*kernel.Tensor, []float64) {
	v := make([]float64, kernel.Shape(shape).NumElements())
	for i := range v {
		v[i] = r.NormFloat64() * scale
	}
	return kernel.FromFloat64(v, shape...), v
}

// recurrentRef is ONNX's LSTM (gates i, o, f, c), GRU (z, r, h, with
// linear_before_reset 0) or RNN, forward, default activations, in float64:
// Y [seq, 1, batch, h]. c0 is the LSTM's initial cell state.
func recurrentRef(cell string, X, W, R, B, H0, c0 []float64, seq, batch, in, h int64) []float64 {
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	g := int64(len(W)) / (h * in)
	y := make([]float64, seq*batch*h)
	for b := range batch {
		H := append([]float64(nil), H0[b*h:(b+1)*h]...)
		C := make([]float64, h)
		if cell == "LSTM" {
			copy(C, c0[b*h:(b+1)*h])
		}
		// xw(j) is X·Wᵀ + Wb of gate row j, hr(j, v) v·Rᵀ + Rb.
		for t := range seq {
			xt := X[(t*batch+b)*in : (t*batch+b+1)*in]
			xw := func(j int64) float64 {
				acc := B[j]
				for q := range in {
					acc += xt[q] * W[j*in+q]
				}
				return acc
			}
			hr := func(j int64, v []float64) float64 {
				acc := B[g*h+j]
				for q := range h {
					acc += v[q] * R[j*h+q]
				}
				return acc
			}
			next := make([]float64, h)
			switch cell {
			case "LSTM":
				for j := range h {
					i := sig(xw(j) + hr(j, H))
					o := sig(xw(h+j) + hr(h+j, H))
					f := sig(xw(2*h+j) + hr(2*h+j, H))
					c := math.Tanh(xw(3*h+j) + hr(3*h+j, H))
					C[j] = f*C[j] + i*c
					next[j] = o * math.Tanh(C[j])
				}
			case "GRU":
				rH := make([]float64, h)
				for j := range h {
					rH[j] = sig(xw(h+j)+hr(h+j, H)) * H[j]
				}
				for j := range h {
					z := sig(xw(j) + hr(j, H))
					hh := math.Tanh(xw(2*h+j) + hr(2*h+j, rH))
					next[j] = (1-z)*hh + z*H[j]
				}
			default:
				for j := range h {
					next[j] = math.Tanh(xw(j) + hr(j, H))
				}
			}
			H = next
			copy(y[(t*batch+b)*h:], H)
		}
	}
	return y
}

// TestFloat16KernelsComputeInFloat32 runs the same ops on float16 copies
// of float16-representable float32 operands: the results are the float32
// results rounded once to float16.
func TestFloat16KernelsComputeInFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"Conv", kernel.Attrs{"pads": []int64{1, 1, 1, 1}}, []*kernel.Tensor{randF32(r, 1, 2, 5, 5), randF32(r, 3, 2, 3, 3), randF32(r, 3)}},
		{"ConvTranspose", nil, []*kernel.Tensor{randF32(r, 1, 2, 3, 3), randF32(r, 2, 3, 2, 2)}},
		{"Gemm", kernel.Attrs{"transB": int64(1)}, []*kernel.Tensor{randF32(r, 3, 4), randF32(r, 5, 4), randF32(r, 5)}},
		{"LSTM", kernel.Attrs{"hidden_size": int64(3)}, []*kernel.Tensor{randF32(r, 2, 1, 4), randF32(r, 1, 12, 4), randF32(r, 1, 12, 3)}},
		{"GRU", kernel.Attrs{"hidden_size": int64(3)}, []*kernel.Tensor{randF32(r, 2, 1, 4), randF32(r, 1, 9, 4), randF32(r, 1, 9, 3)}},
		{"RNN", kernel.Attrs{"hidden_size": int64(3)}, []*kernel.Tensor{randF32(r, 2, 1, 4), randF32(r, 1, 3, 4), randF32(r, 1, 3, 3)}},
	} {
		in := make([]*kernel.Tensor, len(c.in))
		for i, x := range c.in {
			// Exactly representable inputs: round through float16 first.
			for j, v := range kernel.Float32s(x.Host) {
				kernel.Float32s(x.Host)[j] = kernel.F16ToF32(kernel.F32ToF16(v))
			}
			in[i] = kernel.New(kernel.Float16, x.Shape...)
			for j, v := range kernel.Float32s(x.Host) {
				storeF(kernel.Float16, in[i].Host, int64(j), float64(v))
			}
		}
		want := mustRun(t, c.op, c.attrs, c.in...)
		got := mustRun(t, c.op, c.attrs, in...)
		if want.NumElements() == 0 || want.Data() == nil {
			t.Fatalf("%s: no reference output", c.op)
		}
		if got.DType != kernel.Float16 || !got.Shape.Equal(want.Shape) {
			t.Fatalf("%s on float16: %v, want float16 %v", c.op, got, want.Shape)
		}
		for j, v := range kernel.Float32s(want.Data())[:want.NumElements()] {
			if g, w := kernel.Uint16s(got.Data())[j], kernel.F32ToF16(v); g != w {
				t.Fatalf("%s on float16: element %d is %#04x, want %#04x", c.op, j, g, w)
			}
		}
	}
}

// TestExpNearOverflow: float64 Exp, Sinh and Cosh are finite up to where
// their results are (e^x to x ≈ 709.78, sinh and cosh to |x| ≈ 710.47),
// within two units in the last place of the exact values; math.Exp's
// amd64 assembly overflows from x ≈ 709.436 on.
func TestExpNearOverflow(t *testing.T) {
	for _, c := range []struct {
		op   string
		x    float64
		want float64 // the exact value rounded (50-digit decimal arithmetic)
	}{
		{"Exp", 709.7, 1.6549840276802644e308},
		{"Exp", 709.78, 1.7928227943945155e308},
		{"Exp", 700, 1.0142320547350045e304},
		{"Sinh", 710, 1.1169973830808555e308},
		{"Sinh", -710, -1.1169973830808555e308},
		{"Cosh", -710, 1.1169973830808555e308},
		{"Exp", 709.79, math.Inf(1)},
		// ln(1 + e^x) keeps e^−x beyond x = 30 (it was dropped: 24 ulp).
		{"Softplus", 30.088, 30.088000000000086},
		{"Softplus", 20, 20.000000002061153},
		{"Cosh", 710.5, math.Inf(1)},
	} {
		got := values(mustRun(t, c.op, nil, tensor(kernel.Float64, shp(1), c.x)))[0]
		if math.IsInf(c.want, 0) || math.IsInf(got, 0) {
			if got != c.want {
				t.Errorf("%s(%v) = %v, want %v", c.op, c.x, got, c.want)
			}
			continue
		}
		if ulps := math.Abs(got-c.want) / (math.Nextafter(math.Abs(c.want), math.Inf(1)) - math.Abs(c.want)); ulps > 2 {
			t.Errorf("%s(%v) = %v, want %v (%.1f ulp away)", c.op, c.x, got, c.want, ulps)
		}
	}
}
