package ops

import (
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The cases below are edges where onnxruntime 1.30 was run on the same
// model (a differential test of random models against it): the wanted
// values are its outputs.

// TestPoolsKeepSameUpperNegativePadding: with auto_pad SAME_UPPER and a
// stride longer than the window, a pool's padding is negative (the one
// output's window starts at index 1 of 3), where a Conv clamps it to 0
// (its window starts at 0); SAME_LOWER starts at 0 for both.
func TestPoolsKeepSameUpperNegativePadding(t *testing.T) {
	x := f32(shp(1, 1, 3), -5, 1, 2)
	u := tensor(kernel.Uint8, shp(1, 1, 3), 6, 1, 2)
	for _, c := range []struct {
		op   string
		in   *kernel.Tensor
		pad  string
		want float64
	}{
		{"AveragePool", x, "SAME_UPPER", 1},
		{"LpPool", x, "SAME_UPPER", 1},
		{"MaxPool", u, "SAME_UPPER", 1},
		{"AveragePool", x, "SAME_LOWER", -5},
		{"LpPool", x, "SAME_LOWER", 5},
		{"MaxPool", u, "SAME_LOWER", 6},
	} {
		got := mustRun(t, c.op, kernel.Attrs{"kernel_shape": []int64{1}, "strides": []int64{3}, "auto_pad": c.pad, kernel.OpsetAttr: int64(20)}, c.in)
		checkValues(t, c.op+" "+c.pad, got, shp(1, 1, 1), []float64{c.want})
	}
	conv := mustRun(t, "Conv", kernel.Attrs{"kernel_shape": []int64{1}, "strides": []int64{3}, "auto_pad": "SAME_UPPER"}, x, f32(shp(1, 1, 1), 1))
	checkValues(t, "Conv SAME_UPPER", conv, shp(1, 1, 1), []float64{-5})
}

// TestPoolWithNoWindow: a window one longer than the padded input gives
// an empty output (MaxPool, AveragePool, LpPool; ceil_mode or not).
func TestPoolWithNoWindow(t *testing.T) {
	x := f32(shp(1, 1, 1), 7)
	for _, op := range []string{"MaxPool", "AveragePool", "LpPool"} {
		for _, ceil := range []int64{0, 1} {
			got := mustRun(t, op, kernel.Attrs{"kernel_shape": []int64{3}, "pads": []int64{1, 0}, "ceil_mode": ceil, kernel.OpsetAttr: int64(18)}, x)
			checkValues(t, op, got, shp(1, 1, 0), nil)
		}
		wantErr(t, op, kernel.Attrs{"kernel_shape": []int64{4}, "pads": []int64{1, 0}, kernel.OpsetAttr: int64(18)}, []*kernel.Tensor{x}, "exceeds padded input")
	}
}

// TestPowIntegerSquareAndCubeWrap: an integer base with an exponent of 2
// or 3 broadcast along the output's innermost axis longer than 1 is
// multiplied in its type, wrapping on overflow; other exponents go
// through float64 (an overflow is the type's minimum).
func TestPowIntegerSquareAndCubeWrap(t *testing.T) {
	got := mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, shp(2), 98852, 30150), tensor(kernel.Int32, shp(1), 2))
	if g := kernel.Int32s(got.Data()); !slices.Equal(g, []int32{1181783312, 909022500}) {
		t.Errorf("int32 squares: %v", g)
	}
	got = mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, shp(2), 1291, 2), tensor(kernel.Int64, shp(1), 3))
	if g := kernel.Int32s(got.Data()); !slices.Equal(g, []int32{-2143282125, 8}) {
		t.Errorf("int32 cube: %v", g)
	}
	a, b := int64(1)<<32, int64(3037000500)
	got = mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int64, shp(2), float64(a), float64(b)), f32(shp(), 2))
	if g := kernel.Int64s(got.Data()); !slices.Equal(g, []int64{a * a, b * b}) {
		t.Errorf("int64 squares: %v, want %v", g, []int64{a * a, b * b})
	}
	// Only an exponent broadcast along the output's innermost axis longer
	// than 1 (one exponent for a run of bases) is multiplied out; an
	// exponent that varies along it, or a single base and exponent, goes
	// through float64, the overflow the type's minimum.
	const min32 = -1 << 31
	for _, c := range []struct {
		xs, ys []int64
		x, y   []float64
		want   []int32
	}{
		{shp(2), shp(2), []float64{98852, 3}, []float64{2, 2}, []int32{min32, 9}},
		{shp(1), shp(1), []float64{98852}, []float64{2}, []int32{min32}},
		{shp(), shp(), []float64{98852}, []float64{2}, []int32{min32}},
		{shp(2, 1), shp(1, 2), []float64{98852, 3}, []float64{2, 2}, []int32{min32, min32, 9, 9}},
		{shp(1, 2), shp(2, 1), []float64{98852, 3}, []float64{2, 2}, []int32{1181783312, 9, 1181783312, 9}},
		{shp(2, 2), shp(2, 1), []float64{98852, 3, 98852, 3}, []float64{2, 3}, []int32{1181783312, 9, -1466493376, 27}},
		{shp(2, 2), shp(1, 2), []float64{98852, 3, 98852, 3}, []float64{2, 2}, []int32{min32, 9, min32, 9}},
		{shp(2, 1), shp(2, 1), []float64{98852, 3}, []float64{2, 2}, []int32{min32, 9}},
	} {
		got := mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, c.xs, c.x...), tensor(kernel.Int32, c.ys, c.y...))
		if g := kernel.Int32s(got.Data()); !slices.Equal(g, c.want) {
			t.Errorf("int32 %v ^ %v: %v, want %v", c.xs, c.ys, g, c.want)
		}
	}
}
