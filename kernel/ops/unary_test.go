package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func TestReLU(t *testing.T) {
	for _, dt := range numericTypes {
		x := tensor(dt, shp(2, 3), -2, -1, 0, 1, 2, 3)
		checkValues(t, "ReLU "+dt.String(), mustRun(t, "ReLU", nil, x), shp(2, 3), []float64{0, 0, 0, 1, 2, 3})
	}
	got := mustRun(t, "ReLU", nil, f32(nil, math.NaN()))
	checkValues(t, "ReLU NaN", got, nil, []float64{math.NaN()})
	checkValues(t, "ReLU zero-size", mustRun(t, "ReLU", nil, f32(shp(3, 0))), shp(3, 0), nil)
	wantErr(t, "ReLU", nil, []*kernel.Tensor{tensor(kernel.Bool, shp(1), 1)}, "input X", "bool")
}

func refGELU(x float64, approx string) float64 {
	if approx == "none" {
		return 0.5 * x * math.Erfc(-x/math.Sqrt(2)) // 1 + erf(y) = erfc(−y), without its cancellation
	}
	// 0.5·(1 + tanh(u)) = 1 / (1 + e^(−2u)), without the cancellation of
	// 1 + tanh(u) where tanh(u) nears −1.
	return x / (1 + math.Exp(-2*math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

func TestGELU(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, approx := range []string{"", "tanh", "none"} {
		attrs := kernel.Attrs{"approximate": approx}
		if approx == "" {
			attrs = nil
		}
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
			v := randValues(r, dt, 40)
			got := mustRun(t, "GELU", attrs, tensor(dt, shp(4, 10), v...))
			want := make([]float64, len(v))
			for i, x := range v {
				w := float32(refGELU(x, approx))
				if dt == kernel.Float16 {
					w = kernel.F16ToF32(kernel.F32ToF16(w))
				}
				want[i] = float64(w)
			}
			checkValues(t, "GELU "+approx+" "+dt.String(), got, shp(4, 10), want)
		}
	}
	// The two formulas differ, so the attribute is honored.
	a := values(mustRun(t, "GELU", kernel.Attrs{"approximate": "tanh"}, f32(nil, 1.5)))[0]
	b := values(mustRun(t, "GELU", kernel.Attrs{"approximate": "none"}, f32(nil, 1.5)))[0]
	if a == b {
		t.Fatalf("GELU tanh and erf agree at 1.5 (%v)", a)
	}
	// Exact values (40-digit arithmetic) in float64, far into the
	// negative tail where 1 + erf(x/√2) cancelled (thousands of ulp off at
	// −7, −0 at −9.09): within 8 ulp, the rounding of x/√2 amplified by
	// erfc's slope.
	for _, c := range []struct{ x, want float64 }{
		{-7, -8.958687807200846e-12}, {-9.0948, -4.309148710862196e-19}, {-3, -0.0040496940948902835}, {0.5, 0.34573123063700656},
	} {
		got := values(mustRun(t, "GELU", kernel.Attrs{"approximate": "none"}, tensor(kernel.Float64, shp(1), c.x)))[0]
		if ulp := math.Nextafter(math.Abs(c.want), math.Inf(1)) - math.Abs(c.want); math.Abs(got-c.want) > 8*ulp {
			t.Errorf("GELU(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	// The same for the tanh formula, whose 1 + tanh(u) cancelled (−0
	// at −12, a relative error of 10⁻⁷ at −5.5): within 10⁻¹³ relative,
	// the rounding of u amplified by the exponential's slope.
	for _, c := range []struct{ x, want float64 }{
		{-5.5, -5.9276402638802624e-09}, {-7, -2.315442262072549e-15}, {-9, -1.3364595947348725e-28}, {-12, -1.635985449353481e-61},
		{-3, -0.003637392081773019}, {0.5, 0.34571400982514394}, {2, 1.954597694087775},
	} {
		got := values(mustRun(t, "GELU", kernel.Attrs{"approximate": "tanh"}, tensor(kernel.Float64, shp(1), c.x)))[0]
		if math.Abs(got-c.want) > 1e-13*math.Abs(c.want) {
			t.Errorf("GELU tanh(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	wantErr(t, "GELU", kernel.Attrs{"approximate": "fast"}, nil, "approximate")
	wantErr(t, "GELU", nil, []*kernel.Tensor{i64(shp(1), 1)}, "input X", "int64")
}

func TestCastAllPairs(t *testing.T) {
	types := []kernel.DType{kernel.Float32, kernel.Float16, kernel.Int32, kernel.Int64, kernel.Bool}
	src := []float64{0, 1, -2, 3, 100}
	for _, from := range types {
		in := src
		if from == kernel.Bool {
			in = []float64{0, 1, 0, 1, 1}
		}
		for _, to := range types {
			got := mustRun(t, "Cast", kernel.Attrs{"to": to}, tensor(from, shp(5), in...))
			want := make([]float64, len(in))
			for i, v := range in {
				want[i] = v
				if to == kernel.Bool && v != 0 {
					want[i] = 1
				}
			}
			if got.DType != to {
				t.Fatalf("Cast %v→%v: dtype %v", from, to, got.DType)
			}
			checkValues(t, "Cast "+from.String()+"→"+to.String(), got, shp(5), want)
		}
	}
}

func TestCastEdgeValues(t *testing.T) {
	x := f32(shp(7), 2.9, -2.9, math.NaN(), math.Inf(1), math.Inf(-1), 3e9, 1e20)
	checkValues(t, "float32→int32", mustRun(t, "Cast", kernel.Attrs{"to": "int32"}, x), shp(7),
		[]float64{2, -2, 0, math.MaxInt32, math.MinInt32, math.MaxInt32, math.MaxInt32})
	checkValues(t, "float32→int64", mustRun(t, "Cast", kernel.Attrs{"to": "int64"}, x), shp(7),
		[]float64{2, -2, 0, math.MaxInt64, math.MinInt64, 3e9, math.MaxInt64})
	checkValues(t, "float32→bool", mustRun(t, "Cast", kernel.Attrs{"to": "bool"}, f32(shp(3), 0, math.NaN(), -0.5)), shp(3),
		[]float64{0, 1, 1})
	checkValues(t, "float32→float16", mustRun(t, "Cast", kernel.Attrs{"to": "float16"}, f32(shp(2), 1+math.Ldexp(1, -11), 70000)), shp(2),
		[]float64{1, math.Inf(1)})
	big := tensor(kernel.Int64, shp(1), 1<<40+3)
	checkValues(t, "int64→int32 wraps", mustRun(t, "Cast", kernel.Attrs{"to": "int32"}, big), shp(1), []float64{3})
	// A bool byte other than 1 still reads as true.
	b := kernel.New(kernel.Bool, 2)
	b.Host[0], b.Host[1] = 0, 7
	checkValues(t, "bool→int32", mustRun(t, "Cast", kernel.Attrs{"to": kernel.Int32}, b), shp(2), []float64{0, 1})
	checkValues(t, "scalar", mustRun(t, "Cast", kernel.Attrs{"to": "float32"}, i64(nil, 5)), nil, []float64{5})
}

func TestCastBadAttrs(t *testing.T) {
	wantErr(t, "Cast", nil, nil, `"to" is required`)
	wantErr(t, "Cast", kernel.Attrs{"to": "complex64"}, nil, "unknown dtype")
	wantErr(t, "Cast", kernel.Attrs{"to": 3.5}, nil, "want a dtype")
}
