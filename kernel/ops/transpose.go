package ops

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Transpose permutes the dimensions of its input (any dtype): output
// dimension i is input dimension perm[i]. Attribute perm defaults to the
// reversed dimensions. Tiling and computation: the strided copy (see
// strided.go) with base 0.
type transpose struct {
	perm []int64 // nil: reverse
}

func newTranspose(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("perm"); err != nil {
		return nil, wrapAttr(err)
	}
	perm, err := attrs.Ints("perm", nil)
	if err != nil {
		return nil, wrapAttr(err)
	}
	for i, p := range perm {
		for _, q := range perm[:i] {
			if p == q {
				return nil, fmt.Errorf("ops: attribute \"perm\" %v repeats %d", perm, p)
			}
		}
		if p < 0 || p >= int64(len(perm)) {
			return nil, fmt.Errorf("ops: attribute \"perm\" %v is not a permutation", perm)
		}
	}
	return newKernel(sig{op: "Transpose", minIn: 1, maxIn: 1, nOut: 1}, &transpose{perm: perm}), nil
}

// axis returns the input dimension of output dimension i.
func (k *transpose) axis(i, rank int) int {
	if k.perm == nil {
		return rank - 1 - i
	}
	return int(k.perm[i])
}

func (k *transpose) check(rank int) error {
	if k.perm != nil && len(k.perm) != rank {
		return fmt.Errorf("attribute perm %v has %d entries, input has rank %d", k.perm, len(k.perm), rank)
	}
	return nil
}

func (k *transpose) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	r := x.Shape.Rank()
	if err := k.check(r); err != nil {
		return err
	}
	s := shapeOf(out[0], r)
	for i := range r {
		s[i] = x.Shape[k.axis(i, r)]
	}
	out[0].Shape, out[0].DType = s, x.DType
	return nil
}

func (k *transpose) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	x, o := in[0], out[0]
	r := x.Shape.Rank()
	if err := k.check(r); err != nil {
		return 0, err
	}
	var buf [24]int64
	s := scratch(buf[:], 3*r)
	xs, dims, st := s[:r], s[r:2*r], s[2*r:]
	rowMajor(xs, x.Shape)
	for i := range r {
		a := k.axis(i, r)
		dims[i], st[i] = x.Shape[a], xs[a]
	}
	if !o.Shape.Equal(dims) {
		return 0, fmt.Errorf("output shape %v is not the transpose %s", o.Shape, kernel.Shape(dims).String())
	}
	encodeStrided(e, o.NumElements(), o.DType.Size(), 0, dims, st)
	return 0, nil
}

func (k *transpose) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{Bytes: float64(2 * out[0].Bytes())}
}

func (k *transpose) compute(a *kernel.Args) error { return computeStrided(a) }
