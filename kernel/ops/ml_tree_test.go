package ops

import (
	"math"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "TreeEnsembleRegressor", "TreeEnsembleClassifier")
}

// mlStump is one tree: x[feature 1] <= 0.5 (NaN to the true branch when
// miss is 1) picks leaf 1, else leaf 2.
func mlStump(miss int64) kernel.Attrs {
	return kernel.Attrs{"nodes_treeids": []int64{0, 0, 0}, "nodes_nodeids": []int64{0, 1, 2}, "nodes_featureids": []int64{1, 0, 0},
		"nodes_modes": []string{"BRANCH_LEQ", "LEAF", "LEAF"}, "nodes_values": []float64{0.5, 0, 0},
		"nodes_truenodeids": []int64{1, 0, 0}, "nodes_falsenodeids": []int64{2, 0, 0},
		"nodes_missing_value_tracks_true": []int64{miss, 0},
		"n_targets":                       int64(1), "target_ids": []int64{0, 0}, "target_nodeids": []int64{1, 2}, "target_treeids": []int64{0, 0},
		"target_weights": []float64{-1, 2}}
}

// TestMLTreeSpecialValues routes NaN and infinities: NaN fails every
// comparison unless nodes_missing_value_tracks_true sends it to the true
// branch.
func TestMLTreeSpecialValues(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	x := f32(shp(4, 2), 0, nan, 0, inf, 0, -inf, 0, 0.5)
	for _, c := range []struct {
		miss int64
		want []float32
	}{{0, []float32{2, 2, -1, -1}}, {1, []float32{-1, 2, -1, -1}}} {
		y := kernel.Float32s(mustRun(t, "TreeEnsembleRegressor", mlStump(c.miss), x).Data())
		for i, w := range c.want {
			if y[i] != w {
				t.Errorf("missing_value_tracks_true %d: y = %v, want %v", c.miss, y, c.want)
				break
			}
		}
	}
	wantErr(t, "TreeEnsembleRegressor", mlStump(0), []*kernel.Tensor{f32(shp(2, 1))}, "feature 1")
	wantErr(t, "TreeEnsembleRegressor", mlStump(0), []*kernel.Tensor{tensor(kernel.Int64, shp(2, 2))}, "dtype")
}

// TestMLTreeNoAllocs: a steady-state run allocates nothing.
func TestMLTreeNoAllocs(t *testing.T) {
	a := mlStump(1)
	a["n_targets"], a["target_ids"], a["post_transform"] = int64(2), []int64{0, 1}, "SOFTMAX"
	k, err := Builtins().New("TreeEnsembleRegressor", a)
	if err != nil {
		t.Fatal(err)
	}
	x := f32(shp(3, 2), 0, 1, 0, math.NaN(), 0, 0)
	out := []*kernel.Tensor{{}}
	if err := k.InferShape([]*kernel.Tensor{x}, out); err != nil {
		t.Fatal(err)
	}
	out[0] = tensor(out[0].DType, out[0].Shape)
	args := &kernel.Args{In: []*kernel.Tensor{x}, Out: out}
	if err := k.Resize(args.In, args.Out, &args.Tiling); err != nil {
		t.Fatal(err)
	}
	if err := k.Compute(args); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		if err := k.Compute(args); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Compute allocates %v times a run", n)
	}
}

// TestMLTreeOneClass: a classifier of one class (scikit-learn's trees fit
// on one label, as onnxmltools converts them) gives one score column, its
// leaves' sum and base value, raw whatever the post transform but PROBIT,
// and the label 1 for a positive score, 0 otherwise, whatever the class's
// label, as onnxruntime 1.30 computes it.
func TestMLTreeOneClass(t *testing.T) {
	oneClass := func(post string, base []float64) kernel.Attrs {
		a := mlStump(0)
		for _, k := range []string{"n_targets", "target_ids", "target_nodeids", "target_treeids", "target_weights"} {
			delete(a, k)
		}
		a["class_ids"], a["class_nodeids"], a["class_treeids"], a["class_weights"] = []int64{0, 0}, []int64{1, 2}, []int64{0, 0}, []float64{-1, 2}
		a["classlabels_int64s"], a["post_transform"] = []int64{7}, post
		if base != nil {
			a["base_values"] = base
		}
		return a
	}
	x := f32(shp(3, 2), 0, 0, 0, 1, 0, 0.5)
	for _, c := range []struct {
		post  string
		base  []float64
		wantZ []float32
	}{
		{"LOGISTIC", []float64{0.25}, []float32{-0.75, 2.25, -0.75}},
		{"NONE", nil, []float32{-1, 2, -1}},
		{"SOFTMAX", nil, []float32{-1, 2, -1}},
	} {
		out, err := runOp("TreeEnsembleClassifier", oneClass(c.post, c.base), x)
		if err != nil {
			t.Fatalf("%s: %v", c.post, err)
		}
		y, z := kernel.Int64s(out[0].Data()), kernel.Float32s(out[1].Data())
		if !out[1].Shape.Equal(shp(3, 1)) || !slices.Equal(y, []int64{0, 1, 0}) || !slices.Equal(z, c.wantZ) {
			t.Errorf("%s: Y = %v, Z %v = %v; want [0 1 0], [3 1] %v", c.post, y, out[1].Shape, z, c.wantZ)
		}
	}
	a := oneClass("NONE", nil)
	a["classlabels_int64s"] = []int64{}
	wantErr(t, "TreeEnsembleClassifier", a, []*kernel.Tensor{x}, "no labels")
}
