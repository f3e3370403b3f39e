package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Slice takes a strided sub-range of its input (any dtype) with ONNX
// semantics. For each listed axis it takes start, end (exclusive) and a
// nonzero step: negative start and end count from the end of the dimension,
// then both are clamped (to [0, dim] for a positive step, to [0, dim-1] and
// [-1, dim-1] for a negative one). With a negative step an end of
// math.MaxInt32 or math.MaxInt64 means "through index 0" (end −1), as in
// onnxruntime, which reads those values as "to the end" in either
// direction, where the clamping alone would give an empty range. The
// output dimension is
// max(0, ceil((end-start)/step)). Unlisted axes are taken whole. Axes
// default to 0, 1, …; steps to 1; negative axes count from the end and no
// axis may repeat.
//
// The parameters come either from the attributes starts, ends, axes and
// steps (then the node has one input), or, without attributes, from the
// int64 (or int32) 1-D inputs 1 to 4 — starts, ends, optional axes,
// optional steps, each omitted when empty (axes may be omitted before
// steps) — which are value dependencies, so that Shape → Slice chains
// compute shapes from shapes.
//
// Tiling and computation: the strided copy (see strided.go); base is
// Σ start·stride and a loop stride is step·stride.
type slice struct {
	fromAttrs                 bool
	starts, ends, axes, steps []int64
	hasAxes, hasSteps         bool
}

var sliceNames = [...]string{"data", "starts", "ends", "axes", "steps"}

func newSlice(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("starts", "ends", "axes", "steps"); err != nil {
		return nil, wrapAttr(err)
	}
	_, hasStarts := attrs["starts"]
	_, hasEnds := attrs["ends"]
	_, hasAxes := attrs["axes"]
	_, hasSteps := attrs["steps"]
	k := &slice{fromAttrs: hasStarts || hasEnds || hasAxes || hasSteps}
	for _, name := range [...]string{"starts", "ends", "axes"} {
		if err := attrInOpset(attrs, "Slice", name, 1, 9); err != nil {
			return nil, fmt.Errorf("%w (from opset 10 it is an input)", err)
		}
	}
	if v, err := attrs.Opset(10); err != nil {
		return nil, wrapAttr(err)
	} else if v < 10 && !k.fromAttrs {
		return nil, fmt.Errorf("ops: Slice: opset %d takes starts and ends as attributes (inputs from opset 10)", v)
	}
	if !k.fromAttrs {
		s := sig{op: "Slice", minIn: 3, maxIn: 5, nOut: 1, deps: kernel.Deps{Value: []int{1, 2, 3, 4}}}
		return newKernel(s, k), nil
	}
	// The attributes given are read before the required ones are looked
	// for, so that one of the wrong type is named whichever is missing.
	var err error
	if k.starts, err = attrs.Ints("starts", nil); err != nil {
		return nil, wrapAttr(err)
	}
	if k.ends, err = attrs.Ints("ends", nil); err != nil {
		return nil, wrapAttr(err)
	}
	_, k.hasAxes = attrs["axes"]
	if k.axes, err = attrs.Ints("axes", nil); err != nil {
		return nil, wrapAttr(err)
	}
	_, k.hasSteps = attrs["steps"]
	if k.steps, err = attrs.Ints("steps", nil); err != nil {
		return nil, wrapAttr(err)
	}
	for _, name := range [...]string{"starts", "ends"} {
		if _, ok := attrs[name]; !ok {
			return nil, fmt.Errorf("ops: attribute %q is required when slicing by attributes", name)
		}
	}
	return newKernel(sig{op: "Slice", minIn: 1, maxIn: 1, nOut: 1}, k), nil
}

// sliceArgs are a node's slice parameters, checked against the data rank.
type sliceArgs struct {
	starts, ends, axes, steps ints
	hasAxes, hasSteps         bool
	rank                      int
}

func (k *slice) args(in []*kernel.Tensor) (sliceArgs, error) {
	p := sliceArgs{rank: in[0].Shape.Rank()}
	if k.fromAttrs {
		p.starts, p.ends = attrInts(k.starts), attrInts(k.ends)
		p.axes, p.steps = attrInts(k.axes), attrInts(k.steps)
		p.hasAxes, p.hasSteps = k.hasAxes, k.hasSteps
	} else {
		lists := [...]*ints{nil, &p.starts, &p.ends, &p.axes, &p.steps}
		has := [...]*bool{nil, nil, nil, &p.hasAxes, &p.hasSteps}
		for i := 1; i < len(in); i++ {
			if i >= 3 && in[i].NumElements() == 0 {
				continue // omitted (axes omitted before steps)
			}
			l, err := valueInts(in[i], sliceNames[i], 1)
			if err != nil {
				return p, err
			}
			*lists[i] = l
			if has[i] != nil {
				*has[i] = true
			}
		}
	}
	n := p.starts.n
	switch {
	case p.ends.n != n:
		return p, fmt.Errorf("%d starts but %d ends", n, p.ends.n)
	case p.hasAxes && p.axes.n != n:
		return p, fmt.Errorf("%d starts but %d axes", n, p.axes.n)
	case p.hasSteps && p.steps.n != n:
		return p, fmt.Errorf("%d starts but %d steps", n, p.steps.n)
	case !p.hasAxes && n > p.rank:
		return p, fmt.Errorf("%d starts for an input of rank %d", n, p.rank)
	}
	for i := range n {
		a, err := p.axis(i)
		if err != nil {
			return p, err
		}
		for j := range i {
			if b, _ := p.axis(j); a == b {
				return p, fmt.Errorf("axes[%d] and axes[%d] both name axis %d", j, i, a)
			}
		}
		if p.step(i) == 0 {
			return p, fmt.Errorf("steps[%d] is 0", i)
		}
	}
	return p, nil
}

func (p *sliceArgs) axis(i int) (int, error) {
	if !p.hasAxes {
		return i, nil
	}
	a, err := kernel.NormAxis(p.axes.at(i), p.rank)
	if err != nil {
		return 0, fmt.Errorf("axes[%d]: %w", i, err)
	}
	return a, nil
}

func (p *sliceArgs) step(i int) int64 {
	if !p.hasSteps {
		return 1
	}
	return p.steps.at(i)
}

// dim returns the first index, step and output length along dimension d of
// size size.
func (p *sliceArgs) dim(d int, size int64) (start, step, n int64) {
	for i := range p.starts.n {
		if a, _ := p.axis(i); a == d {
			step = p.step(i)
			start, n = sliceDim(p.starts.at(i), p.ends.at(i), step, size)
			return start, step, n
		}
	}
	return 0, 1, size
}

// sliceDim applies the ONNX clamping rules (see slice).
func sliceDim(start, end, step, size int64) (first, n int64) {
	if size == 0 {
		return 0, 0
	}
	if start < 0 {
		start += size
	}
	if end < 0 {
		end += size
	}
	if step < 0 && (end == math.MaxInt32 || end == math.MaxInt64) {
		end = -1 // "to the end", walking down: through index 0
	}
	if step > 0 {
		start, end = min(max(start, 0), size), min(max(end, 0), size)
		if end > start {
			n = 1 + (end-start-1)/step
		}
		return start, n
	}
	start, end = min(max(start, 0), size-1), min(max(end, -1), size-1)
	if start > end {
		// -step overflows only for the most negative step, where the
		// quotient is 0 either way.
		n = 1 + (start-end-1)/(-step)
	}
	return start, n
}

func (k *slice) infer(in, out []*kernel.Tensor) error {
	x, o := in[0], out[0]
	p, err := k.args(in)
	if err != nil {
		return err
	}
	s := shapeOf(o, p.rank)
	for d := range p.rank {
		_, _, s[d] = p.dim(d, x.Shape[d])
	}
	o.Shape, o.DType = s, x.DType
	return nil
}

func (k *slice) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	x, o := in[0], out[0]
	p, err := k.args(in)
	if err != nil {
		return 0, err
	}
	r := p.rank
	var buf [24]int64
	s := scratch(buf[:], 3*r)
	xs, dims, st := s[:r], s[r:2*r], s[2*r:]
	rowMajor(xs, x.Shape)
	var base int64
	for d := range r {
		start, step, n := p.dim(d, x.Shape[d])
		base += start * xs[d]
		dims[d], st[d] = n, step*xs[d]
	}
	if !o.Shape.Equal(dims) {
		return 0, errors.New("output shape " + o.Shape.String() + " is not the slice " + kernel.Shape(dims).String())
	}
	encodeStrided(e, o.NumElements(), o.DType.Size(), base, dims, st)
	return 0, nil
}

func (k *slice) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(2 * out[0].Bytes())}
}

func (k *slice) compute(a *kernel.Args) error { return computeStrided(a) }
