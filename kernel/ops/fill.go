package ops

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Expand, ConstantOfShape, Size and Pad: the ONNX ops that make a tensor
// of a new shape from a shape, a value or a border rule (any dtype).
//
//   - Expand(input, shape) broadcasts input and the int64 shape (a value
//     dependency) against each other, numpy style: a 1 in shape keeps the
//     input's dimension.
//   - ConstantOfShape(shape) is a tensor of the int64 shape's dimensions (a
//     value dependency), every element the one-element tensor attribute
//     "value" (float32 0 when absent).
//   - Size(data) is the element count of data as an int64 scalar; it reads
//     only the shape.
//   - Pad(data, pads[, constant_value[, axes]]) adds pads[i] elements
//     before and pads[r+i] after axis i (negative: removes them). mode
//     "constant" fills with constant_value (0 when absent), "reflect"
//     mirrors without repeating the edge, "edge" repeats the edge, "wrap"
//     (from opset 19) repeats the data as if it were a torus: the elements
//     the negative pads leave, as many times as the pads need. Before
//     opset 11 pads and value are attributes; from 11 pads is an int64
//     input (a value dependency) and constant_value an optional scalar
//     input. From opset 18 the optional int32 or int64 input axes (a value
//     dependency; negative counting from the end, each axis at most once)
//     names the axes pads applies to, pads then holding 2·len(axes)
//     values; the other axes are not padded.
//
// Tiling (words):
//
//	0..4  split over the output elements; 4 buffers
//
// Workspace: none. Cost: no arithmetic; bytes of the input(s) read and the
// output written.
type fill struct {
	op    string
	value *kernel.Tensor // ConstantOfShape
	walk  bcast          // Expand
	// Pad
	mode      string
	pads      []int64 // the attribute form
	padValue  float64
	fromInput bool
	axesInput bool // opset 18: the optional axes input
	idx       []int64
}

func newExpand(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "Expand", minIn: 2, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}, &fill{op: "Expand"}), nil
}

func newConstantOfShape(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("value"); err != nil {
		return nil, wrapAttr(err)
	}
	k := &fill{op: "ConstantOfShape", value: kernel.New(kernel.Float32, 1)}
	if _, ok := attrs["value"]; ok {
		t, err := attrs.Tensor("value", nil)
		if err != nil || t.NumElements() != 1 || t.Host == nil {
			return nil, fmt.Errorf("ops: ConstantOfShape: attribute \"value\" must be a one-element host tensor, have %v", attrs["value"])
		}
		k.value = t
	}
	return newKernel(sig{op: "ConstantOfShape", minIn: 1, maxIn: 1, nOut: 1, deps: kernel.Deps{Value: []int{0}}}, k), nil
}

func newSize(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "Size", minIn: 1, maxIn: 1, nOut: 1, deps: kernel.Deps{ShapeOnly: true}}, &fill{op: "Size"}), nil
}

func newPad(attrs kernel.Attrs) (kernel.Kernel, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k := &fill{op: "Pad", fromInput: opset >= 11, axesInput: opset >= 18}
	if k.mode, err = attrs.String("mode", "constant"); err != nil {
		return nil, wrapAttr(err)
	}
	switch {
	case k.mode == "constant", k.mode == "reflect", k.mode == "edge":
	case k.mode == "wrap" && opset >= 19:
	case opset >= 19:
		return nil, fmt.Errorf("ops: Pad: mode %q (want constant, reflect, edge or wrap)", k.mode)
	default:
		return nil, fmt.Errorf("ops: Pad: mode %q at opset %d (want constant, reflect or edge; wrap is from opset 19)", k.mode, opset)
	}
	if k.fromInput {
		if err := attrs.Check("mode"); err != nil {
			return nil, wrapAttr(fmt.Errorf("%w (from opset 11 pads and value are inputs)", err))
		}
		s := sig{op: "Pad", minIn: 2, maxIn: 3, nOut: 1, deps: kernel.Deps{Value: []int{1}}}
		if k.axesInput {
			s.maxIn, s.deps.Value = 4, []int{1, 3}
		}
		return newKernel(s, k), nil
	}
	if err := attrs.Check("mode", "pads", "paddings", "value"); err != nil {
		return nil, wrapAttr(err)
	}
	name := "pads"
	if _, ok := attrs["paddings"]; ok {
		name = "paddings"
	}
	if k.pads, err = attrs.Ints(name, nil); err != nil {
		return nil, wrapAttr(err)
	}
	if k.pads == nil {
		return nil, errors.New("ops: Pad: attribute \"pads\" is required before opset 11")
	}
	if k.padValue, err = attrs.Float("value", 0); err != nil {
		return nil, wrapAttr(err)
	}
	k.padValue = float64(float32(k.padValue))
	return newKernel(sig{op: "Pad", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// shapeValues reads an int64 shape operand.
func shapeValues(t *kernel.Tensor, name string) ([]int64, error) {
	if t.DType != kernel.Int64 {
		return nil, fmt.Errorf("input %s has dtype %v, want int64", name, t.DType)
	}
	l, err := valueInts(t, name, 1)
	if err != nil {
		return nil, err
	}
	out := make([]int64, l.n)
	for i := range out {
		out[i] = l.at(i)
	}
	return out, nil
}

// padsOf returns the node's pads for data of rank r, over every axis: the
// begin pads of the r axes, then their end pads.
func (k *fill) padsOf(in []*kernel.Tensor, r int) ([]int64, error) {
	pads := k.pads
	if k.fromInput {
		var err error
		if pads, err = shapeValues(in[1], "pads"); err != nil {
			return nil, err
		}
	}
	if k.axesInput && len(in) > 3 {
		return padsOnAxes(pads, in[3], r)
	}
	if len(pads) != 2*r {
		return nil, fmt.Errorf("pads %v: want %d values for data of rank %d", pads, 2*r, r)
	}
	return pads, nil
}

// padsOnAxes spreads pads, given for the axes of input axes, over the r
// axes of the data: 0 on the axes not listed.
func padsOnAxes(pads []int64, axesT *kernel.Tensor, r int) ([]int64, error) {
	axes, err := valueInts(axesT, "axes", 1)
	if err != nil {
		return nil, err
	}
	if len(pads) != 2*axes.n {
		return nil, fmt.Errorf("pads %v: want %d values for the %d axes of input axes", pads, 2*axes.n, axes.n)
	}
	full := make([]int64, 2*r)
	seen := make([]bool, r)
	for i := range axes.n {
		a, err := kernel.NormAxis(axes.at(i), r)
		if err != nil {
			return nil, fmt.Errorf("input axes: %w", err)
		}
		if seen[a] {
			return nil, fmt.Errorf("input axes names axis %d twice (value %d)", a, axes.at(i))
		}
		seen[a] = true
		full[a], full[r+a] = pads[i], pads[axes.n+i]
	}
	return full, nil
}

func (k *fill) infer(in, out []*kernel.Tensor) error {
	switch k.op {
	case "Expand":
		s, err := shapeValues(in[1], "shape")
		if err != nil {
			return err
		}
		for _, d := range s {
			if d < 0 {
				return fmt.Errorf("shape %v has a negative dimension", s)
			}
		}
		o, err := broadcastAll(in[0].Shape, s)
		if err != nil {
			return err
		}
		setShape(out[0], o, in[0].DType)
	case "ConstantOfShape":
		s, err := shapeValues(in[0], "input")
		if err != nil {
			return err
		}
		for _, d := range s {
			if d < 0 {
				return fmt.Errorf("shape %v has a negative dimension", s)
			}
		}
		setShape(out[0], s, k.value.DType)
	case "Size":
		setShape(out[0], kernel.Shape{}, kernel.Int64)
	case "Pad":
		x := in[0]
		r := x.Shape.Rank()
		pads, err := k.padsOf(in, r)
		if err != nil {
			return err
		}
		s := make(kernel.Shape, r)
		for i, d := range x.Shape {
			s[i] = d + pads[i] + pads[r+i]
			if s[i] < 0 {
				return fmt.Errorf("pads %v remove more than axis %d of data %v holds", pads, i, x.Shape)
			}
			if k.mode != "constant" && s[i] > 0 && (pads[i] > 0 || pads[r+i] > 0) {
				if d == 0 {
					return fmt.Errorf("mode %s cannot pad empty axis %d of data %v", k.mode, i, x.Shape)
				}
				if k.mode == "reflect" && (pads[i] >= d || pads[r+i] >= d) {
					return fmt.Errorf("mode reflect pads axis %d of data %v by %d and %d: at most %d", i, x.Shape, pads[i], pads[r+i], d-1)
				}
			}
			if k.mode == "wrap" {
				// The torus is what the negative pads leave of the axis.
				kept := d + min(pads[i], 0) + min(pads[r+i], 0)
				if kept < 0 || kept == 0 && s[i] > 0 {
					return fmt.Errorf("mode wrap pads axis %d of data %v by %d and %d: nothing is left to wrap around", i, x.Shape, pads[i], pads[r+i])
				}
			}
		}
		if len(in) > 2 && in[2].NumElements() > 0 {
			if in[2].NumElements() != 1 {
				return fmt.Errorf("input constant_value has shape %v, want a scalar", in[2].Shape)
			}
			if err := checkSameDType(in[2], "constant_value", x, "data"); err != nil {
				return err
			}
		}
		setShape(out[0], s, x.DType)
	}
	return nil
}

func (k *fill) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 4).put(e)
	return 0, nil
}

func (k *fill) cost(in, out []*kernel.Tensor) device.Cost {
	b := out[0].Bytes()
	if k.op == "Expand" || k.op == "Pad" {
		b += in[0].Bytes()
	}
	if k.op == "Size" {
		b = 8
	}
	return device.Cost{Bytes: float64(b)}
}

func (k *fill) compute(a *kernel.Args) error {
	o := a.Out[0]
	n := o.NumElements()
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, n); err != nil {
		return err
	}
	ob := o.Data()
	size := int64(o.DType.Size())
	switch k.op {
	case "Size":
		kernel.Int64s(ob)[0] = a.In[0].NumElements()
	case "ConstantOfShape":
		if o.DType != k.value.DType {
			return errors.New("output dtype differs from the value's")
		}
		for i := range n {
			copyElem(ob, i, k.value.Host, 0, size)
		}
	case "Expand":
		x := a.In[0]
		if err := k.walk.set(o.Shape, x.Shape); err != nil {
			return err
		}
		xb := x.Data()
		for i := range n {
			copyElem(ob, i, xb, k.walk.off[0], size)
			k.walk.next()
		}
	case "Pad":
		return k.pad(a)
	}
	return nil
}

// pad writes the padded output, row by row: each output row maps onto at
// most one input row (or none, in constant mode outside the data).
func (k *fill) pad(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	r := x.Shape.Rank()
	pads, err := k.padsOf(a.In, r)
	if err != nil {
		return err
	}
	n := o.NumElements()
	if n == 0 {
		return nil
	}
	size := int64(o.DType.Size())
	xb, ob := x.Data(), o.Data()
	// The fill value, as one element of the output's dtype.
	var val [8]byte
	if len(a.In) > 2 && a.In[2].NumElements() == 1 {
		copy(val[:], a.In[2].Data()[:size])
	} else {
		v := make([]byte, 8)
		storeF(o.DType, v, 0, k.padValue)
		copy(val[:], v)
	}
	if r == 0 {
		copy(ob[:size], xb[:size])
		return nil
	}
	// src maps output coordinate c on axis i to an input coordinate, or -1.
	src := func(i int, c int64) int64 {
		dim := x.Shape[i]
		j := c - pads[i]
		if j >= 0 && j < dim {
			return j
		}
		switch k.mode {
		case "edge":
			return min(max(j, 0), dim-1)
		case "wrap":
			// Around what the negative pads leave: [lo, lo+kept).
			lo := max(-pads[i], 0)
			kept := dim - lo - max(-pads[r+i], 0)
			return lo + ((j-lo)%kept+kept)%kept
		case "reflect":
			if dim == 1 {
				return 0
			}
			period := 2 * (dim - 1)
			j = ((j % period) + period) % period
			if j >= dim {
				j = period - j
			}
			return j
		}
		return -1
	}
	strides := make([]int64, r)
	rowMajor(strides, x.Shape)
	k.idx = grownInts(k.idx, r)
	clear(k.idx)
	last := o.Shape[r-1]
	for base := int64(0); base < n; base += last {
		// The input offset of the row's outer coordinates, or -1.
		off := int64(0)
		for i := range r - 1 {
			j := src(i, k.idx[i])
			if j < 0 {
				off = -1
				break
			}
			off += j * strides[i]
		}
		for c := range last {
			var j int64 = -1
			if off >= 0 {
				j = src(r-1, c)
			}
			if j < 0 {
				copy(ob[(base+c)*size:(base+c+1)*size], val[:size])
			} else {
				copyElem(ob, base+c, xb, off+j, size)
			}
		}
		for i := r - 2; i >= 0; i-- {
			k.idx[i]++
			if k.idx[i] < o.Shape[i] {
				break
			}
			k.idx[i] = 0
		}
	}
	return nil
}
