package ops

import (
	"fmt"
	"math"
)

// The post transforms of the ai.onnx.ml ops (post_transform), evaluated in
// float32 as onnxruntime's CPU kernels evaluate them: exp, log and sqrt
// are rounded once to float32, and every other operation is a float32
// operation of its own (no fused multiply-add).
const (
	mlPostNone = iota
	mlPostLogistic
	mlPostSoftmax
	mlPostSoftmaxZero
	mlPostProbit
)

// mlPostTransform reads attribute post_transform (default NONE).
func mlPostTransform(name string) (int, error) {
	switch name {
	case "NONE":
		return mlPostNone, nil
	case "LOGISTIC":
		return mlPostLogistic, nil
	case "SOFTMAX":
		return mlPostSoftmax, nil
	case "SOFTMAX_ZERO":
		return mlPostSoftmaxZero, nil
	case "PROBIT":
		return mlPostProbit, nil
	}
	return 0, fmt.Errorf("attribute \"post_transform\" is %q, want NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO or PROBIT", name)
}

func expf(x float32) float32  { return float32(expF(float64(x))) }
func logf(x float32) float32  { return float32(math.Log(float64(x))) }
func sqrtf(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// The constants of mlErfInv and mlProbit, computed in float32 at run time
// (a Go constant expression would be exact, not float32).
var (
	mlErfA   = mlF32Div(2, mlF32Mul(float32(math.Pi), 0.147))
	mlErfB   = mlF32Div(1, 0.147)
	mlSqrt2F = float32(math.Sqrt2)
)

func mlF32Div(a, b float32) float32 { return a / b }
func mlF32Mul(a, b float32) float32 { return a * b }

// mlErfInv approximates erf⁻¹(x) (Winitzki's formula, a = 0.147).
func mlErfInv(x float32) float32 {
	sgn := float32(1)
	if x < 0 {
		sgn = -1
	}
	x = float32(1-x) * float32(1+x)
	lg := logf(x)
	v := mlErfA + float32(0.5*lg)
	v2 := float32(mlErfB * lg)
	v3 := -v + sqrtf(float32(v*v)-v2)
	return sgn * sqrtf(v3)
}

// mlProbit is √2·erf⁻¹(2v − 1).
func mlProbit(v float32) float32 { return mlSqrt2F * mlErfInv(float32(2*v)-1) }

// mlLogistic is 1/(1 + e^−|v|), or 1 less that for a negative v.
func mlLogistic(v float32) float32 {
	e := 1 / (1 + expf(-float32(math.Abs(float64(v)))))
	if v < 0 {
		return 1 - e
	}
	return e
}

// mlSoftmax applies the softmax to v in place: the maximum (at least
// −MaxFloat32) is subtracted, the exponentials summed in order.
func mlSoftmax(v []float32) {
	m := float32(-math.MaxFloat32)
	for _, x := range v {
		if x > m {
			m = x
		}
	}
	var sum float32
	for i, x := range v {
		v[i] = expf(x - m)
		sum += v[i]
	}
	for i := range v {
		v[i] /= sum
	}
}

// mlSoftmaxZero is mlSoftmax except that values within 1e-7 of zero are
// not exponentiated but scaled by e^−max (they stay about zero).
func mlSoftmaxZero(v []float32) {
	m := float32(-math.MaxFloat32)
	for _, x := range v {
		if x > m {
			m = x
		}
	}
	expNeg := expf(-m)
	var sum float32
	for i, x := range v {
		if x > 0.0000001 || x < -0.0000001 {
			v[i] = expf(x - m)
			sum += v[i]
		} else {
			v[i] = x * expNeg
		}
	}
	for i := range v {
		v[i] /= sum
	}
}

// mlWriteScores applies post transform post to the scores v (two or more)
// in place.
func mlWriteScores(v []float32, post int) {
	switch post {
	case mlPostProbit:
		for i, x := range v {
			v[i] = mlProbit(x)
		}
	case mlPostLogistic:
		for i, x := range v {
			v[i] = mlLogistic(x)
		}
	case mlPostSoftmax:
		mlSoftmax(v)
	case mlPostSoftmaxZero:
		mlSoftmaxZero(v)
	}
}
