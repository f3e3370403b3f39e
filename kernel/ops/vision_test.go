package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// naiveNMS is NonMaxSuppression as the ONNX specification words it: per
// batch and class, repeatedly take the best remaining box (highest score,
// then lowest index) scoring above the threshold, and drop every remaining
// box overlapping it by more than iou.
func naiveNMS(boxes, scores []float32, b, c, n int, maxOut int64, iou, score float32, hasScore, center bool) []int64 {
	corners := func(bi, i int) [4]float32 {
		v := boxes[(bi*n+i)*4 : (bi*n+i)*4+4]
		if center {
			return [4]float32{v[1] - v[3]/2, v[0] - v[2]/2, v[1] + v[3]/2, v[0] + v[2]/2}
		}
		return [4]float32{min(v[0], v[2]), min(v[1], v[3]), max(v[0], v[2]), max(v[1], v[3])}
	}
	over := func(p, q [4]float32) bool {
		h := min(p[2], q[2]) - max(p[0], q[0])
		w := min(p[3], q[3]) - max(p[1], q[1])
		if h <= 0 || w <= 0 {
			return false
		}
		ap, aq := (p[2]-p[0])*(p[3]-p[1]), (q[2]-q[0])*(q[3]-q[1])
		if ap <= 0 || aq <= 0 || ap+aq-h*w <= 0 {
			return false
		}
		return h*w/(ap+aq-h*w) > iou
	}
	var out []int64
	for bi := range b {
		for ci := range c {
			sc := scores[(bi*c+ci)*n : (bi*c+ci+1)*n]
			alive := make([]bool, n)
			for i := range n {
				alive[i] = !hasScore || sc[i] > score
			}
			for taken := int64(0); taken < maxOut; taken++ {
				best := -1
				for i := range n {
					if alive[i] && (best < 0 || sc[i] > sc[best]) {
						best = i
					}
				}
				if best < 0 {
					break
				}
				out = append(out, int64(bi), int64(ci), int64(best))
				alive[best] = false
				for i := range n {
					if alive[i] && over(corners(bi, best), corners(bi, i)) {
						alive[i] = false
					}
				}
			}
		}
	}
	return out
}

func TestNMSAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := range 400 {
		b, c, n := 1+r.IntN(2), 1+r.IntN(3), r.IntN(14)
		boxes := make([]float32, b*n*4)
		for i := range boxes {
			boxes[i] = float32(r.IntN(21)) / 4
		}
		scores := make([]float32, b*c*n)
		for i := range scores {
			scores[i] = float32(r.IntN(8)) / 8 // ties
		}
		maxOut := int64(r.IntN(n + 2))
		iou := float32(r.IntN(10)) / 9.5
		score := float32(r.IntN(8))/8 - float32(r.IntN(2))/100 // sometimes a tie: strictly above
		hasScore := r.IntN(2) == 0
		center := r.IntN(2) == 0
		in := []*kernel.Tensor{kernel.FromFloat32(boxes, int64(b), int64(n), 4), kernel.FromFloat32(scores, int64(b), int64(c), int64(n)),
			kernel.FromInt64([]int64{maxOut}, 1), kernel.FromFloat32([]float32{iou}, 1)}
		if hasScore {
			in = append(in, kernel.FromFloat32([]float32{score}))
		}
		attrs := kernel.Attrs{}
		if center {
			attrs["center_point_box"] = int64(1)
		}
		got := mustRun(t, "NonMaxSuppression", attrs, in...)
		want := naiveNMS(boxes, scores, b, c, n, maxOut, iou, score, hasScore, center)
		if !got.Shape.Equal(kernel.Shape{int64(len(want) / 3), 3}) || !slices.Equal(kernel.Int64s(got.Data())[:len(want)], want) {
			t.Fatalf("case %d (b %d c %d n %d max %d iou %g score %g/%v center %v): got %v %v, want %v",
				it, b, c, n, maxOut, iou, score, hasScore, center, got.Shape, kernel.Int64s(got.Data()), want)
		}
	}
}

func TestNMSRejectsBadOperands(t *testing.T) {
	boxes := kernel.New(kernel.Float32, 1, 3, 4)
	scores := kernel.New(kernel.Float32, 1, 2, 3)
	wantErr(t, "NonMaxSuppression", kernel.Attrs{"center_point_box": int64(2)}, nil, "center_point_box")
	wantErr(t, "NonMaxSuppression", nil, []*kernel.Tensor{kernel.New(kernel.Float32, 1, 3, 5), scores}, "boxes")
	wantErr(t, "NonMaxSuppression", nil, []*kernel.Tensor{boxes, kernel.New(kernel.Float32, 1, 2, 4)}, "scores")
	wantErr(t, "NonMaxSuppression", nil, []*kernel.Tensor{boxes, kernel.New(kernel.Int64, 1, 2, 3)}, "scores", "dtype")
	wantErr(t, "NonMaxSuppression", nil, []*kernel.Tensor{boxes, scores, kernel.FromInt64([]int64{2}, 1), kernel.FromFloat32([]float32{1.5}, 1)}, "iou_threshold")
	wantErr(t, "NonMaxSuppression", nil, []*kernel.Tensor{boxes, scores, kernel.FromInt64([]int64{2, 3}, 2)}, "max_output_boxes_per_class")
}

// TestGridSampleAtPixelCentres: sampling at the pixel centres reproduces
// the image in every mode and padding mode, and a point mirrored about an
// edge reads what its mirror image reads under reflection.
func TestGridSampleAtPixelCentres(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const h, w = 4, 5
	x := randF32(r, 1, 2, h, w)
	for _, align := range []bool{false, true} {
		grid := kernel.New(kernel.Float32, 1, h, w, 2)
		g := kernel.Float32s(grid.Host)
		norm := func(i, n int) float32 {
			if align {
				return 2*float32(i)/float32(n-1) - 1
			}
			return (2*float32(i)+1)/float32(n) - 1
		}
		for i := range h {
			for j := range w {
				g[(i*w+j)*2], g[(i*w+j)*2+1] = norm(j, w), norm(i, h)
			}
		}
		for _, mode := range []string{"nearest", "bilinear", "bicubic"} {
			for _, pad := range []string{"zeros", "border", "reflection"} {
				attrs := kernel.Attrs{"mode": mode, "padding_mode": pad, "align_corners": map[bool]int64{false: 0, true: 1}[align]}
				got := values(mustRun(t, "GridSample", attrs, x, grid))
				for i, v := range values(x) {
					if math.Abs(got[i]-v) > 1e-5 {
						t.Fatalf("%s %s align %v: element %d is %g, want %g", mode, pad, align, i, got[i], v)
					}
				}
			}
		}
		// Mirror pairs under reflection: x and 2·lo − x read the same.
		pair := kernel.New(kernel.Float32, 1, 1, 2, 2)
		lo := float32(-1)
		p := kernel.Float32s(pair.Host)
		p[0], p[1], p[2], p[3] = -0.8, 0.3, 2*lo+0.8, 0.3
		got := values(mustRun(t, "GridSample", kernel.Attrs{"padding_mode": "reflection", "align_corners": map[bool]int64{false: 0, true: 1}[align]}, x, pair))
		for c := range 2 {
			if math.Abs(got[2*c]-got[2*c+1]) > 1e-5 {
				t.Fatalf("align %v channel %d: mirrored points read %g and %g", align, c, got[2*c], got[2*c+1])
			}
		}
	}
	wantErr(t, "GridSample", kernel.Attrs{"mode": "linear"}, nil, "mode")
	wantErr(t, "GridSample", nil, []*kernel.Tensor{x, kernel.New(kernel.Float32, 1, 3, 3, 3)}, "grid")
}

// TestRoiAlignOnARamp: bilinear sampling is exact on a linear image, so
// each avg bin of a region inside the image is the ramp at the bin's
// centre (half_pixel: pixel centres at integer coordinates + 0.5).
func TestRoiAlignOnARamp(t *testing.T) {
	const h, w = 8, 10
	x := kernel.New(kernel.Float64, 1, 1, h, w)
	ramp := func(y, x float64) float64 { return 3*x - 2*y + 1 }
	for i := range h {
		for j := range w {
			kernel.Float64s(x.Host)[i*w+j] = ramp(float64(i), float64(j))
		}
	}
	rois := kernel.New(kernel.Float64, 2, 4)
	copy(kernel.Float64s(rois.Host), []float64{1.5, 1.5, 7.5, 5.5, 2, 2.5, 6, 6.5})
	got := kernel.Float64s(mustRun(t, "RoiAlign", kernel.Attrs{"output_height": int64(2), "output_width": int64(3), "sampling_ratio": int64(2)},
		x, rois, kernel.FromInt64([]int64{0, 0}, 2)).Data())
	for r := range 2 {
		v := kernel.Float64s(rois.Host)[4*r : 4*r+4]
		x1, y1, x2, y2 := v[0]-0.5, v[1]-0.5, v[2]-0.5, v[3]-0.5
		for ph := range 2 {
			for pw := range 3 {
				cy := y1 + (float64(ph)+0.5)*(y2-y1)/2
				cx := x1 + (float64(pw)+0.5)*(x2-x1)/3
				if g, want := got[(r*2+ph)*3+pw], ramp(cy, cx); math.Abs(g-want) > 1e-9 {
					t.Fatalf("roi %d bin (%d, %d): %g, want %g", r, ph, pw, g, want)
				}
			}
		}
	}
	wantErr(t, "RoiAlign", nil, []*kernel.Tensor{x, rois, kernel.FromInt64([]int64{0, 1}, 2)}, "batch_indices[1]")
	wantErr(t, "RoiAlign", kernel.Attrs{"mode": "sum"}, nil, "mode")
}

// TestMaxUnpoolUndoesMaxPool: unpooling MaxPool's values at its indices
// puts each maximum back where it was and zeros elsewhere, in the default
// unpooled shape and, with output_shape, in the shape of an input that
// pooling cut short (an odd size, the reason output_shape exists).
func TestMaxUnpoolUndoesMaxPool(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	attrs := kernel.Attrs{"kernel_shape": []int64{2, 2}, "strides": []int64{2, 2}}
	for _, shape := range []kernel.Shape{{2, 3, 4, 6}, {2, 3, 5, 7}} {
		x := randF32(r, shape...)
		pooled, err := runOp("MaxPool", attrs, x)
		if err != nil {
			t.Fatal(err)
		}
		in := []*kernel.Tensor{pooled[0], pooled[1]}
		odd := shape[2]%2 == 1
		if odd {
			in = append(in, kernel.FromInt64(shape, 4))
		}
		y := mustRun(t, "MaxUnpool", attrs, in...)
		if !y.Shape.Equal(shape) {
			t.Fatalf("%v: shape %v, want %v", shape, y.Shape, shape)
		}
		yv, xv := kernel.Float32s(y.Data()), kernel.Float32s(x.Host)
		kept := 0
		for i, g := range yv {
			row, col := int64(i)/shape[3]%shape[2], int64(i)%shape[3]
			if row >= shape[2]/2*2 || col >= shape[3]/2*2 { // no window covers it
				if g != 0 {
					t.Fatalf("%v: element %d, in no window, is %g", shape, i, g)
				}
				continue
			}
			if g != 0 {
				kept++
				if g != xv[i] {
					t.Fatalf("%v: element %d is %g, want %g", shape, i, g, xv[i])
				}
			}
		}
		if want := int(shape[0] * shape[1] * (shape[2] / 2) * (shape[3] / 2)); kept != want {
			t.Fatalf("%v: %d maxima put back, want %d", shape, kept, want)
		}
	}
}
