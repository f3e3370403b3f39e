package kernel

import (
	"fmt"
	"math"
)

// DType is the element type of a tensor. The zero value is invalid.
type DType uint8

// The supported element types. Float16, BFloat16 and the float 8 and
// float 4 types are storage types: kernels load them into float32,
// compute, and round back to nearest even on store (kernel/ops computes
// with the float 8 and float 4 types only where ONNX lists them). Bool
// elements are one byte, 0 or 1. The integer types are two's complement
// (Int8 to Int64, Int4, Int2) or unsigned (Uint8 to Uint64, Uint4, Uint2).
// New types are appended: the values of the existing ones never change.
const (
	Float32 DType = iota + 1
	Float16
	Int32
	Int64
	Bool
	Float64
	Int8
	Uint8
	// Int16 is a 16-bit signed integer.
	Int16
	// Uint16 is a 16-bit unsigned integer.
	Uint16
	// Uint32 is a 32-bit unsigned integer.
	Uint32
	// Uint64 is a 64-bit unsigned integer. Its values above math.MaxInt64
	// have no int64 form: IntValues refuses them.
	Uint64
	// BFloat16 is the bfloat16 format: the upper 16 bits of an IEEE 754
	// binary32 (sign, 8 exponent bits, 7 mantissa bits). See BF16ToF32 and
	// F32ToBF16.
	BFloat16
	// Float8E4M3FN is ONNX's FLOAT8E4M3FN: sign, 4 exponent bits (bias 7),
	// 3 mantissa bits; no infinities, NaN is S.1111.111, the largest
	// finite value 448. The float 8 and float 4 types are storage types
	// like Float16: see F8ToF32, F64ToF8 and F32ToE8M0.
	Float8E4M3FN
	// Float8E4M3FNUZ is ONNX's FLOAT8E4M3FNUZ: bias 8, no infinities, no
	// negative zero; NaN is 0x80, the largest finite value 240.
	Float8E4M3FNUZ
	// Float8E5M2 is ONNX's FLOAT8E5M2: sign, 5 exponent bits (bias 15), 2
	// mantissa bits, with infinities and NaNs as in IEEE 754; the largest
	// finite value is 57344.
	Float8E5M2
	// Float8E5M2FNUZ is ONNX's FLOAT8E5M2FNUZ: bias 16, no infinities, no
	// negative zero; NaN is 0x80, the largest finite value 57344.
	Float8E5M2FNUZ
	// Float8E8M0 is ONNX's FLOAT8E8M0, the scale of the microscaling
	// formats: an exponent only, code c standing for 2^(c−127), 0xFF NaN.
	// It has no sign, zero or infinity.
	Float8E8M0
	// Int4 is ONNX's INT4, a 4-bit two's complement integer (−8 to 7).
	// pipert holds the sub-byte types one element a byte (Int4 and Int2
	// sign-extended); the ONNX reader unpacks their packed form and the
	// ONNX writers pack it again.
	Int4
	// Uint4 is ONNX's UINT4, a 4-bit unsigned integer (0 to 15), one a
	// byte.
	Uint4
	// Int2 is ONNX's INT2, a 2-bit two's complement integer (−2 to 1), one
	// a byte.
	Int2
	// Uint2 is ONNX's UINT2, a 2-bit unsigned integer (0 to 3), one a byte.
	Uint2
	// Float4E2M1 is ONNX's FLOAT4E2M1: sign, 2 exponent bits (bias 1), 1
	// mantissa bit; no infinities or NaN, the largest value 6. One element
	// a byte, in its low 4 bits.
	Float4E2M1

	lastDType = Float4E2M1
)

var dtypeNames = [...]string{Float32: "float32", Float16: "float16", Int32: "int32", Int64: "int64", Bool: "bool",
	Float64: "float64", Int8: "int8", Uint8: "uint8", Int16: "int16", Uint16: "uint16", Uint32: "uint32",
	Uint64: "uint64", BFloat16: "bfloat16", Float8E4M3FN: "float8e4m3fn", Float8E4M3FNUZ: "float8e4m3fnuz",
	Float8E5M2: "float8e5m2", Float8E5M2FNUZ: "float8e5m2fnuz", Float8E8M0: "float8e8m0", Int4: "int4",
	Uint4: "uint4", Int2: "int2", Uint2: "uint2", Float4E2M1: "float4e2m1"}
var dtypeSizes = [...]int{Float32: 4, Float16: 2, Int32: 4, Int64: 8, Bool: 1, Float64: 8, Int8: 1, Uint8: 1,
	Int16: 2, Uint16: 2, Uint32: 4, Uint64: 8, BFloat16: 2, Float8E4M3FN: 1, Float8E4M3FNUZ: 1, Float8E5M2: 1,
	Float8E5M2FNUZ: 1, Float8E8M0: 1, Int4: 1, Uint4: 1, Int2: 1, Uint2: 1, Float4E2M1: 1}

// DTypes lists every supported element type in order of value. The list
// grows when pipert gains a type: a switch over DType should have a
// default case.
func DTypes() []DType {
	out := make([]DType, 0, lastDType)
	for d := Float32; d <= lastDType; d++ {
		out = append(out, d)
	}
	return out
}

// Valid reports whether d is one of the supported element types.
func (d DType) Valid() bool { return d >= Float32 && d <= lastDType }

// Size is the size of one element in bytes; 0 for an invalid DType.
func (d DType) Size() int {
	if !d.Valid() {
		return 0
	}
	return dtypeSizes[d]
}

// IsFloat reports whether d is a floating-point type: float32, float16,
// float64, bfloat16, the float 8 types or float4e2m1.
func (d DType) IsFloat() bool {
	switch d {
	case Float32, Float16, Float64, BFloat16, Float4E2M1:
		return true
	}
	return d.IsFloat8()
}

// IsFloat8 reports whether d is one of the float 8 types: float8e4m3fn,
// float8e4m3fnuz, float8e5m2, float8e5m2fnuz or float8e8m0.
func (d DType) IsFloat8() bool { return d >= Float8E4M3FN && d <= Float8E8M0 }

// IsSubByte reports whether ONNX packs d's elements below a byte each:
// int4, uint4, int2, uint2 and float4e2m1 (pipert holds them one a byte).
func (d DType) IsSubByte() bool { return d >= Int4 && d <= Float4E2M1 }

// Bits is the width of d's elements in ONNX's packed form: 4 for int4,
// uint4 and float4e2m1, 2 for int2 and uint2, else 8·Size.
func (d DType) Bits() int {
	switch d {
	case Int4, Uint4, Float4E2M1:
		return 4
	case Int2, Uint2:
		return 2
	}
	return 8 * d.Size()
}

// IsInt reports whether d is an integer type, signed or unsigned (bool is
// not).
func (d DType) IsInt() bool {
	switch d {
	case Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Int4, Uint4, Int2, Uint2:
		return true
	}
	return false
}

// IsUnsigned reports whether d is an unsigned integer type: uint8, uint16,
// uint32, uint64, uint4 or uint2.
func (d DType) IsUnsigned() bool {
	switch d {
	case Uint8, Uint16, Uint32, Uint64, Uint4, Uint2:
		return true
	}
	return false
}

func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", uint8(d))
	}
	return dtypeNames[d]
}

// ParseDType returns the DType named s ("float32", "float16", "int32", "int64",
// "bool", "float64", "int8", "uint8", "int16", "uint16", "uint32", "uint64",
// "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
// "float8e5m2fnuz", "float8e8m0", "int4", "uint4", "int2", "uint2",
// "float4e2m1").
func ParseDType(s string) (DType, error) {
	for d := Float32; d <= lastDType; d++ {
		if dtypeNames[d] == s {
			return d, nil
		}
	}
	return 0, fmt.Errorf("kernel: unknown dtype %q", s)
}

// IntRange returns the lowest and highest value of integer or bool dtype
// d as int64s. For Int64 and Uint64 it is int64's range: a uint64 above
// MaxInt64 is held in an int64 by its bits, as the ops load it. A float or
// invalid dtype has no integer range: IntRange gives int64's, and callers
// ask IsFloat or Valid first.
func (d DType) IntRange() (lo, hi int64) {
	switch d {
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Uint8:
		return 0, math.MaxUint8
	case Int16:
		return math.MinInt16, math.MaxInt16
	case Uint16:
		return 0, math.MaxUint16
	case Int32:
		return math.MinInt32, math.MaxInt32
	case Uint32:
		return 0, math.MaxUint32
	case Bool:
		return 0, 1
	case Int4:
		return -8, 7
	case Uint4:
		return 0, 15
	case Int2:
		return -2, 1
	case Uint2:
		return 0, 3
	}
	return math.MinInt64, math.MaxInt64
}
