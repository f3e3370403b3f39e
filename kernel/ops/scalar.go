package ops

import (
	"fmt"
	"slices"

	"github.com/pipert/pipert/kernel"
)

// Element access by dtype, for the ops whose work per element is small
// next to the bookkeeping (comparisons, selection, padding): an element is
// loaded as a float64 or an int64 and stored back the same way. Integers
// go through int64 so that int64 values above 2^53 stay exact.

// loadF returns element i of b, of dtype dt, as a float64.
func loadF(dt kernel.DType, b []byte, i int64) float64 {
	switch dt {
	case kernel.Float32:
		return float64(kernel.Float32s(b)[i])
	case kernel.Float16:
		return float64(kernel.F16ToF32(kernel.Uint16s(b)[i]))
	case kernel.Float64:
		return kernel.Float64s(b)[i]
	}
	return float64(loadI(dt, b, i))
}

// loadI returns element i of b, of an integer or bool dtype dt, as an
// int64. Floats are truncated toward zero.
func loadI(dt kernel.DType, b []byte, i int64) int64 {
	switch dt {
	case kernel.Int64:
		return kernel.Int64s(b)[i]
	case kernel.Int32:
		return int64(kernel.Int32s(b)[i])
	case kernel.Int8:
		return int64(int8(b[i]))
	case kernel.Uint8, kernel.Bool:
		return int64(b[i])
	case kernel.Float32, kernel.Float16, kernel.Float64:
		return int64(loadF(dt, b, i))
	}
	return 0
}

// storeF stores v as element i of b, rounding once to dtype dt. Integer
// dtypes take v truncated toward zero.
func storeF(dt kernel.DType, b []byte, i int64, v float64) {
	switch dt {
	case kernel.Float32:
		kernel.Float32s(b)[i] = float32(v)
	case kernel.Float16:
		kernel.Uint16s(b)[i] = f64ToF16(v)
	case kernel.Float64:
		kernel.Float64s(b)[i] = v
	default:
		storeI(dt, b, i, int64(v))
	}
}

// storeI stores v as element i of b, wrapping to dtype dt.
func storeI(dt kernel.DType, b []byte, i int64, v int64) {
	switch dt {
	case kernel.Int64:
		kernel.Int64s(b)[i] = v
	case kernel.Int32:
		kernel.Int32s(b)[i] = int32(v)
	case kernel.Int8, kernel.Uint8:
		b[i] = byte(v)
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

// The dtype sets the ONNX ops take.
var (
	onnxFloats  = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64}
	onnxNumeric = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.Int32, kernel.Int64, kernel.Int8, kernel.Uint8}
	onnxAll     = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64, kernel.Int32, kernel.Int64, kernel.Int8, kernel.Uint8, kernel.Bool}
)

// f32s lends the float32-only kernels (Conv, Gemm, the recurrent cells)
// float32 forms of float16 and float64 operands: a float32 operand is
// viewed in place, another is converted into a buffer the kernel keeps run
// after run. Such kernels compute in float32 and round once to the output
// dtype.
type f32s struct{ bufs [][]float32 }

func (c *f32s) buf(i int, n int64) []float32 {
	for len(c.bufs) <= i {
		c.bufs = append(c.bufs, nil)
	}
	if int64(cap(c.bufs[i])) < n {
		c.bufs[i] = make([]float32, n)
	}
	return c.bufs[i][:n]
}

// in returns t's contents as float32, using buffer i for a conversion.
func (c *f32s) in(i int, t *kernel.Tensor) []float32 {
	n := t.NumElements()
	if t.DType == kernel.Float32 {
		return kernel.Float32s(t.Data())[:n]
	}
	b := c.buf(i, n)
	tb := t.Data()
	for j := range b {
		b[j] = float32(loadF(t.DType, tb, int64(j)))
	}
	return b
}

// out returns where to compute output t in float32 (buffer i unless t is
// float32); flush then stores it into t.
func (c *f32s) out(i int, t *kernel.Tensor) []float32 {
	if t.DType == kernel.Float32 {
		return kernel.Float32s(t.Data())[:t.NumElements()]
	}
	return c.buf(i, t.NumElements())
}

// flush stores v, the float32 form of output t, into t.
func flush(t *kernel.Tensor, v []float32) {
	if t.DType == kernel.Float32 {
		return
	}
	tb := t.Data()
	for j, x := range v {
		storeF(t.DType, tb, int64(j), float64(x))
	}
}
