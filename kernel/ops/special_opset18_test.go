package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	unaryCases = append(unaryCases,
		// Mish: x·tanh(ln(1 + eˣ)), ONNX's definition as written (−∞ gives
		// NaN there: −∞·tanh(0)).
		unaryCase{op: "Mish", ref: func(x float64) float64 { return x * math.Tanh(math.Log1p(math.Exp(x))) }})
	specialOtherOps = append(specialOtherOps, "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "GroupNormalization")
}

// TestSpecialBitwise: the bitwise ops on every pair of each integer
// dtype's extreme values, x [5,1] against y [1,5], against Go's operators
// on the typed values.
func TestSpecialBitwise(t *testing.T) {
	extremes := map[kernel.DType][]int64{
		kernel.Int8:   {math.MinInt8, -1, 0, 1, math.MaxInt8},
		kernel.Uint8:  {0, 1, 0x55, 0x80, 0xff},
		kernel.Int32:  {math.MinInt32, -1, 0, 0x5555_5555, math.MaxInt32},
		kernel.Int64:  {math.MinInt64, -1, 0, 0x5555_5555_5555_5555, math.MaxInt64},
		kernel.Int16:  {math.MinInt16, -1, 0, 0x5555, math.MaxInt16},
		kernel.Uint16: {0, 1, 0x5555, 0x8000, 0xffff},
		kernel.Uint32: {0, 1, 0x5555_5555, 0x8000_0000, 0xffff_ffff},
		// uint64 as bit patterns: 2^63 and 2^64-1.
		kernel.Uint64: {0, 1, 0x5555_5555_5555_5555, math.MinInt64, -1},
	}
	// The low bits of a result, as loadI reads the unsigned dtypes.
	low := func(dt kernel.DType, v int64) int64 {
		switch dt {
		case kernel.Uint8:
			return v & 0xff
		case kernel.Uint16:
			return v & 0xffff
		case kernel.Uint32:
			return v & 0xffff_ffff
		}
		return v
	}
	for dt, v := range extremes {
		mk := func(shape []int64) *kernel.Tensor {
			x := kernel.New(dt, shape...)
			for i, e := range v {
				storeI(dt, x.Host, int64(i), e)
			}
			return x
		}
		x, y := mk(shp(5, 1)), mk(shp(1, 5))
		for _, c := range []struct {
			op string
			f  func(a, b int64) int64
		}{
			{"BitwiseAnd", func(a, b int64) int64 { return a & b }},
			{"BitwiseOr", func(a, b int64) int64 { return a | b }},
			{"BitwiseXor", func(a, b int64) int64 { return a ^ b }},
		} {
			out, err := runOp(c.op, nil, x, y)
			if err != nil {
				t.Errorf("%s/%v: %v", c.op, dt, err)
				continue
			}
			for i := range 25 {
				a, b := v[i/5], v[i%5]
				want := low(dt, c.f(a, b))
				if got := loadI(dt, out[0].Data(), int64(i)); got != want {
					t.Errorf("%s/%v(%d, %d) = %d, want %d", c.op, dt, a, b, got, want)
				}
			}
		}
		out, err := runOp("BitwiseNot", nil, mk(shp(5)))
		if err != nil {
			t.Errorf("BitwiseNot/%v: %v", dt, err)
			continue
		}
		for i, a := range v {
			want := low(dt, ^a)
			if got := loadI(dt, out[0].Data(), int64(i)); got != want {
				t.Errorf("BitwiseNot/%v(%d) = %d, want %d", dt, a, got, want)
			}
		}
	}
}

// TestSpecialGroupNormalization: with one group per channel (opset 21,
// scale and bias per channel, float64 statistics) GroupNormalization is
// InstanceNormalization: bit for bit on rows of special values; with one
// group of all channels its statistics are those of the whole sample;
// under stash_type 1 (the default) a float64 X is cast to float32 for the
// statistics and the normalized values.
func TestSpecialGroupNormalization(t *testing.T) {
	for _, dt := range sweepFloats {
		rows := normRows(dt)
		r, n := int64(len(rows)), int64(4)
		x := bitsTensor(dt, shp(1, r, n), flatten(rows))
		s, b := kernel.New(dt, r), kernel.New(dt, r)
		for i := range r {
			storeF(dt, s.Host, i, float64(i%3)+0.5)
			storeF(dt, b.Host, i, float64(i%2)-0.25)
		}
		want, err := runOp("InstanceNormalization", nil, x, s, b)
		if err != nil {
			t.Fatalf("InstanceNormalization/%v: %v", dt, err)
		}
		got, err := runOp("GroupNormalization", kernel.Attrs{"num_groups": r, "stash_type": int64(11), kernel.OpsetAttr: int64(21)}, x, s, b)
		if err != nil {
			t.Fatalf("GroupNormalization/%v: %v", dt, err)
		}
		checkBits(t, fmt.Sprintf("GroupNormalization/%v, a group per channel", dt), got[0], dt, shp(1, r, n), tensorBits(want[0]), true,
			func(i int) string { return fmt.Sprintf("element %d of row %d", i%int(n), i/int(n)) })
	}
	// One group: [1, 2, 3] normalises over its six elements, scale and
	// bias per group at opset 18.
	x := tensor(kernel.Float64, shp(1, 2, 3), 1, 2, 3, 4, 5, 6)
	out, err := runOp("GroupNormalization", kernel.Attrs{"num_groups": int64(1), "epsilon": 0.0, kernel.OpsetAttr: int64(18)},
		x, tensor(kernel.Float64, shp(1), 2), tensor(kernel.Float64, shp(1), 1))
	if err != nil {
		t.Fatal(err)
	}
	inv := 1 / math.Sqrt(17.5/6)
	for i, v := range kernel.Float64s(out[0].Data()) {
		if want := (float64(i+1)-3.5)*inv*2 + 1; math.Abs(v-want) > 1e-12 {
			t.Errorf("element %d: %g, want %g", i, v, want)
		}
	}
	// Opset 21, stash_type 1: values 1 + i·1e-9 all round to 1 in
	// float32, so every normalized value is 0 and Y is the bias; with
	// stash_type 11 they are ±1.46… (the float64 statistics).
	xs := make([]float64, 6)
	for i := range xs {
		xs[i] = 1 + float64(i)*1e-9
	}
	one := tensor(kernel.Float64, shp(2), 1, 1)
	for _, c := range []struct {
		stash int64
		want0 float64
	}{{1, 0.5}, {11, 0.5 - 1.4638501094227998}} {
		attrs := kernel.Attrs{"num_groups": int64(1), "epsilon": 0.0, "stash_type": c.stash, kernel.OpsetAttr: int64(21)}
		out := mustRun(t, "GroupNormalization", attrs, tensor(kernel.Float64, shp(1, 2, 3), xs...), one, tensor(kernel.Float64, shp(2), 0.5, 0.5))
		if got := kernel.Float64s(out.Data())[0]; math.Abs(got-c.want0) > 1e-6 {
			t.Errorf("stash_type %d: element 0 = %v, want %v", c.stash, got, c.want0)
		}
	}
}

func TestOpset18OpsRefuseMisuse(t *testing.T) {
	f := tensor(kernel.Float32, shp(1, 4, 2), 1, 2, 3, 4, 5, 6, 7, 8)
	s2 := tensor(kernel.Float32, shp(2), 1, 1)
	s4 := tensor(kernel.Float32, shp(4), 1, 1, 1, 1)
	wantErr(t, "GroupNormalization", kernel.Attrs{}, []*kernel.Tensor{f, s2, s2}, "num_groups")
	wantErr(t, "GroupNormalization", kernel.Attrs{"num_groups": int64(3)}, []*kernel.Tensor{f, s4, s4}, "multiple of num_groups")
	wantErr(t, "GroupNormalization", kernel.Attrs{"num_groups": int64(2), kernel.OpsetAttr: int64(21)}, []*kernel.Tensor{f, s2, s2}, "scale")
	wantErr(t, "GroupNormalization", kernel.Attrs{"num_groups": int64(2), kernel.OpsetAttr: int64(18)}, []*kernel.Tensor{f, s4, s4}, "scale")
	wantErr(t, "GroupNormalization", kernel.Attrs{"num_groups": int64(2), "stash_type": int64(0), kernel.OpsetAttr: int64(21)}, []*kernel.Tensor{f, s4, s4}, "stash_type")
	wantErr(t, "BitwiseAnd", nil, []*kernel.Tensor{f, f}, "dtype")
	wantErr(t, "BitwiseOr", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(1), 1), tensor(kernel.Int64, shp(1), 1)}, "dtype")
	wantErr(t, "BitwiseXor", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(2), 1, 2), tensor(kernel.Int32, shp(3), 1, 2, 3)}, "broadcast")
	wantErr(t, "BitwiseNot", nil, []*kernel.Tensor{tensor(kernel.Bool, shp(1), 1)}, "dtype")
	wantErr(t, "Mish", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(1), 1)}, "dtype")
}
