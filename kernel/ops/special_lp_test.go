package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "LpNormalization", "LpPool", "GlobalLpPool", "MaxRoiPool")
}

// lpNormRef is (Σ|x|ᵖ)^(1/p), the sum in order, from the definition.
func lpNormRef(x []float64, p int64) float64 {
	var s float64
	for _, v := range x {
		switch p {
		case 1:
			s += math.Abs(v)
		case 2:
			s += float64(v * v)
		default:
			s += math.Pow(math.Abs(v), float64(p))
		}
	}
	switch p {
	case 1:
		return s
	case 2:
		return math.Sqrt(s)
	}
	return math.Pow(s, 1/float64(p))
}

// TestSpecialLp: rows of special values through LpNormalization (over
// each row) and GlobalLpPool (a row per channel), a sequence of them
// through LpPool (windows of two, padded), against the definitions; and
// MaxRoiPool over bins of one and two special values against
// onnxruntime's fold.
func TestSpecialLp(t *testing.T) {
	for _, dt := range sweepFloats {
		rows := normRows(dt)
		r := int64(len(rows))
		x := flatten(rows)
		at := func(i int) string { return fmt.Sprintf("element %d of row %v", i%4, rows[i/4]) }
		for _, p := range []int64{1, 2} {
			name := fmt.Sprintf("LpNormalization p %d/%v", p, dt)
			out, err := runOp("LpNormalization", kernel.Attrs{"p": p}, bitsTensor(dt, shp(r, 4), x))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want := make([]uint64, len(x))
			for i, row := range rows {
				v := make([]float64, 4)
				for j, b := range row {
					v[j] = refValue(dt, b)
				}
				norm := lpNormRef(v, p)
				for j := range v {
					w := 0.0
					if norm != 0 {
						w = v[j] / norm
					}
					want[4*i+j] = refBits(dt, w)
				}
			}
			checkBits(t, name, out[0], dt, shp(r, 4), want, false, at)
		}
		for _, p := range []int64{1, 2, 3} {
			name := fmt.Sprintf("GlobalLpPool p %d/%v", p, dt)
			out, err := runOp("GlobalLpPool", kernel.Attrs{"p": p}, bitsTensor(dt, shp(1, r, 2, 2), x))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want := make([]uint64, r)
			for i, row := range rows {
				v := make([]float64, 4)
				for j, b := range row {
					v[j] = refValue(dt, b)
				}
				want[i] = refBits(dt, lpNormRef(v, p))
			}
			checkBits(t, name, out[0], dt, shp(1, r, 1, 1), want, false, func(i int) string { return fmt.Sprintf("row %v", rows[i]) })
		}
		// LpPool: windows of two over the sweep with one element of padding
		// at each end, the padding adding nothing.
		s := sweepBits(dt)
		n := int64(len(s))
		for _, p := range []int64{1, 2, 3} {
			name := fmt.Sprintf("LpPool p %d/%v", p, dt)
			out, err := runOp("LpPool", kernel.Attrs{"p": p, "kernel_shape": []int64{2}, "pads": []int64{1, 1}, kernel.OpsetAttr: int64(18)}, bitsTensor(dt, shp(1, 1, n), s))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			want := make([]uint64, n+1)
			var win []float64
			for i := range n + 1 {
				win = win[:0]
				for _, j := range []int64{i - 1, i} {
					if j >= 0 && j < n {
						win = append(win, refValue(dt, s[j]))
					}
				}
				want[i] = refBits(dt, lpNormRef(win, p))
			}
			checkBits(t, name, out[0], dt, shp(1, 1, n+1), want, false, func(i int) string {
				return fmt.Sprintf("window %d (elements %d and %d)", i, i-1, i)
			})
		}
		// MaxRoiPool: X [1, 1, 1, n] of the sweep; roi i covers column i
		// alone, roi n+i columns i and i+1.
		var roi []float64
		for i := range n {
			roi = append(roi, 0, float64(i), 0, float64(i), 0)
		}
		for i := range n - 1 {
			roi = append(roi, 0, float64(i), 0, float64(i+1), 0)
		}
		nr := int64(len(roi) / 5)
		out, err := runOp("MaxRoiPool", kernel.Attrs{"pooled_shape": []int64{1, 1}}, bitsTensor(dt, shp(1, 1, 1, n), s), tensor(dt, shp(nr, 5), roi...))
		if err != nil {
			t.Errorf("MaxRoiPool/%v: %v", dt, err)
			continue
		}
		lowest := -math.MaxFloat32
		if dt == kernel.Float64 {
			lowest = -math.MaxFloat64
		}
		fold := func(v ...float64) float64 {
			m := lowest
			for _, e := range v {
				if !(e < m) {
					m = e
				}
			}
			return m
		}
		want := make([]uint64, nr)
		for i := range n {
			want[i] = refBits(dt, fold(refValue(dt, s[i])))
		}
		for i := range n - 1 {
			want[n+i] = refBits(dt, fold(refValue(dt, s[i]), refValue(dt, s[i+1])))
		}
		checkBits(t, fmt.Sprintf("MaxRoiPool/%v", dt), out[0], dt, shp(nr, 1, 1, 1), want, false, func(i int) string {
			if int64(i) < n {
				return fmt.Sprintf("bin of %s", showBits(dt, s[i]))
			}
			j := int64(i) - n
			return fmt.Sprintf("bin of %s, %s", showBits(dt, s[j]), showBits(dt, s[j+1]))
		})
	}
}
