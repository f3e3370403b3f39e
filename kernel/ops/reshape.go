package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Reshape gives data (any dtype) the shape held in input 1, a 1-D int64
// tensor and a value dependency, with ONNX semantics: a 0 copies the input
// dimension at the same index (unless attribute allowzero is set, when it
// means a zero dimension), and one -1 is inferred from the element count.
// The element counts must match.
//
// Tiling (words):
//
//	0..4  split over the elements; 4 buffers
//
// The device kernel copies the contents. Workspace: none. Cost: no
// arithmetic; bytes of the output, read and written.
type reshape struct{ allowZero bool }

func newReshape(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("allowzero"); err != nil {
		return nil, wrapAttr(err)
	}
	z, err := flagAttr(attrs, "allowzero", false)
	if err != nil {
		return nil, wrapAttr(err)
	}
	s := sig{op: "Reshape", minIn: 2, maxIn: 2, nOut: 1, deps: kernel.Deps{Value: []int{1}}}
	return newKernel(s, &reshape{allowZero: z}), nil
}

func (k *reshape) infer(in, out []*kernel.Tensor) error {
	x, st, o := in[0], in[1], out[0]
	if st.DType != kernel.Int64 {
		return fmt.Errorf("input shape has dtype %v, want int64", st.DType)
	}
	if st.Shape.Rank() != 1 {
		return fmt.Errorf("input shape has rank %d, want 1", st.Shape.Rank())
	}
	want, err := valueInts(st, "shape", 1)
	if err != nil {
		return err
	}
	s := shapeOf(o, want.n)
	known, infer := int64(1), -1
	for i := range want.n {
		v := want.at(i)
		switch {
		case v == -1:
			if infer >= 0 {
				return fmt.Errorf("shape %v has more than one -1", valuesString(want))
			}
			infer = i
			continue
		case v == 0 && !k.allowZero:
			if i >= x.Shape.Rank() {
				return fmt.Errorf("shape %v copies dimension %d of data %v, which has none", valuesString(want), i, x.Shape)
			}
			v = x.Shape[i]
		case v < 0:
			return fmt.Errorf("shape %v has negative dimension %d", valuesString(want), v)
		}
		if v > 0 && known > math.MaxInt64/v {
			return fmt.Errorf("shape %v has more than 2^63 elements", valuesString(want))
		}
		s[i] = v
		known *= v
	}
	n := x.NumElements()
	if infer >= 0 {
		if known == 0 {
			return fmt.Errorf("shape %v: cannot infer -1 next to a zero dimension", valuesString(want))
		}
		if n%known != 0 {
			return fmt.Errorf("cannot reshape data %v (%d elements) to %v", x.Shape, n, valuesString(want))
		}
		s[infer] = n / known
		known = n
	}
	if known != n {
		return fmt.Errorf("cannot reshape data %v (%d elements) to %v (%d elements)", x.Shape, n, valuesString(want), known)
	}
	o.Shape, o.DType = s, x.DType
	return nil
}

// valuesString formats an integer list for errors.
func valuesString(l ints) string {
	s := make(kernel.Shape, l.n)
	for i := range s {
		s[i] = l.at(i)
	}
	return fmt.Sprint([]int64(s))
}

func (k *reshape) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if in[0].NumElements() != out[0].NumElements() || in[0].DType != out[0].DType {
		return 0, fmt.Errorf("output %v does not hold data %v", out[0], in[0])
	}
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 4).put(e)
	return 0, nil
}

func (k *reshape) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(2 * out[0].Bytes())}
}

func (k *reshape) compute(a *kernel.Args) error {
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
