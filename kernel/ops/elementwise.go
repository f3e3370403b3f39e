package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// The element-wise math ops of ONNX, same shape and dtype out as in:
//
//	Sigmoid     1/(1+e^-x)                        float
//	Tanh, Exp, Log, Sqrt, Erf, Reciprocal, Floor, Ceil  float
//	HardSigmoid max(0, min(1, alpha·x+beta))      float; alpha 0.2, beta 0.5
//	HardSwish   x·max(0, min(1, x/6+1/2))         float
//	Softplus    ln(1+e^x)                         float
//	Neg         -x                                float and the signed integers
//	Abs         |x|                               float and every integer
//	Sign        -1, 0 or 1 (+0 for ±0; NaN stays)  float and every integer
//	LeakyRelu   x, or alpha·x below 0             float; alpha 0.01
//	Elu         x, or alpha·(e^x−1) below 0       float; alpha 1
//	Celu        max(0,x)+min(0,alpha·(e^(x/alpha)−1))  float; alpha 1
//	Selu        gamma·x, or gamma·alpha·(e^x−1) at or below 0  float;
//	            alpha 1.6732632, gamma 1.0507010
//	ThresholdedRelu  x above alpha, else 0        float; alpha 1
//	Shrink      x+bias below −lambd, x−bias above lambd, else 0  float
//	            but bfloat16, and every integer; bias 0, lambd 0.5
//	Softsign    x/(1+|x|)                         float
//	Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh  float
//	Round       to nearest, ties to even          float
//
// Elu, Celu and Selu evaluate e^x − 1 as expm1, which keeps a tiny x's
// value (e^x − 1 rounds it to 0) and rounds closer elsewhere.
//
// "float" is float32, float16, bfloat16 and float64; the signed integers
// are int8, int16, int32 and int64, the unsigned ones uint8, uint16,
// uint32 and uint64 (ONNX's Neg takes no unsigned type). Each element is
// evaluated in float64 and rounded once to its dtype, so the results do
// not depend on the architecture. Integer Neg and Abs wrap as two's
// complement (|-128| is -128 in int8), as ONNX leaves overflow to the
// element type; Abs of an unsigned element is the element. Integer Shrink
// is computed as onnxruntime computes it: the element compared with
// ±lambd and offset by bias in float32, the result truncated toward zero
// (and saturated to the element type, which ONNX leaves undefined). Opsets
// 6 to 17 share these forms.
//
// Tiling (words):
//
//	0..4  split over the elements; 2 buffers (input and output)
//
// Workspace: none. Cost: flopsPer (by op) operations per element; bytes of
// input and output.
type mathOp struct {
	name   string
	f      func(x float64) float64
	ints   bool // Neg, Abs, Sign: the signed integers too
	uints  bool // Abs, Sign: the unsigned integers too
	noBF16 bool // Shrink: not bfloat16, which ONNX's Shrink does not take
	flops  float64
	// Ops with parameters: their attribute names and defaults, and the
	// function of x and the two parameters.
	params      [2]param
	fp          func(x, alpha, beta float64) float64
	alpha, beta float64
}

// param is a float attribute of a math op with its default.
type param struct {
	name string
	def  float64
}

func (m *mathOp) float(x float64) float64 {
	if m.fp != nil {
		return m.fp(x, m.alpha, m.beta)
	}
	return m.f(x)
}

var mathOps = []mathOp{
	{name: "Sigmoid", flops: 4, f: func(x float64) float64 { return 1 / (1 + expF(-x)) }},
	{name: "Tanh", flops: 8, f: math.Tanh},
	{name: "Exp", flops: 4, f: expF},
	{name: "Log", flops: 4, f: math.Log},
	{name: "Sqrt", flops: 1, f: math.Sqrt},
	{name: "Erf", flops: 10, f: math.Erf},
	{name: "Reciprocal", flops: 1, f: func(x float64) float64 { return 1 / x }},
	{name: "Floor", flops: 1, f: math.Floor},
	{name: "Ceil", flops: 1, f: math.Ceil},
	{name: "HardSigmoid", flops: 4, params: [2]param{{"alpha", 0.2}, {"beta", 0.5}},
		fp: func(x, a, b float64) float64 { return math.Max(0, math.Min(1, mul64(a, x)+b)) }},
	{name: "LeakyRelu", flops: 2, params: [2]param{{"alpha", 0.01}}, fp: func(x, a, _ float64) float64 {
		if x < 0 {
			return a * x
		}
		return x
	}},
	{name: "Elu", flops: 4, params: [2]param{{"alpha", 1}}, fp: func(x, a, _ float64) float64 {
		if x < 0 {
			return a * math.Expm1(x)
		}
		return x
	}},
	{name: "Celu", flops: 4, params: [2]param{{"alpha", 1}}, fp: func(x, a, _ float64) float64 {
		return math.Max(0, x) + math.Min(0, a*math.Expm1(x/a))
	}},
	{name: "Selu", flops: 4, params: [2]param{{"alpha", 1.67326319217681884765625}, {"gamma", 1.05070102214813232421875}},
		fp: func(x, a, g float64) float64 {
			switch {
			case x < 0:
				return g * a * math.Expm1(x)
			case x == 0:
				return 0 // gamma·(alpha·e^x − alpha) at -0 too
			}
			return g * x
		}},
	{name: "ThresholdedRelu", flops: 1, params: [2]param{{"alpha", 1}}, fp: func(x, a, _ float64) float64 {
		if x > a {
			return x
		}
		return 0
	}},
	{name: "Shrink", flops: 2, noBF16: true, ints: true, uints: true, params: [2]param{{"bias", 0}, {"lambd", 0.5}}, fp: func(x, b, l float64) float64 {
		switch {
		case x < -l:
			return x + b
		case x > l:
			return x - b
		}
		return 0
	}},
	{name: "Softsign", flops: 3, f: func(x float64) float64 { return x / (1 + math.Abs(x)) }},
	{name: "Sin", flops: 8, f: math.Sin},
	{name: "Cos", flops: 8, f: math.Cos},
	{name: "Tan", flops: 8, f: math.Tan},
	{name: "Asin", flops: 8, f: math.Asin},
	{name: "Acos", flops: 8, f: math.Acos},
	{name: "Atan", flops: 8, f: math.Atan},
	{name: "Sinh", flops: 8, f: sinhF},
	{name: "Cosh", flops: 8, f: coshF},
	{name: "Asinh", flops: 8, f: math.Asinh},
	{name: "Acosh", flops: 8, f: math.Acosh},
	{name: "Atanh", flops: 8, f: math.Atanh},
	{name: "Round", flops: 1, f: math.RoundToEven},
	{name: "Sign", flops: 1, ints: true, uints: true, f: func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		case x == 0:
			return 0 // ONNX: 0 for an input equal to 0, -0 included
		}
		return x // NaN
	}},
	{name: "HardSwish", flops: 5, f: hardSwish},
	{name: "Softplus", flops: 5, f: func(x float64) float64 {
		if x > 0 {
			return x + math.Log1p(expF(-x)) // ln(1+e^x) without e^x's overflow
		}
		return math.Log1p(expF(x))
	}},
	{name: "Mish", flops: 8, f: func(x float64) float64 { // ONNX opset 18: x·tanh(softplus(x))
		if x > 30 {
			return x // tanh(softplus(x)) = 1 to float64 precision
		}
		return x * math.Tanh(math.Log1p(expF(x)))
	}},
	{name: "Neg", flops: 1, ints: true, f: func(x float64) float64 { return -x }},
	{name: "Abs", flops: 1, ints: true, uints: true, f: math.Abs},
}

// mathBuiltins lists the ops of mathOps with their factories.
func mathBuiltins() []builtin {
	out := make([]builtin, len(mathOps))
	for i, m := range mathOps {
		out[i] = builtin{m.name, func(attrs kernel.Attrs) (kernel.Kernel, error) { return newMath(m, attrs) }}
	}
	return out
}

func newMath(m mathOp, attrs kernel.Attrs) (kernel.Kernel, error) {
	var known []string
	for _, p := range m.params {
		if p.name != "" {
			known = append(known, p.name)
		}
	}
	if _, err := attrs.Opset(17); err != nil {
		return nil, wrapAttr(err)
	}
	if err := attrs.Check(known...); err != nil {
		return nil, wrapAttr(err)
	}
	k := m
	for i, p := range m.params {
		if p.name == "" {
			continue
		}
		v, err := attrs.Float(p.name, p.def)
		if err != nil {
			return nil, wrapAttr(err)
		}
		// ONNX gives the parameters as float32 attributes.
		v = float64(float32(v))
		if i == 0 {
			k.alpha = v
		} else {
			k.beta = v
		}
	}
	if m.name == "Celu" && k.alpha == 0 {
		return nil, fmt.Errorf("ops: Celu: alpha must not be 0")
	}
	return newKernel(sig{op: m.name, minIn: 1, maxIn: 1, nOut: 1}, &k), nil
}

func (k *mathOp) takes(dt kernel.DType) bool {
	switch dt {
	case kernel.Float32, kernel.Float16, kernel.Float64:
		return true
	case kernel.BFloat16:
		return !k.noBF16
	case kernel.Int32, kernel.Int64, kernel.Int8, kernel.Int16:
		return k.ints
	case kernel.Uint8, kernel.Uint16, kernel.Uint32, kernel.Uint64:
		return k.uints
	}
	return false
}

func (k *mathOp) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if !k.takes(x.DType) {
		return fmt.Errorf("input X has dtype %v, which %s does not take", x.DType, k.name)
	}
	setShape(out[0], x.Shape, x.DType)
	return nil
}

func (k *mathOp) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if !in[0].Shape.Equal(out[0].Shape) || in[0].DType != out[0].DType {
		return 0, fmt.Errorf("output %v differs from input %v", out[0], in[0])
	}
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 2).put(e)
	return 0, nil
}

func (k *mathOp) cost(in, out []*kernel.Tensor) device.Cost {
	n := float64(out[0].NumElements())
	return device.Cost{FLOPs: k.flops * n, Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (k *mathOp) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	n := o.NumElements()
	if x.DType != o.DType || x.NumElements() != n || !k.takes(x.DType) {
		return errors.New("operands differ from the inferred ones")
	}
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, n); err != nil {
		return err
	}
	xb, ob := x.Data(), o.Data()
	switch x.DType {
	case kernel.Float32:
		xs, os := kernel.Float32s(xb)[:n], kernel.Float32s(ob)[:n]
		for i, v := range xs {
			os[i] = float32(k.float(float64(v)))
		}
	case kernel.Float16:
		xs, os := kernel.Uint16s(xb)[:n], kernel.Uint16s(ob)[:n]
		for i, v := range xs {
			os[i] = f64ToF16(k.float(float64(kernel.F16ToF32(v))))
		}
	case kernel.Float64:
		xs, os := kernel.Float64s(xb)[:n], kernel.Float64s(ob)[:n]
		for i, v := range xs {
			os[i] = k.float(v)
		}
	case kernel.BFloat16:
		xs, os := kernel.Uint16s(xb)[:n], kernel.Uint16s(ob)[:n]
		for i, v := range xs {
			os[i] = f64ToBF16(k.float(float64(kernel.BF16ToF32(v))))
		}
	case kernel.Int32:
		if k.name == "Shrink" {
			shrinkInt(kernel.Int32s(ob)[:n], kernel.Int32s(xb)[:n], k.alpha, k.beta, math.MinInt32, math.MaxInt32)
			break
		}
		mathInt(k.name, kernel.Int32s(ob)[:n], kernel.Int32s(xb)[:n])
	case kernel.Int64:
		if k.name == "Shrink" {
			shrinkInt(kernel.Int64s(ob)[:n], kernel.Int64s(xb)[:n], k.alpha, k.beta, math.MinInt64, math.MaxInt64)
			break
		}
		mathInt(k.name, kernel.Int64s(ob)[:n], kernel.Int64s(xb)[:n])
	case kernel.Int8:
		if k.name == "Shrink" {
			shrinkInt(kernel.Int8s(ob)[:n], kernel.Int8s(xb)[:n], k.alpha, k.beta, math.MinInt8, math.MaxInt8)
			break
		}
		mathInt(k.name, kernel.Int8s(ob)[:n], kernel.Int8s(xb)[:n])
	case kernel.Int16:
		if k.name == "Shrink" {
			shrinkInt(kernel.Int16s(ob)[:n], kernel.Int16s(xb)[:n], k.alpha, k.beta, math.MinInt16, math.MaxInt16)
			break
		}
		mathInt(k.name, kernel.Int16s(ob)[:n], kernel.Int16s(xb)[:n])
	case kernel.Uint8:
		if k.name == "Shrink" {
			shrinkInt(ob[:n], xb[:n], k.alpha, k.beta, 0, math.MaxUint8)
			break
		}
		mathUint(k.name, ob[:n], xb[:n])
	case kernel.Uint16:
		if k.name == "Shrink" {
			shrinkInt(kernel.Uint16s(ob)[:n], kernel.Uint16s(xb)[:n], k.alpha, k.beta, 0, math.MaxUint16)
			break
		}
		mathUint(k.name, kernel.Uint16s(ob)[:n], kernel.Uint16s(xb)[:n])
	case kernel.Uint32:
		if k.name == "Shrink" {
			shrinkInt(kernel.Uint32s(ob)[:n], kernel.Uint32s(xb)[:n], k.alpha, k.beta, 0, math.MaxUint32)
			break
		}
		mathUint(k.name, kernel.Uint32s(ob)[:n], kernel.Uint32s(xb)[:n])
	case kernel.Uint64:
		if k.name == "Shrink" {
			shrinkInt(kernel.Uint64s(ob)[:n], kernel.Uint64s(xb)[:n], k.alpha, k.beta, 0, math.MaxUint64)
			break
		}
		mathUint(k.name, kernel.Uint64s(ob)[:n], kernel.Uint64s(xb)[:n])
	}
	return nil
}

// shrinkInt is Shrink of integer elements, as onnxruntime computes it: x
// in float32, x + bias below −lambd, x − bias above lambd (in float32),
// else 0; the result truncated toward zero and saturated to [lo, hi] (a
// NaN, from an infinite bias, gives 0).
func shrinkInt[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](o, x []T, bias, lambd float64, lo, hi T) {
	b, l := float32(bias), float32(lambd)
	for i, v := range x {
		f := float32(v)
		var r float32
		switch {
		case f < -l:
			r = f + b
		case f > l:
			r = f - b
		}
		t := math.Trunc(float64(r))
		switch {
		case t != t:
			o[i] = 0
		case t <= float64(lo):
			o[i] = lo
		case t >= float64(hi):
			o[i] = hi
		default:
			o[i] = T(t)
		}
	}
}

func mathUint[T uint8 | uint16 | uint32 | uint64](op string, o, x []T) {
	for i, v := range x {
		if op == "Sign" {
			v = min(v, 1)
		}
		o[i] = v
	}
}

func mathInt[T int8 | int16 | int32 | int64](op string, o, x []T) {
	for i, v := range x {
		switch {
		case op == "Sign":
			v = T(cmpSign(v))
		case op == "Neg" || v < 0:
			v = -v
		}
		o[i] = v
	}
}

func cmpSign[T int8 | int16 | int32 | int64](v T) int8 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// hardSwish is x·max(0, min(1, x/6 + 1/2)), correctly rounded but in rare
// cases: inside (−3, 3) it is (x² + 3x)/6, the two products and their sum
// kept exactly as pairs of float64 and the division corrected by its
// remainder (x/6 + 0.5 cancels near −3, and rounded three times it was
// up to 16 ulp off). Every product is rounded on its own (mul64): the
// same bits on every architecture.
func hardSwish(x float64) float64 {
	switch {
	case x <= -3:
		return x * 0
	case x >= 3 || x != x:
		return x
	case x != 0 && math.Abs(x) < 0x1p-1000:
		// x/2 + x²/6: x²/6 vanishes but for deciding x/2's ties, which
		// it breaks upward (x/2 + x²/6 > x/2).
		h := mul64(x, 0.5)
		if mul64(2, h) < x {
			h = math.Nextafter(h, math.Inf(1))
		}
		return h
	}
	a, aLo := twoProd(x, x)
	b, bLo := twoProd(3, x)
	s := a + b // TwoSum: s + sLo = a + b exactly
	bb := s - a
	sLo := (a - (s - bb)) + (b - bb)
	lo := sLo + aLo + bLo
	q := s / 6
	p, pLo := twoProd(q, 6) // s − 6q = (s − p) − pLo exactly
	if r := q + ((s-p)-pLo+lo)/6; r != 0 {
		return r
	}
	return x * 0 // ±0: the sign of x·(x + 3)/6
}

// twoProd is Dekker's exact product: p + e = a·b, p = a·b rounded, for
// |a|, |b| well inside float64's range, without a fused multiply-add.
func twoProd(a, b float64) (p, e float64) {
	const split = 0x1p27 + 1
	p = mul64(a, b)
	t := mul64(split, a)
	aHi := t - (t - a)
	aLo := a - aHi
	t = mul64(split, b)
	bHi := t - (t - b)
	bLo := b - bHi
	e = ((mul64(aHi, bHi) - p) + mul64(aHi, bLo) + mul64(aLo, bHi)) + mul64(aLo, bLo)
	return p, e
}
