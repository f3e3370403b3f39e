package ops

import (
	"errors"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// NonZero outputs the indices of the nonzero elements of its input (any
// dtype; NaN is nonzero, -0 is zero) with ONNX semantics: an int64 tensor
// [R, nnz] whose column j holds the multi-index of the j-th nonzero element
// in row-major order, R being the input rank (a scalar counts as rank 1).
//
// It is compute dependent: InferShape reports the upper bound [R, N] (N
// input elements) and OutputShapes the real [R, nnz]. Compute writes the
// result compactly, row r at elements [r·nnz, (r+1)·nnz) of the output
// buffer, so that it reads correctly once the shape is [R, nnz]. On a virtual
// input the model is nnz = mix(Seed) mod (N+1) (uniform in [0, N]), with mix
// the splitmix64 finalizer.
//
// Tiling (words):
//
//	0  N   1 R   2 cores   3 elements per core
//
// Workspace: 8 bytes per core, the per-core counts whose prefix sums place
// each core's indices. Cost: one operation per input element; bytes of the
// input and the output bound.
type nonZero struct {
	count int64 // nonzero elements found by the last Compute
	have  bool  // count belongs to a Compute not yet reported
}

func newNonZero(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	s := sig{op: "NonZero", minIn: 1, maxIn: 1, nOut: 1, deps: kernel.Deps{Compute: true}}
	return newKernel(s, &nonZero{}), nil
}

func (k *nonZero) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	s := shapeOf(out[0], 2)
	s[0], s[1] = int64(max(x.Shape.Rank(), 1)), x.NumElements()
	out[0].Shape, out[0].DType = s, kernel.Int64
	return nil
}

func (k *nonZero) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	x := in[0]
	n, r := x.NumElements(), int64(max(x.Shape.Rank(), 1))
	if !out[0].Shape.Equal(kernel.Shape{r, n}) {
		return 0, errors.New("output " + out[0].Shape.String() + " is not the bound")
	}
	cores := min(max(ceilDiv(n, tileAlign), 1), numCores)
	e.grow(4)
	for _, v := range [...]int64{n, r, cores, ceilDiv(n, cores)} {
		e.put(v)
	}
	return 8 * cores, nil
}

func (k *nonZero) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: float64(in[0].NumElements()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *nonZero) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	k.have = false
	n, r := x.NumElements(), int64(max(x.Shape.Rank(), 1))
	d := decoder{b: a.Tiling.Data}
	tn, tr, cores, per := d.word(), d.word(), d.word(), d.word()
	if d.bad || tn != n || tr != r || cores < 0 || cores > numCores || per < 0 {
		return errTiling
	}
	if o.DType != kernel.Int64 || o.NumElements() != r*n {
		return errors.New("operands differ from the inferred ones")
	}
	xb := x.Data()
	var nnz int64
	for i := range n {
		if nonzeroAt(xb, x.DType, i) {
			nnz++
		}
	}
	out := kernel.Int64s(o.Data())
	var j int64
	for i := range n {
		if !nonzeroAt(xb, x.DType, i) {
			continue
		}
		// Unravel i into row j of the compact [r, nnz] result.
		rem := i
		for dim := x.Shape.Rank() - 1; dim >= 0; dim-- {
			size := x.Shape[dim]
			out[int64(dim)*nnz+j] = rem % size
			rem /= size
		}
		if x.Shape.Rank() == 0 {
			out[j] = 0
		}
		j++
	}
	k.count, k.have = nnz, true
	return nil
}

func nonzeroAt(b []byte, dt kernel.DType, i int64) bool {
	switch dt {
	case kernel.Float32:
		return kernel.Float32s(b)[i] != 0
	case kernel.Float16, kernel.BFloat16:
		return kernel.Uint16s(b)[i]&0x7fff != 0 // ±0 is zero
	case kernel.Int16, kernel.Uint16:
		return kernel.Uint16s(b)[i] != 0
	case kernel.Int32, kernel.Uint32:
		return kernel.Int32s(b)[i] != 0
	case kernel.Int64, kernel.Uint64:
		return kernel.Int64s(b)[i] != 0
	case kernel.Float64:
		return kernel.Float64s(b)[i] != 0
	}
	if dt.IsFloat() {
		return loadF(dt, b, i) != 0 // the float 8 and 4 types: −0 is zero, float8e8m0 has no zero
	}
	return b[i] != 0 // the one-byte dtypes
}

func (k *nonZero) outputShapes(a *kernel.Args) ([]kernel.Shape, error) {
	x := a.In[0]
	r := int64(max(x.Shape.Rank(), 1))
	if !a.Real() {
		n := uint64(x.NumElements())
		return []kernel.Shape{{r, int64(mix(a.Seed) % (n + 1))}}, nil
	}
	if !k.have {
		return nil, errors.New("output shapes asked before the kernel computed")
	}
	k.have = false
	return []kernel.Shape{{r, k.count}}, nil
}
