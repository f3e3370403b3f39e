package kernel

import (
	"fmt"
	"math"
)

// DType is the element type of a tensor. The zero value is invalid.
type DType uint8

// The supported element types. Float16 and BFloat16 are storage types:
// kernels load them into float32, compute, and round back to nearest even
// on store. Bool elements are one byte, 0 or 1. The integer types are two's
// complement (Int8 to Int64) or unsigned (Uint8 to Uint64). New types are
// appended: the values of the existing ones never change.
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

	lastDType = BFloat16
)

var dtypeNames = [...]string{Float32: "float32", Float16: "float16", Int32: "int32", Int64: "int64", Bool: "bool",
	Float64: "float64", Int8: "int8", Uint8: "uint8", Int16: "int16", Uint16: "uint16", Uint32: "uint32",
	Uint64: "uint64", BFloat16: "bfloat16"}
var dtypeSizes = [...]int{Float32: 4, Float16: 2, Int32: 4, Int64: 8, Bool: 1, Float64: 8, Int8: 1, Uint8: 1,
	Int16: 2, Uint16: 2, Uint32: 4, Uint64: 8, BFloat16: 2}

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
// float64 or bfloat16.
func (d DType) IsFloat() bool { return d == Float32 || d == Float16 || d == Float64 || d == BFloat16 }

// IsInt reports whether d is an integer type, signed or unsigned (bool is
// not).
func (d DType) IsInt() bool {
	switch d {
	case Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64:
		return true
	}
	return false
}

// IsUnsigned reports whether d is an unsigned integer type: uint8, uint16,
// uint32 or uint64.
func (d DType) IsUnsigned() bool { return d == Uint8 || d == Uint16 || d == Uint32 || d == Uint64 }

func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", uint8(d))
	}
	return dtypeNames[d]
}

// ParseDType returns the DType named s ("float32", "float16", "int32", "int64",
// "bool", "float64", "int8", "uint8", "int16", "uint16", "uint32", "uint64",
// "bfloat16").
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
	}
	return math.MinInt64, math.MaxInt64
}
