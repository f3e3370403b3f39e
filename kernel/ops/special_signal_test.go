package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix", "DFT", "STFT")
}

// windowTol bounds the float64 error of a window element: the kernel
// evaluates Hann as sin²(πn/N), the ONNX formula's 0.5 − 0.5·cos(2πn/N),
// and the angle's rounding moves the cosine by a few units of 2^-52.
const windowTol = 0x1p-48

// inRounding reports whether got (of dtype dt) is the rounding of a value
// within tol of want: between the roundings of want − tol and want + tol
// (a NaN want wants a NaN). Integer dtypes truncate, as ONNX's Cast does.
func inRounding(dt kernel.DType, got uint64, want, tol float64) bool {
	if math.IsNaN(want) {
		return dt.IsFloat() && isNaNBits(dt, got)
	}
	if !dt.IsFloat() {
		g := float64(int64(got))
		if dt == kernel.Int32 {
			g = float64(int32(got))
		}
		return g == math.Trunc(want-tol) || g == math.Trunc(want+tol)
	}
	g := refValue(dt, got)
	return refValue(dt, refBits(dt, want-tol)) <= g && g <= refValue(dt, refBits(dt, want+tol))
}

// TestSpecialWindows: the three windows at sizes 0, 1, 2, 3 and 1001,
// periodic and symmetric, in every output dtype, against ONNX's formula
// a0 − a1·cos(2πn/N) + a2·cos(4πn/N) in float64 within windowTol, N the
// size (periodic) or the size − 1 (symmetric). A symmetric window of one
// element divides by N = 0: ONNX's function body, its reference and
// onnxruntime all give NaN (0·Inf), and so does the kernel. Size 0 is
// empty.
func TestSpecialWindows(t *testing.T) {
	coef := map[string][3]float64{
		"HannWindow":     {0.5, 0.5, 0},
		"HammingWindow":  {25.0 / 46, 21.0 / 46, 0},
		"BlackmanWindow": {0.42, 0.5, 0.08},
	}
	for op, a := range coef {
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.Int32} {
			for _, periodic := range []int64{0, 1} {
				for _, size := range []int64{0, 1, 2, 3, 1001} {
					if size == 1 && periodic == 0 && !dt.IsFloat() {
						continue // NaN has no integer
					}
					name := fmt.Sprintf("%s/%v periodic %d size %d", op, dt, periodic, size)
					out, err := runOp(op, kernel.Attrs{"output_datatype": dt, "periodic": periodic}, kernel.FromInt64([]int64{size}))
					if err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					if out[0].DType != dt || !out[0].Shape.Equal(shp(size)) {
						t.Errorf("%s: %v %v", name, out[0].DType, out[0].Shape)
						continue
					}
					n := float64(size - 1 + periodic)
					for i, g := range tensorBits(out[0]) {
						x := float64(i)
						want := a[0] - float64(a[1]*math.Cos(2*math.Pi*x/n)) + float64(a[2]*math.Cos(4*math.Pi*x/n))
						if !inRounding(dt, g, want, windowTol) {
							t.Errorf("%s: element %d: got %s, want %g", name, i, showBits(dt, g), want)
						}
					}
				}
			}
		}
	}
}

// melRef is ONNX's reference MelWeightMatrix (onnx/reference/ops/
// op_mel_weight_matrix.py), in float64.
func melRef(bins, dft, rate int64, lo, hi float64) [][]float64 {
	mel := func(hz float64) float64 { return float64(2595 * math.Log10(1+hz/700)) }
	loMel := mel(lo)
	step := (mel(hi) - loMel) / float64(bins+2)
	edge := make([]int64, bins+2)
	for i := range edge {
		hz := 700 * (math.Pow(10, (float64(float64(i)*step)+loMel)/2595) - 1)
		edge[i] = int64(math.Floor(float64(dft+1) * hz / float64(rate)))
	}
	out := make([][]float64, dft/2+1)
	for j := range out {
		out[j] = make([]float64, bins)
	}
	for i := range bins {
		l, c, h := edge[i], edge[i+1], edge[i+2]
		if c == l {
			out[c][i] = 1
		} else {
			for j := l; j <= c; j++ {
				out[j][i] = float64(j-l) / float64(c-l)
			}
		}
		for j := c; j < h; j++ {
			out[j][i] = float64(h-j) / float64(h-c)
		}
	}
	return out
}

// TestSpecialMelWeightMatrix: one and many bins, the smallest DFT lengths,
// the band from −0 or 0 Hz up to the Nyquist rate and an empty band
// (every edge the same bin: each filter is 1 there), in every output
// dtype, bit for bit against melRef.
func TestSpecialMelWeightMatrix(t *testing.T) {
	for _, c := range []struct {
		bins, dft, rate int64
		lo, hi          float64
	}{
		{1, 1, 8000, 0, 4000}, {1, 2, 8000, 0, 4000}, {2, 16, 16000, 0, 8000}, {8, 512, 16000, 0, 8000},
		{8, 512, 16000, math.Copysign(0, -1), 8000}, {4, 64, 8000, 1000, 1000}, {3, 3, 1, 0, 0.5},
	} {
		ref := melRef(c.bins, c.dft, c.rate, c.lo, c.hi)
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.Int32} {
			name := fmt.Sprintf("MelWeightMatrix/%v %+v", dt, c)
			out, err := runOp("MelWeightMatrix", kernel.Attrs{"output_datatype": dt}, kernel.FromInt64([]int64{c.bins}), kernel.FromInt64([]int64{c.dft}),
				kernel.FromInt64([]int64{c.rate}), tensor(kernel.Float32, nil, c.lo), tensor(kernel.Float32, nil, c.hi))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			var want []uint64
			for _, row := range ref {
				for _, v := range row {
					if dt == kernel.Int32 {
						want = append(want, uint64(uint32(int32(v))))
					} else {
						want = append(want, refBits(dt, v))
					}
				}
			}
			checkBits(t, name, out[0], dt, shp(int64(len(ref)), c.bins), want, true, func(i int) string {
				return fmt.Sprintf("bin %d filter %d", i/int(c.bins), i%int(c.bins))
			})
		}
	}
}

// dftRef is the DFT's definition summed term by term in float64 (from
// −0, the sum's identity, so that a sum of −0 terms is −0): bin k of x
// (re, im pairs) is Σ_t x_t·e^(∓2πi·kt/n), the angle reduced mod n.
func dftRef(x []float64, n, bins int64, inverse bool) []float64 {
	sign := -1.0
	if inverse {
		sign = 1
	}
	y := make([]float64, 2*bins)
	for k := range bins {
		re, im := math.Copysign(0, -1), math.Copysign(0, -1)
		for t := range min(int64(len(x)/2), n) {
			ang := sign * 2 * math.Pi * float64(k*t%n) / float64(n)
			c, s := math.Cos(ang), math.Sin(ang)
			re += float64(x[2*t]*c) - float64(x[2*t+1]*s)
			im += float64(x[2*t]*s) + float64(x[2*t+1]*c)
		}
		if inverse {
			re, im = re/float64(n), im/float64(n)
		}
		y[2*k], y[2*k+1] = re, im
	}
	return y
}

// TestSpecialDFT: each special value in turn at each sample of signal 0
// of two (real and complex, in each component), forward, inverse and
// onesided (real only: a complex onesided DFT is refused), the second
// signal a fixed one: signal 0's bins are the rounded dftRef (a NaN
// sample makes every bin NaN, an infinite one every bin infinite or NaN
// as its sum has it, ±0 samples zeros of the sum's signs: signals of +0
// and of −0 take each special value too), signal 1's
// the same bits as in a run without the special value.
func TestSpecialDFT(t *testing.T) {
	const m = 4
	base := []float64{1, -2, 0.5, 3, 0x1p-20, -0.75, 2, 0}
	for _, dt := range sweepFloats {
		for _, comp := range []int64{1, 2} {
			for _, attrs := range []kernel.Attrs{nil, {"inverse": int64(1)}, {"onesided": int64(1)}} {
				inverse, bins := attrs["inverse"] != nil, int64(m)
				if attrs["onesided"] != nil {
					if comp == 2 {
						// A complex signal has no one-sided spectrum.
						wantErr(t, "DFT", attrs, []*kernel.Tensor{tensor(dt, shp(1, m, comp))}, "onesided", "real input")
						continue
					}
					bins = m/2 + 1
				}
				// fill 0 is the fixed signal, 1 all +0, 2 all −0.
				sig := func(s uint64, at int64, fill int) ([]uint64, []float64) {
					b := make([]uint64, m*comp)
					x := make([]float64, 2*m)
					for i := range m * comp {
						v := []float64{base[i], 0, math.Copysign(0, -1)}[fill]
						b[i] = refBits(dt, v)
						if i == at {
							b[i] = s
						}
						x[2*(i/comp)+i%comp] = refValue(dt, b[i])
					}
					return b, x
				}
				name := fmt.Sprintf("DFT%v/%v comp %d", attrs, dt, comp)
				plain, _ := sig(0, -1, 0)
				ref1, err := runOp("DFT", attrs, bitsTensor(dt, shp(1, m, comp), plain))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for fill := range 3 {
					for _, s := range sweepBits(dt) {
						for at := range m * comp {
							b0, x0 := sig(s, at, fill)
							out, err := runOp("DFT", attrs, bitsTensor(dt, shp(2, m, comp), append(b0, plain...)))
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							y := dftRef(x0, m, bins, inverse)
							want := make([]uint64, 0, 4*bins)
							for _, v := range y {
								want = append(want, refBits(dt, v))
							}
							want = append(want, tensorBits(ref1[0])...)
							checkBits(t, fmt.Sprintf("%s %s at %d (fill %d)", name, showBits(dt, s), at, fill), out[0], dt, shp(2, bins, 2), want, false, func(i int) string {
								return fmt.Sprintf("signal %d bin %d part %d", i/int(2*bins), i/2%int(bins), i%2)
							})
						}
					}
				}
			}
		}
	}
}

// TestSpecialSTFT: each special value at each sample of a real signal of
// 8 samples in frames of 4 every 2, windowed by a fixed window or not: the
// frames holding the sample are the rounded dftRef of their windowed
// samples (a NaN making all their bins NaN), the other frames the same
// bits as without it; a NaN in the window makes every frame NaN.
func TestSpecialSTFT(t *testing.T) {
	const l, step, length = 8, 2, 4
	base := []float64{1, -2, 0.5, 3, 0x1p-20, -0.75, 2, 0}
	win := []float64{0.25, 1, 0.5, 0}
	frames, bins := int64((l-length)/step+1), int64(length/2+1)
	for _, dt := range sweepFloats {
		for _, windowed := range []bool{false, true} {
			in := func(b []uint64) []*kernel.Tensor {
				t := []*kernel.Tensor{bitsTensor(dt, shp(1, l, 1), b), kernel.FromInt64([]int64{step})}
				if windowed {
					wb := make([]uint64, length)
					for i, v := range win {
						wb[i] = refBits(dt, v)
					}
					return append(t, bitsTensor(dt, shp(length), wb))
				}
				return append(t, kernel.New(dt, 0), kernel.FromInt64([]int64{length}))
			}
			name := fmt.Sprintf("STFT/%v windowed %v", dt, windowed)
			plain := make([]uint64, l)
			for i, v := range base {
				plain[i] = refBits(dt, v)
			}
			ref, err := runOp("STFT", nil, in(plain)...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			refb := tensorBits(ref[0])
			for _, s := range sweepBits(dt) {
				for at := range int64(l) {
					b := append([]uint64(nil), plain...)
					b[at] = s
					out, err := runOp("STFT", nil, in(b)...)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					want := append([]uint64(nil), refb...)
					for f := range frames {
						if at < f*step || at >= f*step+length {
							continue
						}
						x := make([]float64, 2*length)
						for i := range int64(length) {
							w := 1.0
							if windowed {
								w = refValue(dt, refBits(dt, win[i]))
							}
							x[2*i] = float64(w * refValue(dt, b[f*step+i]))
						}
						for i, v := range dftRef(x, length, bins, false) {
							want[f*bins*2+int64(i)] = refBits(dt, v)
						}
					}
					checkBits(t, fmt.Sprintf("%s %s at %d", name, showBits(dt, s), at), out[0], dt, shp(1, frames, bins, 2), want, false, func(i int) string {
						return fmt.Sprintf("frame %d bin %d part %d", i/int(2*bins), i/2%int(bins), i%2)
					})
				}
			}
		}
	}
}
