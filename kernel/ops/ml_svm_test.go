package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "SVMRegressor", "SVMClassifier")
}

// mlSVMAttrs returns a three-class SVMClassifier with two support vectors
// of two features per class and probabilities.
func mlSVMAttrs() kernel.Attrs {
	return kernel.Attrs{
		"kernel_type": "RBF", "kernel_params": []float64{0.5, 0, 3},
		"support_vectors":   []float64{1, 0, 0, 1, -1, -1, 0.5, 0.5, 2, 0, 0, -2},
		"vectors_per_class": []int64{2, 2, 2}, "classlabels_ints": []int64{4, 5, 6},
		"coefficients": []float64{0.5, -1, 0.75, 0.25, -0.5, 1, -0.25, 0.5, -0.75, 0.3, 0.2, -0.4},
		"rho":          []float64{0.1, -0.2, 0.3}, "prob_a": []float64{-1, -2, -1.5}, "prob_b": []float64{0, 0.1, -0.1},
	}
}

// TestMLSVMProbabilities checks that the class probabilities of a row
// sum to 1 and that the label is the class of most votes.
func TestMLSVMProbabilities(t *testing.T) {
	k, err := Builtins().New("SVMClassifier", mlSVMAttrs())
	if err != nil {
		t.Fatal(err)
	}
	args, err := prepare(k, 0, f32(shp(3, 2), 1, 0, -1, -1, 2, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := launch(k, args); err != nil {
		t.Fatal(err)
	}
	lab, z := kernel.Int64s(args.Out[0].Data()), kernel.Float32s(args.Out[1].Data())
	for r := range 3 {
		sum := z[3*r] + z[3*r+1] + z[3*r+2]
		if sum < 0.999 || sum > 1.001 {
			t.Errorf("row %d: probabilities %v sum to %v", r, z[3*r:3*r+3], sum)
		}
		if lab[r] < 4 || lab[r] > 6 {
			t.Errorf("row %d: label %d", r, lab[r])
		}
	}
	n := testing.AllocsPerRun(20, func() {
		if err := k.Compute(args); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per computation", n)
	}
}

// TestMLSVMBinary checks the two-class layouts of Z: [−d, d] with NONE,
// [1−d, d] with SOFTMAX, the logistics with LOGISTIC, and the one-class
// regressor's ±1.
func TestMLSVMBinary(t *testing.T) {
	a := kernel.Attrs{"kernel_type": "LINEAR", "kernel_params": []float64{0, 0, 0},
		"support_vectors": []float64{1, 0, 0, 1}, "vectors_per_class": []int64{1, 1}, "classlabels_ints": []int64{3, 7},
		"coefficients": []float64{1, -1}, "rho": []float64{0.25}}
	x := f32(shp(2, 2), 1, 0, 0, 1)
	for _, c := range []struct {
		post string
		want []float32
	}{{"NONE", []float32{-1.25, 1.25, 0.75, -0.75}}, {"SOFTMAX", []float32{-0.25, 1.25, 1.75, -0.75}},
		{"LOGISTIC", []float32{mlLogistic(-1.25), mlLogistic(1.25), mlLogistic(0.75), mlLogistic(-0.75)}}} {
		a["post_transform"] = c.post
		k, err := Builtins().New("SVMClassifier", a)
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
		if lab[0] != 3 || lab[1] != 7 {
			t.Errorf("%s: labels %v, want [3 7]", c.post, lab)
		}
		for i, w := range c.want {
			if z[i] != w {
				t.Errorf("%s: Z %v, want %v", c.post, z, c.want)
				break
			}
		}
	}
	r := kernel.Attrs{"kernel_type": "POLY", "kernel_params": []float64{1, 1, 2}, "support_vectors": []float64{1, 0, 0, 1},
		"n_supports": int64(2), "coefficients": []float64{1, -1}, "rho": []float64{-0.5}, "one_class": int64(1)}
	y := kernel.Float32s(mustRun(t, "SVMRegressor", r, x).Data())
	if y[0] != 1 || y[1] != -1 {
		t.Errorf("one class: %v, want [1 -1]", y)
	}
}

// TestMLSVMRefused checks the attribute and input errors.
func TestMLSVMRefused(t *testing.T) {
	x := []*kernel.Tensor{f32(shp(1, 2), 1, 2)}
	with := func(k string, v any) kernel.Attrs {
		a := mlSVMAttrs()
		if v == nil {
			delete(a, k)
		} else {
			a[k] = v
		}
		return a
	}
	wantErr(t, "SVMClassifier", with("classlabels_strings", []string{"a", "b", "c"}), x, "classlabels_strings")
	wantErr(t, "SVMClassifier", with("kernel_type", "CUBIC"), x, "kernel_type")
	wantErr(t, "SVMClassifier", with("kernel_params", nil), x, "kernel_params")
	wantErr(t, "SVMClassifier", with("kernel_params", []float64{1, 2}), x, "kernel_params")
	wantErr(t, "SVMClassifier", with("vectors_per_class", []int64{3, 3}), x, "vectors_per_class")
	wantErr(t, "SVMClassifier", with("vectors_per_class", []int64{2, -1, 5}), x, "vectors_per_class")
	wantErr(t, "SVMClassifier", with("coefficients", []float64{1, 2, 3}), x, "coefficients")
	wantErr(t, "SVMClassifier", with("rho", []float64{1}), x, "rho")
	wantErr(t, "SVMClassifier", with("prob_b", []float64{1}), x, "prob_a", "prob_b")
	wantErr(t, "SVMClassifier", with("prob_a", []float64{1}), x, "prob_a")
	wantErr(t, "SVMClassifier", with("support_vectors", []float64{1, 2, 3}), x, "support_vectors")
	wantErr(t, "SVMClassifier", with("classlabels_ints", nil), x, "classlabels_ints")
	wantErr(t, "SVMClassifier", with("post_transform", "EXP"), x, "post_transform")
	wantErr(t, "SVMClassifier", with("n_supports", int64(1)), x, "n_supports")
	wantErr(t, "SVMClassifier", mlSVMAttrs(), []*kernel.Tensor{f32(shp(1, 3), 1, 2, 3)}, "features")
	one := kernel.Attrs{"kernel_params": []float64{0, 0, 0}, "support_vectors": []float64{1, 2}, "vectors_per_class": []int64{1},
		"classlabels_ints": []int64{1}, "coefficients": []float64{1}, "rho": []float64{0}}
	wantErr(t, "SVMClassifier", one, x, "2 classes")
	lin := kernel.Attrs{"kernel_params": []float64{0, 0, 0}, "classlabels_ints": []int64{1, 2}, "coefficients": []float64{1, 2, 3}, "rho": []float64{0}}
	wantErr(t, "SVMClassifier", lin, x, "coefficients")
	reg := kernel.Attrs{"kernel_params": []float64{0, 0, 0}, "support_vectors": []float64{1, 2, 3, 4}, "n_supports": int64(2), "coefficients": []float64{1}, "rho": []float64{0}}
	wantErr(t, "SVMRegressor", reg, x, "coefficients")
	reg["coefficients"] = []float64{1, 1}
	wantErr(t, "SVMRegressor", reg, []*kernel.Tensor{tensor(kernel.Float64, shp(1, 2), 1, 2)}, "float32")
	wantErr(t, "SVMRegressor", reg, []*kernel.Tensor{f32(shp(1, 1, 2), 1, 2)}, "[C] or [N, C]")
	delete(reg, "rho")
	wantErr(t, "SVMRegressor", reg, x, "rho")
	reg["rho"] = []float64{0}
	reg["vectors_per_class"] = []int64{2}
	wantErr(t, "SVMRegressor", reg, x, "vectors_per_class")
}
