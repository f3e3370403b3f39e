package ops

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Shape outputs the dimensions of its input (any dtype, possibly virtual) as
// a 1-D int64 tensor. Optional attributes start and end (ONNX semantics:
// negative values count from the rank, then both clamp to [0, rank]) select
// a range of dimensions. It reads only its input's shape (Deps().ShapeOnly),
// so its output is real even for a virtual input.
//
// Tiling (words):
//
//	0  rank of the input   1 start   2 end
//
// Workspace: none. Cost: no arithmetic; bytes of the output.
type shapeOp struct{ start, end int64 }

func newShape(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("start", "end"); err != nil {
		return nil, wrapAttr(err)
	}
	k := &shapeOp{}
	var err error
	if k.start, err = attrs.Int("start", 0); err != nil {
		return nil, wrapAttr(err)
	}
	if k.end, err = attrs.Int("end", 1<<62); err != nil {
		return nil, wrapAttr(err)
	}
	s := sig{op: "Shape", minIn: 1, maxIn: 1, nOut: 1, deps: kernel.Deps{ShapeOnly: true}}
	return newKernel(s, k), nil
}

// bounds returns the selected range of dimensions of a rank-r input.
func (k *shapeOp) bounds(r int) (start, end int64) {
	clamp := func(v int64) int64 {
		if v < 0 {
			v += int64(r)
		}
		return min(max(v, 0), int64(r))
	}
	start, end = clamp(k.start), clamp(k.end)
	return start, max(start, end)
}

func (k *shapeOp) infer(in, out []*kernel.Tensor) error {
	start, end := k.bounds(in[0].Shape.Rank())
	s := shapeOf(out[0], 1)
	s[0] = end - start
	out[0].Shape, out[0].DType = s, kernel.Int64
	return nil
}

func (k *shapeOp) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	r := in[0].Shape.Rank()
	start, end := k.bounds(r)
	if !out[0].Shape.Equal(kernel.Shape{end - start}) || out[0].DType != kernel.Int64 {
		return 0, fmt.Errorf("output %v is not int64[%d]", out[0], end-start)
	}
	e.grow(3)
	e.put(int64(r))
	e.put(start)
	e.put(end)
	return 0, nil
}

func (k *shapeOp) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(out[0].Bytes())}
}

func (k *shapeOp) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	d := decoder{b: a.Tiling.Data}
	r, start, end := d.word(), d.word(), d.word()
	if err := d.err(); err != nil {
		return err
	}
	if r != int64(x.Shape.Rank()) || start < 0 || end < start || end > r || o.DType != kernel.Int64 || o.NumElements() != end-start {
		return fmt.Errorf("tiling does not match operands %v and %v", x, o)
	}
	copy(kernel.Int64s(o.Data()), x.Shape[start:end])
	return nil
}
