package ops

import (
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// lowPrecCodes are six codes of each of the low-precision dtypes, their
// extremes, zeros, NaNs and infinities among them, as pipert holds them
// (the signed sub-byte integers sign-extended).
var lowPrecCodes = map[kernel.DType][]byte{
	kernel.Float8E4M3FN:   {0x00, 0x80, 0x01, 0x7e, 0xfe, 0x7f},
	kernel.Float8E4M3FNUZ: {0x00, 0x80, 0x01, 0x7f, 0xff, 0x40},
	kernel.Float8E5M2:     {0x00, 0x80, 0x7c, 0xfc, 0x7b, 0x7e},
	kernel.Float8E5M2FNUZ: {0x00, 0x80, 0x01, 0x7f, 0xff, 0x40},
	kernel.Float8E8M0:     {0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe},
	kernel.Int4:           {0xf8, 0x07, 0xff, 0x00, 0x01, 0xf9},
	kernel.Uint4:          {0x00, 0x0f, 0x01, 0x08, 0x07, 0x0e},
	kernel.Int2:           {0xfe, 0x01, 0xff, 0x00, 0x01, 0xfe},
	kernel.Uint2:          {0x00, 0x03, 0x01, 0x02, 0x03, 0x00},
	kernel.Float4E2M1:     {0x00, 0x08, 0x07, 0x0f, 0x01, 0x09},
}

// lowPrecTypes are the low-precision dtypes in order.
func lowPrecTypes() []kernel.DType {
	var dts []kernel.DType
	for _, dt := range kernel.DTypes() {
		if lowPrecCodes[dt] != nil {
			dts = append(dts, dt)
		}
	}
	return dts
}

// i64s is a 1-D int64 tensor.
func i64s(v ...float64) *kernel.Tensor { return i64(shp(int64(len(v))), v...) }

// boolT is a 1-D bool tensor.
func boolT(v ...float64) *kernel.Tensor { return tensor(kernel.Bool, shp(int64(len(v))), v...) }

// TestLowPrecisionDataMovement runs the ops whose ONNX type constraints
// list the low-precision dtypes (and those that move elements of every
// dtype, as Concat and Gather) on each of them: the output holds x's codes
// where the op puts them, bit for bit. x is 2×3, codes c0 to c5; a want
// of −1 is the padding value v.
func TestLowPrecisionDataMovement(t *testing.T) {
	for _, dt := range lowPrecTypes() {
		codes := lowPrecCodes[dt]
		x := func(shape ...int64) *kernel.Tensor {
			t := kernel.New(dt, shape...)
			copy(t.Host, codes)
			return t
		}
		v, v11 := kernel.New(dt), kernel.New(dt, 1, 1) // the value v, and as [1,1]
		v.Host[0], v11.Host[0] = codes[3], codes[3]
		cache := kernel.New(dt, 1, 3, 2) // TensorScatter's past_cache: zeros, then x's first row at positions 1 and 2
		for _, c := range []struct {
			op    string
			attrs kernel.Attrs
			in    []*kernel.Tensor
			shape []int64
			want  []int
		}{
			{"Identity", nil, []*kernel.Tensor{x(2, 3)}, shp(2, 3), []int{0, 1, 2, 3, 4, 5}},
			{"Flatten", kernel.Attrs{"axis": int64(0)}, []*kernel.Tensor{x(2, 3)}, shp(1, 6), []int{0, 1, 2, 3, 4, 5}},
			{"Reshape", nil, []*kernel.Tensor{x(2, 3), i64s(3, 2)}, shp(3, 2), []int{0, 1, 2, 3, 4, 5}},
			{"Squeeze", nil, []*kernel.Tensor{x(1, 2, 3), i64s(0)}, shp(2, 3), []int{0, 1, 2, 3, 4, 5}},
			{"Unsqueeze", nil, []*kernel.Tensor{x(2, 3), i64s(1)}, shp(2, 1, 3), []int{0, 1, 2, 3, 4, 5}},
			{"Transpose", nil, []*kernel.Tensor{x(2, 3)}, shp(3, 2), []int{0, 3, 1, 4, 2, 5}},
			{"Pad", nil, []*kernel.Tensor{x(2, 3), i64s(0, 1, 0, 0), v}, shp(2, 4), []int{-1, 0, 1, 2, -1, 3, 4, 5}},
			{"Pad", kernel.Attrs{"mode": "edge"}, []*kernel.Tensor{x(2, 3), i64s(1, 0, 0, 1)}, shp(3, 4), []int{0, 1, 2, 2, 0, 1, 2, 2, 3, 4, 5, 5}},
			{"Pad", kernel.Attrs{"mode": "reflect"}, []*kernel.Tensor{x(2, 3), i64s(0, 1, 0, 1)}, shp(2, 5), []int{1, 0, 1, 2, 1, 4, 3, 4, 5, 4}},
			{"Dropout", nil, []*kernel.Tensor{x(2, 3)}, shp(2, 3), []int{0, 1, 2, 3, 4, 5}},
			{"Concat", kernel.Attrs{"axis": int64(0)}, []*kernel.Tensor{x(2, 3), x(1, 3)}, shp(3, 3), []int{0, 1, 2, 3, 4, 5, 0, 1, 2}},
			{"Gather", kernel.Attrs{"axis": int64(1)}, []*kernel.Tensor{x(2, 3), i64s(2, 0)}, shp(2, 2), []int{2, 0, 5, 3}},
			{"GatherND", nil, []*kernel.Tensor{x(2, 3), i64(shp(2, 2), 1, 2, 0, 1)}, shp(2), []int{5, 1}},
			{"Slice", nil, []*kernel.Tensor{x(2, 3), i64s(1), i64s(3), i64s(1)}, shp(2, 2), []int{1, 2, 4, 5}},
			{"Split", kernel.Attrs{"axis": int64(1), "num_outputs": int64(1)}, []*kernel.Tensor{x(2, 3)}, shp(2, 3), []int{0, 1, 2, 3, 4, 5}},
			{"Tile", nil, []*kernel.Tensor{x(2, 3), i64s(1, 2)}, shp(2, 6), []int{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}},
			{"Expand", nil, []*kernel.Tensor{x(1, 3), i64s(2, 3)}, shp(2, 3), []int{0, 1, 2, 0, 1, 2}},
			{"TensorScatter", nil, []*kernel.Tensor{cache, x(1, 1, 2), i64s(2)}, shp(1, 3, 2), []int{-2, -2, -2, -2, 0, 1}},
			{"ConstantOfShape", kernel.Attrs{"value": v}, []*kernel.Tensor{i64s(2, 2)}, shp(2, 2), []int{-1, -1, -1, -1}},
			{"GatherElements", kernel.Attrs{"axis": int64(1)}, []*kernel.Tensor{x(2, 3), i64(shp(2, 1), 2, 0)}, shp(2, 1), []int{2, 3}},
			{"ScatterElements", kernel.Attrs{"axis": int64(1)}, []*kernel.Tensor{x(2, 3), i64(shp(1, 1), 2), v11}, shp(2, 3), []int{0, 1, -1, 3, 4, 5}},
			{"ScatterND", nil, []*kernel.Tensor{x(2, 3), i64(shp(1, 1), 0), x(1, 3)}, shp(2, 3), []int{0, 1, 2, 3, 4, 5}},
			{"DepthToSpace", kernel.Attrs{"blocksize": int64(1)}, []*kernel.Tensor{x(1, 1, 2, 3)}, shp(1, 1, 2, 3), []int{0, 1, 2, 3, 4, 5}},
			{"ReverseSequence", kernel.Attrs{"batch_axis": int64(0), "time_axis": int64(1)}, []*kernel.Tensor{x(2, 3), i64s(3, 2)}, shp(2, 3), []int{2, 1, 0, 4, 3, 5}},
			{"Compress", kernel.Attrs{"axis": int64(1)}, []*kernel.Tensor{x(2, 3), boolT(1, 0, 1)}, shp(2, 2), []int{0, 2, 3, 5}},
		} {
			out, err := runDirty(c.op, c.attrs, c.in...)
			if err != nil {
				t.Errorf("%s of %v: %v", c.op, dt, err)
				continue
			}
			got := out[0]
			want := make([]byte, len(c.want))
			for i, j := range c.want {
				switch j {
				case -1:
					want[i] = v.Host[0]
				case -2:
					want[i] = 0
				default:
					want[i] = codes[j]
				}
			}
			if got.DType != dt || !got.Shape.Equal(c.shape) || !slices.Equal(got.Data(), want) {
				t.Errorf("%s of %v: %v % x, want %v%v % x", c.op, dt, got, got.Data(), dt, c.shape, want)
			}
		}
		for _, op := range []string{"Shape", "Size"} {
			out, err := runOp(op, nil, x(2, 3))
			if err != nil {
				t.Errorf("%s of %v: %v", op, dt, err)
				continue
			}
			want := []int64{2, 3}
			if op == "Size" {
				want = []int64{6}
			}
			if got := kernel.Int64s(out[0].Data()); !slices.Equal(got, want) {
				t.Errorf("%s of %v: %v, want %v", op, dt, got, want)
			}
		}
	}
}

// TestLowPrecisionRefused: an op that computes with its elements refuses
// a low-precision dtype its ONNX type constraint does not list, with an
// error naming the dtype, rather than rounding or wrapping into it.
func TestLowPrecisionRefused(t *testing.T) {
	training := kernel.New(kernel.Bool)
	training.Host[0] = 1
	for _, dt := range lowPrecTypes() {
		x := func(shape ...int64) *kernel.Tensor { return kernel.New(dt, shape...) }
		cases := []struct {
			op    string
			attrs kernel.Attrs
			in    []*kernel.Tensor
		}{
			{"Add", nil, []*kernel.Tensor{x(2), x(2)}},
			{"Mul", nil, []*kernel.Tensor{x(2), x(2)}},
			{"ReLU", nil, []*kernel.Tensor{x(2)}},
			{"Neg", nil, []*kernel.Tensor{x(2)}},
			{"MatMul", nil, []*kernel.Tensor{x(2, 2), x(2, 2)}},
			{"ReduceSum", nil, []*kernel.Tensor{x(2, 2)}},
			{"Softmax", nil, []*kernel.Tensor{x(2, 2)}},
			{"Max", nil, []*kernel.Tensor{x(2), x(2)}},
			{"Equal", nil, []*kernel.Tensor{x(2), x(2)}},
			{"CumSum", nil, []*kernel.Tensor{x(2), i64(nil, 0)}},
			{"Resize", kernel.Attrs{"mode": "nearest"}, []*kernel.Tensor{x(1, 2), f32(shp(0)), f32(shp(2), 1, 2)}},
			{"ScatterElements", kernel.Attrs{"reduction": "add"}, []*kernel.Tensor{x(2), i64(shp(1), 0), x(1)}},
			{"ScatterND", kernel.Attrs{"reduction": "max"}, []*kernel.Tensor{x(2), i64(shp(1, 1), 0), x(1)}},
			{"DequantizeLinear", nil, []*kernel.Tensor{tensor(kernel.Int8, shp(2)), x()}},
			{"QuantizeLinear", kernel.Attrs{kernel.OpsetAttr: int64(13)}, []*kernel.Tensor{f32(shp(2)), x()}},
		}
		if !dt.IsFloat8() || dt == kernel.Float8E8M0 {
			cases = append(cases, struct {
				op    string
				attrs kernel.Attrs
				in    []*kernel.Tensor
			}{"Dropout", nil, []*kernel.Tensor{x(2), f32(nil, 0.5), training}})
		}
		for _, c := range cases {
			wantErr(t, c.op, c.attrs, c.in, dt.String())
		}
	}
	// float8e8m0 has no zero to write.
	e8 := kernel.New(kernel.Float8E8M0, 2, 2)
	wantErr(t, "Trilu", nil, []*kernel.Tensor{e8}, "float8e8m0", "no zero")
	wantErr(t, "EyeLike", nil, []*kernel.Tensor{e8}, "float8e8m0", "no zero")
	wantErr(t, "EyeLike", kernel.Attrs{"dtype": kernel.Float8E8M0}, []*kernel.Tensor{f32(shp(2, 2))}, "float8e8m0", "no zero")
	// int64 and other non-float scales too: the output would take their
	// dtype. QuantizeLinear's int32 x takes an int32 scale, as ONNX's
	// opset 19 has it.
	wantErr(t, "DequantizeLinear", nil, []*kernel.Tensor{tensor(kernel.Int8, shp(2)), i64(nil, 2)}, "x_scale", "int64")
	wantErr(t, "DequantizeLinear", nil, []*kernel.Tensor{tensor(kernel.Int8, shp(2)), tensor(kernel.Int32, nil, 2)}, "x_scale", "int32")
	q := mustRun(t, "QuantizeLinear", kernel.Attrs{kernel.OpsetAttr: int64(19)}, tensor(kernel.Int32, shp(3), 6, -7, 300), tensor(kernel.Int32, nil, 2))
	if !slices.Equal(q.Data(), []byte{3, 0, 150}) {
		t.Errorf("QuantizeLinear-19 of int32 by an int32 scale: %v, want [3 0 150]", q.Data())
	}
}

// TestLowPrecisionIsNaNInf: IsNaN and IsInf of the float 8 types ONNX
// lists for them (opset 20), as onnxruntime 1.30 gives them; float8e8m0
// and float4e2m1, which it does not list, are refused.
func TestLowPrecisionIsNaNInf(t *testing.T) {
	for _, c := range []struct {
		dt                  kernel.DType
		codes               []byte
		nan, inf, infNotNeg []byte
	}{
		{kernel.Float8E4M3FN, []byte{0x7f, 0xff, 0x7e, 0x00}, []byte{1, 1, 0, 0}, []byte{0, 0, 0, 0}, []byte{0, 0, 0, 0}},
		{kernel.Float8E4M3FNUZ, []byte{0x80, 0x00, 0x7f, 0xff}, []byte{1, 0, 0, 0}, []byte{0, 0, 0, 0}, []byte{0, 0, 0, 0}},
		{kernel.Float8E5M2, []byte{0x7c, 0xfc, 0x7e, 0x7b}, []byte{0, 0, 1, 0}, []byte{1, 1, 0, 0}, []byte{1, 0, 0, 0}},
		{kernel.Float8E5M2FNUZ, []byte{0x80, 0x7f, 0x00, 0xff}, []byte{1, 0, 0, 0}, []byte{0, 0, 0, 0}, []byte{0, 0, 0, 0}},
	} {
		x := kernel.New(c.dt, 4)
		copy(x.Host, c.codes)
		for _, r := range []struct {
			op    string
			attrs kernel.Attrs
			want  []byte
		}{{"IsNaN", nil, c.nan}, {"IsInf", nil, c.inf}, {"IsInf", kernel.Attrs{"detect_negative": int64(0)}, c.infNotNeg}} {
			got := mustRun(t, r.op, r.attrs, x)
			if !slices.Equal(got.Data(), r.want) {
				t.Errorf("%s %v of %v % x: %v, want %v", r.op, r.attrs, c.dt, c.codes, got.Data(), r.want)
			}
		}
	}
	for _, dt := range []kernel.DType{kernel.Float8E8M0, kernel.Float4E2M1, kernel.Int4} {
		wantErr(t, "IsNaN", nil, []*kernel.Tensor{kernel.New(dt, 1)}, dt.String())
		wantErr(t, "IsInf", nil, []*kernel.Tensor{kernel.New(dt, 1)}, dt.String())
	}
}
