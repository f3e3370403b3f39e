package kernel_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

func TestNewDTypes(t *testing.T) {
	for _, c := range []struct {
		d              kernel.DType
		name           string
		size           int
		isInt, isFloat bool
		unsigned       bool
	}{
		{kernel.Int16, "int16", 2, true, false, false},
		{kernel.Uint16, "uint16", 2, true, false, true},
		{kernel.Uint32, "uint32", 4, true, false, true},
		{kernel.Uint64, "uint64", 8, true, false, true},
		{kernel.BFloat16, "bfloat16", 2, false, true, false},
		{kernel.Uint8, "uint8", 1, true, false, true},
		{kernel.Int8, "int8", 1, true, false, false},
		{kernel.Bool, "bool", 1, false, false, false},
		{kernel.Float8E4M3FN, "float8e4m3fn", 1, false, true, false},
		{kernel.Float8E4M3FNUZ, "float8e4m3fnuz", 1, false, true, false},
		{kernel.Float8E5M2, "float8e5m2", 1, false, true, false},
		{kernel.Float8E5M2FNUZ, "float8e5m2fnuz", 1, false, true, false},
		{kernel.Float8E8M0, "float8e8m0", 1, false, true, false},
		{kernel.Int4, "int4", 1, true, false, false},
		{kernel.Uint4, "uint4", 1, true, false, true},
		{kernel.Int2, "int2", 1, true, false, false},
		{kernel.Uint2, "uint2", 1, true, false, true},
		{kernel.Float4E2M1, "float4e2m1", 1, false, true, false},
	} {
		if c.d.String() != c.name || c.d.Size() != c.size || !c.d.Valid() {
			t.Errorf("%v: name %q size %d", c.d, c.d.String(), c.d.Size())
		}
		if c.d.IsInt() != c.isInt || c.d.IsFloat() != c.isFloat || c.d.IsUnsigned() != c.unsigned {
			t.Errorf("%v: IsInt %v IsFloat %v IsUnsigned %v", c.d, c.d.IsInt(), c.d.IsFloat(), c.d.IsUnsigned())
		}
		if d, err := kernel.ParseDType(c.name); err != nil || d != c.d {
			t.Errorf("ParseDType(%q) = %v, %v", c.name, d, err)
		}
	}
	// The values of the first eight types are part of the contract.
	if kernel.Float32 != 1 || kernel.Uint8 != 8 || kernel.Int16 != 9 || kernel.BFloat16 != 13 ||
		kernel.Float8E4M3FN != 14 || kernel.Float4E2M1 != 23 {
		t.Error("dtype values moved")
	}
	all := kernel.DTypes()
	if len(all) != 23 || all[0] != kernel.Float32 || all[12] != kernel.BFloat16 || all[22] != kernel.Float4E2M1 {
		t.Errorf("DTypes() = %v", all)
	}
	if kernel.DType(24).Valid() {
		t.Error("DType(24) is valid")
	}
}

func TestNewIntValues(t *testing.T) {
	i16 := kernel.New(kernel.Int16, 2)
	copy(kernel.Int16s(i16.Host), []int16{-32768, 7})
	u16 := kernel.New(kernel.Uint16, 2)
	copy(kernel.Uint16s(u16.Host), []uint16{65535, 1})
	u32 := kernel.New(kernel.Uint32, 2)
	copy(kernel.Uint32s(u32.Host), []uint32{4294967295, 2})
	u64 := kernel.New(kernel.Uint64, 2)
	copy(kernel.Uint64s(u64.Host), []uint64{math.MaxInt64, 3})
	for _, c := range []struct {
		t    *kernel.Tensor
		want []int64
	}{
		{i16, []int64{-32768, 7}},
		{u16, []int64{65535, 1}},
		{u32, []int64{4294967295, 2}},
		{u64, []int64{math.MaxInt64, 3}},
	} {
		got, err := c.t.IntValues()
		if err != nil || len(got) != 2 || got[0] != c.want[0] || got[1] != c.want[1] {
			t.Errorf("%v IntValues = %v, %v; want %v", c.t.DType, got, err, c.want)
		}
	}
	kernel.Uint64s(u64.Host)[1] = 1 << 63
	if v, err := u64.IntValues(); err == nil {
		t.Errorf("uint64 2^63 read as int64 %v", v)
	}
	bf := kernel.New(kernel.BFloat16, 1)
	if _, err := bf.IntValues(); err == nil {
		t.Error("bfloat16 read as integers")
	}
}

// TestIntValuesOfContentsOffShape: contents shorter or longer than the
// shape says are an error, not fewer or more values than elements (nor,
// for a short device buffer, a panic).
func TestIntValuesOfContentsOffShape(t *testing.T) {
	for _, c := range []*kernel.Tensor{
		{DType: kernel.Int64, Shape: kernel.Shape{4}, Host: make([]byte, 8)},
		{DType: kernel.Int64, Shape: kernel.Shape{1}, Host: make([]byte, 16)},
		{DType: kernel.Int32, Shape: kernel.Shape{1}, Host: make([]byte, 3)},
		{DType: kernel.Uint8, Shape: kernel.Shape{2, 2}, Host: make([]byte, 0)},
		{DType: kernel.Int64, Shape: kernel.Shape{2}, Buf: device.Buffer{Size: 8, Data: make([]byte, 8)}},
	} {
		if v, err := c.IntValues(); err == nil || !strings.Contains(err.Error(), "bytes of data for") {
			t.Errorf("%v holding %d bytes: IntValues = %v, %v; want an error", c, len(c.Host)+len(c.Buf.Data), v, err)
		}
	}
	long := &kernel.Tensor{DType: kernel.Int64, Shape: kernel.Shape{1}, Buf: device.Buffer{Size: 16, Data: make([]byte, 16)}}
	if v, err := long.IntValues(); err != nil || len(v) != 1 {
		t.Errorf("a device buffer beyond the shape: IntValues = %v, %v; want its first element", v, err)
	}
}

// TestBFloat16Conversion checks F32ToBF16 and BF16ToF32 against bit
// patterns worked out by hand: round to nearest, ties to even, at normal
// and subnormal values, overflow to Inf, and NaN to onnxruntime's quiet
// NaN 0x7fc1.
func TestBFloat16Conversion(t *testing.T) {
	for _, c := range []struct {
		f32  uint32
		bf16 uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0xc0000000, 0xc000}, // -2
		{0x00000000, 0x0000}, // +0
		{0x80000000, 0x8000}, // -0
		{0x3f808000, 0x3f80}, // 1 + 2^-8: a tie, the even neighbour 1 wins
		{0x3f818000, 0x3f82}, // a tie above the odd 0x3f81: rounds up to even
		{0x3f808001, 0x3f81}, // just above the tie: up
		{0x3f807fff, 0x3f80}, // just below the tie: down
		{0xbf818000, 0xbf82}, // ties to even for negatives too
		{0x3f7fffff, 0x3f80}, // 1 - 2^-24: a carry into the exponent
		{0x7f7f7fff, 0x7f7f}, // below the tie at the largest finite bfloat16
		{0x7f7f8000, 0x7f80}, // the tie above the odd largest finite: +Inf
		{0x7f7fffff, 0x7f80}, // math.MaxFloat32: +Inf
		{0xff7fffff, 0xff80}, // -math.MaxFloat32: -Inf
		{0x7f800000, 0x7f80}, // +Inf
		{0xff800000, 0xff80}, // -Inf
		{0x00010000, 0x0001}, // the smallest bfloat16 subnormal, exact
		{0x00008000, 0x0000}, // half of it: a tie, to the even 0
		{0x00008001, 0x0001}, // above half of it: up
		{0x00018000, 0x0002}, // a subnormal tie above the odd 0x0001
		{0x80018000, 0x8002},
		{0x00000001, 0x0000}, // the smallest float32 subnormal
		{0x007fffff, 0x0080}, // the largest float32 subnormal rounds to the smallest normal
		{0x7fc00000, 0x7fc1}, // quiet NaN
		{0xffc00000, 0x7fc1}, // negative NaN
		{0x7f800001, 0x7fc1}, // a signalling NaN whose payload rounding would drop: still NaN
		{0x7fffffff, 0x7fc1}, // a NaN whose rounding would carry out
		{0x40490fdb, 0x4049}, // float32(π) = 0x40490fdb: dropped 0x0fdb, below half
		{0x3eaaaaab, 0x3eab}, // float32(1/3): dropped 0xaaab, above half
		{0x47800000, 0x4780}, // 65536
		{0x4b800001, 0x4b80}, // 2^24 + 2: far below half
		{0x4f000000, 0x4f00}, // 2^31
		{0x5f800000, 0x5f80}, // 2^64
	} {
		if got := kernel.F32ToBF16(math.Float32frombits(c.f32)); got != c.bf16 {
			t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x", c.f32, got, c.bf16)
		}
	}
	for _, c := range []struct {
		bf16 uint16
		f32  uint32
	}{
		{0x3f80, 0x3f800000}, {0xc000, 0xc0000000}, {0x7f7f, 0x7f7f0000}, {0x0001, 0x00010000},
		{0x8000, 0x80000000}, {0x7f80, 0x7f800000}, {0xff80, 0xff800000}, {0x7fc1, 0x7fc10000},
	} {
		if got := math.Float32bits(kernel.BF16ToF32(c.bf16)); got != c.f32 {
			t.Errorf("BF16ToF32(%#04x) = %#08x, want %#08x", c.bf16, got, c.f32)
		}
	}
	// Widening then narrowing is the identity on every non-NaN pattern;
	// every NaN pattern stays NaN.
	for h := range 1 << 16 {
		f := kernel.BF16ToF32(uint16(h))
		got := kernel.F32ToBF16(f)
		if f != f {
			if got != 0x7fc1 {
				t.Fatalf("NaN %#04x came back as %#04x", h, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Fatalf("round trip of %#04x gave %#04x", h, got)
		}
	}
}
