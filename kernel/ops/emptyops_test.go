package ops

import (
	"errors"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestEmptyOperandsGiveEmptyOutputs: ops given an operand with a
// zero-size dimension, where ONNX (and onnxruntime) gives an empty output,
// give it, of the right shape, without a panic.
func TestEmptyOperandsGiveEmptyOutputs(t *testing.T) {
	i8 := func(shape kernel.Shape, v ...int8) *kernel.Tensor {
		b := make([]byte, len(v))
		for i, x := range v {
			b[i] = byte(x)
		}
		return &kernel.Tensor{DType: kernel.Int8, Shape: shape, Host: b}
	}
	u8 := func(shape kernel.Shape, v ...byte) *kernel.Tensor {
		return &kernel.Tensor{DType: kernel.Uint8, Shape: shape, Host: append([]byte{}, v...)}
	}
	B := i8(shp(3, 2), 1, 2, 3, 4, 5, 6)
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
		want  kernel.Shape
	}{
		{"ImageScaler", kernel.Attrs{"bias": []float64{0.5, 2.5}, "scale": 1.5}, []*kernel.Tensor{f32(shp(1, 2, 0, 2))}, shp(1, 2, 0, 2)},
		{"DynamicQuantizeMatMul", nil, []*kernel.Tensor{f32(shp(0, 2, 3)), B, f32(shp(2), 0.5, 0.25), i8(shp(2), 0, 1)}, shp(0, 2, 2)},
		{"MatMulIntegerToFloat", nil, []*kernel.Tensor{u8(shp(0, 2, 3)), B, f32(shp(), 0.1), f32(shp(2), 0.5, 0.25), u8(shp(), 7), i8(shp(2), 0, 1)}, shp(0, 2, 2)},
		{"MatMulInteger", nil, []*kernel.Tensor{u8(shp(0, 2, 3)), u8(shp(3, 2), 1, 2, 3, 4, 5, 6)}, shp(0, 2, 2)},
		// An empty reduced axis when another is empty too: no index to give.
		{"ArgMax", kernel.Attrs{"axis": int64(2), "keepdims": int64(0)}, []*kernel.Tensor{u8(shp(0, 4, 0))}, shp(0, 4)},
		{"ArgMin", kernel.Attrs{"axis": int64(1)}, []*kernel.Tensor{f32(shp(0, 0, 2))}, shp(0, 1, 2)},
	} {
		out, err := runOp(c.op, c.attrs, c.in...)
		if err != nil {
			t.Errorf("%s on %v: %v", c.op, c.in, err)
			continue
		}
		if !out[0].Shape.Equal(c.want) {
			t.Errorf("%s on %v: output %v, want %v", c.op, c.in, out[0].Shape, c.want)
		}
	}
}

// TestArgOfEmptyAxis: ArgMax and ArgMin of an empty axis have no index to
// give when the output has elements.
func TestArgOfEmptyAxis(t *testing.T) {
	for _, op := range []string{"ArgMax", "ArgMin"} {
		wantErr(t, op, kernel.Attrs{"axis": int64(1)}, []*kernel.Tensor{f32(shp(3, 0, 2))}, "axis 1", "is empty")
	}
}

// TestRoiAlignEmptyImage: RoiAlign over an image with an empty axis has no
// pixel to sample: every bin is 0, in both modes.
func TestRoiAlignEmptyImage(t *testing.T) {
	rois := f32(shp(2, 4), 0, 0, 9, 9, 0, 5, 4, 9)
	for _, mode := range []string{"avg", "max"} {
		out := mustRun(t, "RoiAlign", kernel.Attrs{"mode": mode, "output_height": int64(2), "output_width": int64(3), "sampling_ratio": int64(2)},
			f32(shp(1, 1, 0, 10)), rois, i64(shp(2), 0, 0))
		if !out.Shape.Equal(kernel.Shape{2, 1, 2, 3}) {
			t.Fatalf("%s: shape %v", mode, out.Shape)
		}
		for i, v := range kernel.Float32s(out.Host) {
			if v != 0 {
				t.Errorf("%s: element %d is %v, want 0", mode, i, v)
			}
		}
	}
}

// TestMalformedTensorAttributes: a nil tensor or one of a negative shape
// as an op's attribute is an attribute error, not a recovered panic.
func TestMalformedTensorAttributes(t *testing.T) {
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
	}{
		{"ConstantOfShape", kernel.Attrs{"value": (*kernel.Tensor)(nil)}},
		{"ConstantOfShape", kernel.Attrs{"value": &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{-1}}}},
		{"LabelEncoder", kernel.Attrs{kernel.OpsetAttr: int64(4), "keys_tensor": &kernel.Tensor{DType: kernel.Int64, Shape: kernel.Shape{-1}},
			"values_int64s": []int64{1}}},
	} {
		_, err := Builtins().New(c.op, c.attrs)
		if err == nil || errors.Is(err, kernel.ErrPanic) {
			t.Errorf("%s %v: error %v, want an attribute error", c.op, c.attrs, err)
		}
	}
}
