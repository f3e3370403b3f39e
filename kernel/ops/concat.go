package ops

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Concat joins one or more inputs of the same dtype and rank (≥ 1) along
// the required attribute axis; the other dimensions must agree.
//
// Tiling (words):
//
//	0..4  split over the output elements; 4 buffers
//	5     outer: product of the dimensions before the axis
//	6     n: the number of inputs
//	7..   chunks[n]: elements input i contributes per outer index
//	      (its axis length times the product of the dimensions after it)
//
// The output is, for each outer index, chunk 0 of input 0, then of input
// 1, and so on. Workspace: none. Cost: no arithmetic; bytes of inputs and
// output.
type concat struct{ axis int64 }

func newConcat(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis"); err != nil {
		return nil, wrapAttr(err)
	}
	if _, ok := attrs["axis"]; !ok {
		return nil, errors.New("ops: attribute \"axis\" is required")
	}
	axis, err := attrs.Int("axis", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "Concat", minIn: 1, maxIn: -1, nOut: 1}, &concat{axis: axis}), nil
}

func (k *concat) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	axis, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return err
	}
	var sum int64
	for i, t := range in {
		if t.DType != x.DType {
			return fmt.Errorf("input %d has dtype %v, input 0 has %v: they must match", i, t.DType, x.DType)
		}
		if t.Shape.Rank() != x.Shape.Rank() {
			return fmt.Errorf("input %d has rank %d, input 0 has %d: they must match", i, t.Shape.Rank(), x.Shape.Rank())
		}
		for d, n := range t.Shape {
			if d != axis && n != x.Shape[d] {
				return fmt.Errorf("input %d has shape %v, input 0 has %v: they differ off axis %d", i, t.Shape, x.Shape, axis)
			}
		}
		sum += t.Shape[axis]
	}
	s := shapeOf(out[0], x.Shape.Rank())
	copy(s, x.Shape)
	s[axis] = sum
	out[0].Shape, out[0].DType = s, x.DType
	return nil
}

func (k *concat) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	o := out[0]
	axis, err := kernel.NormAxis(k.axis, o.Shape.Rank())
	if err != nil {
		return 0, err
	}
	outer, inner := o.Shape[:axis].NumElements(), o.Shape[axis+1:].NumElements()
	e.grow(splitWords + 2 + len(in))
	splitElems(o.NumElements(), o.DType.Size(), 4).put(e)
	e.put(outer)
	e.put(int64(len(in)))
	var sum int64
	for _, t := range in {
		if t.Shape.Rank() != o.Shape.Rank() {
			return 0, fmt.Errorf("input %v does not match output %v", t.Shape, o.Shape)
		}
		e.put(t.Shape[axis] * inner)
		sum += t.Shape[axis]
	}
	if sum != o.Shape[axis] {
		return 0, fmt.Errorf("inputs sum to %d along axis %d, output has %d", sum, axis, o.Shape[axis])
	}
	return 0, nil
}

func (k *concat) cost(in, out []*kernel.Tensor) device.Cost {
	var b int64
	for _, t := range in {
		b += t.Bytes()
	}
	return device.Cost{Bytes: float64(b + out[0].Bytes())}
}

func (k *concat) compute(a *kernel.Args) error {
	o := a.Out[0]
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, o.NumElements()); err != nil {
		return err
	}
	outer, n := d.word(), d.word()
	chunks := d.words(n)
	if err := d.err(); err != nil {
		return err
	}
	if n != int64(len(a.In)) || outer < 0 {
		return errTiling
	}
	var row int64
	for i, t := range a.In {
		c := chunks.at(i)
		if t.DType != o.DType || c < 0 || outer*c != t.NumElements() {
			return fmt.Errorf("input %d (%v) does not match the tiling", i, t)
		}
		row += c
	}
	if outer*row != o.NumElements() {
		return errTiling
	}
	es := int64(o.DType.Size())
	ob := o.Data()
	var off int64
	for p := range outer {
		for i, t := range a.In {
			c := chunks.at(i) * es
			off += int64(copy(ob[off:off+c], t.Data()[p*c:]))
		}
	}
	return nil
}
