package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// LayerNorm normalizes float32, float16 or bfloat16 input X over its
// dimensions from attribute axis (default -1) to the last, then scales by
// gamma and shifts by beta: y = (x - mean)·rstd·gamma + beta with rstd =
// 1/√(var + epsilon) (attribute epsilon, default 1e-5; var is the biased
// variance). Inputs are
// X, gamma and an optional beta, both shaped as the normalized dimensions
// X.Shape[axis:] and of X's dtype. A row is one position of the leading
// dimensions. Mean and variance accumulate in float64 in ascending order
// (two passes); y evaluates in float64 and rounds once.
//
// Tiling (words):
//
//	0..4  rows block: rows (product of X.Shape[:axis]), rowLen (product of
//	      X.Shape[axis:]), rowsPerCore, cores, chunk (6 buffers: X and Y
//	      double-buffered, gamma and beta once)
//	5     epsilon as float64 bits
//	6     hasBeta
//
// Workspace: 8 bytes per row, its mean and rstd (float32 each). Cost:
// layerNormFLOPs per element; bytes of all inputs and the output.
type layerNorm struct {
	axis int64
	eps  float64
}

const layerNormFLOPs = 8 // sum, center, square, sum, scale, shift, ...

func newLayerNorm(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("axis", "epsilon"); err != nil {
		return nil, wrapAttr(err)
	}
	axis, err := attrs.Int("axis", -1)
	if err != nil {
		return nil, wrapAttr(err)
	}
	eps, err := attrs.Float("epsilon", 1e-5)
	if err != nil {
		return nil, wrapAttr(err)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("ops: attribute \"epsilon\" is %v, want a finite number ≥ 0", eps)
	}
	return newKernel(sig{op: "LayerNorm", minIn: 2, maxIn: 3, nOut: 1}, &layerNorm{axis: axis, eps: eps}), nil
}

var layerNormNames = [...]string{"X", "gamma", "beta"}

func (k *layerNorm) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := checkFloat(x, "X"); err != nil {
		return err
	}
	axis, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return err
	}
	norm := x.Shape[axis:]
	for i, t := range in[1:] {
		name := layerNormNames[i+1]
		if err := checkSameDType(t, name, x, "X"); err != nil {
			return err
		}
		if !t.Shape.Equal(norm) {
			return fmt.Errorf("input %s has shape %v, want the normalized shape %v", name, t.Shape, norm)
		}
	}
	setShape(out[0], x.Shape, x.DType)
	return nil
}

func (k *layerNorm) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	x := in[0]
	axis, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return 0, err
	}
	n, rowLen := x.Shape[:axis].NumElements(), x.Shape[axis:].NumElements()
	e.grow(rowsWords + 2)
	splitRows(n, rowLen, x.DType.Size(), 6).put(e)
	e.put(int64(math.Float64bits(k.eps)))
	e.putBool(len(in) == 3)
	return 8 * n, nil
}

func (k *layerNorm) cost(in, out []*kernel.Tensor) device.Cost {
	var b int64
	for _, t := range in {
		b += t.Bytes()
	}
	return device.Cost{FLOPs: layerNormFLOPs * float64(in[0].NumElements()), Bytes: float64(b + out[0].Bytes())}
}

func (k *layerNorm) compute(a *kernel.Args) error {
	x, g, o := a.In[0], a.In[1], a.Out[0]
	if x.DType != o.DType || g.DType != x.DType || !x.Shape.Equal(o.Shape) {
		return errors.New("operands differ from the inferred ones")
	}
	rowLen := g.NumElements()
	if len(a.In) == 3 && (a.In[2].NumElements() != rowLen || a.In[2].DType != x.DType) {
		return errors.New("operands differ from the inferred ones")
	}
	n := int64(0)
	if rowLen > 0 {
		n = x.NumElements() / rowLen
	} else if x.NumElements() != 0 {
		return errTiling
	}
	d := decoder{b: a.Tiling.Data}
	if rowLen == 0 {
		// A zero-size row leaves the row count undetermined by the operands;
		// the output is empty either way.
		return nil
	}
	if err := readRows(&d, n, rowLen); err != nil {
		return err
	}
	eps := math.Float64frombits(uint64(d.word()))
	hasBeta := d.word() != 0
	if err := d.err(); err != nil {
		return err
	}
	if hasBeta != (len(a.In) == 3) {
		return errTiling
	}
	switch x.DType {
	case kernel.Float32:
		var beta f32vec
		if hasBeta {
			beta = f32vec(kernel.Float32s(a.In[2].Data()))
		}
		layerNormRows(f32vec(kernel.Float32s(x.Data())), f32vec(kernel.Float32s(g.Data())), beta,
			f32vec(kernel.Float32s(o.Data())), n, rowLen, eps, hasBeta)
	case kernel.Float16:
		var beta f16vec
		if hasBeta {
			beta = f16vec(kernel.Uint16s(a.In[2].Data()))
		}
		layerNormRows(f16vec(kernel.Uint16s(x.Data())), f16vec(kernel.Uint16s(g.Data())), beta,
			f16vec(kernel.Uint16s(o.Data())), n, rowLen, eps, hasBeta)
	case kernel.BFloat16:
		var beta bf16vec
		if hasBeta {
			beta = bf16vec(kernel.Uint16s(a.In[2].Data()))
		}
		layerNormRows(bf16vec(kernel.Uint16s(x.Data())), bf16vec(kernel.Uint16s(g.Data())), beta,
			bf16vec(kernel.Uint16s(o.Data())), n, rowLen, eps, hasBeta)
	}
	return nil
}

func layerNormRows[V vec](x, g, b, o V, n, rowLen int64, eps float64, hasBeta bool) {
	for r := range n {
		base := r * rowLen
		var sum float64
		for j := range rowLen {
			sum += float64(x.at(base + j))
		}
		mean := sum / float64(rowLen)
		var sq float64
		for j := range rowLen {
			c := float64(x.at(base+j)) - mean
			sq += float64(c * c)
		}
		rstd := 1 / math.Sqrt(sq/float64(rowLen)+eps)
		for j := range rowLen {
			y := float64((float64(x.at(base+j)) - mean) * rstd * float64(g.at(j)))
			if hasBeta {
				y += float64(b.at(j))
			}
			o.store(base+j, y)
		}
	}
}
