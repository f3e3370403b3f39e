package ops

import (
	"errors"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Softmax and LogSoftmax normalize float32, float16, bfloat16 or float64
// input along attribute axis (default -1; the input must have rank ≥ 1).
// Before ONNX opset 13 (attribute "opset") the input is flattened to 2-D at
// axis (default 1): a row is every element of the dimensions from axis on. A
// row is the set of elements along the axis at one position of the other
// dimensions. Both subtract the row maximum m first: Softmax is
// exp(x-m)/Σexp(x-m), LogSoftmax (x-m) - log Σexp(x-m). Sums run in float32
// in ascending order; exp and log evaluate in float64 and round to float32.
// Float64 input computes in float64 throughout.
//
// Tiling (words):
//
//	0   outer: product of the dimensions before the axis
//	1   axisLen  2 inner: product of the dimensions after the axis; element
//	    j of row (o, i) is at (o·axisLen + j)·inner + i
//	3.. rows block: rows (outer·inner), rowLen (axisLen), rowsPerCore,
//	    cores, chunk (row elements per local-memory pass; 4 buffers)
//
// Workspace: 8 bytes per row, the row maximum and sum (float32 each).
// Cost: softmaxFLOPs per element; bytes of input and output.
type softmax struct {
	log     bool
	axis    int64
	flatten bool // before opset 13
}

const (
	softmaxFLOPs = 5 // max, subtract, exp, sum, scale
	softmaxWords = 3 + rowsWords
)

func newSoftmax(log bool) kernel.Factory {
	name := "Softmax"
	if log {
		name = "LogSoftmax"
	}
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check("axis"); err != nil {
			return nil, wrapAttr(err)
		}
		opset, err := attrs.Opset(17)
		if err != nil {
			return nil, wrapAttr(err)
		}
		k := &softmax{log: log, flatten: opset < 13}
		def := int64(-1)
		if k.flatten {
			def = 1
		}
		if k.axis, err = attrs.Int("axis", def); err != nil {
			return nil, wrapAttr(err)
		}
		return newKernel(sig{op: name, minIn: 1, maxIn: 1, nOut: 1}, k), nil
	}
}

// around splits s at axis into outer, axis length and inner.
func around(s kernel.Shape, axis int) (outer, n, inner int64) {
	return s[:axis].NumElements(), s[axis], s[axis+1:].NumElements()
}

func (k *softmax) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := dtypeIn(x, "X", onnxFloats...); err != nil {
		return err
	}
	if _, err := kernel.NormAxis(k.axis, x.Shape.Rank()); err != nil {
		return err
	}
	setShape(out[0], x.Shape, x.DType)
	return nil
}

func (k *softmax) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	x := in[0]
	axis, err := kernel.NormAxis(k.axis, x.Shape.Rank())
	if err != nil {
		return 0, err
	}
	outer, n, inner := around(x.Shape, axis)
	if k.flatten {
		n, inner = n*inner, 1
	}
	e.grow(softmaxWords)
	e.put(outer)
	e.put(n)
	e.put(inner)
	splitRows(outer*inner, n, x.DType.Size(), 4).put(e)
	return 8 * outer * inner, nil
}

func (k *softmax) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{
		FLOPs: softmaxFLOPs * float64(in[0].NumElements()),
		Bytes: float64(in[0].Bytes() + out[0].Bytes()),
	}
}

func (k *softmax) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	if x.DType != o.DType || !x.Shape.Equal(o.Shape) {
		return errors.New("operands differ from the inferred ones")
	}
	d := decoder{b: a.Tiling.Data}
	outer, n, inner := d.word(), d.word(), d.word()
	if err := d.err(); err != nil {
		return err
	}
	if outer < 0 || n < 0 || inner < 0 || outer*n*inner != x.NumElements() {
		return errTiling
	}
	if err := readRows(&d, outer*inner, n); err != nil {
		return err
	}
	xb, ob := x.Data(), o.Data()
	switch x.DType {
	case kernel.Float32:
		softmaxRows(k.log, f32vec(kernel.Float32s(xb)), f32vec(kernel.Float32s(ob)), outer, n, inner)
	case kernel.Float16:
		softmaxRows(k.log, f16vec(kernel.Uint16s(xb)), f16vec(kernel.Uint16s(ob)), outer, n, inner)
	case kernel.BFloat16:
		softmaxRows(k.log, bf16vec(kernel.Uint16s(xb)), bf16vec(kernel.Uint16s(ob)), outer, n, inner)
	case kernel.Float64:
		softmaxRows64(k.log, kernel.Float64s(xb), kernel.Float64s(ob), outer, n, inner)
	}
	return nil
}

// softmaxRows64 is softmaxRows in float64 throughout.
func softmaxRows64(log bool, x, o []float64, outer, n, inner int64) {
	for p := range outer {
		for i := range inner {
			base := p*n*inner + i
			m := math.Inf(-1)
			for j := range n {
				if v := x[base+j*inner]; v > m {
					m = v
				}
			}
			var sum float64
			for j := range n {
				sum += expF(x[base+j*inner] - m)
			}
			ls := math.Log(sum)
			for j := range n {
				at := base + j*inner
				if log {
					o[at] = x[at] - m - ls
				} else {
					o[at] = expF(x[at]-m) / sum
				}
			}
		}
	}
}

func softmaxRows[V vec](log bool, x, o V, outer, n, inner int64) {
	for p := range outer {
		for i := range inner {
			base := p*n*inner + i
			m := float32(math.Inf(-1))
			for j := range n {
				if v := x.at(base + j*inner); v > m {
					m = v
				}
			}
			var sum float32
			for j := range n {
				sum += float32(expF(float64(x.at(base+j*inner) - m)))
			}
			if log {
				ls := float32(math.Log(float64(sum)))
				for j := range n {
					at := base + j*inner
					o.set(at, (x.at(at)-m)-ls)
				}
				continue
			}
			for j := range n {
				at := base + j*inner
				o.set(at, float32(expF(float64(x.at(at)-m)))/sum)
			}
		}
	}
}
