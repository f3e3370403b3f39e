package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "GridSample", "RoiAlign")
}

// pixelSet is a set of (row, column) pixels.
type pixelSet map[[2]int64]bool

// gridFootprint is the set of pixels of an h×w image that ONNX's reference
// GridSample reads for the point (gx, gy) of the grid: the nearest one,
// the 2×2 around it (bilinear) or the 4×4 (bicubic), every one read even
// at weight 0, each through the padding (zeros: none outside the image;
// border: clamped; reflection: folded).
func gridFootprint(mode, pad string, align bool, gx, gy float64, h, w int64) pixelSet {
	size := [2]int64{w, h}
	var pt [2]float64
	var lo, hi [2]float64
	for d, g := range []float64{gx, gy} {
		l := float64(size[d])
		lo[d], hi[d] = -0.5, l-0.5
		if align {
			lo[d], hi[d] = 0, l-1
			pt[d] = (g + 1) / 2 * (l - 1)
		} else {
			pt[d] = (float64((g+1)*l) - 1) / 2
		}
		if mode == "nearest" {
			pt[d] = math.RoundToEven(pt[d])
		}
		if pt[d] < lo[d] || pt[d] > hi[d] {
			switch pad {
			case "border":
				if mode != "bicubic" { // bicubic clamps its pixels, below
					pt[d] = max(0, min(l-1, pt[d]))
				}
			case "reflection":
				pt[d] = reflect(pt[d], lo[d], hi[d])
			}
		}
	}
	var first, n int64
	switch mode {
	case "nearest":
		first, n = 0, 1
	case "bilinear":
		first, n = 0, 2
	default:
		first, n = -1, 4
	}
	out := pixelSet{}
	for i := range n {
		for j := range n {
			r, c := int64(math.Floor(pt[1]))+first+i, int64(math.Floor(pt[0]))+first+j
			if mode == "nearest" {
				r, c = int64(pt[1]), int64(pt[0])
			}
			switch pad {
			case "zeros":
				if r < 0 || r >= h || c < 0 || c >= w {
					continue
				}
			case "border":
				r, c = max(0, min(h-1, r)), max(0, min(w-1, c))
			default:
				r, c = int64(reflect(float64(r), lo[1], hi[1])), int64(reflect(float64(c), lo[0], hi[0]))
			}
			out[[2]int64{r, c}] = true
		}
	}
	return out
}

// checkFootprint runs op with a NaN at each pixel of x in turn: the outputs
// whose footprint holds the pixel are NaN, the others the same bits as
// without it.
func checkFootprint(t *testing.T, name, op string, attrs kernel.Attrs, dt kernel.DType, x []uint64, h, w int64, rest []*kernel.Tensor, foot func(out int) pixelSet) {
	t.Helper()
	run := func(xb []uint64) *kernel.Tensor {
		out, err := runOp(op, attrs, append([]*kernel.Tensor{bitsTensor(dt, shp(1, 1, h, w), xb)}, rest...)...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out[0]
	}
	base := run(x)
	bb := tensorBits(base)
	for r := range h {
		for c := range w {
			xb := append([]uint64(nil), x...)
			xb[r*w+c] = refBits(dt, math.NaN())
			want := append([]uint64(nil), bb...)
			for i := range want {
				if foot(i)[[2]int64{r, c}] {
					want[i] = refBits(dt, math.NaN())
				}
			}
			checkBits(t, fmt.Sprintf("%s NaN at (%d, %d)", name, r, c), run(xb), dt, base.Shape, want, false, func(i int) string { return fmt.Sprint("output ", i) })
		}
	}
}

// TestSpecialGridSample: a NaN pixel reaches exactly the outputs whose
// sampling footprint (gridFootprint) holds it, in every mode, padding and
// alignment, for points inside, on the edges of and outside the image;
// the other outputs keep their bits.
func TestSpecialGridSample(t *testing.T) {
	const h, w = 3, 4
	coords := []float64{-1.4, -1, -0.6, -0.25, 0, 0.3, 0.5, 1, 1.2}
	var grid []float64
	for _, gy := range coords {
		for _, gx := range coords {
			grid = append(grid, gx, gy)
		}
	}
	p := int64(len(grid) / 2)
	for _, dt := range sweepFloats {
		x := make([]uint64, h*w)
		for i := range x {
			x[i] = refBits(dt, float64(i+1)/4)
		}
		g := tensor(dt, shp(1, p, 1, 2), grid...)
		for _, mode := range []string{"nearest", "bilinear", "bicubic"} {
			for _, pad := range []string{"zeros", "border", "reflection"} {
				for _, align := range []int64{0, 1} {
					attrs := kernel.Attrs{"mode": mode, "padding_mode": pad, "align_corners": align}
					gv := func(i int) float64 { return refValue(dt, refBits(dt, grid[i])) }
					checkFootprint(t, fmt.Sprintf("GridSample%v/%v", attrs, dt), "GridSample", attrs, dt, x, h, w, []*kernel.Tensor{g}, func(i int) pixelSet {
						return gridFootprint(mode, pad, align == 1, gv(2*i), gv(2*i+1), h, w)
					})
				}
			}
		}
	}
}

// TestSpecialRoiAlign: a NaN pixel reaches exactly the output bins whose
// samples read it (the 2×2 pixels around each sample, clamped to the
// image, as ONNX's reference reads them, weight 0 or not), in avg and max
// mode, for regions inside, across the edge of and beyond the image.
func TestSpecialRoiAlign(t *testing.T) {
	const h, w, oh, ow, ratio = 4, 5, 2, 2, 2
	rois := []float64{0, 0, 4, 3, 1.25, 0.5, 3.5, 2.75, -2, -1, 2, 6, 3, 3, 3, 3, 4.5, 0, 9, 4}
	nr := int64(len(rois) / 4)
	for _, dt := range sweepFloats {
		x := make([]uint64, h*w)
		for i := range x {
			x[i] = refBits(dt, float64(i+1)/4)
		}
		for _, mode := range []string{"avg", "max"} {
			attrs := kernel.Attrs{"mode": mode, "output_height": int64(oh), "output_width": int64(ow), "sampling_ratio": int64(ratio)}
			rest := []*kernel.Tensor{tensor(dt, shp(nr, 4), rois...), tensor(kernel.Int64, shp(nr))}
			checkFootprint(t, fmt.Sprintf("RoiAlign %s/%v", mode, dt), "RoiAlign", attrs, dt, x, h, w, rest, func(i int) pixelSet {
				r, ph, pw := int64(i)/(oh*ow), int64(i)/ow%oh, int64(i)%ow
				rv := func(j int64) float64 { return refValue(dt, refBits(dt, rois[4*r+j])) - 0.5 }
				x1, y1, x2, y2 := rv(0), rv(1), rv(2), rv(3)
				bh, bw := (y2-y1)/oh, (x2-x1)/ow
				out := pixelSet{}
				for iy := range int64(ratio) {
					y := y1 + float64(float64(ph)*bh) + float64((float64(iy)+0.5)*bh)/ratio
					for ix := range int64(ratio) {
						xx := x1 + float64(float64(pw)*bw) + float64((float64(ix)+0.5)*bw)/ratio
						if y < -1 || y > h || xx < -1 || xx > w {
							continue
						}
						yl, xl := int64(max(y, 0)), int64(max(xx, 0))
						yh, xh := min(yl+1, h-1), min(xl+1, w-1)
						yl, xl = min(yl, h-1), min(xl, w-1)
						for _, p := range [][2]int64{{yl, xl}, {yl, xh}, {yh, xl}, {yh, xh}} {
							out[p] = true
						}
					}
				}
				return out
			})
		}
	}
	// A NaN or infinite coordinate (or one whose scaled sum overflows) is
	// an error, as in ONNX's reference, not a pixel index out of range.
	x := tensor(kernel.Float32, shp(1, 1, 2, 2), 1, 2, 3, 4)
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat32} {
		for j := range 4 {
			r := []float64{0, 0, 1, 1}
			r[j] = v
			for _, ratio := range []int64{0, 1} {
				if v == math.MaxFloat32 && ratio == 0 {
					continue // finite, but ⌈size/bins⌉ samples: too many to run
				}
				_, err := runOp("RoiAlign", kernel.Attrs{"sampling_ratio": ratio}, x, tensor(kernel.Float32, shp(1, 4), r...), tensor(kernel.Int64, shp(1)))
				if (err == nil) != (v == math.MaxFloat32) {
					t.Errorf("RoiAlign rois %v sampling_ratio %d: error %v", r, ratio, err)
				}
			}
		}
	}
}
