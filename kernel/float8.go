package kernel

import "math"

// The float 8 and float 4 types convert to float32 exactly (F8ToF32) and
// from float32 or float64 by rounding to nearest even (F32ToF8, F64ToF8;
// F32ToE8M0 for float8e8m0, which rounds as ONNX's Cast says).

// minifloat describes a float 8 or float 4 format with a sign, exponent
// and mantissa.
type minifloat struct {
	width, mbits, bias int
	// maxCode is the code of the largest finite value, max its value.
	maxCode uint8
	max     float64
	// inf: the top exponent holds infinities and NaNs, as in IEEE 754
	// (E5M2). fnuz: 0x80, the negative zero's code, is the one NaN.
	// noNaN: there is no NaN (E2M1).
	inf, fnuz, noNaN bool
}

var minifloats = map[DType]minifloat{
	Float8E4M3FN:   {width: 8, mbits: 3, bias: 7, maxCode: 0x7e, max: 448},
	Float8E4M3FNUZ: {width: 8, mbits: 3, bias: 8, maxCode: 0x7f, max: 240, fnuz: true},
	Float8E5M2:     {width: 8, mbits: 2, bias: 15, maxCode: 0x7b, max: 57344, inf: true},
	Float8E5M2FNUZ: {width: 8, mbits: 2, bias: 16, maxCode: 0x7f, max: 57344, fnuz: true},
	Float4E2M1:     {width: 4, mbits: 1, bias: 1, maxCode: 0x7, max: 6, noNaN: true},
}

// F8ToF32 widens code c of dtype dt, a float 8 type or float4e2m1, to
// float32 exactly. Of a float4e2m1 code only the low 4 bits count. A NaN
// keeps its sign; a float8e8m0 code c is 2^(c−127), 0xFF NaN. Other
// dtypes give NaN.
func F8ToF32(dt DType, c uint8) float32 {
	if dt.Valid() {
		if t := f8tables[dt]; t != nil {
			return t[c]
		}
	}
	return f8ToF32(dt, c)
}

// f8tables holds, for each float 8 type and float4e2m1, the float32 of
// every code: element loops (ops' loadF) widen an element with one load.
var f8tables = func() (ts [lastDType + 1]*[256]float32) {
	for dt := Float32; dt <= lastDType; dt++ {
		if !dt.IsFloat8() && dt != Float4E2M1 {
			continue
		}
		t := new([256]float32)
		for c := range 256 {
			t[c] = f8ToF32(dt, uint8(c))
		}
		ts[dt] = t
	}
	return ts
}()

// f8ToF32 is F8ToF32 worked out from the format.
func f8ToF32(dt DType, c uint8) float32 {
	if dt == Float8E8M0 {
		if c == 0xff {
			return float32(math.NaN())
		}
		return float32(math.Ldexp(1, int(c)-127))
	}
	f, ok := minifloats[dt]
	if !ok {
		return float32(math.NaN())
	}
	c &= uint8(1<<f.width - 1)
	signBit := uint8(1) << (f.width - 1)
	neg := c&signBit != 0
	body := int(c &^ signBit)
	exp, mant := body>>f.mbits, body&(1<<f.mbits-1)
	topExp := 1<<(f.width-1-f.mbits) - 1
	var v float64
	switch {
	case f.fnuz && c == 0x80, dt == Float8E4M3FN && body == 0x7f, f.inf && exp == topExp && mant != 0:
		v = math.NaN()
	case f.inf && exp == topExp:
		v = math.Inf(1)
	case exp == 0:
		v = math.Ldexp(float64(mant), 1-f.bias-f.mbits)
	default:
		v = math.Ldexp(float64(1<<f.mbits+mant), exp-f.bias-f.mbits)
	}
	if neg {
		v = -v
	}
	return float32(v)
}

// F32ToF8 is F64ToF8 of f, whose float64 form is exact.
func F32ToF8(dt DType, f float32, saturate bool) uint8 { return F64ToF8(dt, float64(f), saturate) }

// F64ToF8 rounds v to the nearest value of dtype dt, a float 8 type or
// float4e2m1, ties to even, and returns its code. A value whose rounding
// lies beyond the largest finite value, and an infinity, give that value
// with v's sign when saturate is set (as ONNX's Cast and QuantizeLinear by
// default); else ±Inf for float8e5m2 and NaN for the others (−NaN for a
// negative value of float8e4m3fn). A NaN stays NaN with its sign (the
// FNUZ types have one NaN, 0x80). The FNUZ types have no −0: a negative
// value that rounds to zero is 0. float4e2m1 has neither infinity nor NaN:
// it saturates whatever saturate says, and a NaN becomes −0, as ONNX's
// reference implementation and its node tests give (ONNX's float 4 page
// says 6; onnxruntime 1.30 has no conversion to float4e2m1). float8e8m0
// rounds as F32ToE8M0 with ONNX's default, RoundUp, through float32.
// Other dtypes give 0.
func F64ToF8(dt DType, v float64, saturate bool) uint8 {
	if dt == Float8E8M0 {
		return F32ToE8M0(float32(v), saturate, RoundUp)
	}
	f, ok := minifloats[dt]
	if !ok {
		return 0
	}
	var sign uint8
	if math.Signbit(v) {
		sign = 1 << (f.width - 1)
	}
	a := math.Abs(v)
	switch {
	case a != a:
		return f.nan(sign)
	case math.IsInf(a, 0):
		return f.overflow(sign, saturate)
	case a == 0:
		return f.zero(sign)
	}
	// a = r·2^q with r rounded to an integer of at most mbits+1 bits; below
	// the smallest normal exponent the spacing is that of the subnormals.
	_, e := math.Frexp(a) // a = m·2^e, m in [0.5, 1)
	e = max(e-1, 1-f.bias)
	q := e - f.mbits
	r := math.RoundToEven(math.Ldexp(a, -q))
	one := float64(int(1) << f.mbits) // the implicit bit
	switch {
	case math.Ldexp(r, q) > f.max:
		return f.overflow(sign, saturate)
	case r == 0:
		return f.zero(sign)
	case r >= 2*one: // rounded up into the next binade
		r /= 2
		e++
	case r < one: // subnormal: exponent field 0
		return sign | uint8(r)
	}
	return sign | uint8(e+f.bias)<<f.mbits | uint8(r-one)
}

// nan is the NaN code with sign bit sign (the FNUZ types: 0x80; E2M1,
// without NaN: −0).
func (f minifloat) nan(sign uint8) uint8 {
	switch {
	case f.fnuz:
		return 0x80
	case f.noNaN:
		return 1 << (f.width - 1)
	case f.inf:
		return sign | 0x7e // a quiet NaN: the top mantissa bit set
	}
	return sign | 0x7f
}

// overflow is the code of a value beyond the largest finite one.
func (f minifloat) overflow(sign uint8, saturate bool) uint8 {
	switch {
	case saturate || f.noNaN:
		return sign | f.maxCode
	case f.inf:
		return sign | 0x7c
	}
	return f.nan(sign)
}

// zero is the code of zero with sign bit sign (the FNUZ types have no −0).
func (f minifloat) zero(sign uint8) uint8 {
	if f.fnuz {
		return 0
	}
	return sign
}

// E8M0Rounding is how F32ToE8M0 rounds a value between two powers of two:
// ONNX Cast's round_mode.
type E8M0Rounding uint8

// The roundings of F32ToE8M0.
const (
	// RoundUp takes the power of two above unless the value is one
	// (ONNX's "up", Cast's default).
	RoundUp E8M0Rounding = iota + 1
	// RoundDown takes the power of two below (the exponent of the value).
	RoundDown
	// RoundNearest takes the nearer in ONNX's sense: the power above when
	// the value's mantissa is 1.5 or more (for a float32 subnormal, above
	// 1.5).
	RoundNearest
)

// F32ToE8M0 returns the float8e8m0 code of f, the power of two from f's
// float32 exponent rounded by mode, as ONNX's reference implementation
// does: the sign is ignored (ONNX leaves negative values undefined), 0
// and the float32 subnormals that do not round up give 2^−127 (code 0),
// NaN and ±Inf give NaN (0xFF). A value that would round up past 2^127
// gives 2^127 when saturate is set, else NaN.
func F32ToE8M0(f float32, saturate bool, mode E8M0Rounding) uint8 {
	b := math.Float32bits(f)
	exp, frac := b>>23&0xff, b&0x7fffff
	if exp == 0xff {
		return 0xff
	}
	var up bool
	switch mode {
	case RoundUp:
		up = frac != 0
	case RoundNearest:
		// The first dropped bit set, and either any other dropped bit set
		// or an exponent above 0: a tie rounds up but at the subnormals.
		up = frac&0x400000 != 0 && (frac&0x3fffff != 0 || exp > 0)
	}
	if up && !(saturate && exp == 0xfe) {
		exp++
	}
	return uint8(exp)
}
