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

// TestPowIntegerSquareAndCubeWrap: an integer base with an exponent of
// one element, 2 or 3, is multiplied in its type, wrapping on overflow;
// other exponents go through float64 (an overflow is the type's minimum).
func TestPowIntegerSquareAndCubeWrap(t *testing.T) {
	got := mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, shp(2), 98852, 30150), tensor(kernel.Int32, shp(1), 2))
	if g := kernel.Int32s(got.Data()); !slices.Equal(g, []int32{1181783312, 909022500}) {
		t.Errorf("int32 squares: %v", g)
	}
	got = mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, shp(1), 1291), tensor(kernel.Int64, shp(1), 3))
	if g := kernel.Int32s(got.Data()); !slices.Equal(g, []int32{-2143282125}) {
		t.Errorf("int32 cube: %v", g)
	}
	a, b := int64(1)<<32, int64(3037000500)
	got = mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int64, shp(2), float64(a), float64(b)), f32(shp(), 2))
	if g := kernel.Int64s(got.Data()); !slices.Equal(g, []int64{a * a, b * b}) {
		t.Errorf("int64 squares: %v, want %v", g, []int64{a * a, b * b})
	}
	// An exponent tensor of two elements: float64, and the overflow is
	// the type's minimum.
	got = mustRun(t, "Pow", kernel.Attrs{kernel.OpsetAttr: int64(17)}, tensor(kernel.Int32, shp(2), 98852, 3), tensor(kernel.Int32, shp(2), 2, 2))
	if g := kernel.Int32s(got.Data()); !slices.Equal(g, []int32{-1 << 31, 9}) {
		t.Errorf("int32 with a tensor of exponents: %v", g)
	}
}
