package ops

import (
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestShrinkIntegers checks integer Shrink as onnxruntime computes it: the
// comparison and the offset in float32, the result truncated toward zero
// and saturated to the element type.
func TestShrinkIntegers(t *testing.T) {
	attrs := kernel.Attrs{"lambd": 1.5, "bias": 0.75}
	y := mustRun(t, "Shrink", attrs, kernel.FromInt32([]int32{-4, -2, -1, 0, 1, 2, 4}, 7))
	if got, want := kernel.Int32s(y.Data()), []int32{-3, -1, 0, 0, 0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("int32: got %v, want %v", got, want)
	}
	x8 := kernel.New(kernel.Int8, 4)
	copy(kernel.Int8s(x8.Host), []int8{-128, -2, 2, 127})
	y = mustRun(t, "Shrink", kernel.Attrs{"lambd": 0.5, "bias": -3.0}, x8)
	if got, want := kernel.Int8s(y.Data()), []int8{-128, -5, 5, 127}; !slices.Equal(got, want) {
		t.Errorf("int8 (saturated): got %v, want %v", got, want)
	}
	xu := kernel.New(kernel.Uint8, 4)
	copy(xu.Host, []uint8{0, 1, 3, 255})
	y = mustRun(t, "Shrink", kernel.Attrs{"lambd": 1.0, "bias": 2.0}, xu)
	if got, want := y.Data(), []uint8{0, 0, 1, 253}; !slices.Equal(got, want) {
		t.Errorf("uint8: got %v, want %v", got, want)
	}
	y = mustRun(t, "Shrink", kernel.Attrs{"lambd": 0.5, "bias": 10.0}, kernel.FromInt64([]int64{3, -3, 0}, 3))
	if got, want := kernel.Int64s(y.Data()), []int64{-7, 7, 0}; !slices.Equal(got, want) {
		t.Errorf("int64: got %v, want %v", got, want)
	}
}

// TestGatherNDEmptyTuple checks that indices [..., 0] gather whole slices.
func TestGatherNDEmptyTuple(t *testing.T) {
	x := kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	y := mustRun(t, "GatherND", nil, x, kernel.FromInt64(nil, 2, 0))
	if !y.Shape.Equal(kernel.Shape{2, 2, 3}) || !slices.Equal(kernel.Float32s(y.Data()), []float32{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}) {
		t.Errorf("batch_dims 0: got %v %v", y.Shape, kernel.Float32s(y.Data()))
	}
	y = mustRun(t, "GatherND", kernel.Attrs{"batch_dims": int64(1)}, x, kernel.FromInt64(nil, 2, 1, 0))
	if !y.Shape.Equal(kernel.Shape{2, 1, 3}) || !slices.Equal(kernel.Float32s(y.Data()), []float32{1, 2, 3, 4, 5, 6}) {
		t.Errorf("batch_dims 1: got %v %v", y.Shape, kernel.Float32s(y.Data()))
	}
}

// TestEinsumUnitBroadcast checks that an index of extent 1 broadcasts
// against the other operands', and that a diagonal still needs one extent.
func TestEinsumUnitBroadcast(t *testing.T) {
	a := kernel.FromFloat32([]float32{1, 2, 3}, 1, 3)
	b := kernel.FromFloat32([]float32{1, 1, 1, 2, 2, 2}, 2, 3)
	y := mustRun(t, "Einsum", kernel.Attrs{"equation": "ij,ij->ij"}, a, b)
	if !y.Shape.Equal(kernel.Shape{2, 3}) || !slices.Equal(kernel.Float32s(y.Data()), []float32{1, 2, 3, 2, 4, 6}) {
		t.Errorf("ij,ij->ij: got %v %v", y.Shape, kernel.Float32s(y.Data()))
	}
	// A summed index: j is 1 in the first operand, 3 in the second.
	c := kernel.FromFloat32([]float32{2, 3}, 2, 1)
	d := kernel.FromFloat32([]float32{1, 10, 2, 20, 3, 30}, 3, 2)
	y = mustRun(t, "Einsum", kernel.Attrs{"equation": "ij,jk->ik"}, c, d)
	if !y.Shape.Equal(kernel.Shape{2, 2}) || !slices.Equal(kernel.Float32s(y.Data()), []float32{12, 120, 18, 180}) {
		t.Errorf("ij,jk->ik: got %v %v", y.Shape, kernel.Float32s(y.Data()))
	}
	wantErr(t, "Einsum", kernel.Attrs{"equation": "ii->i"}, []*kernel.Tensor{kernel.FromFloat32([]float32{1, 2, 3}, 1, 3)}, "repeats index")
	wantErr(t, "Einsum", kernel.Attrs{"equation": "ij,ij->ij"}, []*kernel.Tensor{kernel.FromFloat32(make([]float32, 6), 2, 3), kernel.FromFloat32(make([]float32, 9), 3, 3)}, "in one place")
}

// TestEinsumEmptyEquation: the equation "" is of one scalar operand, which
// it copies (numpy's einsum("", x), onnxruntime's); an absent equation is
// an error.
func TestEinsumEmptyEquation(t *testing.T) {
	y := mustRun(t, "Einsum", kernel.Attrs{"equation": ""}, kernel.FromFloat32([]float32{-2.5}))
	if !y.Shape.Equal(kernel.Shape{}) || !slices.Equal(kernel.Float32s(y.Data()), []float32{-2.5}) {
		t.Errorf(`"": got %v %v, want [] [-2.5]`, y.Shape, kernel.Float32s(y.Data()))
	}
	wantErr(t, "Einsum", kernel.Attrs{}, []*kernel.Tensor{kernel.FromFloat32([]float32{1})}, "equation is required")
}

// TestScatterIndexError: an index out of range is named as the model has
// it, a negative one too (not after adding the axis' extent).
func TestScatterIndexError(t *testing.T) {
	x, u := kernel.FromFloat32(make([]float32, 6), 2, 3), kernel.FromFloat32([]float32{1}, 1, 1)
	for _, op := range []string{"Scatter", "ScatterElements"} {
		wantErr(t, op, nil, []*kernel.Tensor{x, kernel.FromInt64([]int64{-3}, 1, 1), u}, "index -3 out of range [-2, 2)")
	}
	wantErr(t, "ScatterND", nil, []*kernel.Tensor{x, kernel.FromInt64([]int64{0, -4}, 1, 2), kernel.FromFloat32([]float32{1}, 1)}, "index -4 out of range [-3, 3)")
}

// TestBlackmanWindowPeak checks that the Blackman window's peak is exactly
// 1 and its ends 0, so that an integer output holds 1 at the peak.
func TestBlackmanWindowPeak(t *testing.T) {
	n := kernel.FromInt64([]int64{6})
	y := mustRun(t, "BlackmanWindow", kernel.Attrs{"output_datatype": kernel.Int32}, n)
	if got, want := kernel.Int32s(y.Data()), []int32{0, 0, 0, 1, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("int32 periodic: got %v, want %v", got, want)
	}
	y = mustRun(t, "BlackmanWindow", kernel.Attrs{"output_datatype": kernel.Float64, "periodic": int64(0)}, kernel.FromInt64([]int64{5}))
	got := kernel.Float64s(y.Data())
	if got[0] != 0 || got[2] != 1 || got[4] != 0 {
		t.Errorf("float64 symmetric: got %v, want 0 at the ends and 1 at the peak", got)
	}
}
