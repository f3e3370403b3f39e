package ops

import (
	"errors"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Add, Sub, Mul and Div: elementwise binary ops with numpy broadcasting on
// float32, float16, bfloat16, float64 and every integer type, signed
// (int8 to int64) or unsigned (uint8 to uint64); integers wrap. Both
// inputs have the same dtype. Integer Div truncates toward zero (unsigned
// types divide as unsigned), and an integer division by zero fails the
// launch; float division follows IEEE 754 (±Inf, NaN). float16 and
// bfloat16 compute in float32 and round once to their type.
//
// Tiling (words):
//
//	0..4        split over the output elements; 6 buffers (A, B and the
//	            output, double-buffered)
//	5           R: rank of the loop nest over the output after dropping unit
//	            dimensions and merging dimensions both inputs walk as one run
//	6..         dims[R], strideA[R], strideB[R]: element strides of the
//	            inputs per loop dimension, 0 where an input is broadcast
//
// Workspace: none. Cost: one operation per output element; bytes of both
// inputs and the output.

type binOp uint8

const (
	opAdd binOp = iota + 1
	opSub
	opMul
	opDiv
)

var errDivZero = errors.New("integer division by zero")

type arith struct{ op binOp }

func newBinary(op binOp, name string) kernel.Factory {
	return func(attrs kernel.Attrs) (kernel.Kernel, error) {
		if err := attrs.Check(); err != nil {
			return nil, wrapAttr(err)
		}
		return newKernel(sig{op: name, minIn: 2, maxIn: 2, nOut: 1}, &arith{op: op}), nil
	}
}

func (k *arith) infer(in, out []*kernel.Tensor) error {
	a, b, o := in[0], in[1], out[0]
	if err := dtypeIn(a, "A", onnxNumeric...); err != nil {
		return err
	}
	if err := checkSameDType(b, "B", a, "A"); err != nil {
		return err
	}
	s := shapeOf(o, max(len(a.Shape), len(b.Shape)))
	if err := broadcastDims(s, a.Shape, b.Shape); err != nil {
		return err
	}
	o.Shape, o.DType = s, a.DType
	return nil
}

func (k *arith) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	a, b, o := in[0], in[1], out[0]
	r := len(o.Shape)
	var buf [24]int64
	s := scratch(buf[:], 3*r)
	dims, sa, sb := s[:r], s[r:2*r], s[2*r:]
	copy(dims, o.Shape)
	if err := bcastStrides(sa, a.Shape, o.Shape, 1); err != nil {
		return 0, err
	}
	if err := bcastStrides(sb, b.Shape, o.Shape, 1); err != nil {
		return 0, err
	}
	n := coalesce(dims, sa, sb)
	e.grow(splitWords + 1 + 3*n)
	splitElems(o.NumElements(), o.DType.Size(), 6).put(e)
	e.put(int64(n))
	e.puts(dims[:n])
	e.puts(sa[:n])
	e.puts(sb[:n])
	return 0, nil
}

func (k *arith) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{
		FLOPs: float64(out[0].NumElements()),
		Bytes: float64(in[0].Bytes() + in[1].Bytes() + out[0].Bytes()),
	}
}

func (k *arith) compute(a *kernel.Args) error {
	x, y, o := a.In[0], a.In[1], a.Out[0]
	if x.DType != o.DType || y.DType != o.DType {
		return errors.New("operand dtypes differ from the inferred ones")
	}
	total := o.NumElements()
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, total); err != nil {
		return err
	}
	r := d.word()
	e := binExec{op: k.op, dt: o.DType, rank: int(r), xb: x.Data(), yb: y.Data(), ob: o.Data()}
	e.dims, e.sx, e.sy = d.words(r), d.words(r), d.words(r)
	if err := d.err(); err != nil {
		return err
	}
	if total == 0 {
		return nil
	}
	for _, c := range [...]struct {
		s words
		n int64
	}{{e.sx, x.NumElements()}, {e.sy, y.NumElements()}} {
		points, err := checkWalk(e.dims, c.s, 0, 1, c.n)
		if err != nil {
			return err
		}
		if points != total {
			return errTiling
		}
	}
	if r == 0 {
		return e.leaf(0, 0, 1, 0, 0)
	}
	return e.walk(0, 0, 0)
}

// binExec walks the loop nest of a binary op, writing the output in order.
type binExec struct {
	op           binOp
	dt           kernel.DType
	rank         int
	dims, sx, sy words
	xb, yb, ob   []byte
	next         int64 // next output element
}

func (e *binExec) walk(d int, ox, oy int64) error {
	n, sx, sy := e.dims.at(d), e.sx.at(d), e.sy.at(d)
	if d == e.rank-1 {
		return e.leaf(ox, oy, n, sx, sy)
	}
	for range n {
		if err := e.walk(d+1, ox, oy); err != nil {
			return err
		}
		ox += sx
		oy += sy
	}
	return nil
}

func (e *binExec) leaf(ox, oy, n, sx, sy int64) error {
	o := e.next
	e.next += n
	switch e.dt {
	case kernel.Float32:
		return binLoop(e.op, kernel.Float32s(e.ob)[o:o+n], kernel.Float32s(e.xb)[ox:], kernel.Float32s(e.yb)[oy:], sx, sy)
	case kernel.Float16:
		binFloat16(e.op, kernel.Uint16s(e.ob)[o:o+n], kernel.Uint16s(e.xb)[ox:], kernel.Uint16s(e.yb)[oy:], sx, sy)
	case kernel.Int32:
		return binLoop(e.op, kernel.Int32s(e.ob)[o:o+n], kernel.Int32s(e.xb)[ox:], kernel.Int32s(e.yb)[oy:], sx, sy)
	case kernel.Int64:
		return binLoop(e.op, kernel.Int64s(e.ob)[o:o+n], kernel.Int64s(e.xb)[ox:], kernel.Int64s(e.yb)[oy:], sx, sy)
	case kernel.Float64:
		return binLoop(e.op, kernel.Float64s(e.ob)[o:o+n], kernel.Float64s(e.xb)[ox:], kernel.Float64s(e.yb)[oy:], sx, sy)
	case kernel.Int8:
		return binLoop(e.op, kernel.Int8s(e.ob)[o:o+n], kernel.Int8s(e.xb)[ox:], kernel.Int8s(e.yb)[oy:], sx, sy)
	case kernel.Uint8:
		return binLoop(e.op, e.ob[o:o+n], e.xb[ox:], e.yb[oy:], sx, sy)
	case kernel.Int16:
		return binLoop(e.op, kernel.Int16s(e.ob)[o:o+n], kernel.Int16s(e.xb)[ox:], kernel.Int16s(e.yb)[oy:], sx, sy)
	case kernel.Uint16:
		return binLoop(e.op, kernel.Uint16s(e.ob)[o:o+n], kernel.Uint16s(e.xb)[ox:], kernel.Uint16s(e.yb)[oy:], sx, sy)
	case kernel.Uint32:
		return binLoop(e.op, kernel.Uint32s(e.ob)[o:o+n], kernel.Uint32s(e.xb)[ox:], kernel.Uint32s(e.yb)[oy:], sx, sy)
	case kernel.Uint64:
		return binLoop(e.op, kernel.Uint64s(e.ob)[o:o+n], kernel.Uint64s(e.xb)[ox:], kernel.Uint64s(e.yb)[oy:], sx, sy)
	case kernel.BFloat16:
		binBFloat16(e.op, kernel.Uint16s(e.ob)[o:o+n], kernel.Uint16s(e.xb)[ox:], kernel.Uint16s(e.yb)[oy:], sx, sy)
	default:
		return errors.New("unsupported dtype " + e.dt.String())
	}
	return nil
}

func binFloat16(op binOp, o, x, y []uint16, sx, sy int64) {
	var i, j int64
	for k := range o {
		a, b := kernel.F16ToF32(x[i]), kernel.F16ToF32(y[j])
		var r float32
		switch op {
		case opAdd:
			r = a + b
		case opSub:
			r = a - b
		case opMul:
			r = a * b
		case opDiv:
			r = a / b
		}
		o[k] = kernel.F32ToF16(r)
		i, j = i+sx, j+sy
	}
}

// binBFloat16 is binFloat16 for bfloat16.
func binBFloat16(op binOp, o, x, y []uint16, sx, sy int64) {
	var i, j int64
	for k := range o {
		a, b := kernel.BF16ToF32(x[i]), kernel.BF16ToF32(y[j])
		var r float32
		switch op {
		case opAdd:
			r = a + b
		case opSub:
			r = a - b
		case opMul:
			r = a * b
		case opDiv:
			r = a / b
		}
		o[k] = kernel.F32ToBF16(r)
		i, j = i+sx, j+sy
	}
}

// binLoop applies op element by element, walking x and y with strides sx
// and sy (0 for a broadcast operand). The switch is outside the loops so
// that each loop is a plain vector-friendly body. Integer division by zero
// is an error; float division by zero follows IEEE 754.
func binLoop[T float32 | float64 | int32 | int64 | int8 | uint8 | int16 | uint16 | uint32 | uint64](op binOp, o, x, y []T, sx, sy int64) error {
	var i, j int64
	switch op {
	case opAdd:
		for k := range o {
			o[k] = x[i] + y[j]
			i, j = i+sx, j+sy
		}
	case opSub:
		for k := range o {
			o[k] = x[i] - y[j]
			i, j = i+sx, j+sy
		}
	case opMul:
		for k := range o {
			o[k] = x[i] * y[j]
			i, j = i+sx, j+sy
		}
	case opDiv:
		_, f32 := any(o).([]float32)
		_, f64 := any(o).([]float64)
		float := f32 || f64
		for k := range o {
			if !float && y[j] == 0 {
				return errDivZero
			}
			o[k] = x[i] / y[j]
			i, j = i+sx, j+sy
		}
	}
	return nil
}
