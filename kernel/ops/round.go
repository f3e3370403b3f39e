package ops

import (
	"math"

	"github.com/pipert/pipert/kernel"
)

// mul64 is a product rounded to float64 by an explicit
// conversion, so that no compiler fuses it with an addition into one
// fused multiply-add (Go may, on arm64 and others): an op's products and
// sums are then the same bits on every architecture. `.ci/run` checks
// that the ops compile to no fused multiply-add on arm64. The elementary
// functions come from package math, whose Exp and Log (and so Pow and
// the ops built on them) run assembly on amd64, arm64 and s390x and pure
// Go elsewhere: their results may differ in the last place from one
// architecture to another. On one machine every mode gives the same bits.
func mul64(x, y float64) float64 { return float64(x * y) }

// mul is the same for the kernels generic over their compute type
// (the blocked axpy product, the recurrent cells).
func mul[T float32 | float64](x, y T) T { return T(x * y) }

// f64ToF16 rounds v to float16, to nearest even, once. Rounding to float32
// first and then to float16 would round twice: a value just above a tie
// between two float16s can round to the tie in float32, which then rounds
// to even, the wrong way. So v is rounded to float32 toward odd (see
// f32Odd), which keeps the sticky bit that float16's rounding needs;
// float32 has 13 bits to spare.
func f64ToF16(v float64) uint16 { return kernel.F32ToF16(f32Odd(v)) }

// f64ToBF16 rounds v to bfloat16, to nearest even, once, the same way:
// bfloat16 is float32 with 16 bits fewer.
func f64ToBF16(v float64) uint16 { return kernel.F32ToBF16(f32Odd(v)) }

// f32Odd rounds v to float32 toward odd: an inexact result takes the odd
// one of its two neighbours. Rounding that to a narrower format with the
// same exponent range or less is then the correct rounding of v.
func f32Odd(v float64) float32 {
	f := float32(v)
	if d := float64(f); d != v && v == v && !math.IsInf(d, 0) {
		if b := math.Float32bits(f); b&1 == 0 {
			if math.Abs(d) < math.Abs(v) {
				b++
			} else {
				b--
			}
			f = math.Float32frombits(b)
		}
	}
	return f
}
