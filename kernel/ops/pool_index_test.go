package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestMaxPoolIndexOfWindowInPadding: a window that dilation steps over
// the input with (taps -1 and 1 of a row of one) holds no element: its
// maximum is 0 and its index -1, in every channel and storage order, not
// base − 1 (the last element of the channel before, which MaxUnpool
// would overwrite).
func TestMaxPoolIndexOfWindowInPadding(t *testing.T) {
	x := f32(shp(1, 3, 2, 1), 5, 6, 7, 8, 9, 10)
	for _, order := range []int64{0, 1} {
		attrs := kernel.Attrs{"kernel_shape": []int64{2, 2}, "pads": []int64{0, 1, 0, 1}, "dilations": []int64{1, 2},
			"strides": []int64{1, 3}, "storage_order": order, kernel.OpsetAttr: int64(12)}
		out, err := runOp("MaxPool", attrs, x)
		if err != nil {
			t.Fatal(err)
		}
		checkValues(t, "Y", out[0], shp(1, 3, 1, 1), []float64{0, 0, 0})
		checkValues(t, "Indices", out[1], shp(1, 3, 1, 1), []float64{-1, -1, -1})
	}
	// A window with elements keeps its flat index in X.
	out, err := runOp("MaxPool", kernel.Attrs{"kernel_shape": []int64{2, 1}, kernel.OpsetAttr: int64(12)}, x)
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, "Indices, in X", out[1], shp(1, 3, 1, 1), []float64{1, 3, 5})
}
