package ops

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func init() {
	specialOtherOps = append(specialOtherOps, "TreeEnsemble")
}

// mlT5 is a 1-D tensor attribute of dtype dt.
func mlT5(dt kernel.DType, v ...float64) *kernel.Tensor { return tensor(dt, shp(int64(len(v))), v...) }

// mlTree5Attrs: tree 0 is node 0 (x0 <= 0.5: leaf 0, else node 1) and
// node 1 (x1 in {1, 2}: leaf 1, else leaf 2, NaN true); tree 1 is one
// leaf (node 2, both children leaf 3).
func mlTree5Attrs() kernel.Attrs {
	return kernel.Attrs{"n_targets": int64(2), "tree_roots": []int64{0, 2},
		"nodes_modes": mlT5(kernel.Uint8, 0, 6, 0), "nodes_featureids": []int64{0, 1, 0},
		"nodes_splits":      mlT5(kernel.Float32, 0.5, math.NaN(), 0),
		"nodes_truenodeids": []int64{0, 1, 3}, "nodes_trueleafs": []int64{1, 1, 1},
		"nodes_falsenodeids": []int64{1, 2, 3}, "nodes_falseleafs": []int64{0, 1, 1},
		"nodes_missing_value_tracks_true": []int64{0, 1, 0},
		"membership_values":               mlT5(kernel.Float32, 1, 2, math.NaN()),
		"leaf_targetids":                  []int64{0, 1, 0, 1}, "leaf_weights": mlT5(kernel.Float32, 1, 2, 4, 8)}
}

func TestMLTree5Run(t *testing.T) {
	nan := math.NaN()
	x := f32(shp(5, 2), 0, 0, 1, 1, 1, 1.5, 1, nan, nan, 2)
	y := kernel.Float32s(mustRun(t, "TreeEnsemble", mlTree5Attrs(), x).Data())
	want := []float32{1, 8, 0, 10, 4, 8, 0, 10, 0, 10}
	for i := range want {
		if y[i] != want[i] {
			t.Fatalf("y = %v, want %v", y, want)
		}
	}
	// float64 X with float64 tensors; a set of values outside [0, 30]
	// holds exactly its values (x is not truncated).
	a := mlTree5Attrs()
	a["nodes_splits"], a["leaf_weights"] = mlT5(kernel.Float64, 0.5, 0, 0), mlT5(kernel.Float64, 1, 2, 4, 8)
	a["membership_values"] = mlT5(kernel.Float64, -1, 40, math.NaN())
	x64 := tensor(kernel.Float64, shp(6, 2), 1, 40, 1, -1, 1, 40.5, 1, -1.5, 1, 39.9, 1, nan)
	y64 := kernel.Float64s(mustRun(t, "TreeEnsemble", a, x64).Data())
	want64 := []float64{0, 10, 0, 10, 4, 8, 4, 8, 4, 8, 0, 10}
	for i := range want64 {
		if y64[i] != want64[i] {
			t.Fatalf("float64: y = %v, want %v", y64, want64)
		}
	}
}

// TestMLTree5Errors: every malformed attribute is an error naming it.
func TestMLTree5Errors(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(kernel.Attrs)
		frags []string
		unimp bool
	}{
		{"unknown attr", func(a kernel.Attrs) { a["nodes_values"] = []float64{1} }, []string{"nodes_values"}, false},
		{"no n_targets", func(a kernel.Attrs) { delete(a, "n_targets") }, []string{"n_targets"}, false},
		{"aggregate", func(a kernel.Attrs) { a["aggregate_function"] = int64(4) }, []string{"aggregate_function", "4"}, false},
		{"post", func(a kernel.Attrs) { a["post_transform"] = int64(5) }, []string{"post_transform", "5"}, false},
		{"post string", func(a kernel.Attrs) { a["post_transform"] = "SOFTMAX" }, []string{"post_transform"}, false},
		{"no weights", func(a kernel.Attrs) { delete(a, "leaf_weights") }, []string{"leaf_weights", "missing"}, false},
		{"weights ints", func(a kernel.Attrs) { a["leaf_weights"] = mlT5(kernel.Int64, 1, 2, 3, 4) }, []string{"leaf_weights", "int64"}, false},
		{"weights f16", func(a kernel.Attrs) { a["leaf_weights"] = mlT5(kernel.Float16, 1, 2, 3, 4) }, []string{"leaf_weights", "float16"}, true},
		{"weights 2-D", func(a kernel.Attrs) { a["leaf_weights"] = f32(shp(2, 2), 1, 2, 3, 4) }, []string{"leaf_weights", "1-D"}, false},
		{"weights count", func(a kernel.Attrs) { a["leaf_weights"] = mlT5(kernel.Float32, 1, 2, 3) }, []string{"leaf_weights", "3"}, false},
		{"splits dtype", func(a kernel.Attrs) { a["nodes_splits"] = mlT5(kernel.Float64, 0.5, 0, 0) }, []string{"nodes_splits", "float64"}, false},
		{"splits count", func(a kernel.Attrs) { a["nodes_splits"] = mlT5(kernel.Float32, 0.5, 0) }, []string{"nodes_splits", "2"}, false},
		{"no splits", func(a kernel.Attrs) { delete(a, "nodes_splits") }, []string{"nodes_splits", "missing"}, false},
		{"members dtype", func(a kernel.Attrs) { a["membership_values"] = mlT5(kernel.Float64, 1, math.NaN()) }, []string{"membership_values", "float64"}, false},
		{"hitrates dtype", func(a kernel.Attrs) { a["nodes_hitrates"] = mlT5(kernel.Float64, 1, 1, 1) }, []string{"nodes_hitrates", "float32"}, false},
		{"hitrates count", func(a kernel.Attrs) { a["nodes_hitrates"] = mlT5(kernel.Float32, 1) }, []string{"nodes_hitrates", "1"}, false},
		{"modes dtype", func(a kernel.Attrs) { a["nodes_modes"] = mlT5(kernel.Int64, 0, 6, 0) }, []string{"nodes_modes", "uint8"}, false},
		{"modes missing", func(a kernel.Attrs) { delete(a, "nodes_modes") }, []string{"nodes_modes", "missing"}, false},
		{"modes count", func(a kernel.Attrs) { a["nodes_modes"] = mlT5(kernel.Uint8, 0, 6) }, []string{"nodes_modes", "2"}, false},
		{"mode 7", func(a kernel.Attrs) { a["nodes_modes"] = mlT5(kernel.Uint8, 0, 6, 7) }, []string{"nodes_modes", "[2]", "7"}, false},
		{"no nodes", func(a kernel.Attrs) { a["nodes_featureids"] = []int64{} }, []string{"nodes_featureids"}, false},
		{"feature", func(a kernel.Attrs) { a["nodes_featureids"] = []int64{0, -1, 0} }, []string{"nodes_featureids", "[1]"}, false},
		{"true count", func(a kernel.Attrs) { a["nodes_truenodeids"] = []int64{0, 1} }, []string{"nodes_truenodeids", "2"}, false},
		{"falseleafs count", func(a kernel.Attrs) { a["nodes_falseleafs"] = []int64{0, 1, 1, 1} }, []string{"nodes_falseleafs", "4"}, false},
		{"trueleafs 2", func(a kernel.Attrs) { a["nodes_trueleafs"] = []int64{1, 2, 1} }, []string{"nodes_trueleafs", "[1]", "0 or 1"}, false},
		{"miss count", func(a kernel.Attrs) { a["nodes_missing_value_tracks_true"] = []int64{1} }, []string{"nodes_missing_value_tracks_true"}, false},
		{"miss 2", func(a kernel.Attrs) { a["nodes_missing_value_tracks_true"] = []int64{0, 2, 0} }, []string{"nodes_missing_value_tracks_true", "[1]"}, false},
		{"leaf out of range", func(a kernel.Attrs) { a["nodes_falsenodeids"] = []int64{1, 4, 3} }, []string{"nodes_falsenodeids", "[1]", "4", "leaf"}, false},
		{"node out of range", func(a kernel.Attrs) { a["nodes_falsenodeids"] = []int64{3, 2, 3} }, []string{"nodes_falsenodeids", "[0]", "3", "node"}, false},
		{"negative node", func(a kernel.Attrs) { a["nodes_truenodeids"] = []int64{-1, 1, 3} }, []string{"nodes_truenodeids", "[0]", "-1"}, false},
		{"own child", func(a kernel.Attrs) {
			a["nodes_falsenodeids"], a["nodes_falseleafs"] = []int64{0, 2, 3}, []int64{0, 1, 1}
		}, []string{"nodes_falsenodeids", "own child"}, false},
		{"cycle", func(a kernel.Attrs) {
			a["nodes_truenodeids"], a["nodes_trueleafs"] = []int64{0, 0, 3}, []int64{1, 0, 1}
		}, []string{"cycle"}, false},
		{"no roots", func(a kernel.Attrs) { delete(a, "tree_roots") }, []string{"tree_roots"}, false},
		{"root", func(a kernel.Attrs) { a["tree_roots"] = []int64{0, 3} }, []string{"tree_roots", "[1]", "3"}, false},
		{"target", func(a kernel.Attrs) { a["leaf_targetids"] = []int64{0, 1, 2, 1} }, []string{"leaf_targetids", "[2]", "2"}, false},
		{"no leaves", func(a kernel.Attrs) { a["leaf_targetids"] = []int64{} }, []string{"leaf_targetids"}, false},
		{"members missing", func(a kernel.Attrs) { delete(a, "membership_values") }, []string{"membership_values", "missing"}, false},
		{"members no NaN", func(a kernel.Attrs) { a["membership_values"] = mlT5(kernel.Float32, 1, 2) }, []string{"membership_values", "NaN"}, false},
		{"members trailing", func(a kernel.Attrs) { a["membership_values"] = mlT5(kernel.Float32, 1, math.NaN(), 2) }, []string{"membership_values", "NaN"}, false},
		{"members extra set", func(a kernel.Attrs) {
			a["membership_values"] = mlT5(kernel.Float32, 1, math.NaN(), 2, math.NaN())
		}, []string{"membership_values", "2"}, false},
		{"opset 4", func(a kernel.Attrs) { a[kernel.OpsetAttr] = int64(4) }, []string{"version 5"}, false},
	} {
		a := mlTree5Attrs()
		c.edit(a)
		_, err := Builtins().New("TreeEnsemble", a)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, f := range c.frags {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("%s: error %q lacks %q", c.name, err, f)
			}
		}
		var ni notImpl
		if errors.As(err, &ni) != c.unimp {
			t.Errorf("%s: error %q: not-implemented %v, want %v", c.name, err, !c.unimp, c.unimp)
		}
	}
	// Run-time checks of X.
	a := mlTree5Attrs()
	wantErr(t, "TreeEnsemble", a, []*kernel.Tensor{f32(shp(2, 1), 0, 0)}, "feature 1")
	wantErr(t, "TreeEnsemble", a, []*kernel.Tensor{tensor(kernel.Float64, shp(1, 2))}, "float64")
	wantErr(t, "TreeEnsemble", a, []*kernel.Tensor{f32(shp(2), 0, 0)}, "rank 2")
	wantErr(t, "TreeEnsemble", a, []*kernel.Tensor{tensor(kernel.Int64, shp(1, 2))}, "int64")
}

// TestMLTree5NoAllocs: a steady-state run allocates nothing.
func TestMLTree5NoAllocs(t *testing.T) {
	a := mlTree5Attrs()
	a["post_transform"] = int64(2)
	k, err := Builtins().New("TreeEnsemble", a)
	if err != nil {
		t.Fatal(err)
	}
	x := f32(shp(3, 2), 0, 1, 1, math.NaN(), 1, 5)
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

// mlStumps5 builds k = len(lo) one-node trees over x0 of dtype dt with n
// targets: tree k sends x0 ≤ 0 to a leaf of weight lo[k], else to one of
// weight hi[k], both for target k mod n.
func mlStumps5(dt kernel.DType, n int64, post int64, lo, hi []float64) kernel.Attrs {
	k := len(lo)
	var roots, feats, leafs, trues, falses, targets []int64
	var modes, splits, weights []float64
	for i := range k {
		roots, feats, modes, splits = append(roots, int64(i)), append(feats, 0), append(modes, 0), append(splits, 0)
		trues, falses, leafs = append(trues, int64(2*i)), append(falses, int64(2*i+1)), append(leafs, 1)
		targets = append(targets, int64(i)%n, int64(i)%n)
		weights = append(weights, lo[i], hi[i])
	}
	return kernel.Attrs{"n_targets": n, "post_transform": post, "tree_roots": roots,
		"nodes_modes": mlT5(kernel.Uint8, modes...), "nodes_featureids": feats, "nodes_splits": mlT5(dt, splits...),
		"nodes_truenodeids": trues, "nodes_trueleafs": leafs, "nodes_falsenodeids": falses, "nodes_falseleafs": leafs,
		"leaf_targetids": targets, "leaf_weights": mlT5(dt, weights...)}
}

// mlRun5 runs attrs on the rows x (one feature each) as dtype dt and
// returns Y as float64.
func mlRun5(t *testing.T, attrs kernel.Attrs, dt kernel.DType, x ...float64) []float64 {
	t.Helper()
	y := mustRun(t, "TreeEnsemble", attrs, tensor(dt, shp(int64(len(x)), 1), x...))
	if y.DType != dt {
		t.Fatalf("Y is %v, want %v", y.DType, dt)
	}
	out := make([]float64, y.NumElements())
	if dt == kernel.Float64 {
		copy(out, kernel.Float64s(y.Data()))
	} else {
		for i, v := range kernel.Float32s(y.Data()) {
			out[i] = float64(v)
		}
	}
	return out
}

func mlNear5(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: y = %v, want %v", name, got, want)
	}
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= 2e-6) || math.Signbit(got[i]) != math.Signbit(want[i]) {
			t.Fatalf("%s: y = %v, want %v", name, got, want)
		}
	}
}

// TestMLTree5PostTransform: post_transform as the spec numbers it (1
// SOFTMAX, 2 LOGISTIC, 3 SOFTMAX_ZERO), applied with one target too; the
// expected values are computed by hand (in float64).
func TestMLTree5PostTransform(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64} {
		// Three targets: row 0 scores [1, 2, 3], row 1 [−1, 0, 2].
		lo, hi := []float64{1, 2, 3}, []float64{-1, 0, 2}
		for _, c := range []struct {
			name string
			post int64
			want []float64
		}{
			{"none", 0, []float64{1, 2, 3, -1, 0, 2}},
			// e^(s−max)/Σ: row 0 [e^−2, e^−1, 1]/1.50321472, row 1 [e^−3, e^−2, 1]/1.18512235.
			{"softmax", 1, []float64{0.09003057317038046, 0.24472847105479764, 0.6652409557748218,
				0.04201006613406605, 0.11419519938459449, 0.8437947344813395}},
			// 1/(1 + e^−s).
			{"logistic", 2, []float64{0.7310585786300049, 0.8807970779778823, 0.9525741268224334,
				0.2689414213699951, 0.5, 0.8807970779778823}},
		} {
			mlNear5(t, dt.String()+" 3 targets "+c.name, mlRun5(t, mlStumps5(dt, 3, c.post, lo, hi), dt, -1, 1), c.want)
		}
		// One target: rows x0 = −1 (score lo) and 1 (score hi).
		for _, c := range []struct {
			name   string
			post   int64
			lo, hi float64
			want   []float64
		}{
			{"none", 0, 3, -1, []float64{3, -1}},
			{"softmax", 1, 3, -1, []float64{1, 1}},
			{"softmax 0", 1, 0, -40, []float64{1, 1}},
			{"logistic", 2, 3, -1, []float64{0.9525741268224334, 0.2689414213699951}},
			{"logistic 0", 2, 0, 2, []float64{0.5, 0.8807970779778823}},
			{"softmax_zero", 3, 0, -2, []float64{0, 1}},
			{"softmax_zero 0.5", 3, 0.5, 0, []float64{1, 0}},
		} {
			mlNear5(t, dt.String()+" 1 target "+c.name, mlRun5(t, mlStumps5(dt, 1, c.post, []float64{c.lo}, []float64{c.hi}), dt, -1, 1), c.want)
		}
	}
}

// mlMember5 is one BRANCH_MEMBER node over x0 (dtype dt) with set vals:
// a member goes to leaf 0 (weight 1), any other x to leaf 1 (weight 2);
// NaN to leaf 0 when missTrue is 1.
func mlMember5(dt kernel.DType, missTrue int64, vals ...float64) kernel.Attrs {
	return kernel.Attrs{"n_targets": int64(1), "tree_roots": []int64{0},
		"nodes_modes": mlT5(kernel.Uint8, 6), "nodes_featureids": []int64{0}, "nodes_splits": mlT5(dt, 0),
		"nodes_truenodeids": []int64{0}, "nodes_trueleafs": []int64{1}, "nodes_falsenodeids": []int64{1}, "nodes_falseleafs": []int64{1},
		"nodes_missing_value_tracks_true": []int64{missTrue},
		"membership_values":               mlT5(dt, append(vals, math.NaN())...),
		"leaf_targetids":                  []int64{0, 0}, "leaf_weights": mlT5(dt, 1, 2)}
}

// TestMLTree5Member: x is a member when it equals one of its set's values,
// whatever the set (no truncation of x); NaN is never a member, and then
// nodes_missing_value_tracks_true decides.
func TestMLTree5Member(t *testing.T) {
	nan := math.NaN()
	big := []float64{30.5}
	for i := range 31 {
		big = append(big, float64(i)) // 32 values: 0 … 30 and 30.5
	}
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64} {
		for _, c := range []struct {
			name string
			miss int64
			set  []float64
			x    []float64
			want []float64
		}{
			{"non-integer", 0, []float64{-1, 2.5, 40}, []float64{2.5, 2.4, 2, -1, 40, 40.5, -1.5, 3, nan},
				[]float64{1, 2, 2, 1, 1, 2, 2, 2, 2}},
			{"non-integer NaN true", 1, []float64{-1, 2.5, 40}, []float64{nan, 2.5, 2.4},
				[]float64{1, 1, 2}},
			{"integers", 0, []float64{-1, 2, 40}, []float64{2.5, 2, 2.4, -1, -1.5, 40, 40.5, nan},
				[]float64{2, 1, 2, 1, 2, 1, 2, 2}},
			{"integers NaN true", 1, []float64{-1, 2, 40}, []float64{nan, 2.5, 2},
				[]float64{1, 2, 1}},
			{"small NaN", 0, []float64{1, 2}, []float64{nan, 1, 1.5}, []float64{2, 1, 2}},
			{"small NaN true", 1, []float64{1, 2}, []float64{nan, 1, 1.5}, []float64{1, 1, 2}},
			{"32 values", 0, big, []float64{30.5, 29.5, 30, 0, 31, -0.5}, []float64{1, 2, 1, 1, 2, 2}},
			{"outside int32", 0, []float64{-1, 3e9}, []float64{3e9, -1, math.MinInt32, nan}, []float64{1, 1, 2, 2}},
			{"zero", 0, []float64{0}, []float64{math.Copysign(0, -1), 0, 1e-30}, []float64{1, 1, 2}},
			{"empty", 0, nil, []float64{0, 1, nan}, []float64{2, 2, 2}},
			{"empty NaN true", 1, nil, []float64{0, nan}, []float64{2, 1}},
		} {
			mlNear5(t, dt.String()+" "+c.name, mlRun5(t, mlMember5(dt, c.miss, c.set...), dt, c.x...), c.want)
		}
	}
}
