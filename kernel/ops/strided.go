package ops

import (
	"errors"

	"github.com/pipert/pipert/kernel"
)

// Strided copies: Transpose and Slice share their tiling layout and their
// computation. The output is written in row-major order; the element at loop
// index (i0, i1, …) is read from the input at base + Σ ik·strides[k].
//
// Tiling (words):
//
//	0..4  split over the output elements; 4 buffers
//	5     R: loop rank after dropping unit dimensions and merging neighbours
//	      the input walks as one run
//	6     base: input element offset of the first output element
//	7..   dims[R], strides[R] (input element strides; negative for a
//	      reversing slice)
//
// Workspace: none. Cost: no arithmetic; bytes of the output, read and
// written.

const stridedWords = splitWords + 2

func encodeStrided(e *encoder, total int64, elemBytes int, base int64, dims, strides []int64) {
	n := coalesce(dims, strides, nil)
	e.grow(stridedWords + 2*n)
	splitElems(total, elemBytes, 4).put(e)
	e.put(int64(n))
	e.put(base)
	e.puts(dims[:n])
	e.puts(strides[:n])
}

func computeStrided(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	if x.DType != o.DType {
		return errors.New("operand dtypes differ from the inferred ones")
	}
	total := o.NumElements()
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, total); err != nil {
		return err
	}
	r, base := d.word(), d.word()
	dims, strides := d.words(r), d.words(r)
	if err := d.err(); err != nil {
		return err
	}
	if total == 0 {
		return nil
	}
	points, err := checkWalk(dims, strides, base, 1, x.NumElements())
	if err != nil {
		return err
	}
	if points != total {
		return errTiling
	}
	xb, ob := x.Data(), o.Data()
	switch x.DType.Size() {
	case 1:
		runCopy(ob, xb, dims, strides, base)
	case 2:
		runCopy(kernel.Uint16s(ob), kernel.Uint16s(xb), dims, strides, base)
	case 4:
		runCopy(kernel.Int32s(ob), kernel.Int32s(xb), dims, strides, base)
	case 8:
		runCopy(kernel.Int64s(ob), kernel.Int64s(xb), dims, strides, base)
	}
	return nil
}

func runCopy[T any](dst, src []T, dims, strides words, base int64) {
	e := copyExec[T]{dst: dst, src: src, dims: dims, strides: strides, rank: dims.len()}
	if e.rank == 0 {
		dst[0] = src[base]
		return
	}
	e.walk(0, base)
}

type copyExec[T any] struct {
	dst, src      []T
	dims, strides words
	rank          int
	next          int64 // next output element
}

func (e *copyExec[T]) walk(d int, off int64) {
	n, s := e.dims.at(d), e.strides.at(d)
	if d == e.rank-1 {
		dst := e.dst[e.next : e.next+n]
		e.next += n
		if s == 1 {
			copy(dst, e.src[off:off+n])
			return
		}
		for i := range dst {
			dst[i] = e.src[off]
			off += s
		}
		return
	}
	for range n {
		e.walk(d+1, off)
		off += s
	}
}

// rowMajor fills dst with the row-major element strides of s.
func rowMajor(dst []int64, s kernel.Shape) {
	acc := int64(1)
	for i := len(s) - 1; i >= 0; i-- {
		dst[i] = acc
		acc *= s[i]
	}
}
