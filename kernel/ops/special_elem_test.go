package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// unaryCase is an element-wise op of one float input with its reference,
// evaluated in float64 and rounded once to the dtype.
type unaryCase struct {
	op    string
	attrs kernel.Attrs
	ref   func(x float64) float64
	dts   []kernel.DType // nil: every float dtype
}

func neg0() float64 { return math.Copysign(0, -1) }

// unaryCases are the element-wise float ops, their references read off the
// ONNX definitions.
var unaryCases = []unaryCase{
	{op: "Abs", ref: math.Abs},
	{op: "Neg", ref: func(x float64) float64 { return -x }},
	{op: "Ceil", ref: math.Ceil},
	{op: "Floor", ref: math.Floor},
	{op: "Round", ref: math.RoundToEven},
	{op: "Sqrt", ref: math.Sqrt},
	{op: "Exp", ref: math.Exp},
	{op: "Log", ref: math.Log},
	{op: "Reciprocal", ref: func(x float64) float64 { return 1 / x }},
	{op: "Erf", ref: math.Erf},
	{op: "Tanh", ref: math.Tanh},
	{op: "Sin", ref: math.Sin}, {op: "Cos", ref: math.Cos}, {op: "Tan", ref: math.Tan},
	{op: "Asin", ref: math.Asin}, {op: "Acos", ref: math.Acos}, {op: "Atan", ref: math.Atan},
	{op: "Sinh", ref: math.Sinh}, {op: "Cosh", ref: math.Cosh},
	{op: "Asinh", ref: math.Asinh}, {op: "Acosh", ref: math.Acosh}, {op: "Atanh", ref: math.Atanh},
	// Sign: 1 above 0, -1 below, 0 at 0; NaN stays NaN.
	{op: "Sign", ref: func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		case x == 0:
			return 0
		}
		return x
	}},
	{op: "Sigmoid", ref: func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }},
	// Softplus ln(e^x + 1), written so that e^x does not overflow where the
	// result is finite.
	{op: "Softplus", ref: func(x float64) float64 {
		if x > 0 {
			return x + math.Log1p(math.Exp(-x))
		}
		return math.Log1p(math.Exp(x))
	}},
	{op: "Softsign", ref: func(x float64) float64 { return x / (1 + math.Abs(x)) }},
	// Relu: max(0, x).
	{op: "ReLU", ref: func(x float64) float64 { return ieeeMax(0, x) }, dts: []kernel.DType{kernel.Float32, kernel.Float16, kernel.BFloat16}},
	{op: "LeakyRelu", ref: func(x float64) float64 {
		if x < 0 {
			return float64(float32(0.01)) * x
		}
		return x
	}},
	{op: "LeakyRelu", attrs: kernel.Attrs{"alpha": 0.5}, ref: func(x float64) float64 {
		if x < 0 {
			return 0.5 * x
		}
		return x
	}},
	{op: "ThresholdedRelu", ref: func(x float64) float64 {
		if x > 1 {
			return x
		}
		return 0
	}},
	// Elu, Celu and Selu: e^x − 1 evaluated with expm1, which keeps the
	// x it is close to for a tiny x (e^x − 1 rounds to 0).
	{op: "Elu", ref: func(x float64) float64 {
		if x < 0 {
			return math.Expm1(x)
		}
		return x
	}},
	// Celu: max(0, x) + min(0, alpha·(exp(x/alpha) − 1)), alpha 1; every
	// float type, as Celu-28 (pipert takes it at every opset).
	{op: "Celu", ref: func(x float64) float64 { return ieeeMax(0, x) + ieeeMin(0, math.Expm1(x)) }},
	{op: "Selu", ref: func(x float64) float64 {
		const alpha, gamma = 1.67326319217681884765625, 1.05070102214813232421875
		// gamma·(alpha·e^x − alpha) at or below 0, which is +0 at ±0.
		if x == 0 {
			return 0
		}
		if x < 0 {
			return gamma * alpha * math.Expm1(x)
		}
		return gamma * x
	}},
	// HardSigmoid: max(0, min(1, alpha·x + beta)), alpha 0.2, beta 0.5.
	{op: "HardSigmoid", ref: func(x float64) float64 {
		return ieeeMax(0, ieeeMin(1, float64(float32(0.2))*x+0.5))
	}},
	// HardSwish: x·max(0, min(1, x/6 + 1/2)), exactly and rounded once.
	{op: "HardSwish", ref: hardSwishExact},
	// Shrink: x+bias below -lambd, x-bias above lambd, else 0. ONNX's
	// Shrink takes no bfloat16.
	{op: "Shrink", attrs: kernel.Attrs{"bias": 1.5, "lambd": 1.0}, ref: func(x float64) float64 {
		switch {
		case x < -1:
			return x + 1.5
		case x > 1:
			return x - 1.5
		}
		return 0
	}, dts: []kernel.DType{kernel.Float32, kernel.Float16, kernel.Float64}},
	// Gelu: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), or with erf.
	{op: "GELU", ref: func(x float64) float64 {
		return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	}, dts: []kernel.DType{kernel.Float32, kernel.Float16, kernel.BFloat16}},
	{op: "GELU", attrs: kernel.Attrs{"approximate": "none"}, ref: func(x float64) float64 {
		return 0.5 * x * (1 + math.Erf(x/math.Sqrt2))
	}, dts: []kernel.DType{kernel.Float32, kernel.Float16, kernel.BFloat16}},
}

func (c unaryCase) name(dt kernel.DType) string {
	if len(c.attrs) == 0 {
		return fmt.Sprintf("%s/%v", c.op, dt)
	}
	return fmt.Sprintf("%s%v/%v", c.op, c.attrs, dt)
}

func (c unaryCase) types() []kernel.DType {
	if c.dts == nil {
		return sweepFloats
	}
	return c.dts
}

// TestSpecialUnary sweeps every special value through each element-wise op.
func TestSpecialUnary(t *testing.T) {
	for _, c := range unaryCases {
		for _, dt := range c.types() {
			bits := sweepBits(dt)
			n := int64(len(bits))
			out, err := runOp(c.op, c.attrs, bitsTensor(dt, shp(n), bits))
			if err != nil {
				t.Errorf("%s: %v", c.name(dt), err)
				continue
			}
			want := make([]uint64, n)
			for i, b := range bits {
				want[i] = refBits(dt, c.ref(refValue(dt, b)))
			}
			checkBits(t, c.name(dt), out[0], dt, shp(n), want, false, func(i int) string {
				return "x " + showBits(dt, bits[i])
			})
		}
	}
}

// binaryCase is an element-wise op of two float inputs of one dtype with
// its reference, evaluated in float64 and rounded once to the dtype.
type binaryCase struct {
	op    string
	attrs kernel.Attrs
	ref   func(x, y float64) float64
	bool  bool // a comparison: bool out, ref returns 1 or 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// fmodRef is C's fmod as the ONNX Mod with fmod 1 describes it: x − n·y
// with n = x/y truncated, the sign of x; NaN for an infinite x or a zero y;
// x for an infinite y.
func fmodRef(x, y float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || y == 0:
		return math.NaN()
	case math.IsInf(y, 0):
		return x
	}
	return math.Mod(x, y)
}

var binaryCases = []binaryCase{
	{op: "Add", ref: func(x, y float64) float64 { return x + y }},
	{op: "Sub", ref: func(x, y float64) float64 { return x - y }},
	{op: "Mul", ref: func(x, y float64) float64 { return x * y }},
	{op: "Div", ref: func(x, y float64) float64 { return x / y }},
	{op: "Sum", ref: func(x, y float64) float64 { return x + y }},
	{op: "Mean", ref: func(x, y float64) float64 { return (x + y) / 2 }},
	{op: "Max", ref: ieeeMax},
	{op: "Min", ref: ieeeMin},
	{op: "Pow", ref: math.Pow},
	{op: "Mod", attrs: kernel.Attrs{"fmod": int64(1)}, ref: fmodRef},
	// PRelu: x, or slope·x below 0.
	{op: "PRelu", ref: func(x, s float64) float64 {
		if x < 0 {
			return s * x
		}
		return x
	}},
	{op: "Equal", bool: true, ref: func(x, y float64) float64 { return b2f(x == y) }},
	{op: "Less", bool: true, ref: func(x, y float64) float64 { return b2f(x < y) }},
	{op: "Greater", bool: true, ref: func(x, y float64) float64 { return b2f(x > y) }},
	{op: "LessOrEqual", bool: true, ref: func(x, y float64) float64 { return b2f(x <= y) }},
	{op: "GreaterOrEqual", bool: true, ref: func(x, y float64) float64 { return b2f(x >= y) }},
}

// TestSpecialBinary sweeps every pair of special values, one input
// broadcast along each axis: x [n,1] against y [1,n].
func TestSpecialBinary(t *testing.T) {
	for _, c := range binaryCases {
		for _, dt := range sweepFloats {
			name := fmt.Sprintf("%s/%v", c.op, dt)
			if c.attrs != nil {
				name = fmt.Sprintf("%s%v/%v", c.op, c.attrs, dt)
			}
			bits := sweepBits(dt)
			n := int64(len(bits))
			x, y := bitsTensor(dt, shp(n, 1), bits), bitsTensor(dt, shp(1, n), bits)
			if c.op == "PRelu" {
				// The slope broadcasts unidirectionally to X: X [n,n].
				x = bitsTensor(dt, shp(n, n), repeatRows(bits, n))
			}
			out, err := runOp(c.op, c.attrs, x, y)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			odt := dt
			if c.bool {
				odt = kernel.Bool
			}
			want := make([]uint64, n*n)
			for i := range n {
				for j := range n {
					r := c.ref(refValue(dt, bits[i]), refValue(dt, bits[j]))
					if c.bool {
						want[i*n+j] = uint64(r)
					} else {
						want[i*n+j] = refBits(dt, r)
					}
				}
			}
			checkBits(t, name, out[0], odt, shp(n, n), want, false, func(k int) string {
				return fmt.Sprintf("x %s, y %s", showBits(dt, bits[int64(k)/n]), showBits(dt, bits[int64(k)%n]))
			})
		}
	}
}

// repeatRows returns row i of an [n,n] matrix filled with b[i].
func repeatRows(b []uint64, n int64) []uint64 {
	out := make([]uint64, 0, n*n)
	for _, x := range b {
		for range n {
			out = append(out, x)
		}
	}
	return out
}

// specialOtherOps are the ops swept by the tests beyond the unary, binary
// and data-movement tables; each file adds its own.
var specialOtherOps []string

// TestSpecialVariadicFlat sweeps the variadic ops on operands that need no
// broadcast walk — each of the output's shape, or of one element — as
// TestSpecialBinary does through the walk: x [n,n] of the special values
// by rows, y [n,n] by columns, and each value as a one-element y; then
// three operands, the third a one-element 0.
func TestSpecialVariadicFlat(t *testing.T) {
	for _, c := range binaryCases {
		if c.op != "Sum" && c.op != "Mean" && c.op != "Max" && c.op != "Min" {
			continue
		}
		for _, dt := range sweepFloats {
			bits := sweepBits(dt)
			n := int64(len(bits))
			x := bitsTensor(dt, shp(n, n), repeatRows(bits, n))
			cols := make([]uint64, 0, n*n)
			for range n {
				cols = append(cols, bits...)
			}
			y := bitsTensor(dt, shp(n, n), cols)
			out, err := runOp(c.op, nil, x, y)
			if err != nil {
				t.Fatalf("%s/%v: %v", c.op, dt, err)
			}
			want := make([]uint64, n*n)
			for i := range n {
				for j := range n {
					want[i*n+j] = refBits(dt, c.ref(refValue(dt, bits[i]), refValue(dt, bits[j])))
				}
			}
			checkBits(t, fmt.Sprintf("%s/%v same shapes", c.op, dt), out[0], dt, shp(n, n), want, false, func(k int) string {
				return fmt.Sprintf("x %s, y %s", showBits(dt, bits[int64(k)/n]), showBits(dt, bits[int64(k)%n]))
			})
			for j, b := range bits {
				out, err := runOp(c.op, nil, x, bitsTensor(dt, shp(1), []uint64{b}))
				if err != nil {
					t.Fatalf("%s/%v: %v", c.op, dt, err)
				}
				w := make([]uint64, n*n)
				for i := range n * n {
					w[i] = refBits(dt, c.ref(refValue(dt, bits[i/n]), refValue(dt, b)))
				}
				checkBits(t, fmt.Sprintf("%s/%v one-element y %s", c.op, dt, showBits(dt, bits[j])), out[0], dt, shp(n, n), w, false, func(k int) string {
					return fmt.Sprintf("x %s", showBits(dt, bits[int64(k)/n]))
				})
			}
			if c.op == "Mean" {
				continue // (x + y + 0)/3 is not the two-operand reference
			}
			zero := bitsTensor(dt, shp(), []uint64{refBits(dt, 0)})
			out, err = runOp(c.op, nil, x, y, zero)
			if err != nil {
				t.Fatalf("%s/%v: %v", c.op, dt, err)
			}
			for i := range want {
				want[i] = refBits(dt, c.ref(refValue(dt, want[i]), 0))
			}
			checkBits(t, fmt.Sprintf("%s/%v with a third operand 0", c.op, dt), out[0], dt, shp(n, n), want, false, func(k int) string {
				return fmt.Sprintf("x %s, y %s", showBits(dt, bits[int64(k)/n]), showBits(dt, bits[int64(k)%n]))
			})
		}
	}
}
