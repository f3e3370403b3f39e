package ops

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// The ops of ONNX opset 26, CumProd and BitCast, against values and bit
// patterns worked out by hand.

var negZero = math.Copysign(0, -1)

// elem names element i in a failure.
func elem(i int) string { return fmt.Sprint("element ", i) }

func TestCumProdFloat(t *testing.T) {
	x := f32(shp(2, 3), 1, 2, 3, 4, 5, 6)
	for _, c := range []struct {
		name           string
		axis           *kernel.Tensor
		exclusive, rev int64
		want           []float64
	}{
		{"axis 1", i64(shp(), 1), 0, 0, []float64{1, 2, 6, 4, 20, 120}},
		{"axis -1, int32", tensor(kernel.Int32, shp(), -1), 0, 0, []float64{1, 2, 6, 4, 20, 120}},
		{"axis 1 as [1]", i64(shp(1), 1), 0, 0, []float64{1, 2, 6, 4, 20, 120}},
		{"exclusive", i64(shp(), 1), 1, 0, []float64{1, 1, 2, 1, 4, 20}},
		{"reverse", i64(shp(), 1), 0, 1, []float64{6, 6, 3, 120, 30, 6}},
		{"exclusive reverse", i64(shp(), 1), 1, 1, []float64{6, 3, 1, 30, 6, 1}},
		{"axis 0", i64(shp(), 0), 0, 0, []float64{1, 2, 3, 4, 10, 18}},
		{"axis -2, exclusive", tensor(kernel.Int32, shp(1), -2), 1, 0, []float64{1, 1, 1, 1, 2, 3}},
		{"axis 0, exclusive reverse", i64(shp(), 0), 1, 1, []float64{4, 5, 6, 1, 1, 1}},
	} {
		got := mustRun(t, "CumProd", kernel.Attrs{"exclusive": c.exclusive, "reverse": c.rev}, x, c.axis)
		if got.DType != kernel.Float32 {
			t.Fatalf("%s: dtype %v", c.name, got.DType)
		}
		checkValues(t, c.name, got, shp(2, 3), c.want)
	}

	// ONNX's examples, in float64.
	d := tensor(kernel.Float64, shp(5), 1, 2, 3, 4, 5)
	ax := tensor(kernel.Int32, shp(), 0)
	checkValues(t, "float64", mustRun(t, "CumProd", nil, d, ax), shp(5), []float64{1, 2, 6, 24, 120})
	checkValues(t, "float64 exclusive", mustRun(t, "CumProd", kernel.Attrs{"exclusive": int64(1)}, d, ax), shp(5), []float64{1, 1, 2, 6, 24})
	checkValues(t, "float64 reverse", mustRun(t, "CumProd", kernel.Attrs{"reverse": true}, d, ax), shp(5), []float64{120, 120, 60, 20, 5})
	checkValues(t, "float64 exclusive reverse", mustRun(t, "CumProd", kernel.Attrs{"exclusive": true, "reverse": true}, d, ax), shp(5), []float64{120, 60, 20, 5, 1})

	// float16 and bfloat16: exact products; 1 + 2⁻¹⁰ (float16's next
	// after 1) cubed is 1 + 3·2⁻¹⁰ + 3·2⁻²⁰ + 2⁻³⁰, which rounds to
	// 1 + 3·2⁻¹⁰.
	e := 1 + math.Ldexp(1, -10)
	checkValues(t, "float16", mustRun(t, "CumProd", nil, tensor(kernel.Float16, shp(4), 1.5, 1.5, -1.5, 1.5), ax), shp(4), []float64{1.5, 2.25, -3.375, -5.0625})
	checkValues(t, "float16 rounded", mustRun(t, "CumProd", nil, tensor(kernel.Float16, shp(3), e, e, e), ax), shp(3), []float64{e, 1 + math.Ldexp(2, -10), 1 + math.Ldexp(3, -10)})
	checkValues(t, "bfloat16", mustRun(t, "CumProd", nil, tensor(kernel.BFloat16, shp(3), 2, -3, 0.5), ax), shp(3), []float64{2, -6, -3})

	// Zeros, infinities, NaN: 0·Inf is NaN and stays NaN; −0 keeps its sign.
	checkValues(t, "specials", mustRun(t, "CumProd", nil, f32(shp(4), 2, math.Inf(1), 0, 5), ax), shp(4), []float64{2, math.Inf(1), math.NaN(), math.NaN()})
	checkValues(t, "negative zero", mustRun(t, "CumProd", nil, f32(shp(3), -1, 0, 3), ax), shp(3), []float64{-1, negZero, negZero})
	checkValues(t, "lone negative zero", mustRun(t, "CumProd", nil, f32(shp(1), negZero), ax), shp(1), []float64{negZero})
	checkValues(t, "exclusive over zero", mustRun(t, "CumProd", kernel.Attrs{"exclusive": int64(1)}, f32(shp(3), 0, 7, 8), ax), shp(3), []float64{1, 0, 0})
	// float32 products are formed in float64 and rounded once: 1e30·1e30
	// overflows float32, and ·1e-30 brings it back.
	big := float64(float32(1e30))
	small := float64(float32(1e-30))
	checkValues(t, "float64 products", mustRun(t, "CumProd", nil, f32(shp(3), 1e30, 1e30, 1e-30), ax), shp(3),
		[]float64{big, math.Inf(1), float64(float32(big * big * small))})

	// A zero-length axis and an empty tensor.
	checkValues(t, "empty axis", mustRun(t, "CumProd", nil, f32(shp(2, 0)), i64(shp(), 1)), shp(2, 0), nil)
	checkValues(t, "empty outer", mustRun(t, "CumProd", nil, f32(shp(0, 3)), i64(shp(), 1)), shp(0, 3), nil)
}

// TestCumProdIntegersWrap: integer products keep the low bits of the true
// product, signed and unsigned.
func TestCumProdIntegersWrap(t *testing.T) {
	ax := i64(shp(), 0)
	// 50000² = 2500000000 = 2³² − 1794967296; ·2 = 5000000000 = 2³² + 705032704.
	got := mustRun(t, "CumProd", nil, intsT(kernel.Int32, shp(3), int32(50000), 50000, 2), ax)
	checkBits(t, "int32", got, kernel.Int32, shp(3), []uint64{50000, 2500000000, 705032704}, true, elem)
	if v := kernel.Int32s(got.Data())[1]; v != -1794967296 {
		t.Fatalf("int32: 50000² wraps to %d, want -1794967296", v)
	}
	checkValues(t, "int32 signs", mustRun(t, "CumProd", nil, intsT(kernel.Int32, shp(3), int32(-3), 4, -5), ax), shp(3), []float64{-3, -12, 60})
	// 2⁶²·2 = 2⁶³ wraps to −2⁶³; ·3 = 2⁶⁴ + 2⁶³, again −2⁶³.
	got = mustRun(t, "CumProd", nil, intsT(kernel.Int64, shp(3), int64(1)<<62, 2, 3), ax)
	if g := kernel.Int64s(got.Data()); !slices.Equal(g, []int64{1 << 62, math.MinInt64, math.MinInt64}) {
		t.Fatalf("int64: %v", g)
	}
	// (2³² − 1)² = 2⁶⁴ − 2³³ + 1: 1 in 32 bits.
	got = mustRun(t, "CumProd", nil, intsT(kernel.Uint32, shp(3), uint32(math.MaxUint32), math.MaxUint32, 7), ax)
	checkBits(t, "uint32", got, kernel.Uint32, shp(3), []uint64{math.MaxUint32, 1, 7}, true, elem)
	// (2⁶³ + 1)·3 = 2⁶⁴ + 2⁶³ + 3: 2⁶³ + 3.
	got = mustRun(t, "CumProd", kernel.Attrs{"reverse": int64(1)}, intsT(kernel.Uint64, shp(2), uint64(3), 1<<63+1), ax)
	checkBits(t, "uint64 reverse", got, kernel.Uint64, shp(2), []uint64{1<<63 + 3, 1<<63 + 1}, true, elem)
	got = mustRun(t, "CumProd", kernel.Attrs{"exclusive": int64(1)}, intsT(kernel.Uint64, shp(3), uint64(1<<40), 1<<30, 5), ax)
	checkBits(t, "uint64 exclusive", got, kernel.Uint64, shp(3), []uint64{1, 1 << 40, 0}, true, elem)
	// An int64 product beyond 2⁵³ is exact.
	got = mustRun(t, "CumProd", nil, intsT(kernel.Int64, shp(2), int64(3_000_000_007), 3_000_000_019), ax)
	if g := kernel.Int64s(got.Data()); g[1] != 9_000_000_078_000_000_133 {
		t.Fatalf("int64 beyond 2^53: %d", g[1])
	}
}

func TestCumProdRefuses(t *testing.T) {
	x := f32(shp(2, 3), 1, 2, 3, 4, 5, 6)
	ax := i64(shp(), 0)
	wantErr(t, "CumProd", nil, []*kernel.Tensor{x, i64(shp(), 2)}, "axis 2")
	wantErr(t, "CumProd", nil, []*kernel.Tensor{x, i64(shp(), -3)}, "axis -3")
	wantErr(t, "CumProd", nil, []*kernel.Tensor{f32(shp(), 2), ax}, "axis 0")
	wantErr(t, "CumProd", nil, []*kernel.Tensor{x, i64(shp(2), 0, 1)}, "has 2 values")
	wantErr(t, "CumProd", nil, []*kernel.Tensor{x, i64(shp(1, 1), 0)}, "rank 2")
	wantErr(t, "CumProd", nil, []*kernel.Tensor{x, f32(shp(), 0)}, "want int64 or int32")
	for _, dt := range []kernel.DType{kernel.Int8, kernel.Uint8, kernel.Int16, kernel.Uint16, kernel.Bool} {
		wantErr(t, "CumProd", nil, []*kernel.Tensor{tensor(dt, shp(2)), ax}, "input x has dtype "+dt.String())
	}
	wantErr(t, "CumProd", kernel.Attrs{"exclusive": int64(2)}, nil, "exclusive", "0 or 1")
	wantErr(t, "CumProd", kernel.Attrs{"axis": int64(0)}, nil, "unknown attribute \"axis\"")
	wantErr(t, "CumProd", nil, []*kernel.Tensor{x}, "want 2 inputs")
}

// TestBitCast: each element's bits, read as the other dtype.
func TestBitCast(t *testing.T) {
	run := func(to string, x *kernel.Tensor) *kernel.Tensor {
		t.Helper()
		return mustRun(t, "BitCast", kernel.Attrs{"to": to}, x)
	}
	// 1 = 0x3f800000, -2.5 = 0xc0200000, 3.75 = 0x40700000; 0x7f800001 a
	// signalling NaN, 0x80000001 the negative smallest subnormal.
	f := bitsTensor(kernel.Float32, shp(5), []uint64{0x3f800000, 0xc0200000, 0x40700000, 0x7f800001, 0x80000001})
	got := run("int32", f)
	if g := kernel.Int32s(got.Data()); got.DType != kernel.Int32 || !slices.Equal(g, []int32{1065353216, -1071644672, 1081081856, 2139095041, -2147483647}) {
		t.Fatalf("float32 to int32: %v %v", got.DType, g)
	}
	got = run("uint32", f)
	if g := kernel.Uint32s(got.Data()); !slices.Equal(g, []uint32{1065353216, 3223322624, 1081081856, 2139095041, 2147483649}) {
		t.Fatalf("float32 to uint32: %v", g)
	}
	back := run("float32", got)
	checkBits(t, "uint32 to float32", back, kernel.Float32, shp(5), tensorBits(f), true, elem)
	checkValues(t, "int32 to float32", run("float32", intsT(kernel.Int32, shp(3), int32(1065353216), -1071644672, 1)), shp(3),
		[]float64{1, -2.5, math.Ldexp(1, -149)})

	// float16: 1 = 0x3c00, -2 = 0xc000, Inf = 0x7c00, a NaN 0x7e01.
	h := bitsTensor(kernel.Float16, shp(4), []uint64{0x3c00, 0xc000, 0x7c00, 0x7e01})
	checkValues(t, "float16 to int16", run("int16", h), shp(4), []float64{15360, -16384, 31744, 32257})
	checkValues(t, "float16 to uint16", run("uint16", h), shp(4), []float64{15360, 49152, 31744, 32257})
	// As bfloat16, 0x3c00 is 2⁻⁷, 0xc000 is -2, 0x7c00 is 2¹²¹ and 0x7e01
	// is (1 + 2⁻⁷)·2¹²⁵.
	checkValues(t, "float16 to bfloat16", run("bfloat16", h), shp(4), []float64{0.0078125, -2, math.Ldexp(1, 121), math.Ldexp(129, 118)})
	// bfloat16 1 = 0x3f80 is, as float16, 2⁰·(1 + 896/1024) = 1.875.
	checkValues(t, "bfloat16 to float16", run("float16", tensor(kernel.BFloat16, shp(2), 1, negZero)), shp(2), []float64{1.875, negZero})
	checkBits(t, "int16 to float16", run("float16", intsT(kernel.Int16, shp(2), int16(-1), 0x7e00)), kernel.Float16, shp(2), []uint64{0xffff, 0x7e00}, true, elem)
	checkBits(t, "uint16 to bfloat16", run("bfloat16", intsT(kernel.Uint16, shp(2), uint16(0xffc1), 0x4228)), kernel.BFloat16, shp(2), []uint64{0xffc1, 0x4228}, true, elem)

	// float64: 1 = 0x3ff0000000000000, -2.5 = 0xc004000000000000.
	d := tensor(kernel.Float64, shp(3), 1, -2.5, math.Inf(-1))
	got = run("int64", d)
	if g := kernel.Int64s(got.Data()); !slices.Equal(g, []int64{4607182418800017408, -4610560118520545280, -4503599627370496}) {
		t.Fatalf("float64 to int64: %v", g)
	}
	got = run("uint64", d)
	if g := kernel.Uint64s(got.Data()); !slices.Equal(g, []uint64{4607182418800017408, 13836183955189006336, 18442240474082181120}) {
		t.Fatalf("float64 to uint64: %v", g)
	}
	checkValues(t, "int64 to float64", run("float64", intsT(kernel.Int64, shp(3), int64(4607182418800017408), -4610560118520545280, 1)), shp(3),
		[]float64{1, -2.5, math.SmallestNonzeroFloat64})
	checkBits(t, "uint64 to float64 NaN", run("float64", intsT(kernel.Uint64, shp(1), uint64(0xfff8000000000123))), kernel.Float64, shp(1), []uint64{0xfff8000000000123}, true, elem)

	// Bytes: uint8 128 and 255 are int8 -128 and -1; a bool keeps its byte.
	u := intsT(kernel.Uint8, shp(5), uint8(0), 1, 127, 128, 255)
	checkValues(t, "uint8 to int8", run("int8", u), shp(5), []float64{0, 1, 127, -128, -1})
	checkBits(t, "uint8 to bool", run("bool", u), kernel.Bool, shp(5), []uint64{0, 1, 127, 128, 255}, true, elem)
	checkValues(t, "bool to uint8", run("uint8", tensor(kernel.Bool, shp(3), 1, 0, 1)), shp(3), []float64{1, 0, 1})
	checkValues(t, "int8 to uint8", run("uint8", intsT(kernel.Int8, shp(2), int8(-1), -128)), shp(2), []float64{255, 128})

	// The low-precision types: the float 8 types are bytes; the sub-byte
	// ones keep their low bits, sign-extended into int4 and int2.
	lp := func(dt kernel.DType, codes ...byte) *kernel.Tensor {
		x := kernel.New(dt, int64(len(codes)))
		copy(x.Host, codes)
		return x
	}
	for _, c := range []struct {
		from kernel.DType
		in   []byte
		to   kernel.DType
		want []byte
	}{
		{kernel.Uint8, []byte{0x00, 0x7f, 0x80, 0xff}, kernel.Float8E4M3FN, []byte{0x00, 0x7f, 0x80, 0xff}},
		{kernel.Float8E5M2, []byte{0x7c, 0xfe}, kernel.Float8E8M0, []byte{0x7c, 0xfe}},
		{kernel.Float8E8M0, []byte{0xff, 0x00}, kernel.Int8, []byte{0xff, 0x00}},
		{kernel.Int4, []byte{0xf8, 0xff, 0x07}, kernel.Uint4, []byte{0x08, 0x0f, 0x07}},
		{kernel.Uint4, []byte{0x08, 0x0f, 0x07}, kernel.Int4, []byte{0xf8, 0xff, 0x07}},
		{kernel.Int4, []byte{0xf9, 0x01}, kernel.Float4E2M1, []byte{0x09, 0x01}},
		{kernel.Float4E2M1, []byte{0x0f, 0x08}, kernel.Int4, []byte{0xff, 0xf8}},
		{kernel.Int2, []byte{0xfe, 0xff, 0x01}, kernel.Uint2, []byte{0x02, 0x03, 0x01}},
		{kernel.Uint2, []byte{0x02, 0x03}, kernel.Int2, []byte{0xfe, 0xff}},
	} {
		got := mustRun(t, "BitCast", kernel.Attrs{"to": c.to}, lp(c.from, c.in...))
		if got.DType != c.to || !slices.Equal(got.Data(), c.want) {
			t.Errorf("%v % x to %v: %v % x, want % x", c.from, c.in, c.to, got.DType, got.Data(), c.want)
		}
	}

	// The shape is kept, a scalar's too; the dtype of the input itself is
	// the identity.
	checkValues(t, "2-D", run("int16", tensor(kernel.Uint16, shp(2, 2), 1, 2, 65535, 32768)), shp(2, 2), []float64{1, 2, -1, -32768})
	checkValues(t, "scalar", mustRun(t, "BitCast", kernel.Attrs{"to": kernel.Uint32}, f32(shp(), negZero)), shp(), []float64{2147483648})
	checkBits(t, "identity", run("float32", f), kernel.Float32, shp(5), tensorBits(f), true, elem)
	checkValues(t, "empty", run("int64", tensor(kernel.Float64, shp(0, 2))), shp(0, 2), nil)
}

func TestBitCastRefuses(t *testing.T) {
	x := f32(shp(2), 1, 2)
	wantErr(t, "BitCast", kernel.Attrs{"to": "int64"}, []*kernel.Tensor{x}, "cannot bitcast float32 (32 bits) to int64 (64 bits)")
	wantErr(t, "BitCast", kernel.Attrs{"to": "float16"}, []*kernel.Tensor{x}, "widths must be equal")
	// One byte an element, but 4 and 2 bits wide.
	wantErr(t, "BitCast", kernel.Attrs{"to": "int4"}, []*kernel.Tensor{tensor(kernel.Uint8, shp(1))}, "uint8 (8 bits) to int4 (4 bits)")
	wantErr(t, "BitCast", kernel.Attrs{"to": "uint8"}, []*kernel.Tensor{kernel.New(kernel.Float4E2M1, 1)}, "float4e2m1 (4 bits) to uint8 (8 bits)")
	wantErr(t, "BitCast", kernel.Attrs{"to": "uint4"}, []*kernel.Tensor{kernel.New(kernel.Int2, 1)}, "int2 (2 bits) to uint4 (4 bits)")
	wantErr(t, "BitCast", kernel.Attrs{"to": "int8"}, []*kernel.Tensor{tensor(kernel.Bool, shp(1)), tensor(kernel.Bool, shp(1))}, "want 1 input")
	wantErr(t, "BitCast", kernel.Attrs{"to": "bool"}, []*kernel.Tensor{tensor(kernel.Int16, shp(1))}, "int16 (16 bits) to bool (8 bits)")
	wantErr(t, "BitCast", nil, nil, `"to" is required`)
	wantErr(t, "BitCast", kernel.Attrs{"to": "complex64"}, nil, "unknown dtype")
	wantErr(t, "BitCast", kernel.Attrs{"to": "string"}, nil, "unknown dtype")
	wantErr(t, "BitCast", kernel.Attrs{"to": int64(6)}, nil, "want a dtype")
	wantErr(t, "BitCast", kernel.Attrs{"to": "int32", "saturate": int64(1)}, nil, "unknown attribute \"saturate\"")
}

// TestOpset26Costs: BitCast moves bytes and computes nothing; CumProd is
// one multiplication per element.
func TestOpset26Costs(t *testing.T) {
	k, err := Builtins().New("BitCast", kernel.Attrs{"to": "int32"})
	if err != nil {
		t.Fatal(err)
	}
	x := f32(shp(4, 8))
	out := []*kernel.Tensor{{}}
	if err := k.InferShape([]*kernel.Tensor{x}, out); err != nil {
		t.Fatal(err)
	}
	if c := k.Cost([]*kernel.Tensor{x}, out); c.FLOPs != 0 || c.Bytes != 2*128 {
		t.Fatalf("BitCast cost %+v", c)
	}
	var tl kernel.Tiling
	if err := k.Resize([]*kernel.Tensor{x}, out, &tl); err != nil || len(tl.Data) == 0 {
		t.Fatalf("BitCast resize: %v, %d bytes of tiling", err, len(tl.Data))
	}
	if err := k.Resize([]*kernel.Tensor{x}, []*kernel.Tensor{f32(shp(4, 8))}, &tl); err == nil {
		t.Fatal("BitCast resize accepts a float32 output")
	}

	k, err = Builtins().New("CumProd", nil)
	if err != nil {
		t.Fatal(err)
	}
	in := []*kernel.Tensor{x, i64(shp(), 1)}
	if err := k.InferShape(in, out); err != nil {
		t.Fatal(err)
	}
	if c := k.Cost(in, out); c.FLOPs != 32 || c.Bytes != 128+8+128 {
		t.Fatalf("CumProd cost %+v", c)
	}
}
