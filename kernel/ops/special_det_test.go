package ops

import (
	"fmt"
	"math"
	"testing"
)

func init() {
	specialOtherOps = append(specialOtherOps, "Det")
}

// luDetRef is numpy.linalg.det, ONNX's reference for Det, written out: LU
// with partial pivoting as LAPACK's getf2 does it (the first largest
// magnitude of the column pivots, a zero pivot leaves its column unscaled
// and the factorisation goes on), the determinant the product of U's
// diagonal with a sign per row swap. numpy answers +0 for a matrix with a
// zero pivot; that holds when every element is finite, but a NaN or an
// infinity makes every term of the determinant's expansion holding it NaN
// (0·NaN, 0·Inf), and the product of the diagonal, which the factorisation
// carried on carries them to, is NaN then too.
func luDetRef(in [][]float64) float64 {
	n := len(in)
	a := make([][]float64, n)
	finite := true
	for i, row := range in {
		a[i] = append([]float64(nil), row...)
		for _, v := range row {
			finite = finite && !math.IsNaN(v) && !math.IsInf(v, 0)
		}
	}
	sign, prod, zero := 1.0, 1.0, false
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if p != c {
			a[p], a[c] = a[c], a[p]
			sign = -sign
		}
		piv := a[c][c]
		zero = zero || piv == 0
		for r := c + 1; r < n; r++ {
			l := a[r][c]
			if piv != 0 {
				l /= piv
			}
			for j := c + 1; j < n; j++ {
				a[r][j] -= float64(l * a[c][j])
			}
		}
		prod = float64(prod * piv)
	}
	if zero && (finite || !math.IsNaN(prod)) {
		return 0
	}
	return sign * prod
}

// TestSpecialDet: every special value at every position of 1×1, 2×2 and
// 3×3 matrices that are regular, have a zero column, become singular in
// the elimination (a zero pivot) or are all zero, bit for bit against
// luDetRef; and a NaN anywhere, or an infinity in a matrix with a zero
// column, gives NaN, as the determinant's expansion does.
func TestSpecialDet(t *testing.T) {
	bases := map[int][][]float64{
		1: {{0}},
		2: {{1, 2, 3, 4}, {0, 1, 0, 2}, {1, 2, 2, 4}, {0, 0, 0, 0}},
		3: {{2, -1, 0, -1, 2, -1, 0, -1, 2}, {0, 1, 2, 0, 3, 4, 0, 5, 6}, {1, 2, 3, 2, 4, 6, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
	}
	for _, dt := range sweepFloats {
		bits := sweepBits(dt)
		for m, bs := range bases {
			var mats [][]uint64
			for _, base := range bs {
				for pos := range base {
					for _, s := range bits {
						mat := make([]uint64, len(base))
						for i, v := range base {
							mat[i] = refBits(dt, v)
						}
						mat[pos] = s
						mats = append(mats, mat)
					}
				}
			}
			var flat []uint64
			for _, mat := range mats {
				flat = append(flat, mat...)
			}
			nm, mm := int64(len(mats)), int64(m)
			out, err := runOp("Det", nil, bitsTensor(dt, shp(nm, mm, mm), flat))
			if err != nil {
				t.Fatalf("Det/%v %dx%d: %v", dt, m, m, err)
			}
			want := make([]uint64, nm)
			rows := make([][][]float64, nm)
			for k, mat := range mats {
				a := make([][]float64, m)
				for i := range m {
					for j := range m {
						a[i] = append(a[i], refValue(dt, mat[i*m+j]))
					}
				}
				rows[k] = a
				want[k] = refBits(dt, luDetRef(a))
			}
			at := func(k int) string { return fmt.Sprint(rows[k]) }
			name := fmt.Sprintf("Det/%v %dx%d", dt, m, m)
			checkBits(t, name, out[0], dt, shp(nm), want, false, at)
			for k, a := range rows {
				got := tensorBits(out[0])[k]
				nan, inf, zeroCol := false, false, false
				for j := range m {
					col := true
					for i := range m {
						nan = nan || math.IsNaN(a[i][j])
						inf = inf || math.IsInf(a[i][j], 0)
						col = col && a[i][j] == 0
					}
					zeroCol = zeroCol || col
				}
				if (nan || inf && zeroCol) && !isNaNBits(dt, got) {
					t.Errorf("%s: %v: got %s, want NaN (the expansion gives %g)", name, a, showBits(dt, got), cofactorDet(a))
				}
			}
		}
	}
}
