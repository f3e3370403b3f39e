package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Resize (opsets 10 to 22) and Upsample (opsets 7 and 9) interpolate X
// [D0,…] to an output of the same rank, axis by axis, on float32, float16,
// bfloat16 and float64; nearest mode also on every integer type, linear
// and cubic also on uint8, int8 and int32 (below).
//
// Inputs: Resize-10 (X, scales); from Resize-11 (X, roi, scales, sizes),
// exactly one of scales and sizes non-empty; Upsample-7 has the attribute
// "scales", Upsample-9 the input. scales and sizes are value dependencies.
// An output dimension is ⌊D·scale⌋, the product in float32 as onnxruntime
// and PyTorch compute it, or sizes.
//
// From Resize-18, attribute axes names the axes roi, scales and sizes
// refer to (negative counting from the end; the others keep their size);
// keep_aspect_ratio_policy (with sizes) is stretch (the sizes as given),
// not_larger or not_smaller: one scale, the smallest or largest of
// size/D (in float32) over those axes, and each of their sizes
// round(scale·D), halves up; antialias (linear and cubic) stretches the
// interpolation filter by max(1, 1/scale) as onnxruntime does: output x
// reads the inputs i with |i − x'| < support·max(1, 1/scale) (support 1
// for linear, 2 for cubic), weighted by the filter at (i − x')·min(1,
// scale), taps outside the input reading its edge (or dropped with
// exclude_outside), the weights normalised to sum 1.
//
// Output coordinate x maps to input coordinate x' by
// coordinate_transformation_mode (scale: the given one, or out/in when
// sizes are given; out: the output dimension, the length of the resized
// axis, as onnxruntime and the operator's text have it in every opset):
//
//	half_pixel (default)   (x+0.5)/scale − 0.5
//	half_pixel_symmetric   as half_pixel, plus in/2·(1 − ⌊in·scale⌋/(in·scale))
//	                       (from Resize-19)
//	pytorch_half_pixel     as half_pixel, 0 when out is 1
//	align_corners          x·(in−1)/(out−1), 0 when out is 1
//	asymmetric             x/scale (Resize-10 and Upsample always)
//	tf_half_pixel_for_nn   (x+0.5)/scale (defined at opsets 11 and 12;
//	                       taken at later ones, where tf2onnx writes it
//	                       and onnxruntime runs it)
//	tf_crop_and_resize     start·(in−1) + x·(end−start)·(in−1)/(out−1)
//	                       from roi, and extrapolation_value outside
//	                       [0, in−1]
//
// Whether tf_crop_and_resize extrapolates, and the element nearest picks,
// are decided on x' computed in float32, as onnxruntime computes it. Mode
// nearest rounds x' by nearest_mode (round_prefer_floor default,
// round_prefer_ceil, floor, ceil; Resize-10 and Upsample: floor when
// enlarging, ceil when shrinking); linear interpolates between ⌊x'⌋ and
// ⌊x'⌋+1, x' clamped to [0, in−1] first (one tap at in−1), as onnxruntime
// does; cubic uses ⌊x'⌋−1 … ⌊x'⌋+2 with the Keys kernel of parameter
// cubic_coeff_a (−0.75), and exclude_outside drops taps outside the input
// and renormalises. Taps outside the input read its edge. Interpolation is
// separable: each output element is Σ over tap combinations of the product
// of the axis weights times the input, in float64, rounded once; a tap of
// weight 0 counts (a NaN or infinity there makes the result NaN, as in
// onnxruntime).
//
// On uint8, int8 and int32, linear and cubic compute as onnxruntime's CPU
// kernels do, bit for bit (coordinates, weights and sums in float32, taps
// clamped to the input, the extrapolation_value and each float result
// converted as a C cast on x86-64 does: truncated toward zero to int32, out
// of range −2^31, then the low bits). An output of X's shape is X. The
// layouts are onnxruntime's:
//
//   - linear: rank 2 or 3, rank 4 with scales [1,1,h,w] or [1,h,w,1], rank 5
//     with scales [1,1,d,h,w]; the result Σ weight·x over the 4 (8) taps,
//     truncated, except uint8 and int8 on [N,H,W,C] data: weights in 10-bit
//     fixed point (⌊x'·1024⌋ − 1024·⌊x'⌋ and its complement), the 20-bit
//     sum divided by 2^20 rounding toward zero.
//   - antialias (and cubic without antialias, which onnxruntime runs on
//     integers only for [N,H,W,C] data enlarged along H and W): separable
//     passes (width, height, then depth), an axis of unchanged extent
//     copied, each pass's result in X's dtype: for 8-bit data weights
//     round(w·2^22), the sum plus 2^21 shifted right by 22 and clamped to
//     [0, 255] (so int8 results are those bits: negative values become 0);
//     for int32 the float32 sum rounded half away from zero (and saturated,
//     where onnxruntime fails). extrapolation_value is written last, for
//     [N,H,W,C] data at the positions it would have in [N·C, H, W].
//   - a scale of exactly 1 maps coordinates to themselves (the roi of
//     tf_crop_and_resize is then unused on that axis).
//
// Other layouts, and cubic without antialias elsewhere, are refused (as
// onnxruntime refuses them, or has no integer kernel for them).
//
// Tiling (words):
//
//	0..4  split over the output elements; 2 buffers
//
// Workspace: none. Cost: per output element, one operation per tap
// combination; bytes of X and Y.
type resize struct {
	op        string
	opset     int64
	mode      string
	coord     string
	nearest   string
	cubicA    float64
	exclude   bool
	extrap    float64
	attrScale []float64 // Upsample-7
	// Resize-18: antialiasing, the axes roi, scales and sizes refer to
	// (nil: every axis) and keep_aspect_ratio_policy.
	antialias bool
	axes      []int64
	policy    string
	// Per-axis tap tables, rebuilt each run: for output coordinate x on
	// axis a, taps[a] (index, weight) pairs from tab[a][x·taps[a]:].
	taps    []int
	tabIdx  [][]int64
	tabW    [][]float64
	outside [][]bool
	ctr     []int64
	// The tap combinations of a row's other axes (rowFloat32): weight,
	// input offset and whether every tap is inside.
	outerW   []float64
	outerOff []int64
	outerTap []bool
	// The integer path's tables (resize_int.go).
	ints         resizeIntScratch
	s32          []float32
	starts, ends []float64
}

func newResize(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		opset, err := attrs.Opset(17)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &resize{op: op, opset: opset, coord: "asymmetric", nearest: "simple", cubicA: -0.75, policy: "stretch"}
		s := sig{op: op, minIn: 2, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}
		known := []string{"mode"}
		switch {
		case op == "Upsample" && opset < 9:
			known = append(known, "scales")
			s.minIn, s.maxIn, s.deps = 1, 1, kernel.Deps{}
		case op == "Resize" && opset >= 11:
			known = append(known, "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value", "nearest_mode")
			s.minIn, s.maxIn, s.deps = 1, 4, kernel.Deps{Value: []int{2, 3}}
			if opset < 13 {
				s.minIn = 3
			}
			if opset >= 18 {
				known = append(known, "antialias", "axes", "keep_aspect_ratio_policy")
			}
		}
		if err := attrs.Check(known...); err != nil {
			return nil, wrapAttr(err)
		}
		if k.mode, err = attrs.String("mode", "nearest"); err != nil {
			return nil, wrapAttr(err)
		}
		modes := map[string]bool{"nearest": true, "linear": true, "bilinear": op == "Upsample", "cubic": op == "Resize" && opset >= 11}
		if !modes[k.mode] {
			return nil, fmt.Errorf("ops: %s: mode %q is not defined at opset %d", op, k.mode, opset)
		}
		if k.mode == "bilinear" {
			k.mode = "linear"
		}
		if op == "Upsample" && opset < 9 {
			if k.attrScale, err = attrs.Floats("scales", nil); err != nil {
				return nil, wrapAttr(err)
			}
			if k.attrScale == nil {
				return nil, fmt.Errorf("ops: Upsample: attribute \"scales\" is required before opset 9")
			}
		}
		if op == "Resize" && opset >= 11 {
			if k.coord, err = attrs.String("coordinate_transformation_mode", "half_pixel"); err != nil {
				return nil, wrapAttr(err)
			}
			coords := map[string]bool{"half_pixel": true, "pytorch_half_pixel": true, "align_corners": true, "asymmetric": true,
				"tf_crop_and_resize": true, "tf_half_pixel_for_nn": true, "half_pixel_symmetric": opset >= 19}
			if !coords[k.coord] {
				return nil, fmt.Errorf("ops: Resize: coordinate_transformation_mode %q is not defined at opset %d", k.coord, opset)
			}
			if k.nearest, err = attrs.String("nearest_mode", "round_prefer_floor"); err != nil {
				return nil, wrapAttr(err)
			}
			switch k.nearest {
			case "round_prefer_floor", "round_prefer_ceil", "floor", "ceil":
			default:
				return nil, fmt.Errorf("ops: Resize: nearest_mode %q", k.nearest)
			}
			if k.cubicA, err = attrs.Float("cubic_coeff_a", -0.75); err != nil {
				return nil, wrapAttr(err)
			}
			ex, err := attrs.Int("exclude_outside", 0)
			if err != nil {
				return nil, wrapAttr(err)
			}
			k.exclude = ex != 0
			if k.extrap, err = attrs.Float("extrapolation_value", 0); err != nil {
				return nil, wrapAttr(err)
			}
			k.cubicA, k.extrap = float64(float32(k.cubicA)), float64(float32(k.extrap))
		}
		if op == "Resize" && opset >= 18 {
			if k.antialias, err = flagAttr(attrs, "antialias", false); err != nil {
				return nil, wrapAttr(err)
			}
			if k.antialias && k.mode == "nearest" {
				return nil, fmt.Errorf("ops: Resize: antialias applies to modes linear and cubic, not nearest")
			}
			if k.axes, err = attrs.Ints("axes", nil); err != nil {
				return nil, wrapAttr(err)
			}
			if len(k.axes) == 0 {
				k.axes = nil
			}
			if k.policy, err = attrs.String("keep_aspect_ratio_policy", "stretch"); err != nil {
				return nil, wrapAttr(err)
			}
			switch k.policy {
			case "stretch", "not_larger", "not_smaller":
			default:
				return nil, fmt.Errorf("ops: Resize: keep_aspect_ratio_policy %q (want stretch, not_larger or not_smaller)", k.policy)
			}
		}
		return newKernel(s, k), nil
	}
}

// input returns input i when present and non-empty.
func optional(in []*kernel.Tensor, i int) *kernel.Tensor {
	if i < len(in) && in[i].NumElements() > 0 {
		return in[i]
	}
	return nil
}

// scalesSizes returns the output shape and the per-axis scales for x.
func (k *resize) scalesSizes(in []*kernel.Tensor) (kernel.Shape, []float64, error) {
	x := in[0]
	r := x.Shape.Rank()
	var scales []float64
	var sizes *kernel.Tensor
	switch {
	case k.attrScale != nil:
		scales = k.attrScale
	case k.op == "Upsample" || k.opset < 11:
		t := in[1]
		if !t.DType.IsFloat() {
			return nil, nil, fmt.Errorf("input scales has dtype %v, want float", t.DType)
		}
		if t.Host == nil {
			return nil, nil, fmt.Errorf("values of input scales are not available")
		}
		for i := range t.NumElements() {
			scales = append(scales, loadF(t.DType, t.Host, i))
		}
	default:
		st, sz := optional(in, 2), optional(in, 3)
		switch {
		case st != nil && sz != nil:
			return nil, nil, fmt.Errorf("inputs scales and sizes are both given: want one")
		case st == nil && sz == nil:
			return nil, nil, fmt.Errorf("neither scales nor sizes is given")
		case st != nil:
			if st.DType != kernel.Float32 || st.Host == nil {
				return nil, nil, fmt.Errorf("input scales must be float32 values, have %v", st)
			}
			for i := range st.NumElements() {
				scales = append(scales, loadF(st.DType, st.Host, i))
			}
		default:
			sizes = sz
		}
	}
	ax, err := k.resizedAxes(r)
	if err != nil {
		return nil, nil, err
	}
	want := func(what string, have any) error {
		if k.axes == nil {
			return fmt.Errorf("%s %v: want %d values for X %v", what, have, r, x.Shape)
		}
		return fmt.Errorf("%s %v: want %d values, one for each of axes %v", what, have, len(ax), k.axes)
	}
	out := x.Shape.Clone()
	full := make([]float64, r)
	for i := range full {
		full[i] = 1
	}
	if sizes != nil {
		v, err := shapeValues(sizes, "sizes")
		if err != nil {
			return nil, nil, err
		}
		if len(v) != len(ax) {
			return nil, nil, want("sizes", v)
		}
		for j, d := range v {
			if d < 0 {
				return nil, nil, fmt.Errorf("sizes %v: negative", v)
			}
			a := ax[j]
			out[a], full[a] = d, 0
			if x.Shape[a] > 0 {
				full[a] = float64(d) / float64(x.Shape[a])
			}
		}
		if k.policy != "stretch" {
			k.keepAspect(ax, x.Shape, out, full)
		}
		return out, full, nil
	}
	if k.policy != "stretch" {
		return nil, nil, fmt.Errorf("keep_aspect_ratio_policy %s applies to sizes, not to scales", k.policy)
	}
	if len(scales) != len(ax) {
		return nil, nil, want("scales", scales)
	}
	for j, s := range scales {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, nil, fmt.Errorf("scales %v: each must be positive", scales)
		}
		a := ax[j]
		// In float32, as onnxruntime and PyTorch compute it (10 × 0.7 is
		// 7 there, 6.9999998… in float64).
		o := math.Floor(float64(float32(x.Shape[a]) * float32(s)))
		if o > 1<<40 {
			return nil, nil, fmt.Errorf("scales %v make dimension %d %g long", scales, a, o)
		}
		out[a], full[a] = int64(o), s
	}
	return out, full, nil
}

// resizedAxes returns the axes that roi, scales and sizes refer to, in
// their order: attribute axes (Resize-18), else every axis.
func (k *resize) resizedAxes(r int) ([]int, error) {
	ax := make([]int, 0, r)
	if k.axes == nil {
		for i := range r {
			ax = append(ax, i)
		}
		return ax, nil
	}
	for _, a := range k.axes {
		n, err := kernel.NormAxis(a, r)
		if err != nil {
			return nil, fmt.Errorf("axes %v: %w", k.axes, err)
		}
		for _, b := range ax {
			if b == n {
				return nil, fmt.Errorf("axes %v: axis %d appears twice", k.axes, n)
			}
		}
		ax = append(ax, n)
	}
	return ax, nil
}

// keepAspect applies keep_aspect_ratio_policy to the sizes out: one scale
// over axes ax, the smallest (not_larger) or largest (not_smaller) of
// size/D, and each size round(scale·D), halves up. Both are float32
// arithmetic, as onnxruntime's.
func (k *resize) keepAspect(ax []int, x, out kernel.Shape, scales []float64) {
	var p float32
	for j, a := range ax {
		s := float32(1)
		if x[a] > 0 {
			s = float32(out[a]) / float32(x[a])
		}
		if j == 0 || k.policy == "not_larger" && s < p || k.policy == "not_smaller" && s > p {
			p = s
		}
	}
	for _, a := range ax {
		scales[a] = float64(p)
		out[a] = int64(math.Round(float64(float32(p * float32(x[a])))))
	}
}

func (k *resize) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	types := append(onnxFloats[:len(onnxFloats):len(onnxFloats)], kernel.Uint8, kernel.Int8, kernel.Int32)
	if k.mode == "nearest" {
		types = onnxNumeric
	}
	if err := dtypeIn(x, "X", types...); err != nil {
		return err
	}
	if x.Shape.Rank() > 8 {
		return fmt.Errorf("input X has rank %d: at most 8", x.Shape.Rank())
	}
	s, scales, err := k.scalesSizes(in)
	if err != nil {
		return err
	}
	if k.mode != "nearest" && !x.DType.IsFloat() {
		if _, err := k.intLayout(x.Shape, s, scales32(nil, scales)); err != nil {
			return err
		}
	}
	setShape(out[0], s, x.DType)
	return nil
}

func (k *resize) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 2).put(e)
	return 0, nil
}

func (k *resize) cost(in, out []*kernel.Tensor) device.Cost {
	taps := map[string]float64{"nearest": 1, "linear": 2, "cubic": 4}[k.mode]
	flops := float64(out[0].NumElements()) * math.Pow(taps, float64(max(in[0].Shape.Rank()-2, 1)))
	if k.antialias && in[0].Shape.Rank() == out[0].Shape.Rank() {
		// The filter's taps on each axis whose extent changes.
		flops = float64(out[0].NumElements())
		for i, d := range in[0].Shape {
			if o := out[0].Shape[i]; o != d && o > 0 {
				support, _ := k.aaSupport(float64(o) / float64(d))
				flops *= 2*math.Ceil(support) + 1
			}
		}
	}
	return device.Cost{FLOPs: flops, Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

// source maps output coordinate x on an axis of input extent in and
// output extent outInt to the input coordinate. The resized length is the
// output extent in every opset, as in onnxruntime (the ONNX reference of
// Resize-11 to 17 took in·scale, unrounded).
func (k *resize) source(x, in, outInt int64, scale, start, end float64) float64 {
	xf := float64(x)
	frac := mul64(float64(in), scale)
	out := float64(outInt)
	switch k.coord {
	case "half_pixel":
		return (xf+0.5)/scale - 0.5
	case "half_pixel_symmetric":
		off := mul64(float64(in)/2, 1-float64(outInt)/frac)
		return off + (xf+0.5)/scale - 0.5
	case "pytorch_half_pixel":
		if out > 1 {
			return (xf+0.5)/scale - 0.5
		}
		return 0
	case "align_corners":
		if out == 1 {
			return 0
		}
		return xf * float64(in-1) / (out - 1)
	case "tf_half_pixel_for_nn":
		return (xf + 0.5) / scale
	case "tf_crop_and_resize":
		if out > 1 {
			return mul64(start, float64(in-1)) + mul64(xf*(end-start), float64(in-1))/(out-1)
		}
		return 0.5 * (start + end) * float64(in-1)
	}
	return xf / scale
}

// round applies nearest_mode to x.
func (k *resize) round(x, scale float64) float64 {
	switch k.nearest {
	case "simple":
		if scale < 1 {
			return math.Ceil(x)
		}
		return math.Floor(x)
	case "floor":
		return math.Floor(x)
	case "ceil":
		return math.Ceil(x)
	case "round_prefer_ceil":
		if x-math.Floor(x) == 0.5 {
			return math.Ceil(x)
		}
		return math.Round(x)
	}
	if x-math.Floor(x) == 0.5 {
		return math.Floor(x)
	}
	return math.Round(x)
}

// aaSupport returns the antialiasing filter's half-width for scale and the
// factor scaling distances from the source coordinate into the filter.
func (k *resize) aaSupport(scale float64) (support, inv float64) {
	support, inv = 1, 1
	if k.mode == "cubic" {
		support = 2
	}
	if scale < 1 {
		support, inv = support/scale, scale
	}
	return support, inv
}

// aaFilter is the antialiasing filter at u: the triangle (linear) or the
// Keys kernel of parameter cubic_coeff_a (cubic).
func (k *resize) aaFilter(u float64) float64 {
	u = math.Abs(u)
	if k.mode == "linear" {
		if u < 1 {
			return 1 - u
		}
		return 0
	}
	A := k.cubicA
	switch {
	case u < 1:
		return mul64(mul64(A+2, u)-(A+3), mul64(u, u)) + 1
	case u < 2:
		return mul64(mul64(mul64(u-5, u)+8, u)-4, A)
	}
	return 0
}

// table builds axis a's taps.
func (k *resize) table(a int, in, out int64, scale, start, end float64) {
	n := map[string]int{"nearest": 1, "linear": 2, "cubic": 4}[k.mode]
	support, inv := k.aaSupport(scale)
	if k.antialias {
		n = 2*int(math.Ceil(support)) + 1
	}
	idx := grownInts(k.tabIdx[a], int(out)*n)
	if cap(k.tabW[a]) < int(out)*n {
		k.tabW[a] = make([]float64, int(out)*n)
	}
	w := k.tabW[a][:int(out)*n]
	if cap(k.outside[a]) < int(out) {
		k.outside[a] = make([]bool, out)
	}
	outside := k.outside[a][:out]
	clampIdx := func(i int64) int64 { return min(max(i, 0), in-1) }
	for x := range out {
		src := k.source(x, in, out, scale, start, end)
		// The coordinate as onnxruntime computes it, in float32, decides
		// the nearest element and whether tf_crop_and_resize extrapolates
		// (a coordinate on an end in float32 may be past it in float64).
		src32 := float64(k.source32(float32(x), float32(scale), float32(out), float32(in), float32(start), float32(end)))
		outside[x] = k.coord == "tf_crop_and_resize" && (src32 < 0 || src32 > float64(in-1))
		t := idx[int(x)*n : int(x+1)*n]
		tw := w[int(x)*n : int(x+1)*n]
		switch {
		case k.antialias:
			// The inputs whose centres lie within the support of the
			// output's centre, src + 0.5.
			lo := int64(math.Floor(src + 1 - support))
			hi := int64(math.Floor(src + 1 + support))
			if k.exclude {
				lo, hi = max(lo, 0), min(hi, in)
			}
			sum := 0.0
			for j := range t {
				t[j], tw[j] = -1, 0 // no tap
				if i := lo + int64(j); i < hi {
					t[j], tw[j] = clampIdx(i), k.aaFilter(mul64(float64(i)-src, inv))
					sum += tw[j]
				}
			}
			if sum != 0 {
				for j := range tw {
					tw[j] /= sum
				}
			}
		case k.mode == "nearest":
			t[0], tw[0] = clampIdx(int64(k.round(src32, scale))), 1
		case k.mode == "linear":
			// As onnxruntime: the coordinate clamped to the input, the
			// taps ⌊x'⌋ and ⌊x'⌋+1 (one tap at the last element).
			c := min(max(src, 0), float64(in-1))
			f := math.Floor(c)
			r := c - f
			t[0], t[1] = int64(f), int64(f)+1
			tw[0], tw[1] = 1-r, r
			if t[1] >= in {
				t[1], tw[0], tw[1] = -1, 1, 0 // no tap
			}
		case k.mode == "cubic":
			f := math.Floor(src)
			r := src - f
			A := k.cubicA
			tw[0] = mul64(mul64(mul64(A, r+1)-mul64(5, A), r+1)+mul64(8, A), r+1) - mul64(4, A)
			tw[1] = mul64(mul64(mul64(A+2, r)-(A+3), r), r) + 1
			tw[2] = mul64(mul64(mul64(A+2, 1-r)-(A+3), 1-r), 1-r) + 1
			tw[3] = mul64(mul64(mul64(A, 2-r)-mul64(5, A), 2-r)+mul64(8, A), 2-r) - mul64(4, A)
			for j := range t {
				t[j] = int64(f) - 1 + int64(j)
			}
		}
		if k.mode != "nearest" && !k.antialias {
			if k.exclude {
				sum := 0.0
				for j := range t {
					if t[j] < 0 || t[j] >= in {
						tw[j] = 0
					}
					sum += tw[j]
				}
				if sum != 0 {
					for j := range tw {
						tw[j] /= sum
					}
				}
			}
			for j := range t {
				if t[j] >= 0 || k.mode != "linear" {
					t[j] = clampIdx(t[j])
				}
			}
		}
	}
	k.taps[a], k.tabIdx[a], k.tabW[a] = n, idx[:int(out)*n], w[:int(out)*n]
}

func (k *resize) compute(a *kernel.Args) error {
	x, y := a.In[0], a.Out[0]
	n := y.NumElements()
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, n); err != nil {
		return err
	}
	// The value inputs are on the host for the runtime's InferShape; the
	// computation reads them there too.
	shape, scales, err := k.scalesSizes(a.In)
	if err != nil {
		return err
	}
	if !shape.Equal(y.Shape) {
		return fmt.Errorf("output %v differs from the inferred %v", y.Shape, shape)
	}
	r := x.Shape.Rank()
	if n == 0 || r == 0 {
		if r == 0 && n == 1 {
			copy(y.Data(), x.Data())
		}
		return nil
	}
	if x.NumElements() == 0 {
		return fmt.Errorf("input X %v is empty, output %v is not", x.Shape, y.Shape)
	}
	roi := optional(a.In, 1)
	if k.op == "Upsample" || k.opset < 11 {
		roi = nil
	}
	for len(k.taps) < r {
		k.taps, k.tabIdx, k.tabW, k.outside = append(k.taps, 0), append(k.tabIdx, nil), append(k.tabW, nil), append(k.outside, nil)
	}
	if k.coord != "tf_crop_and_resize" {
		roi = nil
	}
	ax, err := k.resizedAxes(r)
	if err != nil {
		return err
	}
	m := len(ax)
	if roi != nil && roi.NumElements() != int64(2*m) {
		return fmt.Errorf("roi has %d values, want %d", roi.NumElements(), 2*m)
	}
	integer := k.mode != "nearest" && !x.DType.IsFloat()
	if integer {
		k.starts, k.ends = k.starts[:0], k.ends[:0]
	}
	for i := range r {
		start, end := 0.0, 1.0
		for j, a := range ax {
			if a == i && roi != nil {
				start, end = loadF(roi.DType, roi.Data(), int64(j)), loadF(roi.DType, roi.Data(), int64(m+j))
			}
		}
		if integer {
			k.starts, k.ends = append(k.starts, start), append(k.ends, end)
			continue
		}
		k.table(i, x.Shape[i], y.Shape[i], scales[i], start, end)
	}
	if integer {
		return k.computeInt(a, x, y, scales, k.starts, k.ends)
	}
	strides := grownInts(k.ctr, 2*r)
	k.ctr = strides
	strides, ctr := strides[:r], strides[r:]
	rowMajor(strides, x.Shape)
	clear(ctr)
	xb, yb := x.Data(), y.Data()
	last := y.Shape[r-1]
	// Nearest without extrapolation copies elements: every bit is kept
	// (-0, NaN payloads), where interpolating by a weight of 1 would not.
	copies := k.coord != "tf_crop_and_resize"
	for i := range r {
		copies = copies && k.taps[i] == 1
	}
	size := int64(x.DType.Size())
	var done int64 // output elements since the last look at the run
	for base := int64(0); base < n; base += last {
		// A large output (sizes are often run-time values) takes long:
		// the run's end is checked every 64 Ki elements.
		if done += last; done >= 1<<16 {
			if err := a.Err(); err != nil {
				return err
			}
			done = 0
		}
		if copies {
			off := int64(0)
			for i := range r - 1 {
				off += k.tabIdx[i][ctr[i]] * strides[i]
			}
			ti := k.tabIdx[r-1][:last]
			if x.DType == kernel.Float32 {
				xs, ys := kernel.Float32s(xb), kernel.Float32s(yb)[base:base+last]
				for c := range ys {
					ys[c] = xs[off+ti[c]]
				}
			} else {
				for c, t := range ti {
					copyElem(yb, base+int64(c), xb, off+t, size)
				}
			}
		} else if x.DType == kernel.Float32 {
			k.rowFloat32(kernel.Float32s(xb), y.DType, yb, base, last, ctr, strides)
		} else {
			for c := range last {
				ctr[r-1] = c
				storeF(y.DType, yb, base+c, k.point(xb, x.DType, ctr, strides))
			}
			ctr[r-1] = 0
		}
		for i := r - 2; i >= 0; i-- {
			ctr[i]++
			if ctr[i] < y.Shape[i] {
				break
			}
			ctr[i] = 0
		}
	}
	return nil
}

// rowFloat32 is point for the row of float32 input at ctr (its last
// coordinate varying over last outputs, from base): the taps of the other
// axes are combined once for the row, the weights multiplied and the
// products summed in point's order, so that each output has point's bits.
func (k *resize) rowFloat32(xs []float32, ydt kernel.DType, yb []byte, base, last int64, ctr, strides []int64) {
	r := len(ctr)
	k.outerW, k.outerOff, k.outerTap = k.outerW[:0], k.outerOff[:0], k.outerTap[:0]
	out := false
	for i := range r - 1 {
		out = out || k.outside[i][ctr[i]]
	}
	if !out {
		var sel [8]int
		for {
			w, off, tap := 1.0, int64(0), true
			for i := range r - 1 {
				j := int(ctr[i])*k.taps[i] + sel[i]
				w *= k.tabW[i][j]
				off += k.tabIdx[i][j] * strides[i]
				tap = tap && k.tabIdx[i][j] >= 0
			}
			k.outerW, k.outerOff, k.outerTap = append(k.outerW, w), append(k.outerOff, off), append(k.outerTap, tap)
			if !k.nextTaps(&sel, r-1) {
				break
			}
		}
	}
	lt, tw, ti, ls, lout := k.taps[r-1], k.tabW[r-1], k.tabIdx[r-1], strides[r-1], k.outside[r-1]
	for c := range last {
		v := k.extrap
		if !out && !lout[c] {
			v = 0
			for o, ow := range k.outerW {
				for s := range lt {
					j := int(c)*lt + s
					if w := ow * tw[j]; k.outerTap[o] && ti[j] >= 0 {
						v += mul64(w, float64(xs[k.outerOff[o]+ti[j]*ls]))
					}
				}
			}
		}
		storeF(ydt, yb, base+c, v)
	}
}

// point interpolates the output element at coordinates ctr.
func (k *resize) point(xb []byte, dt kernel.DType, ctr, strides []int64) float64 {
	r := len(ctr)
	for i := range r {
		if k.outside[i][ctr[i]] {
			return k.extrap
		}
	}
	// Walk every tap combination with an odometer over the axes.
	var sel [8]int
	var sum float64
	for {
		w, off, tap := 1.0, int64(0), true
		for i := range r {
			j := int(ctr[i])*k.taps[i] + sel[i]
			w *= k.tabW[i][j]
			off += k.tabIdx[i][j] * strides[i]
			tap = tap && k.tabIdx[i][j] >= 0
		}
		// A tap of weight 0 counts (0·NaN and 0·Inf are NaN, as in
		// onnxruntime and the ONNX reference); a slot past an antialias
		// window's end is no tap.
		if tap {
			sum += mul64(w, loadF(dt, xb, off))
		}
		if !k.nextTaps(&sel, r) {
			return sum
		}
	}
}

// nextTaps steps the odometer sel over the tap slots of axes 0 to n-1,
// the last fastest; false once it came back to all zeros.
func (k *resize) nextTaps(sel *[8]int, n int) bool {
	for i := n - 1; i >= 0; i-- {
		if sel[i]++; sel[i] < k.taps[i] {
			return true
		}
		sel[i] = 0
	}
	return false
}
