package ops

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "CenterCropPad", "AffineGrid", "TensorScatter", "DeformConv")
}

// TestSpecialCenterCropPadTensorScatter: the copying ops move special
// values bit for bit (NaN payloads, −0, subnormals) and fill with +0.
func TestSpecialCenterCropPadTensorScatter(t *testing.T) {
	for _, dt := range sweepFloats {
		b := sweepBits(dt)
		n := int64(len(b))
		x := bitsTensor(dt, shp(1, n), b)
		// Pad by 3: one +0 before, two after; crop by 1: the first n−1.
		got := mustRun(t, "CenterCropPad", kernel.Attrs{"axes": []int64{1}}, x, i64(shp(1), float64(n+3)))
		want := append(append([]uint64{0}, b...), 0, 0)
		checkBits(t, fmt.Sprintf("CenterCropPad/%v pad", dt), got, dt, shp(1, n+3), want, true, func(i int) string { return fmt.Sprint("element ", i) })
		got = mustRun(t, "CenterCropPad", kernel.Attrs{"axes": []int64{1}}, x, i64(shp(1), float64(n-1)))
		checkBits(t, fmt.Sprintf("CenterCropPad/%v crop", dt), got, dt, shp(1, n-1), b[:n-1], true, func(i int) string { return fmt.Sprint("element ", i) })

		// The cache holds the values; the update, reversed, is written at
		// 2 (linear) and, two positions wrapping, at n−1 (circular).
		p := bitsTensor(dt, shp(1, n, 1), b)
		r := slices.Clone(b)
		slices.Reverse(r)
		u := bitsTensor(dt, shp(1, 2, 1), r[:2])
		got = mustRun(t, "TensorScatter", nil, p, u, i64(shp(1), 2))
		want = slices.Clone(b)
		want[2], want[3] = r[0], r[1]
		checkBits(t, fmt.Sprintf("TensorScatter/%v linear", dt), got, dt, shp(1, n, 1), want, true, func(i int) string { return fmt.Sprint("position ", i) })
		got = mustRun(t, "TensorScatter", kernel.Attrs{"mode": "circular"}, p, u, i64(shp(1), float64(n-1)))
		want = slices.Clone(b)
		want[n-1], want[0] = r[0], r[1]
		checkBits(t, fmt.Sprintf("TensorScatter/%v circular", dt), got, dt, shp(1, n, 1), want, true, func(i int) string { return fmt.Sprint("position ", i) })
	}
}

// TestSpecialAffineGrid: for each special value v, theta [[v, 1, −v],
// [0.5, v, v]] on a 3×3 grid with align_corners 1 (coordinates −1, 0, 1:
// ±Inf · 0 gives NaN) and a 2×2 one without (±0.5), against the
// definition: θ · (x, y, 1) in float64, each product rounded, then rounded
// once to the dtype.
func TestSpecialAffineGrid(t *testing.T) {
	round := refBits
	for _, dt := range sweepFloats {
		for _, vb := range sweepBits(dt) {
			v := refValue(dt, vb)
			half, one := round(dt, 0.5), round(dt, 1)
			th := bitsTensor(dt, shp(1, 2, 3), []uint64{vb, one, round(dt, -v), half, vb, vb})
			for _, c := range []struct {
				align  bool
				n      int64
				coords []float64
			}{{true, 3, []float64{-1, 0, 1}}, {false, 2, []float64{-0.5, 0.5}}} {
				got := mustRun(t, "AffineGrid", kernel.Attrs{"align_corners": c.align}, th, i64(shp(4), 1, 1, float64(c.n), float64(c.n)))
				var want []uint64
				for _, y := range c.coords {
					for _, x := range c.coords {
						want = append(want, round(dt, mul64(v, x)+mul64(1, y)+(-v)), round(dt, mul64(0.5, x)+mul64(v, y)+v))
					}
				}
				checkBits(t, fmt.Sprintf("AffineGrid/%v, v = %s, align_corners %v", dt, showBits(dt, vb), c.align), got, dt, shp(1, c.n, c.n, 2), want, false,
					func(i int) string { return fmt.Sprintf("point %d, coordinate %d", i/2, i%2) })
			}
		}
	}
}

// TestSpecialDeformConv: a row of special values under a 1×1 kernel of
// weight 1 at zero offsets: each sample is the bilinear form of its four
// corners with weights 1, 0, 0, 0 (a corner outside X counts 0), so a
// special right neighbour turns into NaN through its zero weight (∞·0), as
// in the definition; Y = 0 + 1·sample.
func TestSpecialDeformConv(t *testing.T) {
	for _, dt := range sweepFloats {
		b := sweepBits(dt)
		n := int64(len(b))
		x := bitsTensor(dt, shp(1, 1, 1, n), b)
		got := mustRun(t, "DeformConv", nil, x, tensor(dt, shp(1, 1, 1, 1), 1), tensor(dt, shp(1, 2, 1, n)))
		want := make([]uint64, n)
		for q := range n {
			right := 0.0
			if q+1 < n {
				right = refValue(dt, b[q+1])
			}
			top := mul64(refValue(dt, b[q]), 1) + mul64(right, 0)
			v := mul64(top, 1) + mul64(0, 0)
			want[q] = roundBits(dt, 0+mul64(1, v))
		}
		checkBits(t, fmt.Sprintf("DeformConv/%v", dt), got, dt, shp(1, 1, 1, n), want, false, func(i int) string { return fmt.Sprint("position ", i) })
	}
}

func roundBits(dt kernel.DType, v float64) uint64 { return refBits(dt, v) }
