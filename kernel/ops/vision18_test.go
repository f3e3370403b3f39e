package ops

import (
	"math"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestCenterCropPadValues: crop and pad by odd and even amounts, by hand;
// an int32 shape (onnxruntime's function form of the op cannot take one).
func TestCenterCropPadValues(t *testing.T) {
	x := tensor(kernel.Int32, shp(3, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
	// Rows 3 → 2: start 0 (odd difference, shifted left); columns 4 → 7:
	// one zero before, two after.
	got := mustRun(t, "CenterCropPad", nil, x, i64(shp(2), 2, 7))
	want := []float64{0, 1, 2, 3, 4, 0, 0, 0, 5, 6, 7, 8, 0, 0}
	if !got.Shape.Equal(kernel.Shape{2, 7}) || !slices.Equal(values(got), want) {
		t.Errorf("crop rows, pad columns: %v %v, want [2 7] %v", got.Shape, values(got), want)
	}
	// Columns 4 → 1 (start 1) on axis −1 with an int32 shape; rows 3 → 6:
	// one zero row before, two after.
	got = mustRun(t, "CenterCropPad", kernel.Attrs{"axes": []int64{-1, 0}}, x, tensor(kernel.Int32, shp(2), 1, 6))
	want = []float64{0, 2, 6, 10, 0, 0}
	if !got.Shape.Equal(kernel.Shape{6, 1}) || !slices.Equal(values(got), want) {
		t.Errorf("int32 shape: %v %v, want [6 1] %v", got.Shape, values(got), want)
	}
	// Columns 4 → 2: start 1.
	got = mustRun(t, "CenterCropPad", kernel.Attrs{"axes": []int64{1}}, x, i64(shp(1), 2))
	want = []float64{2, 3, 6, 7, 10, 11}
	if !got.Shape.Equal(kernel.Shape{3, 2}) || !slices.Equal(values(got), want) {
		t.Errorf("even crop: %v %v, want [3 2] %v", got.Shape, values(got), want)
	}
}

// TestAffineGridValues: the identity and a translation, whose grids are
// the normalised coordinates themselves, in float32, float16 (which
// onnxruntime has no kernel for) and float64.
func TestAffineGridValues(t *testing.T) {
	for _, dt := range sweepFloats {
		id := tensor(dt, shp(1, 2, 3), 1, 0, 0.5, 0, 1, -0.25)
		got := mustRun(t, "AffineGrid", nil, id, i64(shp(4), 1, 3, 2, 4))
		// x ∈ {−3/4, −1/4, 1/4, 3/4}, y ∈ {−1/2, 1/2}.
		var want []float64
		for _, y := range []float64{-0.5, 0.5} {
			for _, x := range []float64{-0.75, -0.25, 0.25, 0.75} {
				want = append(want, x+0.5, y-0.25)
			}
		}
		if !got.Shape.Equal(kernel.Shape{1, 2, 4, 2}) || !slices.Equal(values(got), want) {
			t.Errorf("%v, align_corners 0: %v %v, want [1 2 4 2] %v", dt, got.Shape, values(got), want)
		}
		// 3-D, align_corners 1, theta swapping x and z, doubling y.
		th := tensor(dt, shp(1, 3, 4), 0, 0, 1, 0, 0, 2, 0, 0, 1, 0, 0, 1)
		got = mustRun(t, "AffineGrid", kernel.Attrs{"align_corners": int64(1)}, th, i64(shp(5), 1, 1, 2, 1, 3))
		want = want[:0]
		for _, z := range []float64{-1, 1} {
			for _, x := range []float64{-1, 0, 1} { // y is 1: its one index maps to 1
				want = append(want, z, 2, x+1)
			}
		}
		if !got.Shape.Equal(kernel.Shape{1, 2, 1, 3, 3}) || !slices.Equal(values(got), want) {
			t.Errorf("%v, 3-D: %v %v, want [1 2 1 3 3] %v", dt, got.Shape, values(got), want)
		}
	}
}

// TestTensorScatterValues: linear and circular writes by hand.
func TestTensorScatterValues(t *testing.T) {
	p := tensor(kernel.Float32, shp(2, 4, 1), 1, 2, 3, 4, 5, 6, 7, 8)
	u := tensor(kernel.Float32, shp(2, 2, 1), -1, -2, -3, -4)
	got := mustRun(t, "TensorScatter", nil, p, u, i64(shp(2), 2, 0))
	if want := []float64{1, 2, -1, -2, -3, -4, 7, 8}; !slices.Equal(values(got), want) {
		t.Errorf("linear: %v, want %v", values(got), want)
	}
	got = mustRun(t, "TensorScatter", kernel.Attrs{"mode": "circular"}, p, u, i64(shp(2), 3, 9))
	if want := []float64{-2, 2, 3, -1, 5, -3, -4, 8}; !slices.Equal(values(got), want) {
		t.Errorf("circular: %v, want %v", values(got), want)
	}
	w := i64(shp(2))
	kernel.Int64s(w.Host)[0] = math.MaxInt64 // 2⁶³ − 1 mod 4 is 3: positions 3 and 0
	got = mustRun(t, "TensorScatter", kernel.Attrs{"mode": "circular"}, p, u, w)
	if want := []float64{-2, 2, 3, -1, -3, -4, 7, 8}; !slices.Equal(values(got), want) {
		t.Errorf("circular from the largest index: %v, want %v", values(got), want)
	}
	// Without write_indices: from 0.
	got = mustRun(t, "TensorScatter", kernel.Attrs{"axis": int64(1)}, p, u)
	if want := []float64{-1, -2, 3, 4, -3, -4, 7, 8}; !slices.Equal(values(got), want) {
		t.Errorf("prefill: %v, want %v", values(got), want)
	}
}

func TestVision18OpsRefuseMisuse(t *testing.T) {
	x := tensor(kernel.Float32, shp(3, 4))
	wantErr(t, "CenterCropPad", kernel.Attrs{"axis": int64(0)}, []*kernel.Tensor{x, i64(shp(2), 1, 1)}, "unknown attribute")
	wantErr(t, "CenterCropPad", nil, []*kernel.Tensor{x, i64(shp(1), 1)}, "one per axis")
	wantErr(t, "CenterCropPad", kernel.Attrs{"axes": []int64{0, -2}}, []*kernel.Tensor{x, i64(shp(2), 1, 1)}, "repeats")
	wantErr(t, "CenterCropPad", kernel.Attrs{"axes": []int64{2}}, []*kernel.Tensor{x, i64(shp(1), 1)}, "out of range")
	wantErr(t, "CenterCropPad", nil, []*kernel.Tensor{x, i64(shp(2), 1, -1)}, "negative")
	wantErr(t, "CenterCropPad", nil, []*kernel.Tensor{x, i64(shp(1, 2), 1, 1)}, "1-D")
	wantErr(t, "CenterCropPad", nil, []*kernel.Tensor{x, tensor(kernel.Float32, shp(2), 1, 1)}, "dtype")
	wantErr(t, "CenterCropPad", nil, []*kernel.Tensor{x, i64(shp(2), 1<<40, 1<<40)}, "too many elements")

	th := tensor(kernel.Float32, shp(1, 2, 3))
	wantErr(t, "AffineGrid", kernel.Attrs{"align_corners": int64(2)}, []*kernel.Tensor{th, i64(shp(4), 1, 1, 2, 2)}, "align_corners")
	wantErr(t, "AffineGrid", nil, []*kernel.Tensor{th, i64(shp(4), 2, 1, 2, 2)}, "theta")
	wantErr(t, "AffineGrid", nil, []*kernel.Tensor{th, i64(shp(5), 1, 1, 2, 2, 2)}, "theta")
	wantErr(t, "AffineGrid", nil, []*kernel.Tensor{th, i64(shp(3), 1, 2, 2)}, "4 values")
	wantErr(t, "AffineGrid", nil, []*kernel.Tensor{th, i64(shp(4), 1, 1, -2, 2)}, "negative")
	wantErr(t, "AffineGrid", nil, []*kernel.Tensor{th, tensor(kernel.Int32, shp(4), 1, 1, 2, 2)}, "int64")
	wantErr(t, "AffineGrid", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(1, 2, 3)), i64(shp(4), 1, 1, 2, 2)}, "dtype")

	p, u := tensor(kernel.Float32, shp(2, 4, 3)), tensor(kernel.Float32, shp(2, 2, 3))
	wantErr(t, "TensorScatter", kernel.Attrs{"mode": "ring"}, []*kernel.Tensor{p, u}, "mode")
	wantErr(t, "TensorScatter", kernel.Attrs{"axis": int64(0)}, []*kernel.Tensor{p, u}, "batch axis")
	wantErr(t, "TensorScatter", kernel.Attrs{"axis": int64(-3)}, []*kernel.Tensor{p, u}, "batch axis")
	wantErr(t, "TensorScatter", kernel.Attrs{"axis": int64(3)}, []*kernel.Tensor{p, u}, "axis 3")
	wantErr(t, "TensorScatter", nil, []*kernel.Tensor{p, tensor(kernel.Float32, shp(2, 5, 3))}, "at most 4")
	wantErr(t, "TensorScatter", nil, []*kernel.Tensor{p, tensor(kernel.Float32, shp(2, 2, 2))}, "update")
	wantErr(t, "TensorScatter", nil, []*kernel.Tensor{p, tensor(kernel.Float16, shp(2, 2, 3))}, "dtype")
	wantErr(t, "TensorScatter", nil, []*kernel.Tensor{p, u, i64(shp(1), 0)}, "write_indices")
	wantErr(t, "TensorScatter", nil, []*kernel.Tensor{p, u, tensor(kernel.Int32, shp(2), 0, 0)}, "write_indices")
	wantErr(t, "TensorScatter", nil, []*kernel.Tensor{p, u, i64(shp(2), 0, 3)}, "write_indices[1] = 3", "linear")
	wantErr(t, "TensorScatter", kernel.Attrs{"mode": "circular"}, []*kernel.Tensor{p, u, i64(shp(2), -1, 0)}, "negative")
	wantErr(t, "TensorScatter", nil, []*kernel.Tensor{p, u, i64(shp(2), 0, -1)}, "negative")
}

// TestDeformConvValues: a half-pixel offset averages neighbours; a mask
// scales; outside X a sample is 0.
func TestDeformConvValues(t *testing.T) {
	x := f32(shp(1, 1, 1, 3), 2, 4, 8)
	w := f32(shp(1, 1, 1, 1), 1)
	off := f32(shp(1, 2, 1, 3), 0, 0, 0, 0.5, 0.5, 1.5)
	got := mustRun(t, "DeformConv", nil, x, w, off)
	if want := []float64{3, 6, 0}; !slices.Equal(values(got), want) {
		t.Errorf("half-pixel offsets: %v, want %v", values(got), want)
	}
	got = mustRun(t, "DeformConv", nil, x, w, off, f32(shp(1), 1), f32(shp(1, 1, 1, 3), 2, 0.5, 1))
	if want := []float64{7, 4, 1}; !slices.Equal(values(got), want) {
		t.Errorf("mask and bias: %v, want %v", values(got), want)
	}
}

func TestDeformConvRefusesMisuse(t *testing.T) {
	x, w, off := f32(shp(1, 2, 3, 3)), f32(shp(2, 2, 2, 2)), f32(shp(1, 8, 2, 2))
	wantErr(t, "DeformConv", nil, []*kernel.Tensor{f32(shp(1, 2, 3)), f32(shp(2, 2, 2)), f32(shp(1, 4, 2))}, "only 2-D")
	wantErr(t, "DeformConv", kernel.Attrs{"strides": []int64{1}}, []*kernel.Tensor{x, w, off}, "2-D")
	wantErr(t, "DeformConv", kernel.Attrs{"group": int64(0)}, []*kernel.Tensor{x, w, off}, "positive")
	wantErr(t, "DeformConv", kernel.Attrs{"group": int64(2)}, []*kernel.Tensor{x, w, off}, "input W")
	wantErr(t, "DeformConv", kernel.Attrs{"offset_group": int64(3)}, []*kernel.Tensor{x, w, off}, "offset_group")
	wantErr(t, "DeformConv", kernel.Attrs{"kernel_shape": []int64{3, 3}}, []*kernel.Tensor{x, w, off}, "kernel_shape")
	wantErr(t, "DeformConv", nil, []*kernel.Tensor{x, w, f32(shp(1, 8, 3, 3))}, "input offset")
	wantErr(t, "DeformConv", nil, []*kernel.Tensor{x, w, off, f32(shp(3))}, "input B")
	wantErr(t, "DeformConv", nil, []*kernel.Tensor{x, w, off, f32(shp(2)), f32(shp(1, 4, 2, 3))}, "input mask")
	wantErr(t, "DeformConv", nil, []*kernel.Tensor{x, tensor(kernel.Float64, shp(2, 2, 2, 2)), off}, "dtype")
	wantErr(t, "DeformConv", nil, []*kernel.Tensor{f32(shp(1, 2, 1, 1)), w, off}, "smaller")
}
