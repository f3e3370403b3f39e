package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "Attention")
}

// attentionRef is Attention on one head from its definition: the scores
// q·k scaled, plus the mask; a row whose mask is −∞ throughout has zero
// probabilities, any other the softmax of its scores; each output the
// probability-weighted sum of the values, rounded to float32.
func attentionRef(q, k, v, mask [][]float64) [][]float64 {
	scale := 1 / math.Sqrt(float64(len(q[0])))
	out := make([][]float64, len(q))
	for i, qi := range q {
		s := make([]float64, len(k))
		masked := true
		for j, kj := range k {
			var dot float64
			for e := range qi {
				dot += float64(qi[e] * kj[e])
			}
			s[j] = float64(scale*dot) + mask[i][j]
			masked = masked && math.IsInf(mask[i][j], -1)
		}
		p := make([]float64, len(k))
		if !masked {
			m := math.Inf(-1)
			for _, x := range s {
				if math.IsNaN(x) || math.IsNaN(m) {
					m = math.NaN()
				} else {
					m = math.Max(m, x)
				}
			}
			var sum float64
			for j, x := range s {
				p[j] = math.Exp(x - m)
				sum += p[j]
			}
			for j := range p {
				p[j] /= sum
			}
		}
		out[i] = make([]float64, len(v[0]))
		for e := range out[i] {
			var y float64
			for j := range v {
				y += float64(p[j] * v[j][e])
			}
			out[i][e] = float64(float32(y))
		}
	}
	return out
}

// TestSpecialAttention puts every special float32 value at every position
// of Q, K, V and a float mask (one with a fully masked row, one without),
// bit for bit against attentionRef.
func TestSpecialAttention(t *testing.T) {
	inf := math.Inf(-1)
	bases := [][]float64{
		// Q [2, 2], K [3, 2], V [3, 2], mask [2, 3]
		{0.5, -1, 1.5, 0.25, 1, 0, -0.5, 2, 0.75, -1, 1, 2, 3, -4, 0.5, 6, 0, inf, 0.5, -1, 0, 0},
		{0.5, -1, 1.5, 0.25, 1, 0, -0.5, 2, 0.75, -1, 1, 2, 3, -4, 0.5, 6, inf, inf, inf, 0.25, 0, inf},
	}
	rows := func(x []float64, n int) [][]float64 {
		var r [][]float64
		for i := 0; i < len(x); i += n {
			r = append(r, x[i:i+n])
		}
		return r
	}
	for bi, base := range bases {
		for pos := range base {
			for _, s := range sweepBits(kernel.Float32) {
				x := append([]float64(nil), base...)
				x[pos] = refValue(kernel.Float32, s)
				q, k, v, m := x[0:4], x[4:10], x[10:16], x[16:22]
				in := []*kernel.Tensor{f32(shp(1, 1, 2, 2), q...), f32(shp(1, 1, 3, 2), k...), f32(shp(1, 1, 3, 2), v...), f32(shp(2, 3), m...)}
				out, err := runOp("Attention", nil, in...)
				if err != nil {
					t.Fatal(err)
				}
				ref := attentionRef(rows(q, 2), rows(k, 2), rows(v, 2), rows(m, 3))
				var want []uint64
				for _, r := range ref {
					for _, y := range r {
						want = append(want, refBits(kernel.Float32, y))
					}
				}
				what := fmt.Sprintf("Attention base %d, element %d = %g", bi, pos, x[pos])
				checkBits(t, what, out[0], kernel.Float32, shp(1, 1, 2, 2), want, false, func(i int) string { return fmt.Sprint(x) })
			}
		}
	}
}
