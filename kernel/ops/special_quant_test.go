package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "MatMulInteger", "ConvInteger", "QLinearMatMul", "QLinearConv")
}

// qExtremes are the int8 and uint8 values the quantized sweep runs: both
// ends of the range, zero and its neighbours.
var qExtremes = map[kernel.DType][]int64{
	kernel.Int8:  {-128, -127, -1, 0, 1, 127},
	kernel.Uint8: {0, 1, 127, 128, 254, 255},
}

func qTensor(dt kernel.DType, shape []int64, v []int64) *kernel.Tensor {
	b := make([]uint64, len(v))
	for i, x := range v {
		b[i] = uint64(uint8(x))
	}
	return bitsTensor(dt, shape, b)
}

// qScales are the float32 scales the QLinear ops run: ONNX does not
// require them positive or normal, so subnormal, negative and huge ones
// too (a product that overflows saturates). Zero and non-finite scales
// are left out: y = acc·(a_scale·b_scale/y_scale) is then 0·Inf or a
// NaN, and ONNX's reference casts that NaN to an integer, which numpy
// leaves undefined.
var qScales = []float32{1, 0.5, 3, -0.25, 0x1p-149, 0x1p-126, 0x1.fffffcp-127, math.MaxFloat32, 1e-30, 1e30}

// qlinearRef is the spec's requantization, y = saturate(round(x /
// y_scale) + y_zero_point): the float32 scale a_scale·b_scale/y_scale, the
// int32 accumulator times it in float32 (as onnxruntime computes it),
// rounded half to even, plus the zero point, clipped to the output's
// range. (ONNX's Python reference adds the zero point before it rounds,
// in float64: it differs at ties with an odd zero point.) ok is false
// where the product is a NaN.
func qlinearRef(acc int64, as, bs, ys float32, yz int64, dt kernel.DType) (int64, bool) {
	s := as * bs
	s /= ys
	v := float32(acc) * s
	if math.IsNaN(float64(v)) {
		return 0, false
	}
	d := math.RoundToEven(float64(v)) + float64(yz)
	lo, hi := 0.0, 255.0
	if dt == kernel.Int8 {
		lo, hi = -128, 127
	}
	return int64(math.Max(lo, math.Min(hi, d))), true
}

// TestSpecialIntegerProducts: MatMulInteger and ConvInteger on every pair
// of int8/uint8 extremes, with zero points at the extremes too, exact
// against the int64 sum of (a − a_zero_point)·(b − b_zero_point); and
// QLinearMatMul and QLinearConv on the same products with every triple of
// special scales (y_scale among the negative, subnormal and largest ones)
// and output zero points at the extremes, against
// qlinearRef.
func TestSpecialIntegerProducts(t *testing.T) {
	for _, da := range qTypes {
		for _, db := range qTypes {
			xa, xb := qExtremes[da], qExtremes[db]
			n := int64(len(xa))
			// A [n, 2]: row i is (xa[i], xa[n-1-i]); B [2, n]: column j is
			// (xb[j], xb[j]); X [1, 2, n] and W [n, 2, 1] likewise.
			av := make([]int64, 2*n)
			bv := make([]int64, 2*n)
			for i := range n {
				av[2*i], av[2*i+1] = xa[i], xa[n-1-i]
				bv[i], bv[n+i] = xb[i], xb[i]
			}
			xv := make([]int64, 2*n)
			for i := range n {
				xv[i], xv[n+i] = xa[i], xa[n-1-i]
			}
			for _, az := range []int64{xa[0], 0, xa[len(xa)-1]} {
				for _, bz := range []int64{xb[0], xb[len(xb)-1]} {
					acc := make([]int64, n*n)
					for i := range n {
						for j := range n {
							for k := range int64(2) {
								acc[i*n+j] += (av[2*i+k] - az) * (bv[k*n+j] - bz)
							}
						}
					}
					name := fmt.Sprintf("%v×%v zero points %d, %d", da, db, az, bz)
					want := make([]uint64, n*n)
					for i, v := range acc {
						want[i] = uint64(uint32(int32(v)))
					}
					at := func(k int) string { return fmt.Sprintf("row %d column %d", k/int(n), k%int(n)) }
					zA, zB := qTensor(da, nil, []int64{az}), qTensor(db, nil, []int64{bz})
					out, err := runOp("MatMulInteger", nil, qTensor(da, shp(n, 2), av), qTensor(db, shp(2, n), bv), zA, zB)
					if err != nil {
						t.Fatalf("MatMulInteger %s: %v", name, err)
					}
					checkBits(t, "MatMulInteger "+name, out[0], kernel.Int32, shp(n, n), want, true, at)
					// ConvInteger: X [1, 2, n] by W [n, 2, 1]: output channel
					// m at position p is Σ_c (x[c][p] − xz)(w[m][c] − wz),
					// the product above with W's rows B's columns.
					wv := make([]int64, 2*n)
					for m := range n {
						wv[2*m], wv[2*m+1] = xb[m], xb[m]
					}
					out, err = runOp("ConvInteger", nil, qTensor(da, shp(1, 2, n), xv), qTensor(db, shp(n, 2, 1), wv), zA, zB)
					if err != nil {
						t.Fatalf("ConvInteger %s: %v", name, err)
					}
					cwant := make([]uint64, n*n) // [1, m, p]
					for m := range n {
						for p := range n {
							cwant[m*n+p] = want[p*n+m]
						}
					}
					checkBits(t, "ConvInteger "+name, out[0], kernel.Int32, shp(1, n, n), cwant, true, func(k int) string {
						return fmt.Sprintf("channel %d position %d", k/int(n), k%int(n))
					})
					if az == 0 {
						continue // the requantization runs on the extreme zero points
					}
					for _, dy := range qTypes {
						for _, yz := range []int64{qExtremes[dy][0], qExtremes[dy][len(qExtremes[dy])-1]} {
							for _, as := range qScales {
								for _, bs := range qScales {
									for _, ys := range qScales[3:8] {
										sc := func(v float32) *kernel.Tensor { return tensor(kernel.Float32, nil, float64(v)) }
										zY := qTensor(dy, nil, []int64{yz})
										qn := fmt.Sprintf("%s scales %g %g %g, y %v zero point %d", name, as, bs, ys, dy, yz)
										qm, err := runOp("QLinearMatMul", nil, qTensor(da, shp(n, 2), av), sc(as), zA, qTensor(db, shp(2, n), bv), sc(bs), zB, sc(ys), zY)
										if err != nil {
											t.Fatalf("QLinearMatMul %s: %v", qn, err)
										}
										qc, err := runOp("QLinearConv", nil, qTensor(da, shp(1, 2, n), xv), sc(as), zA, qTensor(db, shp(n, 2, 1), wv), sc(bs), zB, sc(ys), zY)
										if err != nil {
											t.Fatalf("QLinearConv %s: %v", qn, err)
										}
										gm, gc := tensorBits(qm[0]), tensorBits(qc[0])
										for i := range n {
											for j := range n {
												w, ok := qlinearRef(acc[i*n+j], as, bs, ys, yz, dy)
												if !ok {
													continue
												}
												if g := int64(uint8(gm[i*n+j])); uint8(g) != uint8(w) {
													t.Fatalf("QLinearMatMul %s: row %d column %d (acc %d): got %d, want %d", qn, i, j, acc[i*n+j], int8OrUint8(dy, g), w)
												}
												if g := int64(uint8(gc[j*n+i])); uint8(g) != uint8(w) {
													t.Fatalf("QLinearConv %s: channel %d position %d (acc %d): got %d, want %d", qn, j, i, acc[i*n+j], int8OrUint8(dy, g), w)
												}
											}
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

func int8OrUint8(dt kernel.DType, b int64) int64 {
	if dt == kernel.Int8 {
		return int64(int8(b))
	}
	return b
}
