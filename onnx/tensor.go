package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/pipert/pipert/kernel"
)

// ErrUnsupported is the cause of an import's failure on something valid in
// ONNX that pipert does not take: an op, an opset, an attribute, a dtype,
// external data.
var ErrUnsupported = errors.New("onnx: unsupported")

// DType maps an ONNX data type onto pipert's, or reports false: FLOAT,
// FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8, UINT16,
// UINT32, UINT64, BOOL, the float 8 types, FLOAT4E2M1, INT4, UINT4, INT2 and
// UINT2 have a pipert dtype; STRING and the complex types have none.
func (d DataType) DType() (kernel.DType, bool) {
	switch d {
	case Float:
		return kernel.Float32, true
	case Float16:
		return kernel.Float16, true
	case Double:
		return kernel.Float64, true
	case Int32:
		return kernel.Int32, true
	case Int64:
		return kernel.Int64, true
	case Int8:
		return kernel.Int8, true
	case Uint8:
		return kernel.Uint8, true
	case Bool:
		return kernel.Bool, true
	case Int16:
		return kernel.Int16, true
	case Uint16:
		return kernel.Uint16, true
	case Uint32:
		return kernel.Uint32, true
	case Uint64:
		return kernel.Uint64, true
	case BFloat16:
		return kernel.BFloat16, true
	}
	if dt, ok := lowDTypes[d]; ok {
		return dt, true
	}
	return 0, false
}

// lowDTypes are the ONNX data types of pipert's float 8, float 4 and
// sub-byte integer dtypes.
var lowDTypes = map[DataType]kernel.DType{Float8E4M3FN: kernel.Float8E4M3FN, Float8E4M3FNUZ: kernel.Float8E4M3FNUZ,
	Float8E5M2: kernel.Float8E5M2, Float8E5M2FNUZ: kernel.Float8E5M2FNUZ, Float8E8M0: kernel.Float8E8M0,
	Int4: kernel.Int4, Uint4: kernel.Uint4, Int2: kernel.Int2, Uint2: kernel.Uint2, Float4E2M1: kernel.Float4E2M1}

// Kernel converts t to a pipert tensor with real contents. Raw data is
// aliased when it is aligned for its element type, copied otherwise. An
// INT4, UINT4, FLOAT4E2M1, INT2 or UINT2 tensor (packed: two or four
// elements a byte, the first in the low bits, in raw_data or one packed
// byte an int32_data entry) is unpacked to one element a byte (kernel.Int4
// and kernel.Int2 sign-extended). Without raw data the values come from
// the typed field the ONNX proto keeps them in: float_data (float),
// double_data (double), int64_data (int64), uint64_data (uint32 and
// uint64), and int32_data for the others: int32, int16, int8, uint16,
// uint8 and bool values, and the bit patterns of float16, bfloat16 and the
// float 8 types.
func (t *Tensor) Kernel() (*kernel.Tensor, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: a tensor is missing", ErrImport)
	}
	what := fmt.Sprintf("tensor %q", t.Name)
	if t.External {
		return nil, fmt.Errorf("%w: %s keeps its data in the external file %q: read the model with ReadFile or ImportFile, which know its directory",
			ErrUnsupported, what, t.ExternalData["location"])
	}
	if t.Segment {
		return nil, fmt.Errorf("%w: %s is segmented", ErrUnsupported, what)
	}
	dt, ok := t.DataType.DType()
	if !ok {
		return nil, fmt.Errorf("%w: %s has dtype %v", ErrUnsupported, what, t.DataType)
	}
	n, err := t.count(what)
	if err != nil {
		return nil, err
	}
	if dt.IsSubByte() {
		return t.unpack(what, dt, int64(n))
	}
	size := uint64(dt.Size())
	out := &kernel.Tensor{DType: dt, Shape: kernel.Shape(append([]int64{}, t.Dims...))}
	if t.Raw != nil {
		if uint64(len(t.Raw)) != n*size {
			return nil, fmt.Errorf("%w: %s: %d bytes of raw data for %d %v elements", ErrFormat, what, len(t.Raw), n, dt)
		}
		out.Host = t.Raw
		if len(t.Raw) > 0 && uintptr(unsafe.Pointer(&t.Raw[0]))%uintptr(size) != 0 {
			out.Host = append(make([]byte, 0, len(t.Raw)), t.Raw...) // aligned copy
		}
		return out, nil
	}
	if n > uint64(len(t.Floats)+len(t.Int32s)+len(t.Int64s)+len(t.Doubles)+len(t.Uint64s)) {
		if n == 0 {
			out.Host = []byte{}
			return out, nil
		}
		return nil, fmt.Errorf("%w: %s: %d elements, fewer values stored", ErrFormat, what, n)
	}
	b := make([]byte, n*size)
	out.Host = b
	count := func(have int) error {
		if uint64(have) != n {
			return fmt.Errorf("%w: %s: %d values for %d elements", ErrFormat, what, have, n)
		}
		return nil
	}
	switch dt {
	case kernel.Float32:
		if err := count(len(t.Floats)); err != nil {
			return nil, err
		}
		for i, v := range t.Floats {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
	case kernel.Float64:
		if err := count(len(t.Doubles)); err != nil {
			return nil, err
		}
		for i, v := range t.Doubles {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
	case kernel.Int64:
		if err := count(len(t.Int64s)); err != nil {
			return nil, err
		}
		for i, v := range t.Int64s {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
	case kernel.Int32:
		if err := count(len(t.Int32s)); err != nil {
			return nil, err
		}
		for i, v := range t.Int32s {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		}
	case kernel.Float16, kernel.BFloat16, kernel.Int16, kernel.Uint16:
		if err := count(len(t.Int32s)); err != nil {
			return nil, err
		}
		for i, v := range t.Int32s {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
		}
	case kernel.Uint32:
		if err := count(len(t.Uint64s)); err != nil {
			return nil, err
		}
		for i, v := range t.Uint64s {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		}
	case kernel.Uint64:
		if err := count(len(t.Uint64s)); err != nil {
			return nil, err
		}
		for i, v := range t.Uint64s {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
	case kernel.Int8, kernel.Uint8, kernel.Bool, kernel.Float8E4M3FN, kernel.Float8E4M3FNUZ, kernel.Float8E5M2,
		kernel.Float8E5M2FNUZ, kernel.Float8E8M0:
		if err := count(len(t.Int32s)); err != nil {
			return nil, err
		}
		for i, v := range t.Int32s {
			b[i] = byte(v)
			if dt == kernel.Bool && v != 0 {
				b[i] = 1
			}
		}
	}
	return out, nil
}

// unpack is Kernel for a tensor of n elements of sub-byte dtype dt: one
// byte an element, sign-extended for INT4 and INT2.
func (t *Tensor) unpack(what string, dt kernel.DType, n int64) (*kernel.Tensor, error) {
	packed := t.Raw
	if packed == nil {
		packed = make([]byte, len(t.Int32s))
		for i, v := range t.Int32s {
			packed[i] = byte(v)
		}
	}
	w := int64(dt.Bits())
	per := 8 / w
	if int64(len(packed)) != (n+per-1)/per {
		return nil, fmt.Errorf("%w: %s: %d bytes of %d-bit data for %d elements", ErrFormat, what, len(packed), w, n)
	}
	out := &kernel.Tensor{DType: dt, Shape: kernel.Shape(append([]int64{}, t.Dims...)), Host: make([]byte, n)}
	signed := dt == kernel.Int4 || dt == kernel.Int2
	for i := range int64(len(out.Host)) {
		v := packed[i/per] >> (w * (i % per)) & (1<<w - 1)
		if signed && v >= 1<<(w-1) {
			v |= 0xff << w // sign-extended
		}
		out.Host[i] = v
	}
	return out, nil
}

// count is t's element count, checked: no negative dimension, at most
// 2^40 elements.
func (t *Tensor) count(what string) (uint64, error) {
	n := uint64(1)
	for _, d := range t.Dims {
		if d < 0 {
			return 0, fmt.Errorf("%w: %s has the negative dimension %d", ErrFormat, what, d)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > 1<<40 {
			return 0, fmt.Errorf("%w: %s has dims %v: too many elements", ErrFormat, what, t.Dims)
		}
		n = lo
	}
	return n, nil
}
