package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Resize (opsets 10 to 17) and Upsample (opsets 7 and 9) interpolate X
// [D0,…] to an output of the same rank, axis by axis, on float32, float16
// and float64 (nearest mode also int8, uint8, int32, int64).
//
// Inputs: Resize-10 (X, scales); Resize-11 to 17 (X, roi, scales, sizes),
// exactly one of scales and sizes non-empty; Upsample-7 has the attribute
// "scales", Upsample-9 the input. scales and sizes are value dependencies.
// An output dimension is ⌊D·scale⌋, or sizes.
//
// Output coordinate x maps to input coordinate x' by
// coordinate_transformation_mode (scale: the given one, or out/in when
// sizes are given; out: in·scale unrounded):
//
//	half_pixel (default)   (x+0.5)/scale − 0.5
//	pytorch_half_pixel     as half_pixel, 0 when out is 1
//	align_corners          x·(in−1)/(out−1), 0 when out is 1
//	asymmetric             x/scale (Resize-10 and Upsample always)
//	tf_half_pixel_for_nn   (x+0.5)/scale (opsets 11 and 12)
//	tf_crop_and_resize     start·(in−1) + x·(end−start)·(in−1)/(out−1)
//	                       from roi, and extrapolation_value outside
//	                       [0, in−1]
//
// mode nearest rounds x' by nearest_mode (round_prefer_floor default,
// round_prefer_ceil, floor, ceil; Resize-10 and Upsample: floor when
// enlarging, ceil when shrinking); linear interpolates between ⌊x'⌋ and
// ⌊x'⌋+1; cubic uses ⌊x'⌋−1 … ⌊x'⌋+2 with the Keys kernel of parameter
// cubic_coeff_a (−0.75), and exclude_outside drops taps outside the input
// and renormalises. Taps outside the input read its edge. Interpolation is
// separable: each output element is Σ over tap combinations of the product
// of the axis weights times the input, in float64, rounded once.
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
	// Per-axis tap tables, rebuilt each run: for output coordinate x on
	// axis a, taps[a] (index, weight) pairs from tab[a][x·taps[a]:].
	taps    []int
	tabIdx  [][]int64
	tabW    [][]float64
	outside [][]bool
	ctr     []int64
}

func newResize(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		opset, err := attrs.Opset(17)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &resize{op: op, opset: opset, coord: "asymmetric", nearest: "simple", cubicA: -0.75}
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
				"tf_crop_and_resize": true, "tf_half_pixel_for_nn": opset < 13}
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
	out := make(kernel.Shape, r)
	if sizes != nil {
		v, err := shapeValues(sizes, "sizes")
		if err != nil {
			return nil, nil, err
		}
		if len(v) != r {
			return nil, nil, fmt.Errorf("sizes %v: want %d values for X %v", v, r, x.Shape)
		}
		scales = make([]float64, r)
		for i, d := range v {
			if d < 0 {
				return nil, nil, fmt.Errorf("sizes %v: negative", v)
			}
			out[i] = d
			if x.Shape[i] > 0 {
				scales[i] = float64(d) / float64(x.Shape[i])
			}
		}
		return out, scales, nil
	}
	if len(scales) != r {
		return nil, nil, fmt.Errorf("scales %v: want %d values for X %v", scales, r, x.Shape)
	}
	for i, s := range scales {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, nil, fmt.Errorf("scales %v: each must be positive", scales)
		}
		o := math.Floor(float64(x.Shape[i]) * s)
		if o > 1<<40 {
			return nil, nil, fmt.Errorf("scales %v make dimension %d %g long", scales, i, o)
		}
		out[i] = int64(o)
	}
	return out, scales, nil
}

func (k *resize) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	types := onnxFloats
	if k.mode == "nearest" {
		types = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.Int8, kernel.Uint8, kernel.Int32, kernel.Int64}
	}
	if err := dtypeIn(x, "X", types...); err != nil {
		return err
	}
	if x.Shape.Rank() > 8 {
		return fmt.Errorf("input X has rank %d: at most 8", x.Shape.Rank())
	}
	s, _, err := k.scalesSizes(in)
	if err != nil {
		return err
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
	spatial := max(in[0].Shape.Rank()-2, 1)
	return device.Cost{FLOPs: float64(out[0].NumElements()) * math.Pow(taps, float64(spatial)), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

// source maps output coordinate x on an axis of input extent in to the
// input coordinate. The resized length is in·scale, unrounded, as in the
// ONNX reference (it is the output extent when sizes are given).
func (k *resize) source(x, in int64, scale, start, end float64) float64 {
	xf := float64(x)
	out := mul64(float64(in), scale)
	switch k.coord {
	case "half_pixel":
		return (xf+0.5)/scale - 0.5
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

// table builds axis a's taps.
func (k *resize) table(a int, in, out int64, scale, start, end float64) {
	n := map[string]int{"nearest": 1, "linear": 2, "cubic": 4}[k.mode]
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
	single := true
	for x := range out {
		src := k.source(x, in, scale, start, end)
		outside[x] = k.coord == "tf_crop_and_resize" && (src < 0 || src > float64(in-1))
		t := idx[int(x)*n : int(x+1)*n]
		tw := w[int(x)*n : int(x+1)*n]
		switch k.mode {
		case "nearest":
			t[0], tw[0] = clampIdx(int64(k.round(src, scale))), 1
		case "linear":
			f := math.Floor(src)
			r := src - f
			t[0], t[1] = int64(f), int64(f)+1
			tw[0], tw[1] = 1-r, r
		case "cubic":
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
		if k.mode != "nearest" {
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
				t[j] = clampIdx(t[j])
			}
		}
		for j := range t {
			if j > 0 && tw[j] != 0 || j == 0 && tw[j] != 1 {
				single = false
			}
		}
	}
	if single && n > 1 {
		// Every coordinate reads one input element with weight 1.
		for x := range out {
			idx[x] = idx[int(x)*n]
			w[x] = 1
		}
		n = 1
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
	for i := range r {
		start, end := 0.0, 1.0
		if roi != nil && k.coord == "tf_crop_and_resize" {
			if roi.NumElements() != int64(2*r) {
				return fmt.Errorf("roi has %d values, want %d", roi.NumElements(), 2*r)
			}
			start, end = loadF(roi.DType, roi.Data(), int64(i)), loadF(roi.DType, roi.Data(), int64(r+i))
		}
		k.table(i, x.Shape[i], y.Shape[i], scales[i], start, end)
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
	for base := int64(0); base < n; base += last {
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
		w, off := 1.0, int64(0)
		for i := range r {
			j := int(ctr[i])*k.taps[i] + sel[i]
			w *= k.tabW[i][j]
			off += k.tabIdx[i][j] * strides[i]
		}
		if w != 0 {
			sum += mul64(w, loadF(dt, xb, off))
		}
		i := r - 1
		for ; i >= 0; i-- {
			sel[i]++
			if sel[i] < k.taps[i] {
				break
			}
			sel[i] = 0
		}
		if i < 0 {
			return sum
		}
	}
}
