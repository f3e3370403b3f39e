package ops

import "math"

// expF is e^x. math.Exp's amd64 assembly returns +Inf from x ≈ 709.436
// on, although e^x is finite up to x ≈ 709.783; there expF is
// e^(x−1)·e, within two units in the last place. Elsewhere it is
// math.Exp.
func expF(x float64) float64 {
	r := math.Exp(x)
	if math.IsInf(r, 1) && x < 710 {
		return math.Exp(x-1) * math.E
	}
	return r
}

// sinhF is math.Sinh, finite wherever sinh x is: like math.Exp, math.Sinh
// overflows from |x| ≈ 709.436 on, sinh from |x| ≈ 710.476.
func sinhF(x float64) float64 {
	r := math.Sinh(x)
	if math.IsInf(r, 0) && math.Abs(x) < 711 {
		return math.Copysign(math.Exp(math.Abs(x)-1)*(math.E/2), x)
	}
	return r
}

// coshF is math.Cosh, finite wherever cosh x is (see sinhF).
func coshF(x float64) float64 {
	r := math.Cosh(x)
	if math.IsInf(r, 1) && math.Abs(x) < 711 {
		return math.Exp(math.Abs(x)-1) * (math.E / 2)
	}
	return r
}
