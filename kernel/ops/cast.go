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
// bfloat16, float64, the float 8 types, float4e2m1, int8, int16, int32,
// int64, uint8, uint16, uint32, uint64, int4, uint4, int2, uint2 and bool.
//
//   - float to float rounds to nearest even, once (float64 to float16 and
//     to bfloat16 too); a NaN stays NaN.
//   - float to integer truncates toward zero and saturates at the bounds of
//     the target type (0 for the unsigned types below 0); NaN becomes 0.
//     ONNX leaves out-of-range values undefined.
//   - integer to integer wraps (two's complement: the low bits are kept),
//     as C's static_cast and a Go conversion do; a uint64 is unsigned.
//   - integer to float rounds to nearest even; int to float16 and to
//     bfloat16 round through float32, as onnxruntime does.
//   - to bool: nonzero (NaN included) is true; from bool: false 0, true 1.
//     A bool element is a byte; any nonzero byte reads as true.
//   - to the float 8 types and float4e2m1: kernel.F64ToF8 (integers
//     through float32), saturating unless saturate is 0 (float4e2m1, which
//     has no NaN or infinity, always saturates and takes a NaN to −0, as
//     ONNX's node tests do); to float8e8m0:
//     kernel.F32ToE8M0 of the value as a float32, rounded by round_mode.
//   - float to int4, uint4, int2 and uint2 rounds to nearest even and
//     keeps the low bits, as ONNX's 4-bit page says (NaN gives 0).
//
// From opset 19 the attribute saturate (0 or 1, default 1) is accepted: it
// concerns the conversions to float 8 types only. From opset 24 so is
// round_mode (up, the default, down or nearest): it concerns the
// conversions to float8e8m0 only.
//
// Tiling (words):
//
//	0..4  split over the elements; 4 buffers of the wider element type
//
// Workspace: none. Cost: one operation per element; bytes of input and
// output.
type cast struct {
	to   kernel.DType
	mode castMode
}

// castMode is how a Cast rounds to the float 8 types: its saturate and
// round_mode.
type castMode struct {
	saturate bool
	round    kernel.E8M0Rounding
}

// defaultCast is Cast's default: saturate, round up.
var defaultCast = castMode{saturate: true, round: kernel.RoundUp}

func newCast(attrs kernel.Attrs) (kernel.Kernel, error) {
	mode, err := castAttrs(attrs, "to")
	if err != nil {
		return nil, err
	}
	if _, ok := attrs["to"]; !ok {
		return nil, errors.New("ops: attribute \"to\" is required")
	}
	to, err := attrs.DType("to", 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	return newKernel(sig{op: "Cast", minIn: 1, maxIn: 1, nOut: 1}, &cast{to: to, mode: mode}), nil
}

// castAttrs checks the attributes of a Cast or CastLike, those of known
// and, from opset 19, saturate, a flag, and from opset 24 round_mode, up,
// down or nearest, and returns the last two.
func castAttrs(attrs kernel.Attrs, known ...string) (castMode, error) {
	opset, err := attrs.Opset(17)
	if err != nil {
		return castMode{}, wrapAttr(err)
	}
	if opset < 19 {
		if err := attrs.Check(known...); err != nil {
			return castMode{}, wrapAttr(err)
		}
		return defaultCast, nil
	}
	known = append(known, "saturate")
	if opset >= 24 {
		known = append(known, "round_mode")
	}
	if err := attrs.Check(known...); err != nil {
		return castMode{}, wrapAttr(err)
	}
	sat, err := flagAttr(attrs, "saturate", true)
	if err != nil {
		return castMode{}, wrapAttr(err)
	}
	name, err := attrs.String("round_mode", "up")
	if err != nil {
		return castMode{}, wrapAttr(err)
	}
	var round kernel.E8M0Rounding
	switch name {
	case "up":
		round = kernel.RoundUp
	case "down":
		round = kernel.RoundDown
	case "nearest":
		round = kernel.RoundNearest
	default:
		return castMode{}, fmt.Errorf("ops: attribute \"round_mode\" is %q, want up, down or nearest", name)
	}
	return castMode{saturate: sat, round: round}, nil
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
	u64 := isU64(x.DType)
	for i := range n {
		switch {
		case x.DType == kernel.Bool:
			var v int64
			if xb[i] != 0 {
				v = 1
			}
			k.mode.storeInt(ob, k.to, i, v, false)
		case x.DType.IsFloat():
			k.mode.storeFloat(ob, k.to, i, loadF(x.DType, xb, i))
		case x.DType.IsInt():
			k.mode.storeInt(ob, k.to, i, loadI(x.DType, xb, i), u64)
		default:
			return fmt.Errorf("cannot cast from %v", x.DType)
		}
	}
	return nil
}

// storeFloat stores float value v as element i of dtype dt as Cast does
// by default (castMode.storeFloat).
func storeFloat(b []byte, dt kernel.DType, i int64, v float64) { defaultCast.storeFloat(b, dt, i, v) }

// storeFloat stores float value v as element i of dtype dt. To float32,
// float16 and bfloat16 it rounds once to nearest even, to the float 8 and
// float 4 types as m says; to the sub-byte integers it rounds to nearest
// even and wraps, to the other integers it truncates toward zero and
// saturates (NaN gives 0 to every integer).
func (m castMode) storeFloat(b []byte, dt kernel.DType, i int64, v float64) {
	switch dt {
	case kernel.Float8E8M0:
		b[i] = kernel.F32ToE8M0(float32(v), m.saturate, m.round)
	case kernel.Float8E4M3FN, kernel.Float8E4M3FNUZ, kernel.Float8E5M2, kernel.Float8E5M2FNUZ, kernel.Float4E2M1:
		b[i] = kernel.F64ToF8(dt, v, m.saturate)
	case kernel.Int4, kernel.Uint4, kernel.Int2, kernel.Uint2:
		storeI(dt, b, i, saturate(math.RoundToEven(v), math.MinInt64, math.MaxInt64))
	case kernel.Float32:
		kernel.Float32s(b)[i] = float32(v)
	case kernel.Float16:
		kernel.Uint16s(b)[i] = f64ToF16(v)
	case kernel.BFloat16:
		kernel.Uint16s(b)[i] = f64ToBF16(v)
	case kernel.Float64:
		kernel.Float64s(b)[i] = v
	case kernel.Uint64:
		kernel.Uint64s(b)[i] = saturateU64(v)
	case kernel.Bool:
		b[i] = 0
		if v != 0 {
			b[i] = 1
		}
	default:
		lo, hi := dt.IntRange()
		storeI(dt, b, i, saturate(v, lo, hi))
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

// saturateU64 truncates v toward zero and clamps it to the uint64 range;
// NaN gives 0.
func saturateU64(f float64) uint64 {
	switch {
	case !(f > 0):
		return 0 // NaN too
	case f >= 1<<64:
		return math.MaxUint64
	}
	return f64ToU64(f)
}

// storeInt stores integer value v as element i of dtype dt: to floats it
// rounds to nearest even (to float16, bfloat16 and the float 8 and float 4
// types through float32, as onnxruntime does; those as m says), to
// integers it wraps (two's complement; the low bits are kept), to bool it
// tests nonzero. u64 says v is the bit pattern of a uint64, whose value is
// above math.MaxInt64 when v is negative.
func (m castMode) storeInt(b []byte, dt kernel.DType, i int64, v int64, u64 bool) {
	var f32 float32
	if dt.IsFloat() {
		if u64 {
			f32 = float32(uint64(v))
		} else {
			f32 = float32(v)
		}
	}
	switch dt {
	case kernel.Float32:
		kernel.Float32s(b)[i] = f32
	case kernel.Float16:
		kernel.Uint16s(b)[i] = kernel.F32ToF16(f32)
	case kernel.BFloat16:
		kernel.Uint16s(b)[i] = kernel.F32ToBF16(f32)
	case kernel.Float64:
		if u64 {
			kernel.Float64s(b)[i] = float64(uint64(v))
		} else {
			kernel.Float64s(b)[i] = float64(v)
		}
	default:
		if dt.IsFloat() {
			m.storeFloat(b, dt, i, float64(f32))
			return
		}
		storeI(dt, b, i, v) // wraps; bool tests nonzero
	}
}
