package ops

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// specialF32 are float32 bit patterns an identity must keep: signed zeros,
// infinities, NaNs with payloads and signs, subnormals, extremes.
var specialF32 = []uint32{
	0x00000000, 0x80000000, // ±0
	0x7f800000, 0xff800000, // ±Inf
	0x7fc00000, 0xffc00000, 0x7fc00001, 0x7f800001, 0xffbfffff, // NaNs: quiet, negative, payloads, signalling
	0x00000001, 0x807fffff, 0x00400000, // subnormals
	0x7f7fffff, 0xff7fffff, 0x00800000, // largest, smallest normal
	0x3f800000, 0xbf800000, 0x42280000, // 1, -1, 42
}

// specialF16 are float16 bit patterns: signed zeros, infinities, NaNs,
// subnormals, the largest values.
var specialF16 = []uint16{0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x0400, 0x3c00, 0xbc00, 0x5140, 0x8001}

// identities are ops and attributes whose output is their first input,
// with the other inputs each needs for the shape [n] (n = the values).
func identities(n int64) []struct {
	op    string
	attrs kernel.Attrs
	extra func(dt kernel.DType) []*kernel.Tensor
} {
	none := func(kernel.DType) []*kernel.Tensor { return nil }
	return []struct {
		op    string
		attrs kernel.Attrs
		extra func(dt kernel.DType) []*kernel.Tensor
	}{
		{"Identity", nil, none},
		{"Reshape", nil, func(kernel.DType) []*kernel.Tensor { return []*kernel.Tensor{i64(shp(1), float64(n))} }},
		{"Flatten", kernel.Attrs{"axis": int64(0)}, none},
		{"Squeeze", nil, none},
		{"Transpose", nil, none},
		{"Expand", nil, func(kernel.DType) []*kernel.Tensor { return []*kernel.Tensor{i64(shp(1), 1)} }},
		{"Tile", nil, func(kernel.DType) []*kernel.Tensor { return []*kernel.Tensor{i64(shp(1), 1)} }},
		{"Concat", kernel.Attrs{"axis": int64(0)}, none},
		{"Slice", nil, func(kernel.DType) []*kernel.Tensor {
			return []*kernel.Tensor{i64(shp(1), 0), i64(shp(1), float64(n))}
		}},
		{"Pad", nil, func(kernel.DType) []*kernel.Tensor { return []*kernel.Tensor{i64(shp(2), 0, 0)} }},
		{"Dropout", nil, none},
		{"Cast", kernel.Attrs{"to": ""}, none}, // to: the input's own dtype
		{"ReduceSum", kernel.Attrs{"noop_with_empty_axes": int64(1)}, none},
		{"ReduceMax", kernel.Attrs{"noop_with_empty_axes": int64(1), kernel.OpsetAttr: int64(18)}, none},
		{"ReduceMean", kernel.Attrs{"noop_with_empty_axes": int64(1), kernel.OpsetAttr: int64(18)}, none},
		{"ReduceProd", kernel.Attrs{"noop_with_empty_axes": int64(1), kernel.OpsetAttr: int64(18)}, none},
		{"Split", kernel.Attrs{"num_outputs": int64(1)}, none},
		{"Gather", kernel.Attrs{"axis": int64(0)}, func(kernel.DType) []*kernel.Tensor {
			idx := make([]float64, n)
			for i := range idx {
				idx[i] = float64(i)
			}
			return []*kernel.Tensor{i64(shp(n), idx...)}
		}},
		{"Where", nil, nil}, // built below: a true condition
	}
}

// TestIdentityPathsKeepTheBits: every op's identity or no-op path returns
// its input's bits unchanged — signed zeros, NaN payloads, subnormals,
// float16 extremes.
func TestIdentityPathsKeepTheBits(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		var x *kernel.Tensor
		if dt == kernel.Float32 {
			x = kernel.New(dt, int64(len(specialF32)))
			for i, b := range specialF32 {
				binary.LittleEndian.PutUint32(x.Host[4*i:], b)
			}
		} else {
			x = kernel.New(dt, int64(len(specialF16)))
			for i, b := range specialF16 {
				binary.LittleEndian.PutUint16(x.Host[2*i:], b)
			}
		}
		n := x.Shape[0]
		for _, c := range identities(n) {
			name := fmt.Sprintf("%v/%s", dt, c.op)
			attrs := c.attrs
			var in []*kernel.Tensor
			switch c.op {
			case "Cast":
				attrs = kernel.Attrs{"to": dt.String()}
				in = []*kernel.Tensor{x}
			case "Where":
				cond := kernel.New(kernel.Bool, n)
				for i := range cond.Host {
					cond.Host[i] = 1
				}
				in = []*kernel.Tensor{cond, x, kernel.New(dt, n)}
			default:
				in = append([]*kernel.Tensor{x}, c.extra(dt)...)
			}
			out, err := runOp(c.op, attrs, in...)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			got := out[0]
			want := x.Shape
			if c.op == "Flatten" {
				want = kernel.Shape{1, n} // axis 0: [1, everything]
			}
			if !got.Shape.Equal(want) || got.DType != dt {
				t.Errorf("%s: %v %v, want %v %v", name, got.DType, got.Shape, dt, want)
				continue
			}
			if d := got.Data(); string(d) != string(x.Host) {
				for i := 0; i < len(d); i += dt.Size() {
					if string(d[i:i+dt.Size()]) != string(x.Host[i:i+dt.Size()]) {
						t.Errorf("%s: element %d: bits %x, want %x", name, i/dt.Size(), d[i:i+dt.Size()], x.Host[i:i+dt.Size()])
						break
					}
				}
			}
		}
	}
}

// TestReductionsTakeAxesAsInputFromOpset18: every reduction of opset 18
// reads its axes from input 1 and gives what opset 17's attribute gives;
// empty axes reduce everything unless noop_with_empty_axes.
func TestReductionsTakeAxesAsInputFromOpset18(t *testing.T) {
	x := f32(shp(2, 3), 1, -2, 3, 0.5, -0.25, 4)
	for _, op := range reductionOps {
		for _, keep := range []int64{0, 1} {
			old := mustRun(t, op, kernel.Attrs{"axes": []int64{1}, "keepdims": keep}, x)
			got := mustRun(t, op, kernel.Attrs{"keepdims": keep, kernel.OpsetAttr: int64(18)}, x, i64(shp(1), 1))
			if !got.Shape.Equal(old.Shape) || string(got.Data()) != string(old.Data()) {
				t.Errorf("%s keepdims %d: opset 18 gave %v %v, opset 17 %v %v", op, keep, got.Shape, values(got), old.Shape, values(old))
			}
		}
		all := mustRun(t, op, kernel.Attrs{kernel.OpsetAttr: int64(18), "keepdims": int64(0)}, x)
		if all.Shape.Rank() != 0 {
			t.Errorf("%s: no axes reduce to %v, want a scalar", op, all.Shape)
		}
	}
}

// TestBitShift: left and right shifts of uint8 with broadcasting; a
// shift by the width or more gives 0; other dtypes and directions are
// errors.
func TestBitShift(t *testing.T) {
	x := tensor(kernel.Uint8, shp(4), 16, 4, 1, 255)
	y := tensor(kernel.Uint8, shp(4), 2, 1, 8, 3)
	for dir, want := range map[string][]float64{"LEFT": {64, 8, 0, 248}, "RIGHT": {4, 2, 0, 31}} {
		got := mustRun(t, "BitShift", kernel.Attrs{"direction": dir}, x, y)
		if fmt.Sprint(values(got)) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", dir, values(got), want)
		}
	}
	got := mustRun(t, "BitShift", kernel.Attrs{"direction": "RIGHT"}, x, tensor(kernel.Uint8, shp(1), 1))
	if fmt.Sprint(values(got)) != "[8 2 0 127]" {
		t.Errorf("broadcast: %v", values(got))
	}
	wantErr(t, "BitShift", kernel.Attrs{"direction": "UP"}, []*kernel.Tensor{x, y}, "direction")
	wantErr(t, "BitShift", kernel.Attrs{"direction": "LEFT"}, []*kernel.Tensor{i64(shp(1), 1), i64(shp(1), 1)}, "int64")
}
