package ops

import (
	"math"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "ImageScaler", "Affine", "ScaledTanh", "ParametricSoftplus", "Crop", "DynamicSlice")
}

var nan = math.NaN()

// checkOut runs op and requires an output of dtype dt, shape and values
// want: float32 bit for bit (any NaN for NaN), float16 as the float16 of
// want, other dtypes exactly.
func checkOut(t *testing.T, name, op string, a kernel.Attrs, in []*kernel.Tensor, dt kernel.DType, shape []int64, want ...float64) {
	t.Helper()
	y := mustRun(t, op, a, in...)
	ok := y.DType == dt && y.Shape.Equal(shape) && int(y.NumElements()) == len(want)
	got := values(y)
	for i := 0; ok && i < len(want); i++ {
		w := want[i]
		switch dt {
		case kernel.Float32:
			w = float64(float32(w))
		case kernel.Float16:
			w = float64(kernel.F16ToF32(kernel.F32ToF16(float32(w))))
		}
		ok = sameValue(got[i], w, true)
	}
	if !ok {
		t.Errorf("%s: %s gives %v %v %v, want %v %v %v", name, op, y.DType, y.Shape, got, dt, shape, want)
	}
}

// wantNewErr requires op's factory to fail on attrs with an error naming
// op and containing fragment.
func wantNewErr(t *testing.T, op string, attrs kernel.Attrs, fragment string) {
	t.Helper()
	_, err := Builtins().New(op, attrs)
	if err == nil || !strings.Contains(err.Error(), op) || !strings.Contains(err.Error(), fragment) {
		t.Errorf("%s %v: error %v, want one containing %q", op, attrs, err, fragment)
	}
}

func f16(shape []int64, v ...float64) *kernel.Tensor { return tensor(kernel.Float16, shape, v...) }

func TestAffine(t *testing.T) {
	x := f32(shp(3), 1, -2, 0.25)
	checkOut(t, "alpha 2, beta 0.5", "Affine", kernel.Attrs{"alpha": 2.0, "beta": 0.5}, []*kernel.Tensor{x}, kernel.Float32, shp(3), 2.5, -3.5, 1)
	checkOut(t, "defaults", "Affine", nil, []*kernel.Tensor{f32(shp(1, 2, 1), 1.5, nan)}, kernel.Float32, shp(1, 2, 1), 1.5, nan)
	checkOut(t, "rank 0", "Affine", kernel.Attrs{"beta": -1.0}, []*kernel.Tensor{f32(nil, 3)}, kernel.Float32, nil, 2)
	// float16 computes in float32 and rounds back: 2048.5 to 2048.
	checkOut(t, "float16", "Affine", kernel.Attrs{"alpha": 0.5, "beta": 0.5}, []*kernel.Tensor{f16(shp(2), 3, 4096)}, kernel.Float16, shp(2), 2, 2048)
	// The product rounds to float32 before the sum: 3·(1+2⁻²³) is 3+3·2⁻²³,
	// a tie that rounds to the even 3+2⁻²¹, and the sum with −3 is 2⁻²¹ (a
	// fused multiply-add would give 3·2⁻²³).
	checkOut(t, "rounded product", "Affine", kernel.Attrs{"alpha": 3.0, "beta": -3.0}, []*kernel.Tensor{f32(shp(1), 1+math.Ldexp(1, -23))}, kernel.Float32, shp(1), math.Ldexp(1, -21))
	wantErr(t, "Affine", nil, []*kernel.Tensor{tensor(kernel.Float64, shp(1), 1)}, "dtype")
	wantErr(t, "Affine", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(1), 1)}, "dtype")
	wantNewErr(t, "Affine", kernel.Attrs{"alpha": "2"}, "alpha")
}

func TestScaledTanh(t *testing.T) {
	a := kernel.Attrs{"alpha": 2.0, "beta": 3.0}
	checkOut(t, "saturated", "ScaledTanh", a, []*kernel.Tensor{f32(shp(2, 3), 0, 100, -100, math.Inf(1), math.Inf(-1), nan)},
		kernel.Float32, shp(2, 3), 0, 2, -2, 2, -2, nan)
	// tanh(0.5) = 0.46211715726…, rounded to float32, times 1.5.
	checkOut(t, "tanh(0.5)", "ScaledTanh", kernel.Attrs{"alpha": 1.5, "beta": 0.25}, []*kernel.Tensor{f32(nil, 2)},
		kernel.Float32, nil, float64(float32(1.5)*float32(0.46211715726000974)))
	checkOut(t, "float16", "ScaledTanh", a, []*kernel.Tensor{f16(shp(2), 10, math.Copysign(0, -1))}, kernel.Float16, shp(2), 2, math.Copysign(0, -1))
	wantNewErr(t, "ScaledTanh", kernel.Attrs{"alpha": 1.0}, "beta is required")
	wantNewErr(t, "ScaledTanh", kernel.Attrs{"beta": 1.0}, "alpha is required")
	wantNewErr(t, "ScaledTanh", nil, "alpha is required")
	wantErr(t, "ScaledTanh", a, []*kernel.Tensor{tensor(kernel.Float64, shp(1), 1)}, "dtype")
}

func TestParametricSoftplus(t *testing.T) {
	a := kernel.Attrs{"alpha": 2.0, "beta": 1.0}
	// ln 2 = 0.693147180559945…; e^(−200) is 0 in float32, so the large
	// values are exact and the very negative ones 0.
	checkOut(t, "values", "ParametricSoftplus", a, []*kernel.Tensor{f32(shp(7), 0, 200, -200, math.Inf(1), math.Inf(-1), nan, 1e30)},
		kernel.Float32, shp(7), float64(2*float32(0.6931471805599453)), 400, 0, math.Inf(1), 0, nan, 2e30)
	// beta·x > 0 takes beta·x + ln(e^(−beta·x) + 1): a negative beta with a
	// negative x too.
	checkOut(t, "negative beta", "ParametricSoftplus", kernel.Attrs{"alpha": 0.5, "beta": -2.0}, []*kernel.Tensor{f32(shp(2), -100, 100)},
		kernel.Float32, shp(2), 100, 0)
	checkOut(t, "float16", "ParametricSoftplus", a, []*kernel.Tensor{f16(shp(2), 20, -20)}, kernel.Float16, shp(2), 40, 0)
	wantNewErr(t, "ParametricSoftplus", kernel.Attrs{"alpha": 1.0}, "beta is required")
	wantNewErr(t, "ParametricSoftplus", kernel.Attrs{"beta": 1.0}, "alpha is required")
	wantErr(t, "ParametricSoftplus", a, []*kernel.Tensor{tensor(kernel.BFloat16, shp(1), 1)}, "dtype")
}

func TestImageScaler(t *testing.T) {
	a := kernel.Attrs{"scale": 2.0, "bias": []float64{0.5, -1}}
	x := f32(shp(1, 2, 1, 2), 1, 2, 3, 4)
	checkOut(t, "NCHW", "ImageScaler", a, []*kernel.Tensor{x}, kernel.Float32, shp(1, 2, 1, 2), 2.5, 4.5, 5, 7)
	checkOut(t, "batch of 2", "ImageScaler", a, []*kernel.Tensor{f32(shp(2, 2, 1, 1), 1, 2, 3, 4)}, kernel.Float32, shp(2, 2, 1, 1), 2.5, 3, 6.5, 7)
	checkOut(t, "scale 1", "ImageScaler", kernel.Attrs{"bias": []float64{10}}, []*kernel.Tensor{f32(shp(1, 1, 2, 1), 1, -2)}, kernel.Float32, shp(1, 1, 2, 1), 11, 8)
	// Rank 5: the [N,C,H,W] output of the first N·C·H·W elements.
	checkOut(t, "rank 5", "ImageScaler", a, []*kernel.Tensor{f32(shp(1, 2, 1, 1, 2), 1, 2, 3, 4)}, kernel.Float32, shp(1, 2, 1, 1), 2.5, 3)
	checkOut(t, "float16", "ImageScaler", a, []*kernel.Tensor{f16(shp(1, 2, 1, 1), 1, 2)}, kernel.Float16, shp(1, 2, 1, 1), 2.5, 3)
	checkOut(t, "empty", "ImageScaler", kernel.Attrs{"bias": []float64{}}, []*kernel.Tensor{f32(shp(1, 0, 2, 2))}, kernel.Float32, shp(1, 0, 2, 2))
	wantNewErr(t, "ImageScaler", kernel.Attrs{"scale": 2.0}, "bias is required")
	wantErr(t, "ImageScaler", a, []*kernel.Tensor{f32(shp(1, 3, 1, 1), 1, 2, 3)}, "2 biases for 3 channels")
	wantErr(t, "ImageScaler", kernel.Attrs{"bias": []float64{}}, []*kernel.Tensor{f32(shp(1, 2, 1, 1), 1, 2)}, "0 biases for 2 channels")
	wantErr(t, "ImageScaler", a, []*kernel.Tensor{f32(shp(2, 1, 2), 1, 2, 3, 4)}, "[N,C,H,W]")
	wantErr(t, "ImageScaler", a, []*kernel.Tensor{tensor(kernel.Float64, shp(1, 2, 1, 1), 1, 2)}, "dtype")
}

func TestCrop(t *testing.T) {
	x := f32(shp(1, 1, 3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	checkOut(t, "borders", "Crop", kernel.Attrs{"border": []int64{1, 0, 1, 1}}, []*kernel.Tensor{x}, kernel.Float32, shp(1, 1, 2, 2), 1, 2, 5, 6)
	// With scale the right and bottom borders are not looked at.
	checkOut(t, "scale", "Crop", kernel.Attrs{"border": []int64{1, 1, 9, 9}, "scale": []int64{2, 2}}, []*kernel.Tensor{x}, kernel.Float32, shp(1, 1, 2, 2), 5, 6, 9, 10)
	checkOut(t, "whole", "Crop", kernel.Attrs{"border": []int64{0, 0, 0, 0}}, []*kernel.Tensor{x}, kernel.Float32, shp(1, 1, 3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	checkOut(t, "nothing left", "Crop", kernel.Attrs{"border": []int64{2, 1, 2, 2}}, []*kernel.Tensor{x}, kernel.Float32, shp(1, 1, 0, 0))
	checkOut(t, "scale 0", "Crop", kernel.Attrs{"border": []int64{0, 3, 0, 0}, "scale": []int64{0, 4}}, []*kernel.Tensor{x}, kernel.Float32, shp(1, 1, 0, 4))
	x4 := f32(shp(2, 2, 2, 2), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
	checkOut(t, "N and C", "Crop", kernel.Attrs{"border": []int64{1, 0, 0, 1}}, []*kernel.Tensor{x4}, kernel.Float32, shp(2, 2, 1, 1), 1, 5, 9, 13)
	checkOut(t, "float16", "Crop", kernel.Attrs{"border": []int64{0, 1, 1, 0}}, []*kernel.Tensor{f16(shp(1, 1, 2, 2), 1, 2, 3, 4)}, kernel.Float16, shp(1, 1, 1, 1), 3)

	wantNewErr(t, "Crop", nil, "border has 0 values")
	wantNewErr(t, "Crop", kernel.Attrs{"border": []int64{1, 1, 1}}, "border has 3 values")
	wantNewErr(t, "Crop", kernel.Attrs{"border": []int64{1, 1, 1, 1, 1}}, "border has 5 values")
	wantNewErr(t, "Crop", kernel.Attrs{"border": []int64{1, 1, 1, 1}, "scale": []int64{2}}, "scale has 1 values")
	wantNewErr(t, "Crop", kernel.Attrs{"border": []int64{1, 1, 1, 1}, "scale": []int64{}}, "scale has 0 values")
	wantNewErr(t, "Crop", kernel.Attrs{"border": []int64{1, -1, 1, 1}}, "negative")
	wantNewErr(t, "Crop", kernel.Attrs{"border": []int64{1, 1, 1, 1}, "scale": []int64{2, -2}}, "negative")
	b := kernel.Attrs{"border": []int64{1, 0, 1, 1}}
	wantErr(t, "Crop", b, []*kernel.Tensor{f32(shp(1, 3, 4))}, "[N,C,H,W]")
	wantErr(t, "Crop", b, []*kernel.Tensor{f32(shp(1, 1, 3, 4, 1))}, "[N,C,H,W]")
	wantErr(t, "Crop", b, []*kernel.Tensor{tensor(kernel.Float64, shp(1, 1, 3, 4))}, "dtype")
	wantErr(t, "Crop", kernel.Attrs{"border": []int64{0, 2, 0, 2}}, []*kernel.Tensor{x}, "height 3", "top border 2", "bottom border 2")
	wantErr(t, "Crop", kernel.Attrs{"border": []int64{3, 0, 2, 0}}, []*kernel.Tensor{x}, "width 4", "left border 3", "right border 2")
	wantErr(t, "Crop", kernel.Attrs{"border": []int64{0, 2, 0, 0}, "scale": []int64{2, 1}}, []*kernel.Tensor{x}, "height 3", "height 2")
	wantErr(t, "Crop", kernel.Attrs{"border": []int64{1, 0, 0, 0}, "scale": []int64{1, 4}}, []*kernel.Tensor{x}, "width 4", "width 4")
	// Borders whose sum overflows are an error, not a wrapped window.
	huge := int64(math.MaxInt64)
	wantErr(t, "Crop", kernel.Attrs{"border": []int64{0, huge, 0, huge}}, []*kernel.Tensor{x}, "height")
	wantErr(t, "Crop", kernel.Attrs{"border": []int64{1, 1, 0, 0}, "scale": []int64{1, huge}}, []*kernel.Tensor{x}, "width")
}

func TestDynamicSlice(t *testing.T) {
	x := f32(shp(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	// Out-of-range and negative starts and ends, no axes.
	checkOut(t, "no axes", "DynamicSlice", nil, []*kernel.Tensor{x, i64(shp(2), -5, 1), i64(shp(2), 100, -1)},
		kernel.Float32, shp(3, 2), 1, 2, 5, 6, 9, 10)
	i32 := func(v ...float64) *kernel.Tensor { return tensor(kernel.Int32, shp(int64(len(v))), v...) }
	checkOut(t, "axes", "DynamicSlice", nil, []*kernel.Tensor{x, i32(1), i32(3), i32(-1)}, kernel.Float32, shp(3, 2), 1, 2, 5, 6, 9, 10)
	checkOut(t, "empty", "DynamicSlice", nil, []*kernel.Tensor{x, i64(shp(1), 2), i64(shp(1), 1)}, kernel.Float32, shp(0, 4))
	checkOut(t, "int64 data", "DynamicSlice", nil, []*kernel.Tensor{i64(shp(4), 1, 2, 3, 4), i64(shp(1), -2), i64(shp(1), 1<<40)}, kernel.Int64, shp(2), 3, 4)
	k, _ := Builtins().New("DynamicSlice", nil)
	if minIn, maxIn, _ := k.Arity(); minIn != 3 || maxIn != 4 {
		t.Errorf("DynamicSlice takes %d to %d inputs, want 3 to 4 (no steps)", minIn, maxIn)
	}
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, i32(0), i64(shp(1), 2)}, "dtype")
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, i64(shp(1), 0), i64(shp(1), 2), i32(0)}, "dtype")
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, i64(nil, 0), i64(nil, 2)}, "want 1-D")
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, i64(shp(1, 1), 0), i64(shp(1, 1), 2)}, "want 1-D")
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, f32(shp(1), 0), f32(shp(1), 2)}, "int64 or int32")
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, i64(shp(2), 0, 0), i64(shp(1), 2)}, "2 starts but 1 ends")
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, i64(shp(2), 0, 0), i64(shp(2), 2, 2), i64(shp(2), 1, -1)}, "both name axis 1")
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, i64(shp(1), 0), i64(shp(1), 2), i64(shp(1), 2)}, "axes[0]")
	wantErr(t, "DynamicSlice", nil, []*kernel.Tensor{x, i64(shp(3), 0, 0, 0), i64(shp(3), 1, 1, 1)}, "rank 2")
	wantNewErr(t, "DynamicSlice", kernel.Attrs{"starts": []int64{0}}, "starts")
}

func TestMeanVarianceNormalizationOpset8(t *testing.T) {
	at := func(kv ...any) kernel.Attrs {
		a := kernel.Attrs{kernel.OpsetAttr: int64(8)}
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	const op = "MeanVarianceNormalization"
	x := f32(shp(1, 2, 1, 2), 1, 3, 2, 2)
	// Per channel: [1 3] has mean 2 and standard deviation 1; [2 2] has
	// none, and 0/0 is NaN (no epsilon).
	checkOut(t, "defaults", op, at(), []*kernel.Tensor{x}, kernel.Float32, shp(1, 2, 1, 2), -1, 1, nan, nan)
	checkOut(t, "mean only", op, at("normalize_variance", int64(0)), []*kernel.Tensor{x}, kernel.Float32, shp(1, 2, 1, 2), -1, 1, 0, 0)
	// Across channels: mean 2, variance 0.5.
	r := float64(float32(1) / float32(math.Sqrt(0.5)))
	checkOut(t, "across channels", op, at("across_channels", int64(1)), []*kernel.Tensor{x}, kernel.Float32, shp(1, 2, 1, 2), -r, r, 0, 0)
	checkOut(t, "across channels, mean only", op, at("across_channels", int64(1), "normalize_variance", int64(0)), []*kernel.Tensor{x}, kernel.Float32, shp(1, 2, 1, 2), -1, 1, 0, 0)
	// Only 1 turns either on.
	checkOut(t, "across_channels 2", op, at("across_channels", int64(2)), []*kernel.Tensor{x}, kernel.Float32, shp(1, 2, 1, 2), -1, 1, nan, nan)
	checkOut(t, "normalize_variance 2", op, at("normalize_variance", int64(2)), []*kernel.Tensor{x}, kernel.Float32, shp(1, 2, 1, 2), -1, 1, 0, 0)
	// The batch shares a channel's statistics: [0 2 4 6] has mean 3 and
	// variance 5.
	s5 := float64(float32(math.Sqrt(5)))
	checkOut(t, "batch", op, at(), []*kernel.Tensor{f32(shp(2, 1, 1, 2), 0, 2, 4, 6)}, kernel.Float32, shp(2, 1, 1, 2),
		float64(float32(-3/s5)), float64(float32(-1/s5)), float64(float32(1/s5)), float64(float32(3/s5)))
	// Rank 1: axis 0 alone; rank 3: axes 0 and 2.
	s := float64(float32(math.Sqrt(1.25)))
	checkOut(t, "rank 1", op, at(), []*kernel.Tensor{f32(shp(4), 1, 2, 3, 4)}, kernel.Float32, shp(4),
		float64(float32(-1.5/s)), float64(float32(-0.5/s)), float64(float32(0.5/s)), float64(float32(1.5/s)))
	checkOut(t, "rank 3", op, at("normalize_variance", int64(0)), []*kernel.Tensor{f32(shp(2, 2, 1), 1, 10, 3, 20)}, kernel.Float32, shp(2, 2, 1), -1, -5, 1, 5)
	// The mean rounds to float32 first, as onnxruntime's: 1 + 0.75·2⁻²³
	// rounds to 1 + 2⁻²³, so the deviations are −u, 0, −u, u (onnxruntime
	// gives ±1.1547005).
	u := math.Ldexp(1, -23)
	checkOut(t, "float32 mean", op, at(), []*kernel.Tensor{f32(shp(1, 1, 2, 2), 1, 1+u, 1, 1+2*u)}, kernel.Float32, shp(1, 1, 2, 2),
		-1.154700517654419, 0, -1.154700517654419, 1.154700517654419)
	checkOut(t, "float16", op, at("normalize_variance", int64(0)), []*kernel.Tensor{f16(shp(1, 2, 1, 2), 1, 3, 2, 2)}, kernel.Float16, shp(1, 2, 1, 2), -1, 1, 0, 0)
	checkOut(t, "empty", op, at(), []*kernel.Tensor{f32(shp(0, 2, 2, 2))}, kernel.Float32, shp(0, 2, 2, 2))
	wantErr(t, op, at(), []*kernel.Tensor{f32(nil, 1)}, "none of the axes")
	wantErr(t, op, at(), []*kernel.Tensor{tensor(kernel.Float64, shp(1, 1, 1, 1), 1)}, "dtype")
	wantNewErr(t, op, at("axes", []int64{1}), "axes")
	// From opset 9 the attributes are axes only.
	a9 := at("across_channels", int64(1))
	a9[kernel.OpsetAttr] = int64(9)
	wantNewErr(t, op, a9, "across_channels")
}

func TestThresholdedReluOpset7(t *testing.T) {
	a := kernel.Attrs{kernel.OpsetAttr: int64(7)}
	checkOut(t, "alpha 1", "ThresholdedRelu", a, []*kernel.Tensor{f32(shp(4), 0.5, 1, 1.5, -2)}, kernel.Float32, shp(4), 0, 0, 1.5, 0)
	a["alpha"] = 0.25
	checkOut(t, "alpha 0.25", "ThresholdedRelu", a, []*kernel.Tensor{f16(shp(3), 0.25, 0.5, -1)}, kernel.Float16, shp(3), 0, 0.5, 0)
}
