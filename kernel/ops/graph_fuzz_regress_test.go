package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestEinsumZeroSizeDims: a label of extent 0 keeps it. An output with a
// zero dimension is empty; a summed label of extent 0 sums no terms, so
// the output is zeros. (Before, extent 0 was taken for 1: the inferred
// shape had a 1 where the data had 0, and the run read past the empty
// operand.)
func TestEinsumZeroSizeDims(t *testing.T) {
	for _, c := range []struct {
		eq   string
		in   []*kernel.Tensor
		want []int64
	}{
		{"bid,bjd->bij", []*kernel.Tensor{f32(shp(0, 2, 1)), f32(shp(0, 2, 1))}, shp(0, 2, 2)},
		{"bsd->bd", []*kernel.Tensor{f32(shp(0, 2, 1))}, shp(0, 1)},
		{"bij,bjd->bid", []*kernel.Tensor{f32(shp(2, 0, 3)), f32(shp(2, 3, 4))}, shp(2, 0, 4)},
		{"ij,jk->ik", []*kernel.Tensor{f32(shp(2, 0)), f32(shp(0, 3))}, shp(2, 3)},
		{"...i,i->...", []*kernel.Tensor{f32(shp(0, 3)), f32(shp(3), 1, 2, 3)}, shp(0)},
	} {
		got := mustRun(t, "Einsum", kernel.Attrs{"equation": c.eq}, c.in...)
		if !got.Shape.Equal(c.want) {
			t.Errorf("%s: shape %v, want %v", c.eq, got.Shape, c.want)
			continue
		}
		for i, v := range values(got) {
			if v != 0 {
				t.Errorf("%s: element %d is %v, want 0", c.eq, i, v)
			}
		}
	}
	// An ellipsis one operand lacks still broadcasts as extent 1.
	got := mustRun(t, "Einsum", kernel.Attrs{"equation": "...i,i->..."}, f32(shp(2, 3), 1, 2, 3, 4, 5, 6), f32(shp(3), 1, 1, 1))
	if !got.Shape.Equal(shp(2)) || values(got)[0] != 6 || values(got)[1] != 15 {
		t.Errorf("...i,i->...: got %v %v, want [2] [6 15]", got.Shape, values(got))
	}
}

// TestReduceSumFloat64 sums float64 input (an ONNX ReduceSum type at every
// opset) in a float64 accumulator, in input order: 0.1+0.2 is the float64
// sum, not a float32 one, and a sum of -0s is -0.
func TestReduceSumFloat64(t *testing.T) {
	x := tensor(kernel.Float64, shp(2, 3), 0.1, 0.2, 1e16, math.Copysign(0, -1), math.Copysign(0, -1), math.Copysign(0, -1))
	got := mustRun(t, "ReduceSum", kernel.Attrs{"keepdims": false}, x, i64(shp(1), 1))
	if got.DType != kernel.Float64 || !got.Shape.Equal(shp(2)) {
		t.Fatalf("got %v %v, want float64 [2]", got.DType, got.Shape)
	}
	v := kernel.Float64s(got.Data())
	a, b, c := 0.1, 0.2, 0.3 // float64 arithmetic, not exact constants
	if want := (a + b) + 1e16; v[0] != want {
		t.Errorf("row 0: %v, want %v", v[0], want)
	}
	if v[1] != 0 || !math.Signbit(v[1]) {
		t.Errorf("row 1: %v, want -0", v[1])
	}
	x = tensor(kernel.Float64, shp(3), 0.1, 0.2, 0.3)
	if s := kernel.Float64s(mustRun(t, "ReduceSum", nil, x).Data())[0]; s != (a+b)+c {
		t.Errorf("0.1+0.2+0.3: %v, want %v", s, (a+b)+c)
	}
}
