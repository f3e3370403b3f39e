package kernel_test

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// f8Format is a float 8 or float 4 format as ONNX's tables define it,
// written out independently of the kernel's code.
type f8Format struct {
	dt          kernel.DType
	bits, mbits int
	bias        int
	max         float64
	// isNaN and isInf classify a code.
	isNaN, isInf func(c int) bool
}

var f8Formats = []f8Format{
	{kernel.Float8E4M3FN, 8, 3, 7, 448, func(c int) bool { return c&0x7f == 0x7f }, never},
	{kernel.Float8E4M3FNUZ, 8, 3, 8, 240, func(c int) bool { return c == 0x80 }, never},
	{kernel.Float8E5M2, 8, 2, 15, 57344, func(c int) bool { return c&0x7c == 0x7c && c&3 != 0 }, func(c int) bool { return c&0x7f == 0x7c }},
	{kernel.Float8E5M2FNUZ, 8, 2, 16, 57344, func(c int) bool { return c == 0x80 }, never},
	{kernel.Float4E2M1, 4, 1, 1, 6, never, never},
}

func never(int) bool { return false }

// value is code c's value by the formula of ONNX's float 8 and float 4
// pages: (−1)^S·2^(E−bias)·(1 + M/2^m), subnormal (−1)^S·2^(1−bias)·M/2^m.
func (f f8Format) value(c int) float64 {
	switch {
	case f.isNaN(c):
		return math.NaN()
	case f.isInf(c):
		return math.Copysign(math.Inf(1), float64(-(c >> (f.bits - 1))))
	}
	s := 1.0
	if c>>(f.bits-1) == 1 {
		s = -1
	}
	e := c >> f.mbits & (1<<(f.bits-1-f.mbits) - 1)
	m := float64(c&(1<<f.mbits-1)) / math.Pow(2, float64(f.mbits))
	if e == 0 {
		return s * math.Pow(2, float64(1-f.bias)) * m
	}
	return s * math.Pow(2, float64(e-f.bias)) * (1 + m)
}

// TestF8ToF32 checks every code of every float 8 and float 4 format
// against the formula, and the spec's landmarks.
func TestF8ToF32(t *testing.T) {
	for _, f := range f8Formats {
		for c := range 1 << f.bits {
			got, want := float64(kernel.F8ToF32(f.dt, uint8(c))), f.value(c)
			if got != want && !(got != got && want != want) || math.Signbit(got) != math.Signbit(want) && want == want {
				t.Errorf("%v code %#02x: %v, want %v", f.dt, c, got, want)
			}
		}
	}
	for _, c := range []struct {
		dt   kernel.DType
		code uint8
		want float64
	}{
		{kernel.Float8E4M3FN, 0x7e, 448}, {kernel.Float8E4M3FN, 0x01, 0x1p-9}, {kernel.Float8E4M3FN, 0x80, math.Copysign(0, -1)},
		{kernel.Float8E4M3FNUZ, 0x7f, 240}, {kernel.Float8E4M3FNUZ, 0x01, 0x1p-10}, {kernel.Float8E4M3FNUZ, 0x00, 0},
		{kernel.Float8E5M2, 0x7b, 57344}, {kernel.Float8E5M2, 0x01, 0x1p-16}, {kernel.Float8E5M2, 0xfc, math.Inf(-1)},
		{kernel.Float8E5M2FNUZ, 0x7f, 57344}, {kernel.Float8E5M2FNUZ, 0x01, 0x1p-17},
		{kernel.Float4E2M1, 0x1, 0.5}, {kernel.Float4E2M1, 0x3, 1.5}, {kernel.Float4E2M1, 0x5, 3}, {kernel.Float4E2M1, 0x7, 6},
		{kernel.Float4E2M1, 0xf, -6}, {kernel.Float4E2M1, 0xf7, 6}, // the high bits do not count
		{kernel.Float8E8M0, 0, 0x1p-127}, {kernel.Float8E8M0, 127, 1}, {kernel.Float8E8M0, 0xfe, 0x1p127},
	} {
		if got := float64(kernel.F8ToF32(c.dt, c.code)); got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("%v code %#02x: %v, want %v", c.dt, c.code, got, c.want)
		}
	}
	if v := kernel.F8ToF32(kernel.Float8E8M0, 0xff); v == v {
		t.Errorf("float8e8m0 0xff: %v, want NaN", v)
	}
	for c := range 255 {
		if got := kernel.F8ToF32(kernel.Float8E8M0, uint8(c)); float64(got) != math.Pow(2, float64(c-127)) {
			t.Errorf("float8e8m0 code %d: %v", c, got)
		}
	}
}

// nearest is the reference rounding: the finite code nearest v, a tie to
// the code with an even mantissa, searched over the codes of v's sign; ok is false
// when v lies beyond the largest finite value by half a step or more of
// the format's top binade (where rounding overflows).
func (f f8Format) nearest(v float64) (code int, ok bool) {
	best, bestD := -1, math.Inf(1)
	for c := range 1 << f.bits {
		x := f.value(c)
		neg := c>>(f.bits-1) == 1
		if x != x || math.IsInf(x, 0) || neg != math.Signbit(v) && !(x == 0 && f.isNaN(1<<(f.bits-1))) {
			continue // only codes of v's sign; the FNUZ types' one zero serves both
		}
		d := math.Abs(x - v)
		if d < bestD || d == bestD && c&1 == 0 && best&1 == 1 {
			best, bestD = c, d
		}
	}
	step := math.Pow(2, math.Floor(math.Log2(f.max))-float64(f.mbits))
	return best, math.Abs(v) < f.max+step/2 || math.Abs(v) == f.max+step/2 && f.maxEven()
}

// maxEven reports whether the largest finite value's mantissa is even
// (a tie above it then rounds down to it).
func (f f8Format) maxEven() bool {
	c, _ := f.codeOf(f.max)
	return c&1 == 0
}

func (f f8Format) codeOf(v float64) (int, bool) {
	for c := range 1 << (f.bits - 1) {
		if f.value(c) == v {
			return c, true
		}
	}
	return 0, false
}

// TestF64ToF8 rounds every code's value, the midpoints between
// neighbours, values just off them, and values beyond the range, and
// compares with the reference rounding and the rules of ONNX's Cast
// tables for signs, zeros, infinities, NaN and saturation.
func TestF64ToF8(t *testing.T) {
	for _, f := range f8Formats {
		var vals []float64
		var pos []float64
		for c := range 1 << (f.bits - 1) {
			if x := f.value(c); x == x && !math.IsInf(x, 0) {
				pos = append(pos, x)
			}
		}
		for i, x := range pos {
			vals = append(vals, x, math.Nextafter(x, 0), math.Nextafter(x, 1e9))
			next := f.max * 2
			if i+1 < len(pos) {
				next = pos[i+1]
			}
			mid := (x + next) / 2
			vals = append(vals, mid, math.Nextafter(mid, 0), math.Nextafter(mid, 1e9), x*1.25+next*0.75)
		}
		vals = append(vals, f.max*1e6, 1e-30, math.SmallestNonzeroFloat64)
		for _, v := range vals {
			for _, sgn := range []float64{1, -1} {
				v := sgn * v
				for _, sat := range []bool{true, false} {
					got := int(kernel.F64ToF8(f.dt, v, sat))
					code, inRange := f.nearest(v)
					want := code
					if !inRange {
						want = f.overflow(v, sat)
					}
					if f.value(want) == 0 && (f.dt == kernel.Float8E4M3FNUZ || f.dt == kernel.Float8E5M2FNUZ) {
						want = 0 // no −0
					}
					if got != want {
						t.Errorf("%v(%g, saturate %v) = %#02x, want %#02x", f.dt, v, sat, got, want)
					}
				}
			}
		}
	}
}

// overflow is the code ONNX's Cast tables give beyond the range.
func (f f8Format) overflow(v float64, saturate bool) int {
	neg := 0
	if v < 0 {
		neg = 1 << (f.bits - 1)
	}
	maxCode, _ := f.codeOf(f.max)
	switch {
	case saturate || f.dt == kernel.Float4E2M1:
		return neg | maxCode
	case f.dt == kernel.Float8E5M2:
		return neg | 0x7c
	case f.dt == kernel.Float8E4M3FN:
		return neg | 0x7f
	}
	return 0x80
}

// TestF64ToF8Special checks the rows of ONNX's Cast tables: zeros,
// infinities and NaN, saturated or not, and spec examples.
func TestF64ToF8Special(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	for _, c := range []struct {
		dt      kernel.DType
		v       float64
		sat     bool
		want    uint8
		wantNaN bool
	}{
		{kernel.Float8E4M3FN, negZero, true, 0x80, false},
		{kernel.Float8E4M3FNUZ, negZero, true, 0x00, false},
		{kernel.Float8E5M2, negZero, true, 0x80, false},
		{kernel.Float8E5M2FNUZ, negZero, false, 0x00, false},
		{kernel.Float8E4M3FN, inf, true, 0x7e, false},
		{kernel.Float8E4M3FN, -inf, true, 0xfe, false},
		{kernel.Float8E4M3FN, inf, false, 0x7f, true},
		{kernel.Float8E4M3FN, -inf, false, 0xff, true},
		{kernel.Float8E4M3FNUZ, inf, true, 0x7f, false},
		{kernel.Float8E4M3FNUZ, -inf, false, 0x80, true},
		{kernel.Float8E5M2, inf, true, 0x7b, false},
		{kernel.Float8E5M2, inf, false, 0x7c, false},
		{kernel.Float8E5M2, -inf, false, 0xfc, false},
		{kernel.Float8E5M2FNUZ, -inf, true, 0xff, false},
		{kernel.Float8E5M2FNUZ, inf, false, 0x80, true},
		{kernel.Float8E4M3FN, 464, false, 0x7e, false}, // a tie below the NaN code rounds to 448's even mantissa
		{kernel.Float8E5M2, 61440, false, 0x7c, false}, // a tie above 57344 rounds to 2^16: Inf
		{kernel.Float8E5M2, 61439, false, 0x7b, false},
		{kernel.Float8E4M3FN, 1e6, true, 0x7e, false},
		{kernel.Float8E4M3FN, 1e-7, true, 0x00, false},
		{kernel.Float8E4M3FNUZ, -1e-7, true, 0x00, false},
		{kernel.Float8E4M3FN, 0.47892547, true, 0x2f, false}, // 0.46875 = 1.875·2^-2
		{kernel.Float4E2M1, 0.25, true, 0x0, false},          // a tie to 0's even mantissa
		{kernel.Float4E2M1, -3.5, true, 0xe, false},          // a tie to −4
		{kernel.Float4E2M1, 9, false, 0x7, false},
		{kernel.Float4E2M1, -inf, false, 0xf, false},
		{kernel.Float4E2M1, nan, true, 0x8, false},
	} {
		got := kernel.F64ToF8(c.dt, c.v, c.sat)
		if got != c.want {
			t.Errorf("%v(%g, saturate %v) = %#02x, want %#02x", c.dt, c.v, c.sat, got, c.want)
		}
		if isNaN := kernel.F8ToF32(c.dt, got); (isNaN != isNaN) != c.wantNaN {
			t.Errorf("%v(%g, saturate %v) reads back as %v", c.dt, c.v, c.sat, isNaN)
		}
	}
	for _, f := range f8Formats {
		if f.dt == kernel.Float4E2M1 {
			continue
		}
		for _, s := range []float64{1, -1} {
			got := kernel.F64ToF8(f.dt, math.Copysign(nan, s), true)
			if v := kernel.F8ToF32(f.dt, got); v == v {
				t.Errorf("%v(NaN) = %#02x, not a NaN", f.dt, got)
			} else if f.dt == kernel.Float8E4M3FN || f.dt == kernel.Float8E5M2 {
				if math.Signbit(float64(v)) != (s < 0) {
					t.Errorf("%v(%v·NaN) = %#02x lost the sign", f.dt, s, got)
				}
			}
		}
	}
}

// TestF8RoundTrip: every finite code reads back to itself, saturated or
// not.
func TestF8RoundTrip(t *testing.T) {
	for _, f := range f8Formats {
		for c := range 1 << f.bits {
			v := kernel.F8ToF32(f.dt, uint8(c))
			if v != v || math.IsInf(float64(v), 0) {
				continue
			}
			for _, sat := range []bool{true, false} {
				if got := kernel.F32ToF8(f.dt, v, sat); int(got) != c {
					t.Errorf("%v: code %#02x (%v) back to %#02x", f.dt, c, v, got)
				}
			}
		}
	}
}

// e8m0Ref is ONNX's reference rounding to float8e8m0, written from its
// description over the float32 value: the exponent of |f|, raised by one
// when the mode says (up: f is not a power of two; nearest: the mantissa
// is at least 1.5, or above 1.5 for a subnormal), unless that passes 2^127
// and saturate is set.
func e8m0Ref(f float32, saturate bool, mode kernel.E8M0Rounding) uint8 {
	a := math.Abs(float64(f))
	if a != a || math.IsInf(a, 0) {
		return 0xff
	}
	e := -127 // zero and the subnormals have exponent field 0
	if a >= 0x1p-126 {
		e = int(math.Floor(math.Log2(a)))
	}
	scaled := a / math.Pow(2, float64(max(e, -126))) // the mantissa, 1.x (0.x for subnormals)
	var up bool
	switch mode {
	case kernel.RoundUp:
		up = scaled != math.Floor(scaled)
	case kernel.RoundNearest:
		frac := scaled - math.Floor(scaled)
		up = frac > 0.5 || frac == 0.5 && e > -127
	}
	code := e + 127
	if up && !(saturate && code == 254) {
		code++
	}
	return uint8(code)
}

// TestF32ToE8M0 checks every float32 exponent with mantissas around the
// rounding points, in every mode, against the reference, and the rows of
// Cast's table.
func TestF32ToE8M0(t *testing.T) {
	var vals []float32
	for e := range 256 {
		for _, m := range []uint32{0, 1, 0x200000, 0x3fffff, 0x400000, 0x400001, 0x600000, 0x7fffff} {
			vals = append(vals, math.Float32frombits(uint32(e)<<23|m))
		}
	}
	for _, v := range vals {
		for _, mode := range []kernel.E8M0Rounding{kernel.RoundUp, kernel.RoundDown, kernel.RoundNearest} {
			for _, sat := range []bool{true, false} {
				if got, want := kernel.F32ToE8M0(v, sat, mode), e8m0Ref(v, sat, mode); got != want {
					t.Errorf("F32ToE8M0(%g, %v, %v) = %d, want %d", v, sat, mode, got, want)
				}
			}
		}
	}
	for _, c := range []struct {
		v    float32
		sat  bool
		mode kernel.E8M0Rounding
		want uint8
	}{
		{0, true, kernel.RoundUp, 0}, {1, true, kernel.RoundUp, 127}, {3, true, kernel.RoundUp, 129},
		{3, true, kernel.RoundDown, 128}, {3, true, kernel.RoundNearest, 129}, {2.9, true, kernel.RoundNearest, 128},
		{float32(math.Inf(1)), true, kernel.RoundUp, 0xff}, {math.MaxFloat32, true, kernel.RoundUp, 0xfe},
		{math.MaxFloat32, false, kernel.RoundUp, 0xff}, {float32(math.NaN()), true, kernel.RoundUp, 0xff},
	} {
		if got := kernel.F32ToE8M0(c.v, c.sat, c.mode); got != c.want {
			t.Errorf("F32ToE8M0(%g, %v, %v) = %d, want %d", c.v, c.sat, c.mode, got, c.want)
		}
	}
}
