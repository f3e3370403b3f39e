package ops

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Identity, Flatten, Squeeze and Unsqueeze: the ONNX ops that change only
// a tensor's shape (any dtype); the device kernel copies the contents.
//
//   - Identity keeps the shape.
//   - Flatten (axis, default 1, in [-r, r]) gives [d0·…·d(axis-1),
//     d(axis)·…·d(r-1)].
//   - Squeeze removes the axes listed (negative counting from the end;
//     each must have size 1; one listed twice is removed once, as
//     onnxruntime removes it), or every size-1 axis when none are listed.
//     Before opset 13 the axes are attribute "axes"; from 13 an optional
//     int64 input, a value dependency.
//   - Unsqueeze inserts size-1 axes at the positions listed, positions in
//     the output's rank (negative counting from the end); "axes" is an
//     attribute before opset 13 and a required int64 input from 13.
//
// A repeated axis of Unsqueeze is an error. The "opset" attribute selects the form
// (absent: the newest).
//
// Tiling (words):
//
//	0..4  split over the elements; 4 buffers
//
// Workspace: none. Cost: no arithmetic; bytes of the output, read and
// written.
type view struct {
	op        string
	axis      int64   // Flatten
	axes      []int64 // Squeeze, Unsqueeze: the attribute form
	fromInput bool    // the axes come from input 1
}

func newFlatten(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis"); err != nil {
		return nil, wrapAttr(err)
	}
	axis, err := attrs.Int("axis", 1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if _, ok := attrs[kernel.OpsetAttr]; ok && axis < 0 {
		if v, err := attrs.Opset(11); err != nil {
			return nil, wrapAttr(err)
		} else if v < 11 {
			return nil, fmt.Errorf("ops: Flatten: axis %d: negative axes came in opset 11, the node's is %d", axis, v)
		}
	}
	return newKernel(sig{op: "Flatten", minIn: 1, maxIn: 1, nOut: 1}, &view{op: "Flatten", axis: axis}), nil
}

func newIdentity(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "Identity", minIn: 1, maxIn: 1, nOut: 1}, &view{op: "Identity"}), nil
}

func newAxesView(op string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		opset, err := attrs.Opset(17)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &view{op: op, fromInput: opset >= 13}
		if k.fromInput {
			if err := attrs.Check(); err != nil {
				return nil, wrapAttr(fmt.Errorf("%w (from opset 13 the axes are an input)", err))
			}
			minIn := 2
			if op == "Squeeze" {
				minIn = 1
			}
			return newKernel(sig{op: op, minIn: minIn, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, k), nil
		}
		if err := attrs.Check("axes"); err != nil {
			return nil, wrapAttr(err)
		}
		if k.axes, err = attrs.Ints("axes", nil); err != nil {
			return nil, wrapAttr(err)
		}
		if op == "Unsqueeze" && len(k.axes) == 0 {
			return nil, errors.New("ops: Unsqueeze: attribute \"axes\" is required before opset 13")
		}
		return newKernel(sig{op: op, minIn: 1, maxIn: 1, nOut: 1}, k), nil
	}
}

// axesOf returns the node's axes: the attribute, or input 1.
func (k *view) axesOf(in []*kernel.Tensor) ([]int64, error) {
	if !k.fromInput || len(in) < 2 || in[1].NumElements() == 0 && k.op == "Squeeze" {
		return k.axes, nil
	}
	if in[1].DType != kernel.Int64 {
		return nil, fmt.Errorf("input axes has dtype %v, want int64", in[1].DType)
	}
	l, err := valueInts(in[1], "axes", 1)
	if err != nil {
		return nil, err
	}
	out := make([]int64, l.n)
	for i := range out {
		out[i] = l.at(i)
	}
	return out, nil
}

// normAxes maps axes onto [0, rank), rejecting out-of-range ones and,
// unless repeats, repeated ones (Squeeze takes an axis named twice once,
// as onnxruntime does; Unsqueeze refuses it, as onnxruntime does).
func normAxes(axes []int64, rank int, repeats bool) ([]int64, error) {
	out := make([]int64, len(axes))
	for i, a := range axes {
		n, err := kernel.NormAxis(a, rank)
		if err != nil {
			return nil, fmt.Errorf("axes %v: %w", axes, err)
		}
		if !repeats && slices.Contains(out[:i], int64(n)) {
			return nil, fmt.Errorf("axes %v repeat axis %d", axes, n)
		}
		out[i] = int64(n)
	}
	return out, nil
}

func (k *view) infer(in, out []*kernel.Tensor) error {
	x, o := in[0], out[0]
	r := x.Shape.Rank()
	var s kernel.Shape
	switch k.op {
	case "Identity":
		s = x.Shape.Clone()
	case "Flatten":
		a := k.axis
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || a > int64(r) {
			return fmt.Errorf("axis %d out of range [%d, %d] for data %v", k.axis, -r, r, x.Shape)
		}
		outer, inner := int64(1), int64(1)
		for i, d := range x.Shape {
			if int64(i) < a {
				outer *= d
			} else {
				inner *= d
			}
		}
		s = kernel.Shape{outer, inner}
	case "Squeeze":
		axes, err := k.axesOf(in)
		if err != nil {
			return err
		}
		norm, err := normAxes(axes, r, true)
		if err != nil {
			return err
		}
		for i, d := range x.Shape {
			switch {
			case len(axes) == 0 && d == 1:
			case slices.Contains(norm, int64(i)):
				if d != 1 {
					return fmt.Errorf("cannot squeeze axis %d of data %v: its size is %d", i, x.Shape, d)
				}
			default:
				s = append(s, d)
			}
		}
	case "Unsqueeze":
		axes, err := k.axesOf(in)
		if err != nil {
			return err
		}
		norm, err := normAxes(axes, r+len(axes), false)
		if err != nil {
			return err
		}
		s = make(kernel.Shape, 0, r+len(axes))
		j := 0
		for i := range r + len(axes) {
			if slices.Contains(norm, int64(i)) {
				s = append(s, 1)
			} else {
				s = append(s, x.Shape[j])
				j++
			}
		}
	}
	if s == nil {
		s = kernel.Shape{}
	}
	o.Shape, o.DType = s, x.DType
	return nil
}

func (k *view) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if in[0].NumElements() != out[0].NumElements() || in[0].DType != out[0].DType {
		return 0, fmt.Errorf("output %v does not hold data %v", out[0], in[0])
	}
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 4).put(e)
	return 0, nil
}

func (k *view) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(2 * out[0].Bytes())}
}

func (k *view) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	if x.Bytes() != o.Bytes() {
		return errors.New("operands differ from the inferred ones")
	}
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, o.NumElements()); err != nil {
		return err
	}
	copy(o.Data(), x.Data()[:x.Bytes()])
	return nil
}
