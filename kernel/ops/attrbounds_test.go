package ops

import (
	"math"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestAttributesOutOfBounds: attribute values that would overflow the
// kernels' arithmetic or loop without end are errors naming the
// attribute, at the kernel's creation.
func TestAttributesOutOfBounds(t *testing.T) {
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		want  string
	}{
		{"RoiAlign", kernel.Attrs{"sampling_ratio": int64(1 << 31)}, "sampling_ratio"},
		{"MaxUnpool", kernel.Attrs{"kernel_shape": []int64{2, 2}, "strides": []int64{1 << 62, 1}}, "strides"},
		{"DepthToSpace", kernel.Attrs{"blocksize": int64(1 << 32)}, "blocksize"},
		{"SpaceToDepth", kernel.Attrs{"blocksize": int64(1 << 62)}, "blocksize"},
		// Values outside the ranges ONNX gives.
		{"LayerNormalization", kernel.Attrs{"stash_type": int64(99)}, "stash_type"},
		{"LayerNormalization", kernel.Attrs{"stash_type": int64(7)}, "stash_type"},
		{"GroupNormalization", kernel.Attrs{"num_groups": int64(1), "stash_type": int64(99)}, "stash_type"},
	} {
		_, err := Builtins().New(c.op, c.attrs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want an error naming %s", c.op, c.attrs, err, c.want)
		}
	}
	// The ends of those ranges are valid.
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
	}{
		{"LayerNormalization", kernel.Attrs{"stash_type": int64(1)}},
		{"LayerNormalization", kernel.Attrs{"stash_type": int64(10)}},
		{"LayerNormalization", kernel.Attrs{"stash_type": int64(11)}},
		{"LayerNormalization", kernel.Attrs{"stash_type": int64(16)}},
		{"TopK", kernel.Attrs{"sorted": int64(0)}},
		{"TopK", kernel.Attrs{"sorted": int64(1)}},
		{"TopK", kernel.Attrs{"sorted": int64(2)}},
		{"Dropout", kernel.Attrs{"ratio": 0.0, kernel.OpsetAttr: int64(10)}},
		{"Dropout", kernel.Attrs{"ratio": 1.0, kernel.OpsetAttr: int64(10)}},
	} {
		if _, err := Builtins().New(c.op, c.attrs); err != nil {
			t.Errorf("%s %v: %v", c.op, c.attrs, err)
		}
	}
}

// TestShapesOutOfBounds: shapes and pads whose arithmetic would overflow
// are errors, not wrapped dimensions (a silently wrong output) or a panic.
func TestShapesOutOfBounds(t *testing.T) {
	huge := []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64}
	x := f32(shp(1, 2, 5, 5))
	wantErr(t, "Conv", kernel.Attrs{"pads": huge}, []*kernel.Tensor{x, f32(shp(3, 2, 3, 3))}, "pads", "above 2^31")
	wantErr(t, "MaxPool", kernel.Attrs{"kernel_shape": []int64{2, 2}, "pads": huge}, []*kernel.Tensor{x}, "pads", "above 2^31")
	wantErr(t, "AveragePool", kernel.Attrs{"kernel_shape": []int64{2, 2}, "pads": huge, "dilations": []int64{2, 2}, "opset": int64(19)}, []*kernel.Tensor{x}, "pads", "above 2^31")
	wantErr(t, "LpPool", kernel.Attrs{"kernel_shape": []int64{2, 2}, "pads": huge}, []*kernel.Tensor{x}, "pads", "above 2^31")
	big := &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{1, 1, 1 << 40, 1 << 40}}
	wantErr(t, "DepthToSpace", kernel.Attrs{"blocksize": int64(1 << 30)}, []*kernel.Tensor{{DType: kernel.Float32, Shape: kernel.Shape{1, 1 << 60, 1 << 40, 1}}}, "overflow")
	wantErr(t, "SpaceToDepth", kernel.Attrs{"blocksize": int64(1 << 20)}, []*kernel.Tensor{{DType: kernel.Float32, Shape: kernel.Shape{1, 1 << 40, 1 << 20, 1 << 20}}}, "overflow")
	idx := &kernel.Tensor{DType: kernel.Int64, Shape: big.Shape}
	wantErr(t, "MaxUnpool", kernel.Attrs{"kernel_shape": []int64{2, 2}, "strides": []int64{1 << 30, 1 << 30}}, []*kernel.Tensor{big, idx}, "above 2^31")
}

// TestMelWeightMatrixScalars: MelWeightMatrix's sample rate and edge
// frequencies are scalars; an empty one is an error, not a read past it.
func TestMelWeightMatrixScalars(t *testing.T) {
	in := func(rate, lo *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{kernel.FromInt64([]int64{8}), kernel.FromInt64([]int64{16}), rate, lo, kernel.FromFloat32([]float32{3000})}
	}
	wantErr(t, "MelWeightMatrix", nil, in(kernel.New(kernel.Int64, 0), kernel.FromFloat32([]float32{0})), "sample_rate", "scalar")
	wantErr(t, "MelWeightMatrix", nil, in(kernel.FromInt64([]int64{8000}), kernel.New(kernel.Float32, 0)), "lower_edge_hertz", "scalar")
	mustRun(t, "MelWeightMatrix", nil, in(kernel.FromInt64([]int64{8000}), kernel.FromFloat32([]float32{0}))...)
}

// TestResizeIntegerNaNRoi: an integer Resize in tf_crop_and_resize mode
// whose roi is not finite samples nowhere inside the input: every output
// is the extrapolation value, as a position outside it (the float path's
// result), not an index computed from NaN.
func TestResizeIntegerNaNRoi(t *testing.T) {
	x := kernel.New(kernel.Uint8, 1, 1, 4, 4)
	for i := range x.Host {
		x.Host[i] = byte(i)
	}
	nan := float32(math.NaN())
	for _, roi := range [][]float32{{0, 0, nan, nan, 1, 1, 1, 1}, {0, 0, float32(math.Inf(-1)), 0, 1, 1, float32(math.Inf(1)), 1}} {
		y := mustRun(t, "Resize", kernel.Attrs{"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": 7.0},
			x, kernel.FromFloat32(roi, 8), kernel.FromFloat32([]float32{1, 1, 2, 2}, 4))
		for i, v := range y.Data() {
			if v != 7 {
				t.Fatalf("roi %v: output %d is %d, want the extrapolation value 7", roi, i, v)
			}
		}
	}
}
