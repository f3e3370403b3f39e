package ops

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// visionOps are ONNX's detection post-processing and sampling ops.
var visionOps = []builtin{
	{"NonMaxSuppression", newNMS},
	{"GridSample", newGridSample},
	{"RoiAlign", newRoiAlign},
	{"MaxUnpool", newMaxUnpool},
}

// NonMaxSuppression(boxes, scores[, max_output_boxes_per_class[,
// iou_threshold[, score_threshold]]]) (center_point_box 0) selects, per
// batch entry and class, boxes in descending score order (ties by lower
// box index), skipping a box whose IoU with one already selected in the
// class exceeds iou_threshold, and boxes scoring at most score_threshold,
// until max_output_boxes_per_class are selected. boxes are [B, N, 4]
// float32, as [y1, x1, y2, x2] (any two opposite corners), or as
// [x_center, y_center, width, height] with center_point_box 1; scores are
// [B, C, N]. Absent, max_output_boxes_per_class is 0 (nothing is
// selected), iou_threshold 0, and no score threshold applies. The output
// is int64 [selected, 3], rows (batch, class, box) in batch, class and
// selection order.
//
// The three scalar inputs are value dependencies (the output bound
// B·C·min(N, max) needs the first); the op is compute dependent, with
// OutputShapes the real row count. On virtual data the model is
// mix(Seed) mod (bound+1) rows.
//
// Tiling (words): 0 B  1 C  2 N  3 max per class. Workspace: none; the
// kernel keeps its candidate list. Cost: C·N·log2 N for the sorts and
// max·N IoUs per class; bytes of the inputs and the output bound.
type nms struct {
	center bool
	// The last Compute's row count, and its scratch.
	count int64
	have  bool
	cand  []int32
	sel   []int32
}

func newNMS(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("center_point_box"); err != nil {
		return nil, wrapAttr(err)
	}
	c, err := attrs.Int("center_point_box", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if c != 0 && c != 1 {
		return nil, fmt.Errorf("ops: NonMaxSuppression: center_point_box %d, want 0 or 1", c)
	}
	s := sig{op: "NonMaxSuppression", minIn: 2, maxIn: 5, nOut: 1, deps: kernel.Deps{Value: []int{2, 3, 4}, Compute: true}}
	return newKernel(s, &nms{center: c == 1}), nil
}

// params checks the operands and returns B, C, N and the selection limits.
func (k *nms) params(in []*kernel.Tensor) (b, c, n, maxOut int64, iou, score float64, hasScore bool, err error) {
	boxes, scores := in[0], in[1]
	if err = dtypeIn(boxes, "boxes", kernel.Float32); err != nil {
		return
	}
	if err = dtypeIn(scores, "scores", kernel.Float32); err != nil {
		return
	}
	if boxes.Shape.Rank() != 3 || boxes.Shape[2] != 4 {
		err = fmt.Errorf("boxes %v: want [batches, boxes, 4]", boxes.Shape)
		return
	}
	b, n = boxes.Shape[0], boxes.Shape[1]
	if scores.Shape.Rank() != 3 || scores.Shape[0] != b || scores.Shape[2] != n {
		err = fmt.Errorf("scores %v: want [%d, classes, %d] for boxes %v", scores.Shape, b, n, boxes.Shape)
		return
	}
	c = scores.Shape[1]
	if len(in) > 2 && in[2].NumElements() > 0 {
		var l ints
		if l, err = valueInts(in[2], "max_output_boxes_per_class", 1); err != nil {
			return
		}
		if l.n != 1 {
			err = fmt.Errorf("max_output_boxes_per_class has %d elements, want 1", l.n)
			return
		}
		maxOut = max(l.at(0), 0)
	}
	if len(in) > 3 && in[3].NumElements() > 0 {
		if iou, err = valueFloat(in[3], "iou_threshold"); err != nil {
			return
		}
		if iou < 0 || iou > 1 {
			err = fmt.Errorf("iou_threshold %g is outside [0, 1]", iou)
			return
		}
	}
	if len(in) > 4 && in[4].NumElements() > 0 {
		if score, err = valueFloat(in[4], "score_threshold"); err != nil {
			return
		}
		hasScore = true
	}
	return
}

// valueFloat reads the single value of float input t, named name in errors,
// from Host (a value dependency) or the device contents.
func valueFloat(t *kernel.Tensor, name string) (float64, error) {
	if err := dtypeIn(t, name, onnxFloats...); err != nil {
		return 0, err
	}
	if t.NumElements() != 1 || t.Shape.Rank() > 1 {
		return 0, fmt.Errorf("input %s %v: want a single value", name, t.Shape)
	}
	b := t.Host
	if b == nil {
		b = t.Data()
	}
	if int64(len(b)) < t.Bytes() {
		return 0, fmt.Errorf("values of input %s are not available: it is virtual", name)
	}
	return loadF(t.DType, b, 0), nil
}

func (k *nms) bound(b, c, n, maxOut int64) int64 { return b * c * min(n, maxOut) }

func (k *nms) infer(in, out []*kernel.Tensor) error {
	b, c, n, maxOut, _, _, _, err := k.params(in)
	if err != nil {
		return err
	}
	s := shapeOf(out[0], 2)
	s[0], s[1] = k.bound(b, c, n, maxOut), 3
	out[0].Shape, out[0].DType = s, kernel.Int64
	return nil
}

func (k *nms) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	b, c, n, maxOut, _, _, _, err := k.params(in)
	if err != nil {
		return 0, err
	}
	if !out[0].Shape.Equal(kernel.Shape{k.bound(b, c, n, maxOut), 3}) {
		return 0, errors.New("output " + out[0].Shape.String() + " is not the bound")
	}
	e.grow(4)
	for _, v := range [...]int64{b, c, n, maxOut} {
		e.put(v)
	}
	return 0, nil
}

func (k *nms) cost(in, out []*kernel.Tensor) device.Cost {
	n := float64(in[0].Shape[1])
	cls := float64(in[1].Shape[0] * in[1].Shape[1])
	return device.Cost{FLOPs: cls * (mul64(n, math.Log2(n+1)) + mul64(float64(out[0].Shape[0]), n)), Bytes: float64(in[0].Bytes() + in[1].Bytes() + out[0].Bytes())}
}

// corners returns box i of boxes as (y1, x1, y2, x2) with y1 ≤ y2, x1 ≤ x2,
// in float64 (a centre ± half a size is then exact).
func (k *nms) corners(boxes []float32, i int64) (y1, x1, y2, x2 float64) {
	v := boxes[4*i : 4*i+4]
	if k.center {
		xc, yc, w, h := float64(v[0]), float64(v[1]), mul64(float64(v[2]), 0.5), mul64(float64(v[3]), 0.5)
		return yc - h, xc - w, yc + h, xc + w
	}
	return float64(min(v[0], v[2])), float64(min(v[1], v[3])), float64(max(v[0], v[2])), float64(max(v[1], v[3]))
}

// overlaps reports whether boxes i and j have an IoU above iou. The IoU
// evaluates in float64, where the extents and areas of float32 boxes
// neither overflow nor underflow: in float32, two equal boxes of
// subnormal size have areas of 0 (no overlap), and two equal boxes
// spanning float32's range have infinite extents (an IoU of NaN), where
// their IoU is 1. The ratio rounds to float32 before the comparison with
// the float32 threshold, as when it is computed in float32 without
// overflow or underflow.
func (k *nms) overlaps(boxes []float32, i, j int64, iou float32) bool {
	ay1, ax1, ay2, ax2 := k.corners(boxes, i)
	by1, bx1, by2, bx2 := k.corners(boxes, j)
	ih, iw := min(ay2, by2)-max(ay1, by1), min(ax2, bx2)-max(ax1, bx1)
	if ih <= 0 || iw <= 0 {
		return false
	}
	inter := mul64(ih, iw)
	a, b := mul64(ay2-ay1, ax2-ax1), mul64(by2-by1, bx2-bx1)
	union := a + b - inter
	if a <= 0 || b <= 0 || union <= 0 {
		return false
	}
	return float32(inter/union) > iou // compared as float32, the threshold's type
}

func (k *nms) compute(a *kernel.Args) error {
	k.have = false
	b, c, n, maxOut, iou, score, hasScore, err := k.params(a.In)
	if err != nil {
		return err
	}
	d := decoder{b: a.Tiling.Data}
	if tb, tc, tn, tm := d.word(), d.word(), d.word(), d.word(); d.bad || tb != b || tc != c || tn != n || tm != maxOut {
		return errTiling
	}
	boxesAll := kernel.Float32s(a.In[0].Data())
	scoresAll := kernel.Float32s(a.In[1].Data())
	out := kernel.Int64s(a.Out[0].Data())
	var rows int64
	p := poller{a: a}
	for bi := range b {
		boxes := boxesAll[bi*n*4 : (bi+1)*n*4]
		for ci := range c {
			sc := scoresAll[(bi*c+ci)*n : (bi*c+ci+1)*n]
			k.cand = k.cand[:0]
			for i := range n {
				if !hasScore || float64(sc[i]) > float64(float32(score)) {
					k.cand = append(k.cand, int32(i))
				}
			}
			slices.SortStableFunc(k.cand, func(x, y int32) int {
				switch {
				case sc[x] > sc[y]:
					return -1
				case sc[x] < sc[y]:
					return 1
				}
				return 0
			})
			k.sel = k.sel[:0]
			for _, i := range k.cand {
				if int64(len(k.sel)) >= maxOut {
					break
				}
				if err := p.add(int64(len(k.sel)) + 1); err != nil {
					return err
				}
				keep := true
				for _, j := range k.sel {
					if k.overlaps(boxes, int64(i), int64(j), float32(iou)) {
						keep = false
						break
					}
				}
				if keep {
					k.sel = append(k.sel, i)
					out[3*rows], out[3*rows+1], out[3*rows+2] = bi, ci, int64(i)
					rows++
				}
			}
		}
	}
	k.count, k.have = rows, true
	return nil
}

func (k *nms) outputShapes(a *kernel.Args) ([]kernel.Shape, error) {
	bound := a.Out[0].Shape[0]
	if !a.Real() {
		return []kernel.Shape{{int64(mix(a.Seed) % uint64(bound+1)), 3}}, nil
	}
	if !k.have {
		return nil, errors.New("output shapes asked before the kernel computed")
	}
	k.have = false
	return []kernel.Shape{{k.count, 3}}, nil
}

// GridSample(X, grid) (mode "bilinear", padding_mode "zeros",
// align_corners 0) samples X [N, C, H, W] at the points of grid
// [N, Ho, Wo, 2] (x then y, normalized to [−1, 1]: the corner pixels'
// centres with align_corners, else their outer edges) into Y [N, C, Ho,
// Wo]. mode "nearest" rounds half to even, "bilinear" weighs the four
// neighbours, "bicubic" the sixteen with Keys' cubic (a = −0.75). Outside
// the image, padding_mode "zeros" reads zeros, "border" clamps the point
// and the pixels to the edge, "reflection" reflects them about the edge
// (the pixel centres with align_corners, else the outer edges). Computed
// in float64 and rounded once.
//
// From opset 20 the modes are "linear" (the default), "nearest" and
// "cubic" (the names before 20 are refused, as onnxruntime does), and X
// may also be volumetric, [N, C, D, H, W] with grid [N, Do, Ho, Wo, 3]
// (x, y then z): "linear" is then trilinear, over the eight neighbours;
// "cubic" takes 4-D input only, as in onnxruntime. Other ranks are
// refused. "cubic" ("bicubic" before opset 20) with "border" clamps the
// pixels only, not the point, at every opset, as onnxruntime and PyTorch
// do (ONNX's reference implementation clamps the point too: results
// differ for points between the last pixel and the border). An X with an
// empty spatial axis is refused: there is no pixel to sample.
func newGridSample(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if err := attrs.Check("mode", "padding_mode", "align_corners"); err != nil {
		return nil, wrapAttr(err)
	}
	linear, cubic := "bilinear", "bicubic"
	maxRank := 4
	if opset >= 20 {
		linear, cubic, maxRank = "linear", "cubic", 5
	}
	mode, err := attrs.String("mode", linear)
	if err != nil {
		return nil, wrapAttr(err)
	}
	pad, err := attrs.String("padding_mode", "zeros")
	if err != nil {
		return nil, wrapAttr(err)
	}
	align, err := flagAttr(attrs, "align_corners", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	switch mode {
	case linear:
		mode = "linear"
	case cubic:
		mode = "cubic"
	case "nearest":
	default:
		return nil, fmt.Errorf("ops: GridSample: mode %q at opset %d, want %s, nearest or %s", mode, opset, linear, cubic)
	}
	if pad != "zeros" && pad != "border" && pad != "reflection" {
		return nil, fmt.Errorf("ops: GridSample: padding_mode %q, want zeros, border or reflection", pad)
	}
	// As onnxruntime (and PyTorch) do it, cubic border padding clamps
	// each of the sixteen pixels, not the point: a point outside the
	// image still weighs the edge pixels and those next to it.
	tapBorder := mode == "cubic"
	k := &simple{flops: 16}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, g := in[0], in[1]
		if err := dtypeIn(x, "X", onnxFloats...); err != nil {
			return err
		}
		if err := dtypeIn(g, "grid", onnxFloats...); err != nil {
			return err
		}
		r := x.Shape.Rank()
		if r < 4 || r > maxRank {
			if maxRank == 4 {
				return fmt.Errorf("input X %v has rank %d: want 4, [N, C, H, W]", x.Shape, r)
			}
			return fmt.Errorf("input X %v has rank %d: want 4, [N, C, H, W], or 5, [N, C, D, H, W]", x.Shape, r)
		}
		if g.Shape.Rank() != r || g.Shape[0] != x.Shape[0] || g.Shape[r-1] != int64(r-2) {
			if r == 4 {
				return fmt.Errorf("inputs X %v and grid %v: want [N, C, H, W] and [N, Ho, Wo, 2]", x.Shape, g.Shape)
			}
			return fmt.Errorf("inputs X %v and grid %v: want [N, C, D, H, W] and [N, Do, Ho, Wo, 3]", x.Shape, g.Shape)
		}
		if r == 5 && mode == "cubic" {
			return fmt.Errorf("mode cubic takes 4-D input, X is %v (onnxruntime has no 5-D cubic)", x.Shape)
		}
		if x.Shape[2:].NumElements() == 0 {
			// No pixel to sample or to pad from (PyTorch refuses it too).
			return fmt.Errorf("input X %v has an empty spatial axis: nothing to sample", x.Shape)
		}
		s := append(kernel.Shape{x.Shape[0], x.Shape[1]}, g.Shape[1:r-1]...)
		setShape(out[0], s, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, g, o := a.In[0], a.In[1], a.Out[0]
		r := x.Shape.Rank()
		dims := r - 2 // spatial dimensions, in grid order: x (innermost), y, z
		n, c := x.Shape[0], x.Shape[1]
		var size [3]int64
		var lo, hi [3]float64
		for d := range dims {
			size[d] = x.Shape[r-1-d]
			lo[d], hi[d] = -0.5, float64(size[d])-0.5
			if align {
				lo[d], hi[d] = 0, float64(size[d]-1)
			}
		}
		image := x.Shape[2:].NumElements()
		points := g.Shape[1 : r-1].NumElements()
		xb, gb, ob := x.Data(), g.Data(), o.Data()
		denorm := func(v float64, l int64) float64 {
			if align {
				return (v + 1) / 2 * float64(l-1)
			}
			return (mul64(v+1, float64(l)) - 1) / 2
		}
		// pixel reads the element at integer coordinates at (x, y, z)
		// through the padding.
		pixel := func(img int64, at [3]int64) float64 {
			off := int64(0)
			for d := dims - 1; d >= 0; d-- {
				v := at[d]
				switch pad {
				case "zeros":
					if v < 0 || v >= size[d] {
						return 0
					}
				case "border":
					v = max(0, min(size[d]-1, v))
				default:
					v = int64(reflect(float64(v), lo[d], hi[d]))
				}
				off = off*size[d] + v
			}
			return loadF(x.DType, xb, img+off)
		}
		// plane interpolates bilinearly in the x-y plane z.
		plane := func(img, x1, y1, z int64, dx1, dy1 float64) float64 {
			dx2, dy2 := 1-dx1, 1-dy1
			return mul64(dy2, mul64(dx2, pixel(img, [3]int64{x1, y1, z}))+mul64(dx1, pixel(img, [3]int64{x1 + 1, y1, z}))) +
				mul64(dy1, mul64(dx2, pixel(img, [3]int64{x1, y1 + 1, z}))+mul64(dx1, pixel(img, [3]int64{x1 + 1, y1 + 1, z})))
		}
		for ni := range n {
			for p := range points {
				gi := (ni*points + p) * int64(dims)
				var pt [3]float64
				finitePt, nanPt := true, false
				for d := range dims {
					pt[d] = denorm(loadF(g.DType, gb, gi+int64(d)), size[d])
					if mode == "nearest" {
						pt[d] = math.RoundToEven(pt[d])
					}
					if pt[d] < lo[d] || pt[d] > hi[d] {
						switch pad {
						case "border":
							if tapBorder {
								// Two pixels out, or further, every
								// pixel clamps to the edge: the point
								// stops there, an infinite one too.
								pt[d] = max(-2, min(float64(size[d]+1), pt[d]))
							} else {
								pt[d] = max(0, min(float64(size[d]-1), pt[d]))
							}
						case "reflection":
							pt[d] = reflect(pt[d], lo[d], hi[d])
						}
					}
					finitePt = finitePt && finite(pt[d])
					nanPt = nanPt || math.IsNaN(pt[d])
				}
				if !finitePt {
					// Converting a non-finite point to a pixel index
					// differs between architectures. Border padding
					// has stopped an infinite one; under zeros padding
					// it is out of the image (0); a NaN one, or an
					// infinite one reflected, samples NaN.
					v := math.NaN()
					if !nanPt {
						v = 0
					}
					for ci := range c {
						storeF(o.DType, ob, (ni*c+ci)*points+p, v)
					}
					continue
				}
				var base, frac [3]float64
				var at [3]int64
				for d := range dims {
					base[d] = math.Floor(pt[d])
					at[d] = int64(base[d])
					frac[d] = pt[d] - base[d]
				}
				for ci := range c {
					img := (ni*c + ci) * image
					var v float64
					switch {
					case mode == "nearest":
						v = pixel(img, [3]int64{int64(pt[0]), int64(pt[1]), int64(pt[2])})
					case mode == "linear" && dims == 2:
						v = plane(img, at[0], at[1], 0, frac[0], frac[1])
					case mode == "linear":
						v = mul64(1-frac[2], plane(img, at[0], at[1], at[2], frac[0], frac[1])) +
							mul64(frac[2], plane(img, at[0], at[1], at[2]+1, frac[0], frac[1]))
					default:
						x0, y0 := at[0]-1, at[1]-1
						cx, cy := cubicCoeffs(pt[0]-float64(x0)-1), cubicCoeffs(pt[1]-float64(y0)-1)
						for i := range int64(4) {
							var row float64
							for j := range int64(4) {
								row += mul64(cx[j], pixel(img, [3]int64{x0 + j, y0 + i, 0}))
							}
							v += mul64(cy[i], row)
						}
					}
					storeF(o.DType, ob, (ni*c+ci)*points+p, v)
				}
			}
		}
		return nil
	}
	return newKernel(sig{op: "GridSample", minIn: 2, maxIn: 2, nOut: 1}, k), nil
}

// maxRoiSamples bounds RoiAlign's adaptive samples per output bin: a
// region larger than that is an error rather than an endless loop.
const maxRoiSamples = 1 << 24

// maxRoiRatio is the largest sampling_ratio: its square is maxRoiSamples.
const maxRoiRatio = 1 << 12

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// reflect folds v into [lo, hi] by reflecting it about the nearer bound,
// as many times as it takes.
func reflect(v, lo, hi float64) float64 {
	r := hi - lo
	switch {
	case r <= 0:
		return lo
	case v < lo:
		n := math.Floor((lo - v) / r)
		rem := lo - v - mul64(n, r)
		if int64(n)%2 == 0 {
			return lo + rem
		}
		return hi - rem
	case v > hi:
		n := math.Floor((v - hi) / r)
		rem := v - hi - mul64(n, r)
		if int64(n)%2 == 0 {
			return hi - rem
		}
		return lo + rem
	}
	return v
}

// cubicCoeffs are Keys' cubic convolution weights (a = −0.75) of the four
// neighbours at offsets −1, 0, 1, 2 from a point t past the second.
func cubicCoeffs(t float64) [4]float64 {
	const a = -0.75
	t = math.Abs(t)
	return [4]float64{
		mul64(mul64(mul64(a, t+1)-mul64(5, a), t+1)+mul64(8, a), t+1) - mul64(4, a),
		mul64(mul64(mul64(a+2, t)-(a+3), t), t) + 1,
		mul64(mul64(mul64(a+2, 1-t)-(a+3), 1-t), 1-t) + 1,
		mul64(mul64(mul64(a, 2-t)-mul64(5, a), 2-t)+mul64(8, a), 2-t) - mul64(4, a),
	}
}

// RoiAlign(X, rois, batch_indices) (mode "avg", output_height 1,
// output_width 1, sampling_ratio 0, spatial_scale 1,
// coordinate_transformation_mode "half_pixel"; opset 10 is
// "output_half_pixel") pools each region of interest [x1, y1, x2, y2]
// (scaled by spatial_scale, shifted by half a pixel in half_pixel mode) of
// image batch_indices[r] of X [N, C, H, W] into Y [R, C, oh, ow]: each
// output bin averages (or, with "max", takes the largest of the weighted
// corner values, as onnxruntime does; a NaN among them is the result, as
// in IEEE 754's maximum) the bilinear samples of a grid of
// sampling_ratio² points (adaptive: ⌈roi size / bins⌉ per axis). Samples
// more than a pixel outside the image count as zero. A region with a NaN
// or infinite coordinate is an error. The arithmetic is onnxruntime's, in
// the input's precision: float64 for float64, float32 for float32 (and for
// float16 and bfloat16, which onnxruntime casts to float32; the result
// rounded once to their type). The sampling coordinates thus round as
// onnxruntime's do: a sample that lands exactly on the image's edge in
// float32 (y = H) is kept, where float64 arithmetic might put it just
// outside, and an adaptive grid is ⌈size / bins⌉ of the float32 size.
func newRoiAlign(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("mode", "output_height", "output_width", "sampling_ratio", "spatial_scale", "coordinate_transformation_mode"); err != nil {
		return nil, wrapAttr(err)
	}
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	mode, err := attrs.String("mode", "avg")
	if err != nil {
		return nil, wrapAttr(err)
	}
	defCT := "half_pixel"
	if opset < 16 {
		defCT = "output_half_pixel"
	}
	ct, err := attrs.String("coordinate_transformation_mode", defCT)
	if err != nil {
		return nil, wrapAttr(err)
	}
	var p [3]int64
	for i, a := range []struct {
		name string
		def  int64
	}{{"output_height", 1}, {"output_width", 1}, {"sampling_ratio", 0}} {
		if p[i], err = attrs.Int(a.name, a.def); err != nil {
			return nil, wrapAttr(err)
		}
	}
	scale, err := attrs.Float("spatial_scale", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	oh, ow, ratio := p[0], p[1], p[2]
	switch {
	case mode != "avg" && mode != "max":
		return nil, fmt.Errorf("ops: RoiAlign: mode %q, want avg or max", mode)
	case ct != "half_pixel" && ct != "output_half_pixel":
		return nil, fmt.Errorf("ops: RoiAlign: coordinate_transformation_mode %q, want half_pixel or output_half_pixel", ct)
	case oh < 1 || ow < 1 || ratio < 0:
		return nil, fmt.Errorf("ops: RoiAlign: output %dx%d and sampling_ratio %d: want positive sizes and a ratio ≥ 0", oh, ow, ratio)
	case ratio > maxRoiRatio:
		return nil, fmt.Errorf("ops: RoiAlign: sampling_ratio %d: over %d (%d samples per output bin)", ratio, maxRoiRatio, int64(maxRoiSamples))
	}
	scale = float64(float32(scale))
	half := ct == "half_pixel"
	k := &simple{flops: 16}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, rois, bi := in[0], in[1], in[2]
		if err := dtypeIn(x, "X", onnxFloats...); err != nil {
			return err
		}
		if err := checkSameDType(rois, "rois", x, "X"); err != nil {
			return err
		}
		if !isIndex(bi.DType) {
			return fmt.Errorf("input batch_indices has dtype %v, want int64", bi.DType)
		}
		if x.Shape.Rank() != 4 || rois.Shape.Rank() != 2 || rois.Shape[1] != 4 || !bi.Shape.Equal(kernel.Shape{rois.Shape[0]}) {
			return fmt.Errorf("inputs X %v, rois %v and batch_indices %v: want [N, C, H, W], [R, 4] and [R]", x.Shape, rois.Shape, bi.Shape)
		}
		setShape(out[0], kernel.Shape{rois.Shape[0], x.Shape[1], oh, ow}, x.DType)
		return nil
	}
	ra := roiAlign{max: mode == "max", half: half, oh: oh, ow: ow, ratio: ratio, scale: scale}
	k.computeF = func(a *kernel.Args) error {
		if a.In[0].DType == kernel.Float64 {
			return roiAlignRun[float64](ra, a)
		}
		return roiAlignRun[float32](ra, a)
	}
	return newKernel(sig{op: "RoiAlign", minIn: 3, maxIn: 3, nOut: 1}, k), nil
}

// roiAlign holds RoiAlign's attributes: mode max (else avg), the
// half_pixel transformation, the output size, sampling_ratio and
// spatial_scale (a float32 value).
type roiAlign struct {
	max, half     bool
	oh, ow, ratio int64
	scale         float64
}

// roiAlignRun computes RoiAlign in T, the compute type: float64 for
// float64 tensors, float32 for the others. Every step rounds to T, in
// onnxruntime's order, so that a sample on the image's edge lands on the
// same side of it.
func roiAlignRun[T float32 | float64](ra roiAlign, a *kernel.Args) error {
	x, rois, bi, o := a.In[0], a.In[1], a.In[2], a.Out[0]
	n, c, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	xb, rb, ob := x.Data(), rois.Data(), o.Data()
	oh, ow, scale := ra.oh, ra.ow, T(ra.scale)
	var off T
	if ra.half {
		off = 0.5
	}
	fh, fw := T(h), T(w)
	pl := poller{a: a}
	for r := range rois.Shape[0] {
		b := loadI(bi.DType, bi.Data(), r)
		if b < 0 || b >= n {
			return fmt.Errorf("batch_indices[%d] = %d is not an image of X's %d", r, b, n)
		}
		coord := func(j int64) T { return mul(T(loadF(rois.DType, rb, 4*r+j)), scale) - off }
		x1, y1, x2, y2 := coord(0), coord(1), coord(2), coord(3)
		if c := float64(x1) + float64(y1) + float64(x2) + float64(y2); math.IsNaN(c) || math.IsInf(c, 0) {
			// ONNX's reference cannot index a pixel there (Python's
			// int() of it raises); unchecked, the sample's pixel
			// index is out of range.
			return fmt.Errorf("rois[%d] %g %g %g %g: not finite", r, loadF(rois.DType, rb, 4*r), loadF(rois.DType, rb, 4*r+1), loadF(rois.DType, rb, 4*r+2), loadF(rois.DType, rb, 4*r+3))
		}
		rw, rh := x2-x1, y2-y1
		if !ra.half {
			rw, rh = max(rw, 1), max(rh, 1)
		}
		bh, bw := rh/T(oh), rw/T(ow)
		gh, gw := ra.ratio, ra.ratio
		if gh == 0 {
			sh, sw := math.Ceil(float64(bh)), math.Ceil(float64(bw))
			if sh*sw > maxRoiSamples {
				return fmt.Errorf("rois[%d]: %g×%g adaptive samples per bin, over %d", r, sh, sw, int64(maxRoiSamples))
			}
			gh, gw = int64(sh), int64(sw)
		}
		count := T(max(gh*gw, 1))
		for ci := range c {
			img := (b*c + ci) * h * w
			for ph := range oh {
				for pw := range ow {
					if err := pl.add(gh * gw); err != nil {
						return err
					}
					var sum, best T
					first := true
					for iy := range gh {
						yy := y1 + mul(T(ph), bh) + mul(T(iy)+0.5, bh)/T(gh)
						for ix := range gw {
							xx := x1 + mul(T(pw), bw) + mul(T(ix)+0.5, bw)/T(gw)
							var v [4]T
							// A sample more than a pixel outside the image
							// (or at a NaN coordinate) is 0, as is every
							// sample of an image with an empty axis.
							if h > 0 && w > 0 && yy >= -1 && yy <= fh && xx >= -1 && xx <= fw {
								wts, pos := bilinear(yy, xx, h, w)
								for q := range 4 {
									v[q] = mul(wts[q], T(loadF(x.DType, xb, img+pos[q])))
								}
							}
							if !ra.max {
								sum += v[0] + v[1] + v[2] + v[3]
							} else if m := max(v[0], v[1], v[2], v[3]); first {
								best, first = m, false
							} else {
								best = max(best, m)
							}
						}
					}
					res := sum / count
					if ra.max {
						res = best
					}
					storeF(o.DType, ob, ((r*c+ci)*oh+ph)*ow+pw, float64(res))
				}
			}
		}
	}
	return nil
}

// bilinear returns the weights and flat positions of the four pixels
// around (y, x) in an h×w image, clamped to it (RoiAlign's sampling), in
// T.
func bilinear[T float32 | float64](y, x T, h, w int64) (wts [4]T, pos [4]int64) {
	y, x = max(y, 0), max(x, 0)
	yl, xl := int64(y), int64(x)
	yh, xh := yl+1, xl+1
	if yl >= h-1 {
		yl, yh, y = h-1, h-1, T(h-1)
	}
	if xl >= w-1 {
		xl, xh, x = w-1, w-1, T(w-1)
	}
	ly, lx := y-T(yl), x-T(xl)
	hy, hx := 1-ly, 1-lx
	return [4]T{hy * hx, hy * lx, ly * hx, ly * lx}, [4]int64{yl*w + xl, yl*w + xh, yh*w + xl, yh*w + xh}
}

// maxUnpoolTypes are MaxUnpool's dtypes: ONNX's float types, and the
// integers of 8, 32 and 64 bits (pipert's, beyond ONNX).
var maxUnpoolTypes = append(slices.Clip(onnxFloats), kernel.Int32, kernel.Int64, kernel.Int8, kernel.Uint8)

// MaxUnpool(X, I[, output_shape]) (kernel_shape, pads, strides) undoes a
// MaxPool: a zero tensor with X's elements placed at the flat positions I
// (MaxPool's Indices, over that whole tensor). Its shape is output_shape
// when given (a value dependency: the shape of MaxPool's input, which
// several input shapes pool to the same output, so that the flat
// positions are those MaxPool gave), and otherwise (D − 1)·stride +
// kernel − padB − padE per spatial axis.
func newMaxUnpool(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("kernel_shape", "pads", "strides"); err != nil {
		return nil, wrapAttr(err)
	}
	win, err := parseWindow("MaxUnpool", attrs)
	if err != nil {
		return nil, fmt.Errorf("ops: MaxUnpool: %w", err)
	}
	if win.kernel == nil {
		return nil, fmt.Errorf("ops: MaxUnpool: attribute kernel_shape is required")
	}
	for name, v := range map[string][]int64{"kernel_shape": win.kernel, "strides": win.strides, "pads": win.pads} {
		if slices.ContainsFunc(v, func(d int64) bool { return d > maxWindow }) {
			return nil, fmt.Errorf("ops: MaxUnpool: attribute %s %v: a value above 2^31", name, v)
		}
	}
	k := &simple{flops: 1}
	k.inferF = func(in, out []*kernel.Tensor) error {
		x, idx := in[0], in[1]
		if err := dtypeIn(x, "X", maxUnpoolTypes...); err != nil {
			return err
		}
		if idx.DType != kernel.Int64 || !idx.Shape.Equal(x.Shape) {
			return fmt.Errorf("indices I %v %v: want int64 of X's shape %v", idx.DType, idx.Shape, x.Shape)
		}
		r := x.Shape.Rank()
		nd := r - 2
		if r < 3 || len(win.kernel) != nd || win.strides != nil && len(win.strides) != nd || win.pads != nil && len(win.pads) != 2*nd {
			return fmt.Errorf("input X %v does not fit kernel_shape %v, strides %v and pads %v", x.Shape, win.kernel, win.strides, win.pads)
		}
		s := x.Shape.Clone()
		if len(in) > 2 && in[2].NumElements() > 0 {
			l, err := valueInts(in[2], "output_shape", 1)
			if err != nil {
				return err
			}
			if l.n != r {
				return fmt.Errorf("output_shape has %d values for input X %v", l.n, x.Shape)
			}
			for i := range r {
				if v := l.at(i); v < 0 || i < 2 && v != s[i] {
					return fmt.Errorf("output_shape %v does not fit input X %v (batch and channels kept, no negative size)", valuesString(l), x.Shape)
				}
				s[i] = l.at(i)
			}
		} else {
			for i := range nd {
				if x.Shape[2+i] > maxWindow {
					return fmt.Errorf("input X has shape %v: a spatial dimension above 2^31", x.Shape)
				}
				s[2+i] = (x.Shape[2+i]-1)*attrAt(win.strides, i, 1) + win.kernel[i] - attrAt(win.pads, i, 0) - attrAt(win.pads, nd+i, 0)
				if s[2+i] < 0 {
					return fmt.Errorf("pads %v leave no output on spatial axis %d", win.pads, i)
				}
			}
		}
		setShape(out[0], s, x.DType)
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		x, idx, o := a.In[0], a.In[1], a.Out[0]
		ob := o.Data()
		clear(ob)
		size, total := int64(x.DType.Size()), o.NumElements()
		xb := x.Data()
		for i, p := range kernel.Int64s(idx.Data())[:x.NumElements()] {
			if p < 0 || p >= total {
				return fmt.Errorf("index %d at element %d is outside the output %v", p, i, o.Shape)
			}
			copy(ob[p*size:(p+1)*size], xb[int64(i)*size:(int64(i)+1)*size])
		}
		return nil
	}
	return newKernel(sig{op: "MaxUnpool", minIn: 2, maxIn: 3, nOut: 1, deps: kernel.Deps{Value: []int{2}}}, k), nil
}
