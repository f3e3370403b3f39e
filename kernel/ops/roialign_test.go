package ops

import (
	"fmt"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestRoiAlignEdgeSampleFollowsPrecision: the sampling coordinates round
// in the input's precision, as onnxruntime's do. On an image of ones, the
// region [−1, 2, 3, 8] scaled by 0.8 has a sample at y = 1.6 + 3.2 + 1.2,
// exactly 6 (the image's height) in float32, which is kept: every avg bin
// is 1. In float64 that sample is a little past 6 and dropped: the bottom
// bins are 0.5. float16 computes as float32 does.
func TestRoiAlignEdgeSampleFollowsPrecision(t *testing.T) {
	const h, w = 6, 7
	ones := make([]float64, h*w)
	for i := range ones {
		ones[i] = 1
	}
	for _, opset := range []int64{10, 16} {
		attrs := kernel.Attrs{"opset": opset, "output_height": int64(3), "output_width": int64(2), "sampling_ratio": int64(2),
			"spatial_scale": 0.8, "coordinate_transformation_mode": "output_half_pixel"}
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64} {
			out := mustRun(t, "RoiAlign", attrs, tensor(dt, shp(1, 1, h, w), ones...), tensor(dt, shp(1, 4), -1, 2, 3, 8), i64(shp(1), 0))
			want := []float64{1, 1, 1, 1, 1, 1}
			if dt == kernel.Float64 {
				want[4], want[5] = 0.5, 0.5
			}
			checkClose(t, fmt.Sprintf("RoiAlign opset %d %v", opset, dt), out, shp(1, 1, 3, 2), want, 1e-6)
		}
	}
}

// TestRoiAlignNaNSampleIsZero: a region whose float32 width overflows
// (finite corners 3.4e38 apart) puts its samples at NaN (0 · Inf):
// they count as zero, no pixel is read.
func TestRoiAlignNaNSampleIsZero(t *testing.T) {
	x := f32(shp(1, 1, 2, 2), 1, 2, 3, 4)
	for _, mode := range []string{"avg", "max"} {
		out := mustRun(t, "RoiAlign", kernel.Attrs{"mode": mode, "sampling_ratio": int64(1)}, x, f32(shp(1, 4), -3.4e38, 0, 3.4e38, 1), i64(shp(1), 0))
		checkValues(t, "RoiAlign "+mode, out, shp(1, 1, 1, 1), []float64{0})
	}
	// float64 has the range: the one sample is at (0, 0), pixel 1.
	out := mustRun(t, "RoiAlign", kernel.Attrs{"sampling_ratio": int64(1)}, tensor(kernel.Float64, shp(1, 1, 2, 2), 1, 2, 3, 4),
		tensor(kernel.Float64, shp(1, 4), -3.4e38, 0, 3.4e38, 1), i64(shp(1), 0))
	checkValues(t, "RoiAlign float64", out, shp(1, 1, 1, 1), []float64{1})
}
