package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestResizeFloat32RowsMatchPoints: float32 Resize, which interpolates a
// row at a time, gives the bits of the element-by-element interpolation
// the other dtypes take: random modes, coordinate transforms (crop and
// extrapolation included), antialiasing, ranks and scales, against the
// same input in float64 rounded to float32 once.
func TestResizeFloat32RowsMatchPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 31))
	modes := []string{"linear", "cubic", "nearest"}
	coords := []string{"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel", "tf_crop_and_resize", "half_pixel_symmetric"}
	for c := range 200 {
		rank := 1 + r.IntN(4)
		shape := make([]int64, rank)
		scales := make([]float64, rank)
		roi := make([]float64, 2*rank)
		for i := range shape {
			shape[i] = int64(1 + r.IntN(6))
			scales[i] = []float64{1, 1, 0.5, 0.75, 1.5, 2, 2.5, 3}[r.IntN(8)]
			roi[i], roi[rank+i] = 0.1*float64(r.IntN(4)), 1-0.1*float64(r.IntN(4))
		}
		mode := modes[r.IntN(3)]
		antialias := int64(r.IntN(2))
		if mode == "nearest" {
			antialias = 0 // linear and cubic only
		}
		attrs := formAttrs(21, "mode", mode, "coordinate_transformation_mode", coords[r.IntN(len(coords))],
			"antialias", antialias, "exclude_outside", int64(r.IntN(2)), "extrapolation_value", float64(r.IntN(3))-1)
		x32 := randTensor(r, kernel.Float32, shape)
		xv := values(x32)
		x64 := tensor(kernel.Float64, shape, xv...)
		roi32 := f32(shp(int64(2*rank)), roi...)
		sc := f32(shp(int64(rank)), scales...)
		want := values(mustRun(t, "Resize", attrs, x64, roi32, sc))
		got := mustRun(t, "Resize", attrs, x32, roi32, sc)
		for i, v := range values(got) {
			w := float64(float32(want[i]))
			if math.Float32bits(float32(v)) != math.Float32bits(float32(w)) && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Fatalf("case %d, %v on %v by %v: element %d is %v, the float64 path rounded gives %v", c, attrs, shape, scales, i, v, w)
			}
		}
	}
}
