package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestShapeViews checks Flatten, Squeeze and Unsqueeze shapes in both
// opset forms against hand-worked cases, and their errors. Squeeze takes
// an axis listed twice (by the same or a negative index) once, and
// Unsqueeze refuses it, as onnxruntime does.
func TestShapeViews(t *testing.T) {
	axes := func(v ...int64) *kernel.Tensor {
		a := kernel.New(kernel.Int64, int64(len(v)))
		copy(kernel.Int64s(a.Host), v)
		return a
	}
	x := kernel.New(kernel.Float32, 2, 1, 3, 1)
	for i := range kernel.Float32s(x.Host) {
		kernel.Float32s(x.Host)[i] = float32(i)
	}
	for _, tc := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  kernel.Shape // nil: an error
	}{
		{"Flatten", nil, []*kernel.Tensor{x}, kernel.Shape{2, 3}},
		{"Flatten", kernel.Attrs{"axis": int64(0)}, []*kernel.Tensor{x}, kernel.Shape{1, 6}},
		{"Flatten", kernel.Attrs{"axis": int64(4)}, []*kernel.Tensor{x}, kernel.Shape{6, 1}},
		{"Flatten", kernel.Attrs{"axis": int64(-1)}, []*kernel.Tensor{x}, kernel.Shape{6, 1}},
		{"Flatten", kernel.Attrs{"axis": int64(5)}, []*kernel.Tensor{x}, nil},
		{"Squeeze", nil, []*kernel.Tensor{x}, kernel.Shape{2, 3}},
		{"Squeeze", nil, []*kernel.Tensor{x, axes(-1)}, kernel.Shape{2, 1, 3}},
		{"Squeeze", nil, []*kernel.Tensor{x, axes(0)}, nil},
		{"Squeeze", nil, []*kernel.Tensor{x, axes(1, 1)}, kernel.Shape{2, 3, 1}},
		{"Squeeze", nil, []*kernel.Tensor{x, axes(3, 1, -1, -3)}, kernel.Shape{2, 3}},
		{"Squeeze", kernel.Attrs{"opset": int64(11), "axes": []int64{-1, 3}}, []*kernel.Tensor{x}, kernel.Shape{2, 1, 3}},
		{"Squeeze", nil, []*kernel.Tensor{x, axes(4)}, nil},
		{"Squeeze", kernel.Attrs{"opset": int64(11), "axes": []int64{1}}, []*kernel.Tensor{x}, kernel.Shape{2, 3, 1}},
		{"Squeeze", kernel.Attrs{"opset": int64(11)}, []*kernel.Tensor{x}, kernel.Shape{2, 3}},
		{"Unsqueeze", nil, []*kernel.Tensor{x, axes(0, -1)}, kernel.Shape{1, 2, 1, 3, 1, 1}},
		{"Unsqueeze", nil, []*kernel.Tensor{x, axes(6)}, nil},
		{"Unsqueeze", nil, []*kernel.Tensor{x, axes(1, 1)}, nil},
		{"Unsqueeze", nil, []*kernel.Tensor{x, axes(0, -6)}, nil},
		{"Unsqueeze", kernel.Attrs{"opset": int64(12), "axes": []int64{2}}, []*kernel.Tensor{x}, kernel.Shape{2, 1, 1, 3, 1}},
	} {
		got, err := hostRun(t, tc.op, tc.attrs, tc.in...)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s %v %v: no error", tc.op, tc.attrs, tc.in[1:])
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %v: %v", tc.op, tc.attrs, err)
		}
		if !got.Shape.Equal(tc.want) || string(got.Host) != string(x.Host) {
			t.Errorf("%s %v: %v, want shape %v and the same contents", tc.op, tc.attrs, got, tc.want)
		}
	}
	if _, err := Builtins().New("Unsqueeze", kernel.Attrs{"opset": int64(11)}); err == nil {
		t.Error("Unsqueeze before opset 13 without axes accepted")
	}
	if _, err := Builtins().New("Squeeze", kernel.Attrs{"axes": []int64{0}}); err == nil {
		t.Error("Squeeze at opset 13 took an axes attribute")
	}
}
