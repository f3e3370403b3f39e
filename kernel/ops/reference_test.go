package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The tests here check the ONNX ops against naive references written
// straight from the ONNX specification, loop by loop, on random shapes and
// attributes.

func randF32(r *rand.Rand, shape ...int64) *kernel.Tensor {
	t := kernel.New(kernel.Float32, shape...)
	for i := range kernel.Float32s(t.Host) {
		kernel.Float32s(t.Host)[i] = float32(r.NormFloat64())
	}
	return t
}

func closeTo(t *testing.T, what string, got *kernel.Tensor, want []float64, shape kernel.Shape, tol float64) {
	t.Helper()
	if !got.Shape.Equal(shape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape, shape)
	}
	g := values(got)
	for i := range want {
		if math.Abs(g[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s: element %d is %g, want %g", what, i, g[i], want[i])
		}
	}
}

// TestConvAgainstNaive compares Conv with the seven-loop definition on
// random 1-D and 2-D cases: groups, strides, dilations, pads, auto_pad.
func TestConvAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := range 200 {
		nd := 1 + it%2
		group := int64(1 + r.IntN(3))
		cg, mg := int64(1+r.IntN(3)), int64(1+r.IntN(3))
		n := int64(1 + r.IntN(2))
		in := make([]int64, nd)
		k := make([]int64, nd)
		s := make([]int64, nd)
		dl := make([]int64, nd)
		pads := make([]int64, 2*nd)
		for i := range nd {
			k[i] = int64(1 + r.IntN(3))
			s[i] = int64(1 + r.IntN(2))
			dl[i] = int64(1 + r.IntN(2))
			pads[i], pads[nd+i] = int64(r.IntN(2)), int64(r.IntN(2))
			in[i] = (k[i]-1)*dl[i] + 1 + int64(r.IntN(5))
		}
		autoPad := []string{"NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}[r.IntN(5)]
		attrs := kernel.Attrs{"group": group, "strides": s, "dilations": dl, "kernel_shape": k, "auto_pad": autoPad}
		if autoPad == "NOTSET" {
			attrs["pads"] = pads
		} else {
			clear(pads)
		}
		xs := append([]int64{n, cg * group}, in...)
		ws := append([]int64{mg * group, cg}, k...)
		x, w, b := randF32(r, xs...), randF32(r, ws...), randF32(r, mg*group)
		// Output extents and padding, from the specification.
		out := make([]int64, nd)
		for i := range nd {
			ext := (k[i]-1)*dl[i] + 1
			switch autoPad {
			case "SAME_UPPER", "SAME_LOWER":
				out[i] = (in[i] + s[i] - 1) / s[i]
				total := max((out[i]-1)*s[i]+ext-in[i], 0)
				pads[i] = total / 2
				if autoPad == "SAME_LOWER" {
					pads[i] = total - total/2
				}
			default:
				out[i] = (in[i]+pads[i]+pads[nd+i]-ext)/s[i] + 1
			}
		}
		// Unit leading dimensions make 1-D a 2-D case.
		in2, k2, s2, d2, p2, o2 := [2]int64{1, 1}, [2]int64{1, 1}, [2]int64{1, 1}, [2]int64{1, 1}, [2]int64{}, [2]int64{1, 1}
		for i := range nd {
			j := 2 - nd + i
			in2[j], k2[j], s2[j], d2[j], p2[j], o2[j] = in[i], k[i], s[i], dl[i], pads[i], out[i]
		}
		X, W, B := kernel.Float32s(x.Host), kernel.Float32s(w.Host), kernel.Float32s(b.Host)
		c := cg * group
		m := mg * group
		want := make([]float64, n*m*o2[0]*o2[1])
		for ni := range n {
			for mi := range m {
				gr := mi / mg
				for oh := range o2[0] {
					for ow := range o2[1] {
						acc := float64(B[mi])
						for ci := range cg {
							for kh := range k2[0] {
								for kw := range k2[1] {
									ih := oh*s2[0] - p2[0] + kh*d2[0]
									iw := ow*s2[1] - p2[1] + kw*d2[1]
									if ih < 0 || ih >= in2[0] || iw < 0 || iw >= in2[1] {
										continue
									}
									xv := X[((ni*c+gr*cg+ci)*in2[0]+ih)*in2[1]+iw]
									wv := W[((mi*cg+ci)*k2[0]+kh)*k2[1]+kw]
									acc += float64(xv) * float64(wv)
								}
							}
						}
						want[((ni*m+mi)*o2[0]+oh)*o2[1]+ow] = acc
					}
				}
			}
		}
		got := mustRun(t, "Conv", attrs, x, w, b)
		closeTo(t, "Conv", got, want, append(kernel.Shape{n, m}, out...), 1e-5)
	}
}

// TestConvTransposeAgainstNaive compares ConvTranspose with the scatter
// definition: input (i) times kernel (κ) lands on output i·s − pad + κ·d.
func TestConvTransposeAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		group := int64(1 + r.IntN(2))
		cg, mg := int64(1+r.IntN(3)), int64(1+r.IntN(3))
		ih, iw := int64(1+r.IntN(4)), int64(1+r.IntN(4))
		kh, kw := int64(1+r.IntN(3)), int64(1+r.IntN(3))
		sh, sw := int64(1+r.IntN(3)), int64(1+r.IntN(3))
		dh, dw := int64(1+r.IntN(2)), int64(1+r.IntN(2))
		oph, opw := int64(r.IntN(int(max(sh, dh)))), int64(r.IntN(int(max(sw, dw))))
		pt, pl, pb, pr := int64(r.IntN(2)), int64(r.IntN(2)), int64(r.IntN(2)), int64(r.IntN(2))
		oh := sh*(ih-1) + oph + (kh-1)*dh + 1 - pt - pb
		ow := sw*(iw-1) + opw + (kw-1)*dw + 1 - pl - pr
		if oh <= 0 || ow <= 0 {
			continue
		}
		c, m := cg*group, mg*group
		x, w, b := randF32(r, 1, c, ih, iw), randF32(r, c, mg, kh, kw), randF32(r, m)
		attrs := kernel.Attrs{"group": group, "strides": []int64{sh, sw}, "dilations": []int64{dh, dw},
			"output_padding": []int64{oph, opw}, "pads": []int64{pt, pl, pb, pr}}
		X, W, B := kernel.Float32s(x.Host), kernel.Float32s(w.Host), kernel.Float32s(b.Host)
		want := make([]float64, m*oh*ow)
		for mi := range m {
			for i := range oh * ow {
				want[mi*oh*ow+i] = float64(B[mi])
			}
		}
		for ci := range c {
			gr := ci / cg
			for mj := range mg {
				mi := gr*mg + mj
				for y := range ih {
					for xx := range iw {
						for a := range kh {
							for bb := range kw {
								py, px := y*sh-pt+a*dh, xx*sw-pl+bb*dw
								if py < 0 || py >= oh || px < 0 || px >= ow {
									continue
								}
								want[(mi*oh+py)*ow+px] += float64(X[(ci*ih+y)*iw+xx]) * float64(W[((ci*mg+mj)*kh+a)*kw+bb])
							}
						}
					}
				}
			}
		}
		got := mustRun(t, "ConvTranspose", attrs, x, w, b)
		closeTo(t, "ConvTranspose", got, want, kernel.Shape{1, m, oh, ow}, 1e-5)
	}
}

// TestMatMulONNXForms compares MatMul on 1-D and batched operands with
// numpy's matmul written out.
func TestMatMulONNXForms(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ a, b, out kernel.Shape }{
		{kernel.Shape{3}, kernel.Shape{3}, kernel.Shape{}},
		{kernel.Shape{3}, kernel.Shape{3, 4}, kernel.Shape{4}},
		{kernel.Shape{2, 3}, kernel.Shape{3}, kernel.Shape{2}},
		{kernel.Shape{5, 2, 3}, kernel.Shape{3}, kernel.Shape{5, 2}},
		{kernel.Shape{3}, kernel.Shape{5, 3, 4}, kernel.Shape{5, 4}},
		{kernel.Shape{2, 1, 2, 3}, kernel.Shape{4, 3, 2}, kernel.Shape{2, 4, 2, 2}},
		{kernel.Shape{2, 3}, kernel.Shape{3, 3, 4}, kernel.Shape{3, 2, 4}},
	} {
		a, b := randF32(r, c.a...), randF32(r, c.b...)
		// Promote, broadcast, multiply, drop: the numpy rule.
		pa, pb := c.a, c.b
		if len(pa) == 1 {
			pa = kernel.Shape{1, pa[0]}
		}
		if len(pb) == 1 {
			pb = kernel.Shape{pb[0], 1}
		}
		M, K, N := pa[len(pa)-2], pa[len(pa)-1], pb[len(pb)-1]
		batch, err := broadcastAll(pa[:len(pa)-2], pb[:len(pb)-2])
		if err != nil {
			t.Fatal(err)
		}
		var w bcast
		if err := w.set(batch, pa[:len(pa)-2], pb[:len(pb)-2]); err != nil {
			t.Fatal(err)
		}
		A, B := kernel.Float32s(a.Host), kernel.Float32s(b.Host)
		var want []float64
		for range batch.NumElements() {
			oa, ob := w.off[0]*M*K, w.off[1]*K*N
			for i := range M {
				for j := range N {
					var acc float64
					for p := range K {
						acc += float64(A[oa+i*K+p]) * float64(B[ob+p*N+j])
					}
					want = append(want, acc)
				}
			}
			w.next()
		}
		got := mustRun(t, "MatMul", nil, a, b)
		closeTo(t, "MatMul", got, want, c.out, 1e-5)
	}
}

// TestPadAgainstNaive checks Pad's three modes, negative pads included.
func TestPadAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for it := range 300 {
		rank := 1 + r.IntN(3)
		shape := make(kernel.Shape, rank)
		for i := range shape {
			shape[i] = int64(1 + r.IntN(4))
		}
		mode := []string{"constant", "reflect", "edge"}[it%3]
		pads := make([]int64, 2*rank)
		for i := range pads {
			d := shape[i%rank]
			lo := int64(0)
			if mode == "constant" {
				lo = -d / 2
			}
			hi := int64(3)
			if mode == "reflect" {
				hi = d - 1
			}
			pads[i] = lo + int64(r.IntN(int(hi-lo+1)))
		}
		x := randF32(r, shape...)
		out := make(kernel.Shape, rank)
		for i := range out {
			out[i] = shape[i] + pads[i] + pads[rank+i]
		}
		val := float32(r.NormFloat64())
		X := kernel.Float32s(x.Host)
		want := make([]float64, out.NumElements())
		idx := make([]int64, rank)
		for o := range want {
			rem := int64(o)
			for i := rank - 1; i >= 0; i-- {
				idx[i] = rem % out[i]
				rem /= out[i]
			}
			off, inside := int64(0), true
			for i := range rank {
				j := idx[i] - pads[i]
				d := shape[i]
				switch {
				case j >= 0 && j < d:
				case mode == "edge":
					j = min(max(j, 0), d-1)
				case mode == "reflect":
					for j < 0 || j >= d {
						if j < 0 {
							j = -j
						}
						if j >= d {
							j = 2*(d-1) - j
						}
					}
				default:
					inside = false
				}
				off = off*d + j
			}
			if inside {
				want[o] = float64(X[off])
			} else {
				want[o] = float64(val)
			}
		}
		got := mustRun(t, "Pad", kernel.Attrs{"mode": mode}, x, i64(shp(int64(len(pads))), floats64(pads)...), f32(shp(), float64(val)))
		closeTo(t, "Pad "+mode, got, want, out, 0)
	}
}

func floats64(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// TestMatMulOtherDTypes checks MatMul on float64, int32 and int64 with a
// hand-worked product.
func TestMatMulOtherDTypes(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Float64, kernel.Int32, kernel.Int64} {
		a := tensor(kernel.Float32, shp(2, 3), 1, 2, 3, 4, 5, 6)
		b := tensor(kernel.Float32, shp(3, 2), 7, 8, 9, 10, 11, 12)
		conv := func(x *kernel.Tensor) *kernel.Tensor {
			y := kernel.New(dt, x.Shape...)
			for i, v := range kernel.Float32s(x.Host) {
				storeF(dt, y.Host, int64(i), float64(v))
			}
			return y
		}
		got := mustRun(t, "MatMul", nil, conv(a), conv(b))
		want := []float64{58, 64, 139, 154}
		for i, w := range want {
			if v := loadF(dt, got.Data(), int64(i)); v != w || got.DType != dt {
				t.Fatalf("%v: element %d is %g (%v), want %g", dt, i, v, got.DType, w)
			}
		}
	}
}
