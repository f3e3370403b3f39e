package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The forms opsets 18 to 22 give Pad, Split, ScatterND, ScatterElements,
// Cast, CastLike, ReduceMax, ReduceMin and GridSample: their errors, and
// values worked out by hand. (onnx/testdata/opset checks them against
// onnxruntime.)

// formExact is an int64 tensor of exact values (tensor goes through
// float64, which holds integers up to 2^53 only).
func formExact(shape []int64, v ...int64) *kernel.Tensor {
	t := kernel.New(kernel.Int64, shape...)
	copy(kernel.Int64s(t.Host), v)
	return t
}

// checkExact compares an int64 tensor with want, every bit.
func checkExact(t *testing.T, what string, got *kernel.Tensor, want []int64) {
	t.Helper()
	if got.DType != kernel.Int64 || got.NumElements() != int64(len(want)) {
		t.Fatalf("%s: %v, want %d int64 values", what, got, len(want))
	}
	g := kernel.Int64s(got.Data())
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("%s: element %d is %d, want %d\ngot  %v\nwant %v", what, i, g[i], want[i], g[:len(want)], want)
		}
	}
}

// TestPad18Axes: the axes input names the axes pads applies to, in its
// order, negative counting from the end, int64 or int32; the other axes
// are not padded, and empty axes with empty pads leave the data as it is.
func TestPad18Axes(t *testing.T) {
	x := f32(shp(2, 3), 1, 2, 3, 4, 5, 6)
	none := f32(shp(0))
	for _, c := range []struct {
		what  string
		mode  string
		x     *kernel.Tensor
		pads  []float64
		value *kernel.Tensor
		axes  *kernel.Tensor
		shape []int64
		want  []float64
	}{
		{"last axis, negative", "constant", x, []float64{1, 2}, none, i64(shp(1), -1), shp(2, 6),
			[]float64{0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0}},
		{"first axis, int32", "edge", x, []float64{1, 0}, none, tensor(kernel.Int32, shp(1), 0), shp(3, 3),
			[]float64{1, 2, 3, 1, 2, 3, 4, 5, 6}},
		// Axes [1 0]: pads are axis 1's begin, axis 0's begin, axis 1's
		// end, axis 0's end.
		{"axes in reverse order", "constant", x, []float64{0, 1, 2, 0}, f32(shp(), 9), i64(shp(2), 1, 0), shp(3, 5),
			[]float64{9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 4, 5, 6, 9, 9}},
		{"negative pad on one axis", "constant", x, []float64{-1, 1}, none, tensor(kernel.Int32, shp(1), -1), shp(2, 3),
			[]float64{2, 3, 0, 5, 6, 0}},
		{"middle axis of three", "reflect", f32(shp(2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8), []float64{1, 0}, none, i64(shp(1), 1), shp(2, 3, 2),
			[]float64{3, 4, 1, 2, 3, 4, 7, 8, 5, 6, 7, 8}},
		{"empty axes", "constant", x, nil, f32(shp(), 9), i64(shp(0)), shp(2, 3),
			[]float64{1, 2, 3, 4, 5, 6}},
		{"empty int32 axes", "edge", x, nil, none, tensor(kernel.Int32, shp(0)), shp(2, 3),
			[]float64{1, 2, 3, 4, 5, 6}},
	} {
		for _, opset := range []int64{18, 19, 22} {
			pads := i64(shp(int64(len(c.pads))), c.pads...)
			got := mustRun(t, "Pad", formAttrs(opset, "mode", c.mode), c.x, pads, c.value, c.axes)
			checkValues(t, c.what, got, c.shape, c.want)
		}
	}
	// Without the axes input pads cover every axis.
	got := mustRun(t, "Pad", formAttrs(18), x, i64(shp(4), 0, 1, 0, 2))
	checkValues(t, "no axes input", got, shp(2, 6), []float64{0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0})
}

// TestPad18AxesErrors: an axis named twice, an axis out of range, pads not
// two per axis, axes of a wrong dtype or rank, and an axes input before
// opset 18 are errors.
func TestPad18AxesErrors(t *testing.T) {
	x := f32(shp(2, 3))
	none := f32(shp(0))
	pads2 := i64(shp(2), 1, 1)
	pads4 := i64(shp(4), 1, 1, 1, 1)
	for _, c := range []struct {
		opset int64
		in    []*kernel.Tensor
		want  []string
	}{
		{18, []*kernel.Tensor{x, pads4, none, i64(shp(2), 1, -1)}, []string{"input axes names axis 1 twice (value -1)"}},
		{18, []*kernel.Tensor{x, pads4, none, tensor(kernel.Int32, shp(2), 0, 0)}, []string{"axis 0 twice"}},
		{18, []*kernel.Tensor{x, pads2, none, i64(shp(1), 2)}, []string{"input axes", "axis 2 out of range for rank 2"}},
		{19, []*kernel.Tensor{x, pads2, none, i64(shp(1), -3)}, []string{"axis -3 out of range for rank 2"}},
		{18, []*kernel.Tensor{x, pads4, none, i64(shp(1), 0)}, []string{"want 2 values for the 1 axes of input axes"}},
		{18, []*kernel.Tensor{x, i64(shp(3), 1, 1, 1), none, i64(shp(2), 0, 1)}, []string{"want 4 values for the 2 axes"}},
		{18, []*kernel.Tensor{x, pads2, none, i64(shp(0))}, []string{"want 0 values for the 0 axes"}},
		{18, []*kernel.Tensor{x, pads2, none, f32(shp(1), 0)}, []string{"input axes has dtype float32, want int64 or int32"}},
		{18, []*kernel.Tensor{x, pads2, none, i64(shp(1, 1), 0)}, []string{"input axes has rank 2"}},
		{17, []*kernel.Tensor{x, pads2, none, i64(shp(1), 0)}, []string{"have 4 inputs", "want 2 to 3 inputs"}},
		{11, []*kernel.Tensor{x, pads2, none, i64(shp(1), 0)}, []string{"have 4 inputs", "want 2 to 3 inputs"}},
	} {
		wantErr(t, "Pad", formAttrs(c.opset), c.in, c.want...)
	}
}

// TestPad19Wrap: mode wrap repeats the axis as a torus: pads longer than
// the axis go round it more than once, and after negative pads the torus
// is what they leave of the axis.
func TestPad19Wrap(t *testing.T) {
	none := f32(shp(0))
	x5 := f32(shp(5), 1, 2, 3, 4, 5)
	for _, c := range []struct {
		what  string
		x     *kernel.Tensor
		pads  []float64
		axes  *kernel.Tensor
		shape []int64
		want  []float64
	}{
		{"both sides", f32(shp(3), 1, 2, 3), []float64{1, 1}, nil, shp(5), []float64{3, 1, 2, 3, 1}},
		{"longer than the axis", f32(shp(3), 1, 2, 3), []float64{2, 4}, nil, shp(9), []float64{2, 3, 1, 2, 3, 1, 2, 3, 1}},
		{"three times the axis", f32(shp(2), 1, 2), []float64{5, 0}, nil, shp(7), []float64{2, 1, 2, 1, 2, 1, 2}},
		// [2 3 4 5] is left: the end pad wraps around it, not around 1.
		{"cropped begin", x5, []float64{-1, 3}, nil, shp(7), []float64{2, 3, 4, 5, 2, 3, 4}},
		// [1 2 3] is left: the begin pad takes 2 and 3, not 4 and 5.
		{"cropped end", x5, []float64{2, -2}, nil, shp(5), []float64{2, 3, 1, 2, 3}},
		{"cropped both", x5, []float64{-1, -2}, nil, shp(2), []float64{2, 3}},
		{"cropped begin, short pad", x5, []float64{-2, 1}, nil, shp(4), []float64{3, 4, 5, 3}},
		{"cropped to one", x5, []float64{-4, 2}, nil, shp(3), []float64{5, 5, 5}},
		{"rows", f32(shp(2, 2), 1, 2, 3, 4), []float64{3, 0, 0, 0}, nil, shp(5, 2), []float64{3, 4, 1, 2, 3, 4, 1, 2, 3, 4}},
		{"on axes", f32(shp(2, 3), 1, 2, 3, 4, 5, 6), []float64{1, 1}, i64(shp(1), -1), shp(2, 5),
			[]float64{3, 1, 2, 3, 1, 6, 4, 5, 6, 4}},
		{"both axes, one cropped", f32(shp(2, 3), 1, 2, 3, 4, 5, 6), []float64{1, -1, 0, 1}, i64(shp(2), 0, 1), shp(3, 3),
			[]float64{5, 6, 5, 2, 3, 2, 5, 6, 5}},
		{"int64 data", tensor(kernel.Int64, shp(3), 7, 8, 9), []float64{1, 2}, nil, shp(6), []float64{9, 7, 8, 9, 7, 8}},
	} {
		for _, opset := range []int64{19, 21} {
			in := []*kernel.Tensor{c.x, i64(shp(int64(len(c.pads))), c.pads...)}
			if c.axes != nil {
				in = append(in, none, c.axes)
			}
			got := mustRun(t, "Pad", formAttrs(opset, "mode", "wrap"), in...)
			checkValues(t, c.what, got, c.shape, c.want)
		}
	}
}

// TestPad19WrapErrors: wrap before opset 19, an unknown mode, negative
// pads that leave nothing to wrap around, and wrapping an empty axis are
// errors.
func TestPad19WrapErrors(t *testing.T) {
	x := f32(shp(3), 1, 2, 3)
	pads := i64(shp(2), 1, 1)
	wantErr(t, "Pad", formAttrs(18, "mode", "wrap"), []*kernel.Tensor{x, pads}, `mode "wrap" at opset 18`, "wrap is from opset 19")
	wantErr(t, "Pad", formAttrs(11, "mode", "wrap"), []*kernel.Tensor{x, pads}, `mode "wrap" at opset 11`)
	wantErr(t, "Pad", formAttrs(19, "mode", "circular"), []*kernel.Tensor{x, pads}, `mode "circular"`, "edge or wrap")
	wantErr(t, "Pad", formAttrs(19, "mode", "wrap"), []*kernel.Tensor{x, i64(shp(2), -3, 1)}, "mode wrap pads axis 0", "by -3 and 1", "nothing is left to wrap around")
	wantErr(t, "Pad", formAttrs(19, "mode", "wrap"), []*kernel.Tensor{x, i64(shp(2), 2, -3)}, "by 2 and -3", "nothing is left to wrap around")
	wantErr(t, "Pad", formAttrs(19, "mode", "wrap"), []*kernel.Tensor{f32(shp(2, 3)), i64(shp(2), -2, 1), f32(shp(0)), i64(shp(1), 0)},
		"mode wrap pads axis 0 of data [2,3] by -2 and 1", "nothing is left")
	wantErr(t, "Pad", formAttrs(19, "mode", "wrap"), []*kernel.Tensor{f32(shp(0)), pads}, "mode wrap cannot pad empty axis 0")
	wantErr(t, "Pad", formAttrs(19, "mode", "wrap"), []*kernel.Tensor{x, i64(shp(2), -2, -2)}, "remove more than axis 0")
}

// TestSplit18NumOutputs: from opset 18, num_outputs parts but the last
// have ⌈dim/num_outputs⌉ elements and the last the rest (7 into 3 is 3,
// 3, 1); opset 17 cuts the same way when the rest is not empty.
func TestSplit18NumOutputs(t *testing.T) {
	x7 := f32(shp(7), 0, 1, 2, 3, 4, 5, 6)
	for _, opset := range []int64{17, 18, 22} {
		out, err := runOp("Split", formAttrs(opset, "num_outputs", int64(3)), x7)
		if err != nil {
			t.Fatalf("opset %d: 7 into 3: %v", opset, err)
		}
		checkValues(t, "7 into 3, part 0", out[0], shp(3), []float64{0, 1, 2})
		checkValues(t, "7 into 3, part 1", out[1], shp(3), []float64{3, 4, 5})
		checkValues(t, "7 into 3, part 2", out[2], shp(1), []float64{6})
	}
	// Along the last axis of [2, 5]: 3 and 2.
	x := f32(shp(2, 5), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	out, err := runOp("Split", formAttrs(18, "num_outputs", int64(2), "axis", int64(-1)), x)
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, "5 into 2, part 0", out[0], shp(2, 3), []float64{0, 1, 2, 5, 6, 7})
	checkValues(t, "5 into 2, part 1", out[1], shp(2, 2), []float64{3, 4, 8, 9})
	// 6 into 3 divides: 2, 2, 2.
	out, err = runOp("Split", formAttrs(18, "num_outputs", int64(3)), tensor(kernel.Int64, shp(6), 1, 2, 3, 4, 5, 6))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]float64{{1, 2}, {3, 4}, {5, 6}} {
		checkValues(t, "6 into 3", out[i], shp(2), want)
	}
	// Opset 17 lets the last part be empty: 4 into 3 is 2, 2, 0; and an
	// empty split input means equal parts there.
	x4 := f32(shp(4), 1, 2, 3, 4)
	for _, in := range [][]*kernel.Tensor{{x4}, {x4, i64(shp(0))}} {
		out, err = runOp("Split", formAttrs(17, "num_outputs", int64(3)), in...)
		if err != nil {
			t.Fatalf("opset 17, 4 into 3: %v", err)
		}
		checkValues(t, "opset 17, part 0", out[0], shp(2), []float64{1, 2})
		checkValues(t, "opset 17, part 1", out[1], shp(2), []float64{3, 4})
		checkValues(t, "opset 17, part 2", out[2], shp(0), nil)
	}
	// A split input still gives the lengths at 18.
	out, err = runOp("Split", formAttrs(18, "num_outputs", int64(2)), x4, i64(shp(2), 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, "split input", out[0], shp(3), []float64{1, 2, 3})
	checkValues(t, "split input", out[1], shp(1), []float64{4})
}

// TestSplit18Errors: from opset 18 equal parts whose last one would be
// empty (4 into 3, 2 into 3) and an empty split input are errors.
func TestSplit18Errors(t *testing.T) {
	three := func(opset int64) kernel.Attrs { return formAttrs(opset, "num_outputs", int64(3)) }
	wantErr(t, "Split", three(18), []*kernel.Tensor{f32(shp(4))},
		"num_outputs 3: axis 0 of input [4] (4 elements) does not split into 3 parts of 2", "not empty")
	wantErr(t, "Split", three(22), []*kernel.Tensor{f32(shp(4))}, "does not split into 3 parts of 2")
	wantErr(t, "Split", three(18), []*kernel.Tensor{f32(shp(2))}, "axis 0 of input [2] (2 elements) does not split into 3 parts of 1")
	wantErr(t, "Split", formAttrs(18, "num_outputs", int64(3), "axis", int64(1)), []*kernel.Tensor{f32(shp(5, 4))},
		"axis 1 of input [5,4] (4 elements)")
	wantErr(t, "Split", formAttrs(18, "num_outputs", int64(2)), []*kernel.Tensor{f32(shp(0))}, "(0 elements) does not split into 2 parts")
	wantErr(t, "Split", three(18), []*kernel.Tensor{f32(shp(6)), i64(shp(0))}, "split [] has 0 parts, the node 3 outputs")
	wantErr(t, "Split", three(18), []*kernel.Tensor{f32(shp(6)), i64(shp(2), 3, 3)}, "split [3 3] has 2 parts")
}

// TestScatter18MaxMin: reduction max and min combine duplicate indices,
// update after update, in ScatterND and ScatterElements, on float and
// int32 data.
func TestScatter18MaxMin(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64, kernel.Int32} {
		data := tensor(dt, shp(4), 1, 5, 3, 0)
		up := tensor(dt, shp(4), 4, 2, 7, -1)
		nd := i64(shp(4, 1), 0, 0, 2, 2)
		el := i64(shp(4), 0, 0, 2, 2)
		for _, c := range []struct {
			red  string
			want []float64
		}{
			{"max", []float64{4, 5, 7, 0}}, // max(1, 4, 2), max(3, 7, −1)
			{"min", []float64{1, 5, -1, 0}},
		} {
			got := mustRun(t, "ScatterND", formAttrs(18, "reduction", c.red), data, nd, up)
			checkValues(t, "ScatterND "+c.red+" "+dt.String(), got, shp(4), c.want)
			got = mustRun(t, "ScatterElements", formAttrs(18, "reduction", c.red), data, el, up)
			checkValues(t, "ScatterElements "+c.red+" "+dt.String(), got, shp(4), c.want)
		}
	}
	// ScatterElements along axis 1 of [2, 2]; ScatterND on slices.
	data := f32(shp(2, 2), 1, 5, 2, 0)
	ix := i64(shp(2, 3), 0, 0, 1, 1, 0, 1)
	up := f32(shp(2, 3), 4, 2, 3, 7, -1, -3)
	got := mustRun(t, "ScatterElements", formAttrs(18, "reduction", "max", "axis", int64(1)), data, ix, up)
	checkValues(t, "ScatterElements max axis 1", got, shp(2, 2), []float64{4, 5, 2, 7})
	got = mustRun(t, "ScatterElements", formAttrs(18, "reduction", "min", "axis", int64(-1)), data, ix, up)
	checkValues(t, "ScatterElements min axis -1", got, shp(2, 2), []float64{1, 3, -1, -3})
	rows := i64(shp(3, 1), 1, 0, 1)
	slices := f32(shp(3, 2), 3, -1, 0, 9, 1, 4)
	got = mustRun(t, "ScatterND", formAttrs(18, "reduction", "max"), data, rows, slices)
	checkValues(t, "ScatterND max rows", got, shp(2, 2), []float64{1, 9, 3, 4})
	got = mustRun(t, "ScatterND", formAttrs(18, "reduction", "min"), data, rows, slices)
	checkValues(t, "ScatterND min rows", got, shp(2, 2), []float64{0, 5, 1, -1})
}

// TestScatter18MaxMinInt64: max and min compare int64 values exactly,
// also above 2^53 where neighbours share a float64.
func TestScatter18MaxMinInt64(t *testing.T) {
	const b = int64(1) << 60
	data := formExact(shp(2), b+1, b+3)
	up := formExact(shp(3), b+2, b, b+2)
	nd := i64(shp(3, 1), 0, 0, 1)
	el := i64(shp(3), 0, 0, 1)
	for _, c := range []struct {
		red  string
		want []int64
	}{
		{"max", []int64{b + 2, b + 3}},
		{"min", []int64{b, b + 2}},
	} {
		checkExact(t, "ScatterND "+c.red, mustRun(t, "ScatterND", formAttrs(18, "reduction", c.red), data, nd, up), c.want)
		checkExact(t, "ScatterElements "+c.red, mustRun(t, "ScatterElements", formAttrs(18, "reduction", c.red), data, el, up), c.want)
	}
	// The extremes of int64.
	data = formExact(shp(2), math.MaxInt64, math.MinInt64)
	up = formExact(shp(2), math.MaxInt64-1, math.MinInt64+1)
	el = i64(shp(2), 0, 1)
	checkExact(t, "max at the extremes", mustRun(t, "ScatterElements", formAttrs(18, "reduction", "max"), data, el, up),
		[]int64{math.MaxInt64, math.MinInt64 + 1})
	checkExact(t, "min at the extremes", mustRun(t, "ScatterElements", formAttrs(18, "reduction", "min"), data, el, up),
		[]int64{math.MaxInt64 - 1, math.MinInt64})
}

// TestScatter18NaN: max keeps the element only when it is above the update
// and min only when it is below, so a NaN update replaces the element, a
// NaN element gives way to the next update, and of equal values (+0 and
// −0 too) the update stays.
func TestScatter18NaN(t *testing.T) {
	nan := math.NaN()
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64} {
		data := tensor(dt, shp(3), nan, 1, 2)
		// Element 0: NaN, then 3, then 1. Element 1: 1, then NaN, then 5.
		// Element 2: 2, then NaN.
		up := tensor(dt, shp(5), 3, nan, 5, nan, 1)
		nd := i64(shp(5, 1), 0, 1, 1, 2, 0)
		el := i64(shp(5), 0, 1, 1, 2, 0)
		for _, c := range []struct {
			red  string
			want []float64
		}{
			{"max", []float64{3, 5, nan}},
			{"min", []float64{1, 5, nan}},
		} {
			got := mustRun(t, "ScatterND", formAttrs(18, "reduction", c.red), data, nd, up)
			checkValues(t, "ScatterND "+c.red+" NaN "+dt.String(), got, shp(3), c.want)
			got = mustRun(t, "ScatterElements", formAttrs(18, "reduction", c.red), data, el, up)
			checkValues(t, "ScatterElements "+c.red+" NaN "+dt.String(), got, shp(3), c.want)
		}
	}
	// A NaN update last leaves NaN; a NaN element with no update stays.
	data := f32(shp(2), 4, nan)
	got := mustRun(t, "ScatterElements", formAttrs(18, "reduction", "max"), data, i64(shp(2), 0, 0), f32(shp(2), 6, nan))
	checkValues(t, "NaN update last", got, shp(2), []float64{nan, nan})
	// Equal values take the update: +0 and −0 are equal, so the zero that
	// comes last stays, under max and min alike.
	negZero := math.Copysign(0, -1)
	for _, red := range []string{"max", "min"} {
		data = f32(shp(2), 0, negZero)
		up := f32(shp(2), negZero, 0)
		got = mustRun(t, "ScatterElements", formAttrs(18, "reduction", red), data, i64(shp(2), 0, 1), up)
		checkValues(t, "signed zeros, "+red, got, shp(2), []float64{negZero, 0})
		got = mustRun(t, "ScatterND", formAttrs(18, "reduction", red), data, i64(shp(2, 1), 0, 1), up)
		checkValues(t, "signed zeros, "+red, got, shp(2), []float64{negZero, 0})
	}
}

// TestScatter18Errors: an unknown reduction is an error naming it.
func TestScatter18Errors(t *testing.T) {
	data, up := f32(shp(3)), f32(shp(1))
	for _, red := range []string{"maximum", "Max", "mean", ""} {
		wantErr(t, "ScatterND", formAttrs(18, "reduction", red), []*kernel.Tensor{data, i64(shp(1, 1)), up}, "ScatterND", `reduction "`+red+`"`)
		wantErr(t, "ScatterElements", formAttrs(18, "reduction", red), []*kernel.Tensor{data, i64(shp(1)), up}, "ScatterElements", `reduction "`+red+`"`)
	}
}

// TestCast19Saturate: from opset 19 Cast and CastLike take saturate 0 or 1
// (an int or a bool), which changes nothing on a float to int8 cast:
// truncation toward zero, saturation at the bounds, NaN to 0.
func TestCast19Saturate(t *testing.T) {
	x := f32(shp(6), -300, -3.7, -0.5, 3.7, 300, math.NaN())
	want := []float64{-128, -3, 0, 3, 127, 0}
	target := tensor(kernel.Int8, shp(1))
	for _, opset := range []int64{19, 21} {
		for _, sat := range []any{int64(0), int64(1), false, true, nil} {
			attrs := formAttrs(opset, "to", "int8")
			like := formAttrs(opset)
			if sat != nil {
				attrs["saturate"], like["saturate"] = sat, sat
			}
			got := mustRun(t, "Cast", attrs, x)
			if got.DType != kernel.Int8 {
				t.Fatalf("Cast saturate %v: dtype %v", sat, got.DType)
			}
			checkValues(t, "Cast saturate", got, shp(6), want)
			got = mustRun(t, "CastLike", like, x, target)
			if got.DType != kernel.Int8 {
				t.Fatalf("CastLike saturate %v: dtype %v", sat, got.DType)
			}
			checkValues(t, "CastLike saturate", got, shp(6), want)
		}
	}
	checkValues(t, "Cast at 17", mustRun(t, "Cast", formAttrs(17, "to", "int8"), x), shp(6), want)
}

// TestCast19Errors: saturate other than 0 or 1, saturate before opset 19
// and round_mode (which pipert does not take) are errors for Cast and
// CastLike.
func TestCast19Errors(t *testing.T) {
	x := []*kernel.Tensor{f32(shp(2), 1.5, -2)}
	xl := []*kernel.Tensor{x[0], tensor(kernel.Int8, shp(1))}
	for _, c := range []struct {
		attrs kernel.Attrs
		want  []string
	}{
		{formAttrs(19, "saturate", int64(2)), []string{`attribute "saturate" is 2, want 0 or 1`}},
		{formAttrs(19, "saturate", int64(-1)), []string{`attribute "saturate" is -1`}},
		{formAttrs(19, "saturate", "yes"), []string{`attribute "saturate": want a bool or 0/1`}},
		{formAttrs(18, "saturate", int64(1)), []string{`unknown attribute "saturate"`}},
		{formAttrs(13, "saturate", int64(0)), []string{`unknown attribute "saturate"`}},
		{formAttrs(19, "round_mode", "up"), []string{`unknown attribute "round_mode"`}},
		{formAttrs(22, "saturate", int64(1), "round_mode", "nearest"), []string{`unknown attribute "round_mode"`}},
	} {
		like := kernel.Attrs{}
		for k, v := range c.attrs {
			like[k] = v
		}
		wantErr(t, "CastLike", like, xl, c.want...)
		c.attrs["to"] = "int8"
		wantErr(t, "Cast", c.attrs, x, c.want...)
	}
}

// TestReduce20Bool: from opset 20 ReduceMax on bool is the or of the
// reduced elements and ReduceMin their and, with keepdims 0 and 1, all
// axes when none are given, false and true over no element, and a copy
// with noop_with_empty_axes and empty axes.
func TestReduce20Bool(t *testing.T) {
	// [[T T] [F T] [F F]]
	x := tensor(kernel.Bool, shp(3, 2), 1, 1, 0, 1, 0, 0)
	none := i64(shp(0))
	for _, c := range []struct {
		op    string
		axes  *kernel.Tensor
		keep  int64
		noop  int64
		shape []int64
		want  []float64
	}{
		{"ReduceMax", i64(shp(1), 1), 0, 0, shp(3), []float64{1, 1, 0}},
		{"ReduceMin", i64(shp(1), 1), 0, 0, shp(3), []float64{1, 0, 0}},
		{"ReduceMax", i64(shp(1), -1), 1, 0, shp(3, 1), []float64{1, 1, 0}},
		{"ReduceMin", i64(shp(1), -1), 1, 0, shp(3, 1), []float64{1, 0, 0}},
		{"ReduceMax", i64(shp(1), 0), 0, 0, shp(2), []float64{1, 1}},
		{"ReduceMin", i64(shp(1), 0), 1, 0, shp(1, 2), []float64{0, 0}},
		{"ReduceMax", i64(shp(2), 0, 1), 0, 0, shp(), []float64{1}},
		{"ReduceMin", i64(shp(2), 1, 0), 1, 0, shp(1, 1), []float64{0}},
		{"ReduceMax", nil, 1, 0, shp(1, 1), []float64{1}},
		{"ReduceMin", nil, 0, 0, shp(), []float64{0}},
		{"ReduceMax", none, 0, 0, shp(), []float64{1}},
		{"ReduceMin", none, 1, 0, shp(1, 1), []float64{0}},
		{"ReduceMax", none, 1, 1, shp(3, 2), []float64{1, 1, 0, 1, 0, 0}},
		{"ReduceMin", none, 0, 1, shp(3, 2), []float64{1, 1, 0, 1, 0, 0}},
		{"ReduceMin", nil, 1, 1, shp(3, 2), []float64{1, 1, 0, 1, 0, 0}},
		{"ReduceMax", i64(shp(1), 1), 0, 1, shp(3), []float64{1, 1, 0}},
	} {
		in := []*kernel.Tensor{x}
		if c.axes != nil {
			in = append(in, c.axes)
		}
		for _, opset := range []int64{20, 22} {
			got := mustRun(t, c.op, formAttrs(opset, "keepdims", c.keep, "noop_with_empty_axes", c.noop), in...)
			if got.DType != kernel.Bool {
				t.Fatalf("%s: dtype %v, want bool", c.op, got.DType)
			}
			checkValues(t, c.op+" on bool", got, c.shape, c.want)
		}
	}
	// Over no element: or is false, and is true.
	empty := tensor(kernel.Bool, shp(0, 2))
	checkValues(t, "ReduceMax of nothing", mustRun(t, "ReduceMax", formAttrs(20, "keepdims", int64(0)), empty, i64(shp(1), 0)), shp(2), []float64{0, 0})
	checkValues(t, "ReduceMin of nothing", mustRun(t, "ReduceMin", formAttrs(20, "keepdims", int64(0)), empty, i64(shp(1), 0)), shp(2), []float64{1, 1})
}

// TestReduce20BoolErrors: bool data is refused by ReduceMax and ReduceMin
// before opset 20, and by the other reductions at 20.
func TestReduce20BoolErrors(t *testing.T) {
	x := tensor(kernel.Bool, shp(2, 2), 1, 0, 1, 1)
	for _, op := range []string{"ReduceMax", "ReduceMin"} {
		for _, opset := range []int64{17, 18, 19} {
			wantErr(t, op, formAttrs(opset), []*kernel.Tensor{x}, op, "input data has dtype bool, want one of")
		}
		wantErr(t, op, formAttrs(19), []*kernel.Tensor{x, i64(shp(1), 0)}, "dtype bool")
	}
	for _, op := range []string{"ReduceMean", "ReduceProd", "ReduceL1"} {
		wantErr(t, op, formAttrs(20), []*kernel.Tensor{x}, "input data has dtype bool")
	}
}

// TestGridSample20Modes: from opset 20 the modes are linear (the default),
// nearest and cubic, and before 20 bilinear, nearest and bicubic; each
// set is refused at the other opsets.
func TestGridSample20Modes(t *testing.T) {
	// [[1 2] [3 4]] at its centre, and at the centre of the top row.
	x := f32(shp(1, 1, 2, 2), 1, 2, 3, 4)
	g := f32(shp(1, 1, 2, 2), 0, 0, 0, -0.5)
	for _, c := range []struct {
		opset int64
		mode  string
		want  []float64
	}{
		{20, "", []float64{2.5, 1.5}},
		{20, "linear", []float64{2.5, 1.5}},
		{22, "linear", []float64{2.5, 1.5}},
		{19, "", []float64{2.5, 1.5}},
		{19, "bilinear", []float64{2.5, 1.5}},
		{16, "bilinear", []float64{2.5, 1.5}},
		// The points (0.5, 0.5) and (0.5, 0): half to even is pixel (0, 0).
		{20, "nearest", []float64{1, 1}},
		{19, "nearest", []float64{1, 1}},
	} {
		attrs := formAttrs(c.opset)
		if c.mode != "" {
			attrs["mode"] = c.mode
		}
		checkValues(t, "mode "+c.mode, mustRun(t, "GridSample", attrs, x, g), shp(1, 1, 1, 2), c.want)
	}
	// Cubic at the midpoint weighs its four taps −3/32, 19/32, 19/32,
	// −3/32: on columns 0, 1, 4, 9 (x²) that is 2.125; every row is the
	// same, so the rows change nothing.
	sq := f32(shp(1, 1, 4, 4), 0, 1, 4, 9, 0, 1, 4, 9, 0, 1, 4, 9, 0, 1, 4, 9)
	mid := f32(shp(1, 1, 1, 2), 0, 0)
	for _, c := range []struct {
		opset int64
		mode  string
	}{{20, "cubic"}, {21, "cubic"}, {19, "bicubic"}} {
		got := mustRun(t, "GridSample", formAttrs(c.opset, "mode", c.mode, "align_corners", int64(1)), sq, mid)
		checkValues(t, c.mode, got, shp(1, 1, 1, 1), []float64{2.125})
	}
	in := []*kernel.Tensor{x, g}
	for _, c := range []struct {
		opset int64
		mode  string
		want  string
	}{
		{20, "bilinear", `mode "bilinear" at opset 20, want linear, nearest or cubic`},
		{20, "bicubic", `mode "bicubic" at opset 20`},
		{22, "bilinear", `mode "bilinear" at opset 22`},
		{19, "linear", `mode "linear" at opset 19, want bilinear, nearest or bicubic`},
		{19, "cubic", `mode "cubic" at opset 19`},
		{16, "linear", `mode "linear" at opset 16`},
		{20, "trilinear", `mode "trilinear" at opset 20`},
	} {
		wantErr(t, "GridSample", formAttrs(c.opset, "mode", c.mode), in, c.want)
	}
}

// TestGridSample20Volumetric: from opset 20 a 5-D input [N, C, D, H, W] is
// sampled at grid points (x, y, z): trilinearly with linear, the nearest
// voxel with nearest.
func TestGridSample20Volumetric(t *testing.T) {
	// A 2×2×2 cube holding 1 + x + 2y + 4z at voxel (x, y, z); channel 1
	// holds 10 more.
	v := make([]float64, 16)
	for i := range 8 {
		v[i], v[8+i] = float64(1+i), float64(11+i)
	}
	x := f32(shp(1, 2, 2, 2, 2), v...)
	// Without align_corners: (0, 0, 0) is the centre, the mean of the
	// eight voxels; (1, −1, 0) is the point (1.5, −0.5, 0.5), whose
	// only voxels inside are (1, 0, 0) and (1, 0, 1), each of weight 1/8.
	g := f32(shp(1, 1, 1, 2, 3), 0, 0, 0, 1, -1, 0)
	got := mustRun(t, "GridSample", formAttrs(20, "mode", "linear"), x, g)
	checkValues(t, "trilinear", got, shp(1, 2, 1, 1, 2), []float64{4.5, 1, 14.5, 3.5})
	got = mustRun(t, "GridSample", formAttrs(22), x, g)
	checkValues(t, "default mode", got, shp(1, 2, 1, 1, 2), []float64{4.5, 1, 14.5, 3.5})
	// With align_corners, (0.5, −0.5, 0) is the point (0.75, 0.25, 0.5),
	// where the linear function is 1 + 0.75 + 0.5 + 2 = 4.25; (2, 0, 0)
	// is (1.5, 0.5, 0.5), which border padding clamps to x = 1:
	// 1 + 1 + 1 + 2 = 5.
	g = f32(shp(1, 2, 1, 1, 3), 0.5, -0.5, 0, 2, 0, 0)
	got = mustRun(t, "GridSample", formAttrs(20, "align_corners", int64(1), "padding_mode", "border"), x, g)
	checkValues(t, "trilinear align_corners", got, shp(1, 2, 2, 1, 1), []float64{4.25, 5, 14.25, 15})
	// Nearest with align_corners: (0.2, −0.8, 0.9) is (0.6, 0.1, 0.95),
	// voxel (1, 0, 1); (−0.2, 0.8, −0.9) is voxel (0, 1, 0); (0, 0, 0)
	// is (0.5, 0.5, 0.5), half to even: voxel (0, 0, 0).
	g = f32(shp(1, 1, 1, 3, 3), 0.2, -0.8, 0.9, -0.2, 0.8, -0.9, 0, 0, 0)
	got = mustRun(t, "GridSample", formAttrs(20, "mode", "nearest", "align_corners", int64(1)), x, g)
	checkValues(t, "nearest", got, shp(1, 2, 1, 1, 3), []float64{6, 3, 1, 16, 13, 11})
	// Outside with zeros padding.
	g = f32(shp(1, 1, 1, 1, 3), 0, 0, 3)
	got = mustRun(t, "GridSample", formAttrs(20, "mode", "nearest"), x, g)
	checkValues(t, "nearest outside", got, shp(1, 2, 1, 1, 1), []float64{0, 0})
}

// TestGridSample20Errors: cubic on 5-D input, inputs of rank 3 or 6, 5-D
// input before opset 20 and a grid not matching the input are errors.
func TestGridSample20Errors(t *testing.T) {
	x5, g5 := f32(shp(1, 1, 2, 2, 2)), f32(shp(1, 1, 1, 1, 3))
	wantErr(t, "GridSample", formAttrs(20, "mode", "cubic"), []*kernel.Tensor{x5, g5}, "mode cubic takes 4-D input, X is [1,1,2,2,2]")
	wantErr(t, "GridSample", formAttrs(22, "mode", "cubic", "padding_mode", "border"), []*kernel.Tensor{x5, g5}, "mode cubic takes 4-D input")
	wantErr(t, "GridSample", formAttrs(20), []*kernel.Tensor{f32(shp(1, 1, 4)), f32(shp(1, 4, 1))},
		"input X [1,1,4] has rank 3: want 4, [N, C, H, W], or 5, [N, C, D, H, W]")
	wantErr(t, "GridSample", formAttrs(20, "mode", "nearest"), []*kernel.Tensor{f32(shp(1, 1, 2, 2, 2, 2)), f32(shp(1, 1, 1, 1, 1, 4))},
		"input X [1,1,2,2,2,2] has rank 6")
	wantErr(t, "GridSample", formAttrs(19), []*kernel.Tensor{x5, g5}, "input X [1,1,2,2,2] has rank 5: want 4, [N, C, H, W]")
	wantErr(t, "GridSample", formAttrs(19), []*kernel.Tensor{f32(shp(1, 1, 4)), f32(shp(1, 4, 1))}, "has rank 3: want 4")
	wantErr(t, "GridSample", formAttrs(20), []*kernel.Tensor{x5, f32(shp(1, 1, 1, 1, 2))},
		"inputs X [1,1,2,2,2] and grid [1,1,1,1,2]: want [N, C, D, H, W] and [N, Do, Ho, Wo, 3]")
	wantErr(t, "GridSample", formAttrs(20), []*kernel.Tensor{x5, f32(shp(1, 1, 1, 3))}, "want [N, C, D, H, W] and [N, Do, Ho, Wo, 3]")
	wantErr(t, "GridSample", formAttrs(20), []*kernel.Tensor{f32(shp(1, 1, 2, 2)), f32(shp(1, 1, 1, 1, 3))},
		"inputs X [1,1,2,2] and grid [1,1,1,1,3]: want [N, C, H, W] and [N, Ho, Wo, 2]")
}
