package onnx_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestNewDataTypes: INT16, UINT16, UINT32, UINT64 and BFLOAT16 map onto
// pipert's dtypes, STRING and the complex and 8-bit float types do not.
func TestNewDataTypes(t *testing.T) {
	for _, c := range []struct {
		d    onnx.DataType
		code int32
		want kernel.DType
	}{
		{onnx.Uint16, 4, kernel.Uint16}, {onnx.Int16, 5, kernel.Int16}, {onnx.Uint32, 12, kernel.Uint32},
		{onnx.Uint64, 13, kernel.Uint64}, {onnx.BFloat16, 16, kernel.BFloat16},
		{onnx.Float8E4M3FN, 17, kernel.Float8E4M3FN}, {onnx.Float8E4M3FNUZ, 18, kernel.Float8E4M3FNUZ},
		{onnx.Float8E5M2, 19, kernel.Float8E5M2}, {onnx.Float8E5M2FNUZ, 20, kernel.Float8E5M2FNUZ},
		{onnx.Uint4, 21, kernel.Uint4}, {onnx.Int4, 22, kernel.Int4}, {onnx.Float4E2M1, 23, kernel.Float4E2M1},
		{onnx.Float8E8M0, 24, kernel.Float8E8M0}, {onnx.Uint2, 25, kernel.Uint2}, {onnx.Int2, 26, kernel.Int2},
	} {
		if int32(c.d) != c.code {
			t.Errorf("%v has code %d, want %d", c.d, int32(c.d), c.code)
		}
		if dt, ok := c.d.DType(); !ok || dt != c.want {
			t.Errorf("%v maps to %v, %v; want %v", c.d, dt, ok, c.want)
		}
	}
	for _, d := range []onnx.DataType{onnx.String, onnx.Complex64, onnx.Complex128, 27} {
		if dt, ok := d.DType(); ok {
			t.Errorf("%v maps to %v", d, dt)
		}
	}
}

// TestNewDataTypesFromFields: tensors of the new types stored without raw
// data, each in the field the ONNX proto keeps it in (int32_data for
// int16, uint16 and bfloat16 bits, uint64_data for uint32 and uint64),
// and the same values as raw little-endian data.
func TestNewDataTypesFromFields(t *testing.T) {
	for _, c := range []struct {
		tensor onnx.Tensor
		want   []byte // little-endian
	}{
		{onnx.Tensor{DataType: onnx.Int16, Dims: []int64{3}, Int32s: []int32{-32768, -1, 300}},
			[]byte{0x00, 0x80, 0xff, 0xff, 0x2c, 0x01}},
		{onnx.Tensor{DataType: onnx.Uint16, Dims: []int64{2}, Int32s: []int32{65535, 2}},
			[]byte{0xff, 0xff, 0x02, 0x00}},
		{onnx.Tensor{DataType: onnx.BFloat16, Dims: []int64{2}, Int32s: []int32{0x3f80, 0xc2f7}},
			[]byte{0x80, 0x3f, 0xf7, 0xc2}},
		{onnx.Tensor{DataType: onnx.Uint32, Dims: []int64{2}, Uint64s: []uint64{math.MaxUint32, 7}},
			[]byte{0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0}},
		{onnx.Tensor{DataType: onnx.Uint64, Dims: []int64{2}, Uint64s: []uint64{math.MaxUint64, 1 << 63}},
			[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x80}},
	} {
		k, err := c.tensor.Kernel()
		if err != nil {
			t.Errorf("%v: %v", c.tensor.DataType, err)
			continue
		}
		if string(k.Host) != string(c.want) {
			t.Errorf("%v: contents % x, want % x", c.tensor.DataType, k.Host, c.want)
		}
		raw := onnx.Tensor{DataType: c.tensor.DataType, Dims: c.tensor.Dims, Raw: c.want}
		if k, err := raw.Kernel(); err != nil || string(k.Host) != string(c.want) {
			t.Errorf("%v raw: % x, %v", c.tensor.DataType, k.Host, err)
		}
	}
	// The wrong field, or too few values, is malformed.
	for _, bad := range []onnx.Tensor{
		{DataType: onnx.Uint64, Dims: []int64{2}, Int64s: []int64{1, 2}},
		{DataType: onnx.Uint32, Dims: []int64{2}, Int32s: []int32{1, 2}},
		{DataType: onnx.Int16, Dims: []int64{2}, Uint64s: []uint64{1, 2}},
		{DataType: onnx.BFloat16, Dims: []int64{3}, Int32s: []int32{1, 2}},
	} {
		if _, err := bad.Kernel(); err == nil {
			t.Errorf("%v with %d int32, %d int64, %d uint64 values converted", bad.DataType, len(bad.Int32s), len(bad.Int64s), len(bad.Uint64s))
		}
	}
}

// TestGoldenNewDataTypes: golden files hold the new dtypes, uint64 values
// beyond 2^63 exactly, and Compare tells apart integers float64 cannot.
func TestGoldenNewDataTypes(t *testing.T) {
	g, err := onnx.DecodeGolden(strings.NewReader(`{"cases": [{"inputs": {
		"a": {"dtype": "uint64", "shape": [3], "data": [18446744073709551615, 9007199254740993, 0]},
		"b": {"dtype": "int16", "shape": [2], "data": [-32768, 32767]},
		"c": {"dtype": "bfloat16", "shape": [2], "data": [1.0078125, "-Infinity"]},
		"d": {"dtype": "uint32", "shape": [1], "data": [4294967295]},
		"e": {"dtype": "uint16", "shape": [1], "data": [65535]}},
		"outputs": {"y": {"dtype": "uint64", "shape": [1], "data": [9007199254740993]}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := g.Cases[0]
	if v := kernel.Uint64s(c.Inputs["a"].Host); v[0] != math.MaxUint64 || v[1] != 1<<53+1 {
		t.Errorf("uint64 data %v", v)
	}
	if v := kernel.Int16s(c.Inputs["b"].Host); v[0] != math.MinInt16 || v[1] != math.MaxInt16 {
		t.Errorf("int16 data %v", v)
	}
	if v := kernel.Uint16s(c.Inputs["c"].Host); v[0] != 0x3f81 || v[1] != 0xff80 {
		t.Errorf("bfloat16 data %#x", v)
	}
	if v := kernel.Uint32s(c.Inputs["d"].Host); v[0] != math.MaxUint32 {
		t.Errorf("uint32 data %v", v)
	}
	if v := kernel.Uint16s(c.Inputs["e"].Host); v[0] != math.MaxUint16 {
		t.Errorf("uint16 data %v", v)
	}
	got := kernel.New(kernel.Uint64, 1)
	kernel.Uint64s(got.Host)[0] = 1 << 53 // the same float64 as 2^53+1
	if _, err := c.Compare(map[string]*kernel.Tensor{"y": got}, 1e-5); err == nil {
		t.Error("2^53 compared equal to 2^53+1")
	}
	kernel.Uint64s(got.Host)[0] = 1<<53 + 1
	if _, err := c.Compare(map[string]*kernel.Tensor{"y": got}, 1e-5); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{
		`{"dtype": "uint16", "shape": [1], "data": [65536]}`,
		`{"dtype": "int16", "shape": [1], "data": [-32769]}`,
		`{"dtype": "uint64", "shape": [1], "data": [-1]}`,
		`{"dtype": "uint32", "shape": [1], "data": [1.5]}`,
	} {
		_, err := onnx.DecodeGolden(strings.NewReader(`{"cases": [{"outputs": {"y": ` + bad + `}}]}`))
		if err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}
