package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestMathOpsAgainstTheirDefinitions checks each element-wise math op on
// float64 against the formula written out, including ±0, ±Inf and NaN, and
// that float32 results are the float64 ones rounded once.
func TestMathOpsAgainstTheirDefinitions(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1, -2.5, 3, 40, -40, math.Inf(1), math.Inf(-1), math.NaN(), 1e-310}
	ref := map[string]func(float64) float64{
		"Sigmoid":    func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
		"Tanh":       math.Tanh,
		"Exp":        math.Exp,
		"Log":        math.Log,
		"Sqrt":       math.Sqrt,
		"Erf":        math.Erf,
		"Reciprocal": func(x float64) float64 { return 1 / x },
		"Floor":      math.Floor,
		"Ceil":       math.Ceil,
		"HardSigmoid": func(x float64) float64 {
			return math.Max(0, math.Min(1, float64(float32(0.25))*x+float64(float32(0.1))))
		},
		"HardSwish": hardSwishExact,
		"Neg":       func(x float64) float64 { return -x },
		"Abs":       math.Abs,
	}
	for op, f := range ref {
		attrs := kernel.Attrs(nil)
		if op == "HardSigmoid" {
			attrs = kernel.Attrs{"alpha": float32(0.25), "beta": float32(0.1)}
		}
		in := kernel.New(kernel.Float64, int64(len(xs)))
		copy(kernel.Float64s(in.Host), xs)
		got, err := hostRun(t, op, attrs, in)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		in32 := kernel.New(kernel.Float32, int64(len(xs)))
		for i, x := range xs {
			kernel.Float32s(in32.Host)[i] = float32(x)
		}
		got32, err := hostRun(t, op, attrs, in32)
		if err != nil {
			t.Fatalf("%s float32: %v", op, err)
		}
		for i, x := range xs {
			w, g := f(x), kernel.Float64s(got.Host)[i]
			if !(w == g || math.IsNaN(w) && math.IsNaN(g)) || math.Signbit(w) != math.Signbit(g) && !math.IsNaN(w) {
				t.Errorf("%s(%v) = %v, want %v", op, x, g, w)
			}
			w32, g32 := float32(f(float64(float32(x)))), kernel.Float32s(got32.Host)[i]
			if !(w32 == g32 || w32 != w32 && g32 != g32) {
				t.Errorf("%s(float32 %v) = %v, want %v", op, x, g32, w32)
			}
		}
	}
}

func TestMathOpsOnIntegersAndRefusals(t *testing.T) {
	x := dtValues(kernel.Int8, 0, 5, -7, -128)
	got, err := hostRun(t, "Neg", nil, x)
	if err != nil || kernel.Int8s(got.Host)[1] != -5 || kernel.Int8s(got.Host)[2] != 7 || kernel.Int8s(got.Host)[3] != -128 {
		t.Fatalf("Neg int8: %v %v", got, err)
	}
	got, err = hostRun(t, "Abs", nil, dtValues(kernel.Int64, -3, 4))
	if err != nil || kernel.Int64s(got.Host)[0] != 3 || kernel.Int64s(got.Host)[1] != 4 {
		t.Fatalf("Abs int64: %v %v", got, err)
	}
	for _, tc := range []struct {
		op string
		dt kernel.DType
	}{{"Sigmoid", kernel.Int32}, {"Neg", kernel.Uint8}, {"Abs", kernel.Bool}, {"Exp", kernel.Bool}} {
		if _, err := hostRun(t, tc.op, nil, dtValues(tc.dt, 1)); err == nil {
			t.Errorf("%s took %v", tc.op, tc.dt)
		}
	}
	if _, err := Builtins().New("HardSigmoid", kernel.Attrs{"gamma": float32(1)}); err == nil {
		t.Error("HardSigmoid took an unknown attribute")
	}
}
