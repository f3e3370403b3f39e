package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "LinearClassifier", "LinearRegressor", "Scaler", "Normalizer", "Binarizer",
		"Imputer", "ArrayFeatureExtractor", "OneHotEncoder", "FeatureVectorizer", "LabelEncoder")
}

// TestMLLinearBinary checks onnxruntime's one-class forms: two labels give
// Z [1−p, p] (p the logistic of the score with LOGISTIC), none the label 1
// or 0 by the score's sign.
func TestMLLinearBinary(t *testing.T) {
	x := f32(shp(2, 2), 1, 0, 0, 1)
	a := kernel.Attrs{"coefficients": []float64{1, -1}, "intercepts": []float64{0.25}, "classlabels_ints": []int64{3, 7}}
	k, err := Builtins().New("LinearClassifier", a)
	if err != nil {
		t.Fatal(err)
	}
	args, err := prepare(k, 0, x)
	if err != nil {
		t.Fatal(err)
	}
	if err := launch(k, args); err != nil {
		t.Fatal(err)
	}
	lab, z := kernel.Int64s(args.Out[0].Data()), kernel.Float32s(args.Out[1].Data())
	if lab[0] != 7 || lab[1] != 3 || z[0] != -0.25 || z[1] != 1.25 || z[2] != 1.75 || z[3] != -0.75 {
		t.Errorf("labels %v, Z %v", lab, z)
	}
	delete(a, "classlabels_ints")
	a["post_transform"] = "LOGISTIC"
	y := mustRun(t, "LinearRegressor", kernel.Attrs{"coefficients": []float64{1, -1}, "intercepts": []float64{0.25}, "post_transform": "LOGISTIC"}, x)
	if v := kernel.Float32s(y.Data()); v[0] != 1.25 || v[1] != -0.75 {
		t.Errorf("one target, LOGISTIC: %v, want the scores", v)
	}
	a["classlabels_ints"] = []int64{1, 2, 3}
	if _, err := Builtins().New("LinearClassifier", a); err == nil {
		t.Error("one class with three labels: no error")
	}
	wantErr(t, "LinearRegressor", kernel.Attrs{"coefficients": []float64{1, 2, 3}}, []*kernel.Tensor{x}, "coefficients")
}

// TestMLPrepSpecialValues checks NaN handling: Binarizer fails, Imputer
// replaces NaN by NaN, LabelEncoder matches a NaN key from version 4.
func TestMLPrepSpecialValues(t *testing.T) {
	nan := math.NaN()
	wantErr(t, "Binarizer", nil, []*kernel.Tensor{f32(shp(2), 1, nan)}, "NaN")
	y := kernel.Float32s(mustRun(t, "Imputer", kernel.Attrs{"imputed_value_floats": []float64{7}, "replaced_value_float": nan}, f32(shp(3), 1, nan, 0)).Data())
	if y[0] != 1 || y[1] != 7 || y[2] != 0 {
		t.Errorf("Imputer: %v", y)
	}
	le := kernel.Attrs{"keys_floats": []float64{nan, 1}, "values_int64s": []int64{5, 6}}
	for _, c := range []struct {
		opset int64
		want  int64
	}{{3, -1}, {4, 5}} {
		le[kernel.OpsetAttr] = c.opset
		if v := kernel.Int64s(mustRun(t, "LabelEncoder", le, f32(shp(2), nan, 1)).Data()); v[0] != c.want || v[1] != 6 {
			t.Errorf("LabelEncoder version %d: %v", c.opset, v)
		}
	}
	le[kernel.OpsetAttr] = int64(1)
	if _, err := Builtins().New("LabelEncoder", le); err == nil {
		t.Error("LabelEncoder version 1: no error")
	}
	wantErr(t, "ArrayFeatureExtractor", nil, []*kernel.Tensor{f32(shp(2, 2)), i64(shp(1), -1)}, "out of range")
	wantErr(t, "OneHotEncoder", kernel.Attrs{"cats_int64s": []int64{1}, "zeros": int64(0)}, []*kernel.Tensor{i64(shp(1), 2)}, "zeros")
}

// TestMLPrepNoAllocs: steady-state runs allocate nothing.
func TestMLPrepNoAllocs(t *testing.T) {
	for _, c := range []struct {
		op    string
		attrs kernel.Attrs
		in    []*kernel.Tensor
	}{
		{"LinearClassifier", kernel.Attrs{"coefficients": []float64{1, -1, 2, 0.5}, "intercepts": []float64{0, 1}, "classlabels_ints": []int64{4, 5}, "post_transform": "SOFTMAX"}, []*kernel.Tensor{f32(shp(2, 2), 1, 2, 3, 4)}},
		{"LabelEncoder", kernel.Attrs{"keys_floats": []float64{1, 2}, "values_floats": []float64{3, 4}}, []*kernel.Tensor{f32(shp(3), 1, 2, 5)}},
		{"OneHotEncoder", kernel.Attrs{"cats_int64s": []int64{1, 2}}, []*kernel.Tensor{f32(shp(3), 1, 2, 5)}},
		{"Normalizer", kernel.Attrs{"norm": "L2"}, []*kernel.Tensor{f32(shp(2, 2), 1, 2, 3, 4)}},
		{"FeatureVectorizer", kernel.Attrs{"inputdimensions": []int64{1, 3}}, []*kernel.Tensor{f32(shp(2, 2), 1, 2, 3, 4), f32(shp(2, 2), 1, 2, 3, 4)}},
	} {
		k, err := Builtins().New(c.op, c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		args, err := prepare(k, 0, c.in...)
		if err != nil {
			t.Fatal(err)
		}
		if err := launch(k, args); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(20, func() {
			if err := k.Compute(args); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: Compute allocates %v times a run", c.op, n)
		}
	}
}
