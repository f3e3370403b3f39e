package ops

// mul64 and mul32 are products rounded to their type by an explicit
// conversion, so that no compiler fuses them with an addition into one
// fused multiply-add (Go may, on arm64 and others): an op's results are
// then the same bits on every architecture. `.ci/run` checks that the ops
// compile to no fused multiply-add on arm64.
func mul64(x, y float64) float64 { return float64(x * y) }

func mul32(x, y float32) float32 { return float32(x * y) }
