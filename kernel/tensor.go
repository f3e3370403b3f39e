package kernel

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/pipert/pipert/device"
)

// Tensor is a typed n-dimensional array. It lives on the host (Host holds its
// contents), on the device (Buf), or both. A virtual tensor has a Shape and a
// DType but no contents anywhere: benchmarks at real model sizes run on
// virtual tensors, and kernels skip the computation for them.
//
// Contents are little-endian, row-major, dense: Host and Buf.Data hold
// exactly Bytes() bytes. Float16 elements are IEEE 754 binary16 bit patterns,
// BFloat16 elements the upper halves of binary32 bit patterns. The float 8
// types are a byte each, their codes; the sub-byte types (Int4, Uint4,
// Int2, Uint2, Float4E2M1) a byte each too, unpacked: Int4 and Int2
// sign-extended, Uint4 and Uint2 zero-extended, Float4E2M1 its code in the
// low 4 bits.
type Tensor struct {
	Shape Shape
	DType DType
	// Host holds the contents on the host: graph inputs and outputs with real
	// data, and the host copy of a value-dependency input during InferShape.
	Host []byte
	// Buf is the device memory holding the tensor during a run.
	Buf device.Buffer
}

// New returns a zero-filled host tensor of the given dtype and shape. The
// shape must be known (no Dynamic or negative dimension) and its size fit
// in memory: like make, New panics otherwise. subgraph.Validate refuses
// inputs and constants whose sizes overflow.
func New(dt DType, shape ...int64) *Tensor {
	t := &Tensor{Shape: Shape(shape).Clone(), DType: dt}
	n := uint64(dt.Size())
	for _, d := range shape {
		if d < 0 {
			panic(fmt.Sprintf("kernel: New(%v, %v): negative or Dynamic dimension %d", dt, t.Shape, d))
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt {
			panic(fmt.Sprintf("kernel: New(%v, %v): the size overflows", dt, t.Shape))
		}
		n = lo
	}
	t.Host = make([]byte, n)
	return t
}

// Virtual returns a tensor with a shape and dtype and no contents.
func Virtual(dt DType, shape ...int64) *Tensor {
	return &Tensor{Shape: Shape(shape).Clone(), DType: dt}
}

// FromFloat32 returns a float32 host tensor holding v with the given shape
// (New's). v should have one value per element: of a longer v the tensor
// holds the first ones, and a shorter v leaves the last elements 0.
func FromFloat32(v []float32, shape ...int64) *Tensor {
	t := New(Float32, shape...)
	copy(Float32s(t.Host), v)
	return t
}

// FromInt64 returns an int64 host tensor holding v with the given shape
// (New's). v should have one value per element: of a longer v the tensor
// holds the first ones, and a shorter v leaves the last elements 0.
func FromInt64(v []int64, shape ...int64) *Tensor {
	t := New(Int64, shape...)
	copy(Int64s(t.Host), v)
	return t
}

// FromInt32 returns an int32 host tensor holding v with the given shape
// (New's). v should have one value per element: of a longer v the tensor
// holds the first ones, and a shorter v leaves the last elements 0.
func FromInt32(v []int32, shape ...int64) *Tensor {
	t := New(Int32, shape...)
	copy(Int32s(t.Host), v)
	return t
}

// NumElements is the number of elements; 0 for a nil Tensor.
func (t *Tensor) NumElements() int64 {
	if t == nil {
		return 0
	}
	return t.Shape.NumElements()
}

// Bytes is the size of the contents in bytes; 0 for a nil Tensor, -1 for
// a shape with a Dynamic dimension, math.MaxInt64 (saturated, as
// NumElements) for a size beyond int64.
func (t *Tensor) Bytes() int64 {
	if t == nil {
		return 0
	}
	n, _ := t.Shape.product(int64(t.DType.Size()))
	return n
}

// IsVirtual reports whether t has no contents on the host or the device
// (a nil Tensor has none).
func (t *Tensor) IsVirtual() bool { return t == nil || t.Host == nil && t.Buf.Data == nil }

// Data returns the contents the kernels compute on: the device copy when
// there is one, else the host copy; nil for a virtual or nil tensor.
func (t *Tensor) Data() []byte {
	if t == nil {
		return nil
	}
	if t.Buf.Data != nil {
		return t.Buf.Data[:t.Bytes()]
	}
	return t.Host
}

// contentBytes is the length of the contents Data returns, without
// slicing them: Buf.Data's beyond Bytes counts as Bytes. It is -1 for a
// virtual tensor.
func (t *Tensor) contentBytes() int64 {
	switch {
	case t.Buf.Data != nil:
		return min(int64(len(t.Buf.Data)), t.Bytes())
	case t.Host != nil:
		return int64(len(t.Host))
	}
	return -1
}

// Meta returns a copy of t without contents or buffer; nil for a nil t.
func (t *Tensor) Meta() *Tensor {
	if t == nil {
		return nil
	}
	return &Tensor{Shape: t.Shape.Clone(), DType: t.DType}
}

func (t *Tensor) String() string {
	if t == nil {
		return "<nil>"
	}
	kind := "virtual"
	if !t.IsVirtual() {
		kind = "real"
	}
	return fmt.Sprintf("%s%v(%s)", t.DType, t.Shape, kind)
}

// Float32s views b as float32 elements (len(b)/4 of them). b must be
// suitably aligned, as every slice from make or a device backing is.
func Float32s(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// Int32s views b as int32 elements.
func Int32s(b []byte) []int32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// Int64s views b as int64 elements.
func Int64s(b []byte) []int64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// Float64s views b as float64 elements.
func Float64s(b []byte) []float64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// Int8s views b as int8 elements.
func Int8s(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// FromFloat64 returns a float64 host tensor holding v with the given shape
// (New's). v should have one value per element: of a longer v the tensor
// holds the first ones, and a shorter v leaves the last elements 0.
func FromFloat64(v []float64, shape ...int64) *Tensor {
	t := New(Float64, shape...)
	copy(Float64s(t.Host), v)
	return t
}

// Uint16s views b as uint16 elements: uint16 values, or float16 and
// bfloat16 bit patterns.
func Uint16s(b []byte) []uint16 {
	if len(b) < 2 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// Int16s views b as int16 elements.
func Int16s(b []byte) []int16 {
	if len(b) < 2 {
		return nil
	}
	return unsafe.Slice((*int16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// Uint32s views b as uint32 elements.
func Uint32s(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// Uint64s views b as uint64 elements.
func Uint64s(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// IntValues reads an integer tensor's contents (any integer dtype) as int64s,
// the form shape and index operands take. It fails for other dtypes, for
// virtual tensors, for contents whose length is not the shape's (Bytes),
// and for a uint64 value above math.MaxInt64, which has no int64 form.
func (t *Tensor) IntValues() ([]int64, error) {
	if t == nil {
		return nil, fmt.Errorf("values of a nil tensor are not available")
	}
	if have := t.contentBytes(); have >= 0 && have != t.Bytes() {
		return nil, fmt.Errorf("tensor %v: %d bytes of data for %d elements", t, have, t.NumElements())
	}
	d := t.Data()
	if d == nil && t.NumElements() != 0 {
		return nil, fmt.Errorf("values of virtual tensor %v are not available", t)
	}
	switch t.DType {
	case Int64:
		return append([]int64(nil), Int64s(d)...), nil
	case Int32:
		v := Int32s(d)
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out, nil
	case Int8, Int4, Int2: // the sub-byte types are held sign-extended, a byte each
		v := Int8s(d)
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out, nil
	case Uint8, Uint4, Uint2:
		out := make([]int64, len(d))
		for i, x := range d {
			out[i] = int64(x)
		}
		return out, nil
	case Int16:
		return widen(Int16s(d)), nil
	case Uint16:
		return widen(Uint16s(d)), nil
	case Uint32:
		return widen(Uint32s(d)), nil
	case Uint64:
		v := Uint64s(d)
		out := make([]int64, len(v))
		for i, x := range v {
			if x > math.MaxInt64 {
				return nil, fmt.Errorf("tensor %v: element %d is %d, above the int64 range", t, i, x)
			}
			out[i] = int64(x)
		}
		return out, nil
	}
	return nil, fmt.Errorf("tensor %v: want an integer tensor", t)
}

// widen converts integers every one of which int64 holds.
func widen[T int16 | uint16 | uint32](v []T) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// Float16 converts between float32 and IEEE 754 binary16 bit patterns.

// F32ToF16 rounds f to the nearest binary16 value (ties to even).
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15: // overflow
		return sign | 0x7c00
	case exp-127 >= -14: // normal
		e := uint32(exp-127+15) << 10
		m := mant >> 13
		rest := mant & 0x1fff
		h := e | m
		if rest > 0x1000 || (rest == 0x1000 && m&1 == 1) {
			h++ // may carry into the exponent, which is correct rounding
		}
		return sign | uint16(h)
	case exp-127 >= -25: // subnormal half
		mant |= 0x800000
		shift := uint32(-14 - (exp - 127) + 13)
		m := mant >> shift
		rest := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && m&1 == 1) {
			m++
		}
		return sign | uint16(m)
	}
	return sign
}

// F16ToF32 widens a binary16 bit pattern to float32 exactly.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: normalise.
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// BFloat16 converts between float32 and bfloat16 bit patterns, the upper
// halves of float32's.

// F32ToBF16 rounds f to the nearest bfloat16 value, ties to even, as
// onnxruntime does: values beyond the largest finite bfloat16 round to
// ±Inf, subnormals round like every other value, and a NaN becomes the
// quiet NaN 0x7fc1 whatever its sign and payload.
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return 0x7fc1
	}
	// Adding 0x7fff, plus 1 when the kept half is odd, carries into the
	// kept half exactly when the dropped half is above one half, or is one
	// half and the kept half odd. A carry out of the mantissa raises the
	// exponent, which is correct rounding (up to Inf at the top).
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BF16ToF32 widens a bfloat16 bit pattern to float32 exactly (a NaN keeps
// its sign and payload).
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
