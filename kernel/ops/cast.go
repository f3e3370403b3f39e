package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Cast converts elements to the dtype of attribute "to" (a kernel.DType or
// its name), between every pair of pipert's dtypes: float32, float16,
// float64, int32, int64, int8, uint8 and bool.
//
//   - float to float rounds to nearest even, once (float64 to float16 too).
//   - float to integer truncates toward zero and saturates at the bounds of
//     the target type; NaN becomes 0.
//   - integer to integer wraps (two's complement), as a Go conversion.
//   - integer to float rounds to nearest even; int to float16 rounds through
//     float32.
//   - to bool: nonzero (NaN included) is true; from bool: false 0, true 1.
//     A bool element is a byte; any nonzero byte reads as true.
//
// From opset 19 the attribute saturate (0 or 1, default 1) is accepted:
// it concerns the conversions to float 8 types only, which pipert does not
// have, so it changes nothing. From opset 24 so is round_mode (up, the
// default, down or nearest): it concerns the conversions to float8e8m0
// only.
//
// Tiling (words):
//
//	0..4  split over the elements; 4 buffers of the wider element type
//
// Workspace: none. Cost: one operation per element; bytes of input and
// output.
type cast struct{ to kernel.DType }

func newCast(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := checkSaturate(attrs, "to"); err != nil {
		return nil, err
	}
	if _, ok := attrs["to"]; !ok {
		return nil, errors.New("ops: attribute \"to\" is required")
	}
	to, err := attrs.DType("to", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "Cast", minIn: 1, maxIn: 1, nOut: 1}, &cast{to: to}), nil
}

// checkSaturate checks the attributes of a Cast or CastLike: those of
// known; from opset 19 saturate, a flag; from opset 24 round_mode, up,
// down or nearest. Neither has an effect on pipert's dtypes.
func checkSaturate(attrs kernel.Attrs, known ...string) error {
	opset, err := attrs.Opset(17)
	if err != nil {
		return wrapAttr(err)
	}
	if opset < 19 {
		if err := attrs.Check(known...); err != nil {
			return wrapAttr(err)
		}
		return nil
	}
	known = append(known, "saturate")
	if opset >= 24 {
		known = append(known, "round_mode")
	}
	if err := attrs.Check(known...); err != nil {
		return wrapAttr(err)
	}
	if _, err := flagAttr(attrs, "saturate", true); err != nil {
		return wrapAttr(err)
	}
	mode, err := attrs.String("round_mode", "up")
	if err != nil {
		return wrapAttr(err)
	}
	if mode != "up" && mode != "down" && mode != "nearest" {
		return fmt.Errorf("ops: attribute \"round_mode\" is %q, want up, down or nearest", mode)
	}
	return nil
}

func (k *cast) infer(in, out []*kernel.Tensor) error {
	if !k.to.Valid() || !in[0].DType.Valid() {
		return fmt.Errorf("cannot cast %v to %v", in[0].DType, k.to)
	}
	setShape(out[0], in[0].Shape, k.to)
	return nil
}

func (k *cast) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if !in[0].Shape.Equal(out[0].Shape) {
		return 0, fmt.Errorf("output shape %v differs from input shape %v", out[0].Shape, in[0].Shape)
	}
	e.grow(splitWords)
	splitElems(out[0].NumElements(), max(in[0].DType.Size(), k.to.Size()), 4).put(e)
	return 0, nil
}

func (k *cast) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: float64(out[0].NumElements()), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *cast) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	n := o.NumElements()
	if o.DType != k.to || x.NumElements() != n {
		return errors.New("operands differ from the inferred ones")
	}
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, n); err != nil {
		return err
	}
	xb, ob := x.Data(), o.Data()
	if x.DType == k.to {
		copy(ob, xb) // the identity keeps every bit: NaN payloads, signalling NaNs
		return nil
	}
	for i := range n {
		switch x.DType {
		case kernel.Float32:
			storeFloat(ob, k.to, i, float64(kernel.Float32s(xb)[i]))
		case kernel.Float16:
			storeFloat(ob, k.to, i, float64(kernel.F16ToF32(kernel.Uint16s(xb)[i])))
		case kernel.Float64:
			storeFloat(ob, k.to, i, kernel.Float64s(xb)[i])
		case kernel.Int32:
			storeInt(ob, k.to, i, int64(kernel.Int32s(xb)[i]))
		case kernel.Int64:
			storeInt(ob, k.to, i, kernel.Int64s(xb)[i])
		case kernel.Int8:
			storeInt(ob, k.to, i, int64(kernel.Int8s(xb)[i]))
		case kernel.Uint8:
			storeInt(ob, k.to, i, int64(xb[i]))
		case kernel.Bool:
			var v int64
			if xb[i] != 0 {
				v = 1
			}
			storeInt(ob, k.to, i, v)
		default:
			return fmt.Errorf("cannot cast from %v", x.DType)
		}
	}
	return nil
}

// storeFloat stores float value v as element i of dtype dt. To float32 and
// float16 it rounds once to nearest even; to integers it
// truncates toward zero and saturates (NaN gives 0).
func storeFloat(b []byte, dt kernel.DType, i int64, v float64) {
	switch dt {
	case kernel.Float32:
		kernel.Float32s(b)[i] = float32(v)
	case kernel.Float16:
		kernel.Uint16s(b)[i] = f64ToF16(v)
	case kernel.Float64:
		kernel.Float64s(b)[i] = v
	case kernel.Int32:
		kernel.Int32s(b)[i] = int32(saturate(v, math.MinInt32, math.MaxInt32))
	case kernel.Int64:
		kernel.Int64s(b)[i] = saturate(v, math.MinInt64, math.MaxInt64)
	case kernel.Int8:
		kernel.Int8s(b)[i] = int8(saturate(v, math.MinInt8, math.MaxInt8))
	case kernel.Uint8:
		b[i] = uint8(saturate(v, 0, math.MaxUint8))
	case kernel.Bool:
		b[i] = 0
		if v != 0 {
			b[i] = 1
		}
	}
}

// saturate truncates v toward zero and clamps it to [lo, hi]; NaN gives 0.
func saturate(f float64, lo, hi int64) int64 {
	switch {
	case f != f:
		return 0
	case f <= float64(lo):
		return lo
	case f >= float64(hi):
		// float64(hi) may round up past hi (int64): every such f is out of
		// range too.
		return hi
	}
	return int64(f)
}

// storeInt stores integer value v as element i of dtype dt: to floats it
// rounds to nearest even, to narrower integers it wraps (two's
// complement), to bool it tests nonzero.
func storeInt(b []byte, dt kernel.DType, i int64, v int64) {
	switch dt {
	case kernel.Float32:
		kernel.Float32s(b)[i] = float32(v)
	case kernel.Float16:
		kernel.Uint16s(b)[i] = kernel.F32ToF16(float32(v))
	case kernel.Float64:
		kernel.Float64s(b)[i] = float64(v)
	case kernel.Int32:
		kernel.Int32s(b)[i] = int32(v)
	case kernel.Int64:
		kernel.Int64s(b)[i] = v
	case kernel.Int8:
		kernel.Int8s(b)[i] = int8(v)
	case kernel.Uint8:
		b[i] = uint8(v)
	case kernel.Bool:
		b[i] = 0
		if v != 0 {
			b[i] = 1
		}
	}
}
