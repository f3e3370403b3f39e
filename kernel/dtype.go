package kernel

import "fmt"

// DType is the element type of a tensor. The zero value is invalid.
type DType uint8

// The supported element types. Float16 is a storage type: kernels load it
// into float32, compute, and round back to nearest even on store. Bool
// elements are one byte, 0 or 1.
const (
	Float32 DType = iota + 1
	Float16
	Int32
	Int64
	Bool
	Float64
	Int8
	Uint8

	lastDType = Uint8
)

var dtypeNames = [...]string{Float32: "float32", Float16: "float16", Int32: "int32", Int64: "int64", Bool: "bool",
	Float64: "float64", Int8: "int8", Uint8: "uint8"}
var dtypeSizes = [...]int{Float32: 4, Float16: 2, Int32: 4, Int64: 8, Bool: 1, Float64: 8, Int8: 1, Uint8: 1}

// DTypes lists every supported element type in order.
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

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == Float32 || d == Float16 || d == Float64 }

// IsInt reports whether d is an integer type.
func (d DType) IsInt() bool { return d == Int32 || d == Int64 || d == Int8 || d == Uint8 }

func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", uint8(d))
	}
	return dtypeNames[d]
}

// ParseDType returns the DType named s ("float32", "float16", "int32", "int64",
// "bool", "float64", "int8", "uint8").
func ParseDType(s string) (DType, error) {
	for d := Float32; d <= lastDType; d++ {
		if dtypeNames[d] == s {
			return d, nil
		}
	}
	return 0, fmt.Errorf("kernel: unknown dtype %q", s)
}
