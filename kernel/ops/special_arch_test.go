package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestGridSampleNonFiniteGrid: a NaN or infinite grid coordinate would be
// converted to a pixel index differently on amd64 and arm64. A NaN point
// samples NaN in every mode and padding; an infinite one is out of the
// image under zeros padding (0), clamped to the edge under border padding
// (as a huge finite one is), and NaN under reflection. The other points of
// the grid keep their values.
func TestGridSampleNonFiniteGrid(t *testing.T) {
	x := kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1, 3, 3)
	sample := func(attrs kernel.Attrs, g []float32) []float32 {
		return kernel.Float32s(mustRun(t, "GridSample", attrs, x, kernel.FromFloat32(g, 1, 1, 2, 2)).Data())
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, mode := range []string{"nearest", "bilinear", "bicubic"} {
			for _, pad := range []string{"zeros", "border", "reflection"} {
				attrs := kernel.Attrs{"mode": mode, "padding_mode": pad}
				ref := sample(attrs, []float32{0, 0, 0.5, -0.5})
				for axis := range 2 {
					g := []float32{0, 0, 0.5, -0.5}
					g[axis] = float32(bad)
					got := sample(attrs, g)
					var want float32
					switch {
					case math.IsNaN(bad) || pad == "reflection":
						want = float32(math.NaN())
					case pad == "zeros":
						want = 0
					default: // border: as the huge finite coordinate
						h := []float32{0, 0, 0.5, -0.5}
						h[axis] = float32(math.Copysign(1e30, bad))
						want = sample(attrs, h)[0]
					}
					if math.Float32bits(got[0]) != math.Float32bits(want) && !(math.IsNaN(float64(got[0])) && math.IsNaN(float64(want))) {
						t.Errorf("%s/%s, grid %v: point 0 sampled %v, want %v", mode, pad, g, got[0], want)
					}
					if math.Float32bits(got[1]) != math.Float32bits(ref[1]) {
						t.Errorf("%s/%s, grid %v: point 1 sampled %v, want %v as without the bad point", mode, pad, g, got[1], ref[1])
					}
				}
			}
		}
	}
}

// TestRoiAlignHugeAdaptiveRegionIsAnError: adaptive sampling of a region
// spanning float32's range would take more samples than an int64 holds
// (and loop for ever where the conversion saturates): an error naming the
// region.
func TestRoiAlignHugeAdaptiveRegionIsAnError(t *testing.T) {
	x := kernel.FromFloat32([]float32{1, 2, 3, 4}, 1, 1, 2, 2)
	rois := kernel.FromFloat32([]float32{0, 0, 3.4e38, 3.4e38}, 1, 4)
	idx := kernel.FromInt64([]int64{0}, 1)
	wantErr(t, "RoiAlign", kernel.Attrs{"sampling_ratio": int64(0)}, []*kernel.Tensor{x, rois, idx}, "rois[0]", "adaptive samples")
	// a fixed ratio samples the same region: finite work, no error
	mustRun(t, "RoiAlign", kernel.Attrs{"sampling_ratio": int64(2)}, x, rois, idx)
}
