package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "SwiGLU")
}

// TestSpecialSwiGLU puts every special value of float32 and float16 at
// every position of A and B, bit for bit against ONNX's definition
// a·sigmoid(alpha·a)·b evaluated in float64 and rounded once (a −∞ gate
// gives NaN, −∞·0, as Swish's does).
func TestSpecialSwiGLU(t *testing.T) {
	base := []float64{0.5, -1, 1.5, 0.25, 1, -2}
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		for _, alpha := range []float64{1, float64(float32(1.702))} {
			for pos := range base {
				for _, s := range sweepBits(dt) {
					bits, x := withSpecial(dt, base, pos, s)
					out, err := runOp("SwiGLU", kernel.Attrs{"alpha": alpha}, bitsTensor(dt, shp(3), bits[0:3]), bitsTensor(dt, shp(3), bits[3:6]))
					if err != nil {
						t.Fatal(err)
					}
					want := make([]float64, 3)
					for i := range want {
						a := x[i]
						want[i] = a * (1 / (1 + math.Exp(-(alpha * a)))) * x[3+i]
					}
					what := fmt.Sprintf("SwiGLU/%v alpha %v, element %d = %s", dt, alpha, pos, showBits(dt, s))
					checkBits(t, what, out[0], dt, shp(3), rounded(dt, want), false, func(i int) string { return fmt.Sprint("output ", i, " of ", x) })
				}
			}
		}
	}
}
