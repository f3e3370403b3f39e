package onnx

import (
	"fmt"
	"math/bits"

	"github.com/pipert/pipert/kernel"
)

// parseSparse reads a SparseTensorProto (a graph's sparse_initializer, a
// sparse_tensor attribute such as Constant's sparse_value) as the dense
// tensor it stands for, as onnxruntime does on loading: values [NNZ] of any
// dtype, indices int64 [NNZ] (positions in the flattened tensor) or
// [NNZ, rank] (coordinates), dims the dense shape; the name is the values'.
// Every other element is zero. An index outside the shape, or values and
// indices that disagree, is an ErrFormat error.
func parseSparse(b []byte) (*Tensor, error) {
	d := &decoder{b: b, what: "SparseTensorProto"}
	var values, indices *Tensor
	var dims []int64
	for {
		num, typ, done, err := d.next()
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		switch num {
		case 1, 2:
			v, err := d.bytes(typ)
			if err != nil {
				return nil, err
			}
			t, err := parseTensor(v)
			if err != nil {
				return nil, err
			}
			if num == 1 {
				values = t
			} else {
				indices = t
			}
		case 3:
			if dims, err = d.varints(typ, dims); err != nil {
				return nil, err
			}
		default:
			if err := d.skip(num, typ); err != nil {
				return nil, err
			}
		}
	}
	if values == nil {
		return nil, fmt.Errorf("%w: a sparse tensor without values", ErrFormat)
	}
	return densify(values, indices, dims)
}

// densify scatters values at indices into a zero tensor of shape dims.
func densify(values, indices *Tensor, dims []int64) (*Tensor, error) {
	what := fmt.Sprintf("sparse tensor %q", values.Name)
	vk, err := values.Kernel()
	if err != nil {
		return nil, err
	}
	n := uint64(1)
	for _, d := range dims {
		hi, lo := bits.Mul64(n, uint64(d))
		if d < 0 || hi != 0 || lo > 1<<40 {
			return nil, fmt.Errorf("%w: %s has dims %v", ErrFormat, what, dims)
		}
		n = lo
	}
	nnz := vk.NumElements()
	if len(vk.Shape) != 1 {
		return nil, fmt.Errorf("%w: %s has values of shape %v, want [NNZ]", ErrFormat, what, vk.Shape)
	}
	size := int64(vk.DType.Size())
	dense := &Tensor{Name: values.Name, Dims: dims, DataType: values.DataType, Raw: make([]byte, int64(n)*size)}
	if nnz == 0 {
		return dense, nil
	}
	if indices == nil {
		return nil, fmt.Errorf("%w: %s has %d values and no indices", ErrFormat, what, nnz)
	}
	ik, err := indices.Kernel()
	if err != nil {
		return nil, err
	}
	if ik.DType != kernel.Int64 {
		return nil, fmt.Errorf("%w: %s has indices of dtype %v, want int64", ErrFormat, what, ik.DType)
	}
	idx := kernel.Int64s(ik.Host)
	coords := len(ik.Shape) == 2 && ik.Shape[1] == int64(len(dims))
	switch {
	case len(ik.Shape) == 1 && ik.Shape[0] == nnz:
	case coords && ik.Shape[0] == nnz:
	default:
		return nil, fmt.Errorf("%w: %s has indices of shape %v for %d values of rank %d: want [%d] or [%d, %d]", ErrFormat, what, ik.Shape, nnz, len(dims), nnz, nnz, len(dims))
	}
	for k := range nnz {
		var at int64
		if coords {
			for i, d := range dims {
				c := idx[k*int64(len(dims))+int64(i)]
				if c < 0 || c >= d {
					return nil, fmt.Errorf("%w: %s: index %d has coordinate %d outside dimension %d of %v", ErrFormat, what, k, c, i, dims)
				}
				at = at*d + c
			}
		} else if at = idx[k]; at < 0 || uint64(at) >= n {
			return nil, fmt.Errorf("%w: %s: index %d is %d, outside %v", ErrFormat, what, k, at, dims)
		}
		copy(dense.Raw[at*size:(at+1)*size], vk.Host[k*size:(k+1)*size])
	}
	return dense, nil
}
