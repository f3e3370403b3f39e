package ops

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Gather picks entries of data (any dtype, rank ≥ 1) along attribute axis
// (default 0) at int32 or int64 indices of any shape, with ONNX semantics:
// the output shape is data.Shape[:axis] + indices.Shape +
// data.Shape[axis+1:]. Negative indices count from the end; an index out of
// [-dim, dim) fails the launch.
//
// Tiling (words):
//
//	0..4  split over the output elements; 4 buffers
//	5     outer: product of data's dimensions before the axis
//	6     axisLen   7 inner: product of data's dimensions after the axis
//	8     indices: the number of indices
//
// Output block (p, j) of inner elements is data block (p, indices[j]).
// Workspace: none. Cost: no arithmetic; bytes of the indices and twice the
// output (read and written).
type gather struct{ axis int64 }

func newGather(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis"); err != nil {
		return nil, wrapAttr(err)
	}
	axis, err := attrs.Int("axis", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "Gather", minIn: 2, maxIn: 2, nOut: 1}, &gather{axis: axis}), nil
}

func (k *gather) infer(in, out []*kernel.Tensor) error {
	x, idx := in[0], in[1]
	axis, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return fmt.Errorf("input data: %w", err)
	}
	if !isIndex(idx.DType) {
		return fmt.Errorf("input indices has dtype %v, want int32 or int64", idx.DType)
	}
	r := x.Shape.Rank() - 1 + idx.Shape.Rank()
	s := shapeOf(out[0], r)
	n := copy(s, x.Shape[:axis])
	n += copy(s[n:], idx.Shape)
	copy(s[n:], x.Shape[axis+1:])
	out[0].Shape, out[0].DType = s, x.DType
	return nil
}

func (k *gather) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	x, idx, o := in[0], in[1], out[0]
	axis, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return 0, err
	}
	outer, n, inner := around(x.Shape, axis)
	if outer*idx.NumElements()*inner != o.NumElements() {
		return 0, fmt.Errorf("output %v does not match data %v and indices %v", o.Shape, x.Shape, idx.Shape)
	}
	e.grow(splitWords + 4)
	splitElems(o.NumElements(), o.DType.Size(), 4).put(e)
	for _, v := range [...]int64{outer, n, inner, idx.NumElements()} {
		e.put(v)
	}
	return 0, nil
}

func (k *gather) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(in[1].Bytes() + 2*out[0].Bytes())}
}

func (k *gather) compute(a *kernel.Args) error {
	x, idx, o := a.In[0], a.In[1], a.Out[0]
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, o.NumElements()); err != nil {
		return err
	}
	outer, n, inner, ni := d.word(), d.word(), d.word(), d.word()
	if err := d.err(); err != nil {
		return err
	}
	if x.DType != o.DType || !isIndex(idx.DType) || outer < 0 || n < 0 || inner < 0 ||
		outer*n*inner != x.NumElements() || ni != idx.NumElements() || outer*ni*inner != o.NumElements() {
		return fmt.Errorf("tiling does not match operands %v, %v and %v", x, idx, o)
	}
	at := ints{b: idx.Data(), dt: idx.DType, n: int(ni)}
	for j := range at.n {
		if v := at.at(j); v < -n || v >= n {
			return fmt.Errorf("indices element %d is %d, out of range [%d, %d)", j, v, -n, n)
		}
	}
	if o.NumElements() == 0 {
		return nil
	}
	es := int64(x.DType.Size())
	c := inner * es
	xb, ob := x.Data(), o.Data()
	var off int64
	for p := range outer {
		for j := range at.n {
			v := at.at(j)
			if v < 0 {
				v += n
			}
			src := (p*n + v) * c
			off += int64(copy(ob[off:off+c], xb[src:src+c]))
		}
	}
	return nil
}
