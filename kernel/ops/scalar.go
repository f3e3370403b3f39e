package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/pipert/pipert/kernel"
)

// Element access by dtype, for the ops whose work per element is small
// next to the bookkeeping (comparisons, selection, padding): an element is
// loaded as a float64 or an int64 and stored back the same way. Integers
// go through int64 so that int64 values above 2^53 stay exact. A uint64
// goes through int64 as its bit pattern, which wraps above math.MaxInt64:
// addition, subtraction, multiplication and the bitwise ops are the same
// on that form, while order, division and conversion to float need the
// unsigned value (loadOrd, storeOrd, isU64, loadF).

// loadF returns element i of b, of dtype dt, as a float64.
func loadF(dt kernel.DType, b []byte, i int64) float64 {
	switch dt {
	case kernel.Float32:
		return float64(kernel.Float32s(b)[i])
	case kernel.Float16:
		return float64(kernel.F16ToF32(kernel.Uint16s(b)[i]))
	case kernel.Float64:
		return kernel.Float64s(b)[i]
	case kernel.BFloat16:
		return float64(kernel.BF16ToF32(kernel.Uint16s(b)[i]))
	case kernel.Uint64:
		return float64(kernel.Uint64s(b)[i])
	}
	if dt.IsFloat8() || dt == kernel.Float4E2M1 {
		return float64(kernel.F8ToF32(dt, b[i]))
	}
	return float64(loadI(dt, b, i))
}

// loadI returns element i of b, of an integer or bool dtype dt, as an
// int64 (a uint64 as its bit pattern). Floats are truncated toward zero.
func loadI(dt kernel.DType, b []byte, i int64) int64 {
	switch dt {
	case kernel.Int64, kernel.Uint64:
		return kernel.Int64s(b)[i]
	case kernel.Int32:
		return int64(kernel.Int32s(b)[i])
	case kernel.Int8:
		return int64(int8(b[i]))
	case kernel.Uint8, kernel.Bool:
		return int64(b[i])
	case kernel.Int16:
		return int64(kernel.Int16s(b)[i])
	case kernel.Uint16:
		return int64(kernel.Uint16s(b)[i])
	case kernel.Uint32:
		return int64(kernel.Uint32s(b)[i])
	case kernel.Int4:
		return int64(int8(b[i]<<4) >> 4)
	case kernel.Uint4:
		return int64(b[i] & 0xf)
	case kernel.Int2:
		return int64(int8(b[i]<<6) >> 6)
	case kernel.Uint2:
		return int64(b[i] & 3)
	}
	if dt.IsFloat() {
		return int64(loadF(dt, b, i))
	}
	return 0
}

// storeF stores v as element i of b, rounding once to dtype dt (the float
// 8 and float 4 types saturating, as ONNX's Cast by default). Integer
// dtypes take v truncated toward zero, clamped to int64's range (uint64:
// its own), then wrapped to the dtype: a value computed in float64 that
// rounded up to 2^63 (or 2^64) is the largest int64 (uint64), not a wrapped
// one.
func storeF(dt kernel.DType, b []byte, i int64, v float64) {
	switch dt {
	case kernel.Float32:
		kernel.Float32s(b)[i] = float32(v)
	case kernel.Float16:
		kernel.Uint16s(b)[i] = f64ToF16(v)
	case kernel.Float64:
		kernel.Float64s(b)[i] = v
	case kernel.BFloat16:
		kernel.Uint16s(b)[i] = f64ToBF16(v)
	case kernel.Uint64:
		kernel.Uint64s(b)[i] = f64ToU64(v)
	case kernel.Float8E4M3FN, kernel.Float8E4M3FNUZ, kernel.Float8E5M2, kernel.Float8E5M2FNUZ, kernel.Float8E8M0,
		kernel.Float4E2M1:
		b[i] = kernel.F64ToF8(dt, v, true)
	default:
		switch {
		case v >= 0x1p63:
			storeI(dt, b, i, math.MaxInt64)
		case v < -0x1p63:
			storeI(dt, b, i, math.MinInt64)
		default:
			storeI(dt, b, i, int64(v))
		}
	}
}

// f64ToU64 truncates v toward zero into a uint64: exact from 0 to 2^64,
// 2^64 and beyond the largest uint64, negative values wrapping as through
// int64 (from −2^63 on).
func f64ToU64(v float64) uint64 {
	switch {
	case v >= 0x1p64:
		return math.MaxUint64
	case v >= 0x1p63:
		return uint64(v-0x1p63) | 1<<63
	case v < -0x1p63:
		return 1 << 63
	}
	return uint64(int64(v))
}

// storeI stores v as element i of b, wrapping to dtype dt (a uint64 takes
// v's bit pattern; the sub-byte integers keep v's low bits, extended).
func storeI(dt kernel.DType, b []byte, i int64, v int64) {
	switch dt {
	case kernel.Int64, kernel.Uint64:
		kernel.Int64s(b)[i] = v
	case kernel.Int32, kernel.Uint32:
		kernel.Int32s(b)[i] = int32(v)
	case kernel.Int8, kernel.Uint8:
		b[i] = byte(v)
	case kernel.Int16, kernel.Uint16:
		kernel.Int16s(b)[i] = int16(v)
	case kernel.Int4:
		b[i] = byte(int8(v<<4) >> 4)
	case kernel.Uint4:
		b[i] = byte(v & 0xf)
	case kernel.Int2:
		b[i] = byte(int8(v<<6) >> 6)
	case kernel.Uint2:
		b[i] = byte(v & 3)
	case kernel.Bool:
		if v != 0 {
			b[i] = 1
		} else {
			b[i] = 0
		}
	default:
		storeF(dt, b, i, float64(v))
	}
}

// lowPrecision reports whether dt is one of the float 8, float 4 and 4-
// and 2-bit integer dtypes, which ONNX's ops take to move, cast and
// (de)quantize only.
func lowPrecision(dt kernel.DType) bool { return dt.IsFloat8() || dt.IsSubByte() }

// checkHasZero refuses float8e8m0, which has no zero (its code 0 is
// 2^−127), as dtype dt of name, the output of an op that writes zeros or
// the input whose dtype it has.
func checkHasZero(dt kernel.DType, name string) error {
	if dt == kernel.Float8E8M0 {
		return fmt.Errorf("%s has dtype %v, which has no zero", name, dt)
	}
	return nil
}

// isU64 reports whether dt is uint64, the one integer dtype whose values
// int64 does not hold.
func isU64(dt kernel.DType) bool { return dt == kernel.Uint64 }

// loadOrd returns element i of b, of an integer or bool dtype dt, as an
// int64 whose order is the elements' order: loadI's value, except that a
// uint64 has its top bit flipped, mapping 0 to math.MinInt64 and the
// largest uint64 to math.MaxInt64. storeOrd stores such a value back.
// Ops that only compare and select (Max, Min, Clip, the arg and sort ops)
// work on this form; math.MinInt64 and math.MaxInt64 are then the
// extremes of every integer dtype's range.
func loadOrd(dt kernel.DType, b []byte, i int64) int64 {
	v := loadI(dt, b, i)
	if dt == kernel.Uint64 {
		v ^= math.MinInt64
	}
	return v
}

// storeOrd stores v, in loadOrd's form, as element i of b.
func storeOrd(dt kernel.DType, b []byte, i int64, v int64) {
	if dt == kernel.Uint64 {
		v ^= math.MinInt64
	}
	storeI(dt, b, i, v)
}

// copyElem copies element si of src to element di of dst, both of element
// size size bytes.
func copyElem(dst []byte, di int64, src []byte, si int64, size int64) {
	copy(dst[di*size:(di+1)*size], src[si*size:(si+1)*size])
}

// bcast walks the output of an op whose inputs broadcast (numpy rules) to
// its output, in row-major order, keeping each input's element offset. A
// bcast is part of its kernel and reused run after run; set allocates only
// when the rank or the input count grows.
type bcast struct {
	dims    []int64
	strides [][]int64 // per input, per output dimension; 0 where broadcast
	idx     []int64
	off     []int64 // per input: the offset of the current element
}

// set prepares a walk of out over inputs of shapes in.
func (w *bcast) set(out kernel.Shape, in ...kernel.Shape) error {
	r := len(out)
	w.dims = append(w.dims[:0], out...)
	w.idx = grownInts(w.idx, r)
	clear(w.idx)
	w.off = grownInts(w.off, len(in))
	clear(w.off)
	for len(w.strides) < len(in) {
		w.strides = append(w.strides, nil)
	}
	for j, s := range in {
		w.strides[j] = grownInts(w.strides[j], r)
		if err := bcastStrides(w.strides[j], s, out, 1); err != nil {
			return err
		}
	}
	return nil
}

// next advances to the next output element.
func (w *bcast) next() {
	for d := len(w.dims) - 1; d >= 0; d-- {
		w.idx[d]++
		for j := range w.off {
			w.off[j] += w.strides[j][d]
		}
		if w.idx[d] < w.dims[d] {
			return
		}
		for j := range w.off {
			w.off[j] -= w.strides[j][d] * w.dims[d]
		}
		w.idx[d] = 0
	}
}

func grownInts(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}

// broadcastAll returns the numpy broadcast of the shapes.
func broadcastAll(shapes ...kernel.Shape) (kernel.Shape, error) {
	var out kernel.Shape
	for _, s := range shapes {
		if out == nil {
			out = s.Clone()
			continue
		}
		d := make(kernel.Shape, max(len(out), len(s)))
		if err := broadcastDims(d, out, s); err != nil {
			return nil, err
		}
		out = d
	}
	return out, nil
}

// dtypeIn reports an error unless t's dtype is one of ok.
func dtypeIn(t *kernel.Tensor, name string, ok ...kernel.DType) error {
	for _, d := range ok {
		if t.DType == d {
			return nil
		}
	}
	// A copy, so that ok does not escape: a caller's literal list stays on
	// its stack and a successful check allocates nothing.
	return fmt.Errorf("input %s has dtype %v, want one of %v", name, t.DType, slices.Clone(ok))
}

// stashType reads op's stash_type, the precision of a normalization's
// first stage (statistics and normalized values): 1, float32, the
// default, or 11, float64. It reports whether float64 input is narrowed:
// with stash_type 1 a float64 X is cast to float32 for that stage, as the
// function bodies of the specification do (other dtypes lose nothing in
// it; their first stage is evaluated in float64).
func stashType(attrs kernel.Attrs, op string) (narrowF64 bool, err error) {
	st, err := attrs.Int("stash_type", 1)
	if err != nil {
		return false, wrapAttr(err)
	}
	switch st {
	case 1:
		return true, nil
	case 11:
		return false, nil
	}
	return false, fmt.Errorf("ops: %s: stash_type %d, want 1 (float32) or 11 (float64)", op, st)
}

// floatTypeAttr checks that attribute name of op, when given, names a float
// type of ONNX's TensorProto: 1 (float32), 10 (float16), 11 (float64) or
// 16 (bfloat16).
func floatTypeAttr(attrs kernel.Attrs, op, name string) error {
	if _, ok := attrs[name]; !ok {
		return nil
	}
	v, err := attrs.Int(name, 0)
	if err != nil {
		return wrapAttr(err)
	}
	switch v {
	case 1, 10, 11, 16:
		return nil
	}
	return fmt.Errorf("ops: %s: %s %d: want a float type (1 float32, 10 float16, 11 float64 or 16 bfloat16)", op, name, v)
}

// stage is v as a normalization's first stage reads it: rounded to
// float32 when narrow (a float64 X under stash_type 1).
func stage(v float64, narrow bool) float64 {
	if narrow {
		return float64(float32(v))
	}
	return v
}

// attrInOpset checks that attribute name of op, when given, belongs to the
// node's opset, when the node names one (kernel.OpsetAttr; graphs built
// by hand may use either form): opsets first to last (0: still there).
// An attribute of another form, say ReduceSum's axes after they became an
// input, makes the model invalid.
func attrInOpset(attrs kernel.Attrs, op, name string, first, last int64) error {
	if _, ok := attrs[name]; !ok {
		return nil
	}
	if _, ok := attrs[kernel.OpsetAttr]; !ok {
		return nil
	}
	v, err := attrs.Opset(first)
	if err != nil {
		return wrapAttr(err)
	}
	switch {
	case v < first:
		return fmt.Errorf("ops: %s: attribute %q is not in opset %d: it came in opset %d", op, name, v, first)
	case last > 0 && v > last:
		return fmt.Errorf("ops: %s: attribute %q is not in opset %d: opsets %d to %d had it", op, name, v, first, last)
	}
	return nil
}

// notImpl is the error of something valid a kernel does not implement:
// its text as given, matching kernel.ErrNotImplemented.
type notImpl struct{ msg string }

func (e notImpl) Error() string { return e.msg }
func (notImpl) Unwrap() error   { return kernel.ErrNotImplemented }

// notImplemented formats a notImpl.
func notImplemented(format string, args ...any) error {
	return notImpl{fmt.Sprintf(format, args...)}
}

// The dtype sets the ONNX ops take: the float types, the integer types,
// both (numeric), both and bool (all).
var (
	onnxFloats  = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.BFloat16}
	onnxInts    = []kernel.DType{kernel.Int32, kernel.Int64, kernel.Int8, kernel.Uint8, kernel.Int16, kernel.Uint16, kernel.Uint32, kernel.Uint64}
	onnxNumeric = append(slices.Clip(onnxFloats), onnxInts...)
	onnxAll     = append(slices.Clip(onnxNumeric), kernel.Bool)
	// The same without bfloat16, for the ops ONNX has not extended to it
	// (Einsum, OneHot, Unique, Compress, ReverseSequence).
	onnxNumericNoBF16 = append([]kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64}, onnxInts...)
	onnxAllNoBF16     = append(slices.Clip(onnxNumericNoBF16), kernel.Bool)
)

// floats lends the kernels built on the blocked axpy product (Conv,
// ConvTranspose, Gemm) and the recurrent cells (LSTM, GRU, RNN) operands
// of their compute type T: float32 for float32, float16 and bfloat16
// tensors, float64 for float64 ones. An operand of dtype T is viewed in
// place; another (float16, bfloat16) is converted into a buffer the kernel
// keeps run after run, and computed on in float32 then rounded once to its
// type on store,
// as onnxruntime's float16 kernels accumulate in float32. The same buffers
// hold the kernel's scratch (a workspace with no contents, the recurrent
// state), so that a computation allocates nothing in steady state.
type floats[T float32 | float64] struct{ bufs [][]T }

func (c *floats[T]) buf(i int, n int64) []T {
	for len(c.bufs) <= i {
		c.bufs = append(c.bufs, nil)
	}
	if int64(cap(c.bufs[i])) < n {
		c.bufs[i] = make([]T, n)
	}
	return c.bufs[i][:n]
}

// native views b as elements of type T when dt is T's dtype; ok is false
// otherwise.
func native[T float32 | float64](dt kernel.DType, b []byte) (v []T, ok bool) {
	switch p := any(&v).(type) {
	case *[]float32:
		if dt == kernel.Float32 {
			*p, ok = kernel.Float32s(b), true
		}
	case *[]float64:
		if dt == kernel.Float64 {
			*p, ok = kernel.Float64s(b), true
		}
	}
	return v, ok
}

// in returns t's contents as T, using buffer i for a conversion.
func (c *floats[T]) in(i int, t *kernel.Tensor) []T {
	n := t.NumElements()
	tb := t.Data()
	if v, ok := native[T](t.DType, tb); ok {
		return v[:n]
	}
	b := c.buf(i, n)
	for j := range b {
		b[j] = T(loadF(t.DType, tb, int64(j)))
	}
	return b
}

// out returns where to compute output t in T (buffer i unless t is of
// dtype T); flush then stores it into t.
func (c *floats[T]) out(i int, t *kernel.Tensor) []T {
	n := t.NumElements()
	if v, ok := native[T](t.DType, t.Data()); ok {
		return v[:n]
	}
	return c.buf(i, n)
}

// work returns n elements of workspace b as T, or buffer i when b has no
// contents (a virtual device).
func (c *floats[T]) work(i int, b []byte, n int64) []T {
	var z T
	if dt := dtypeOf(z); int64(len(b)) >= n*int64(dt.Size()) {
		if v, ok := native[T](dt, b); ok {
			return v[:n]
		}
	}
	return c.buf(i, n)
}

// dtypeOf is the dtype of T.
func dtypeOf[T float32 | float64](z T) kernel.DType {
	if _, ok := any(z).(float64); ok {
		return kernel.Float64
	}
	return kernel.Float32
}

// computeSize is the element size of the type a kernel built on floats
// computes dtype dt in (floats of 8 bytes for float64, 4 otherwise): the
// unit of its workspace.
func computeSize(dt kernel.DType) int64 {
	if dt == kernel.Float64 {
		return 8
	}
	return 4
}

// flush stores v, the T form of output t, into t.
func flush[T float32 | float64](t *kernel.Tensor, v []T) {
	if t.DType == dtypeOf(T(0)) {
		return
	}
	tb := t.Data()
	for j, x := range v {
		storeF(t.DType, tb, int64(j), float64(x))
	}
}
