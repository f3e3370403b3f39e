package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// refReduceSum sums v over the dimensions in mask, in ascending input order,
// in the accumulator of dt.
func refReduceSum(dt kernel.DType, s []int64, v []float64, mask []bool, keep bool) ([]int64, []float64) {
	var kept, out []int64
	for d, n := range s {
		if !mask[d] {
			kept = append(kept, n)
			out = append(out, n)
		} else if keep {
			out = append(out, 1)
		}
	}
	accF := make([]float32, numel(kept))
	accI := make([]int64, numel(kept))
	for i, x := range v {
		idx := unravel(int64(i), s)
		var ki []int64
		for d := range s {
			if !mask[d] {
				ki = append(ki, idx[d])
			}
		}
		o := ravel(ki, kept)
		accF[o] += float32(x)
		accI[o] += int64(x)
	}
	res := make([]float64, len(accF))
	for i := range res {
		switch dt {
		case kernel.Float32:
			res[i] = float64(accF[i])
		case kernel.Float16:
			res[i] = float64(kernel.F16ToF32(kernel.F32ToF16(accF[i])))
		case kernel.Int32:
			res[i] = float64(int32(accI[i]))
		default:
			res[i] = float64(accI[i])
		}
	}
	return out, res
}

func TestReduceSumRandomMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for iter := range 300 {
		s := make([]int64, r.IntN(5))
		for i := range s {
			s[i] = int64(r.IntN(4) + 1)
			if r.IntN(15) == 0 {
				s[i] = 0
			}
		}
		var axes []int64
		mask := make([]bool, len(s))
		for d := range s {
			if r.IntN(2) == 0 {
				mask[d] = true
				a := int64(d)
				if r.IntN(2) == 0 {
					a -= int64(len(s))
				}
				axes = append(axes, a)
			}
		}
		r.Shuffle(len(axes), func(i, j int) { axes[i], axes[j] = axes[j], axes[i] })
		if len(axes) == 0 {
			for d := range mask {
				mask[d] = true
			}
		}
		keep := r.IntN(2) == 0
		dt := numericTypes[iter%len(numericTypes)]
		v := randValues(r, dt, numel(s))
		ws, wv := refReduceSum(dt, s, v, mask, keep)
		x := tensor(dt, s, v...)
		// Axes by attribute, then by a value-dependency input.
		got := mustRun(t, "ReduceSum", kernel.Attrs{"axes": axes, "keepdims": keep}, x)
		checkValues(t, "ReduceSum attr", got, ws, wv)
		in := []*kernel.Tensor{x}
		if len(axes) > 0 || r.IntN(2) == 0 {
			in = append(in, kernel.FromInt64(axes, int64(len(axes))))
		}
		keepInt := int64(0)
		if keep {
			keepInt = 1
		}
		got = mustRun(t, "ReduceSum", kernel.Attrs{"keepdims": keepInt}, in...)
		checkValues(t, "ReduceSum input", got, ws, wv)
	}
}

func TestReduceSumSpecialCases(t *testing.T) {
	x := f32(shp(2, 3), 1, 2, 3, 4, 5, 6)
	checkValues(t, "all keepdims", mustRun(t, "ReduceSum", nil, x), shp(1, 1), []float64{21})
	checkValues(t, "all", mustRun(t, "ReduceSum", kernel.Attrs{"keepdims": false}, x), nil, []float64{21})
	checkValues(t, "noop", mustRun(t, "ReduceSum", kernel.Attrs{"noop_with_empty_axes": 1}, x), shp(2, 3), []float64{1, 2, 3, 4, 5, 6})
	checkValues(t, "int32 axes", mustRun(t, "ReduceSum", nil, x, kernel.FromInt32([]int32{-1}, 1)), shp(2, 1), []float64{6, 15})
	checkValues(t, "scalar", mustRun(t, "ReduceSum", nil, f32(nil, 4)), nil, []float64{4})
	checkValues(t, "zero-size reduced", mustRun(t, "ReduceSum", kernel.Attrs{"axes": []int64{0}}, f32(shp(0, 2))), shp(1, 2), []float64{0, 0})
	checkValues(t, "int32 wraps", mustRun(t, "ReduceSum", nil, tensor(kernel.Int32, shp(2), 2147483647, 1)), shp(1), []float64{-2147483648})
}

func TestReduceSumDeclaresValueDependency(t *testing.T) {
	k, _ := Builtins().New("ReduceSum", nil)
	if !slices.Equal(k.Deps().Value, []int{1}) {
		t.Fatalf("Deps %+v, want Value [1]", k.Deps())
	}
	if mn, mx, _ := k.Arity(); mn != 1 || mx != 2 {
		t.Fatalf("arity %d..%d", mn, mx)
	}
	k, _ = Builtins().New("ReduceSum", kernel.Attrs{"axes": []int64{0}})
	if k.Deps().Value != nil {
		t.Fatalf("with axes attribute: Deps %+v, want none", k.Deps())
	}
}

func TestReduceSumErrors(t *testing.T) {
	x := f32(shp(2, 3))
	wantErr(t, "ReduceSum", kernel.Attrs{"axes": []int64{2}}, []*kernel.Tensor{x}, "axes[0]", "out of range")
	wantErr(t, "ReduceSum", kernel.Attrs{"axes": []int64{1, -1}}, []*kernel.Tensor{x}, "both name axis 1")
	wantErr(t, "ReduceSum", nil, []*kernel.Tensor{x, f32(shp(1), 0)}, "input axes", "float32")
	wantErr(t, "ReduceSum", nil, []*kernel.Tensor{x, i64(shp(1, 1), 0)}, "input axes has rank 2")
	wantErr(t, "ReduceSum", nil, []*kernel.Tensor{x, kernel.Virtual(kernel.Int64, 1)}, "not available")
	wantErr(t, "ReduceSum", kernel.Attrs{"keepdims": 2}, nil, "keepdims")
	wantErr(t, "ReduceSum", nil, []*kernel.Tensor{tensor(kernel.Bool, shp(1), 1)}, "input data", "bool")
}

func TestReduceSumWorkspace(t *testing.T) {
	for _, c := range []struct {
		shape []int64
		axes  []int64
		dt    kernel.DType
		ws    int64
	}{
		{shp(64, 1000), []int64{1}, kernel.Float32, 0},                 // 64 outputs: split outputs
		{shp(4, 100000), []int64{1}, kernel.Float32, numCores * 4 * 4}, // 4 outputs: partial sums
		{shp(4, 100000), []int64{1}, kernel.Int64, numCores * 4 * 8},
		{shp(1, 10), []int64{1}, kernel.Float32, 0}, // one core suffices
	} {
		k, _ := Builtins().New("ReduceSum", kernel.Attrs{"axes": c.axes})
		in, out := []*kernel.Tensor{kernel.Virtual(c.dt, c.shape...)}, []*kernel.Tensor{{}}
		if err := k.InferShape(in, out); err != nil {
			t.Fatal(err)
		}
		var tl kernel.Tiling
		err := k.Resize(in, out, &tl)
		if err != nil {
			t.Fatal(err)
		}
		if tl.Workspace != c.ws {
			t.Fatalf("%v over %v: workspace %d, want %d", c.shape, c.axes, tl.Workspace, c.ws)
		}
	}
}

// TestReduceExtremaInt64Exact: ReduceMax and ReduceMin of int64 values
// beyond 2^53, whose float64 neighbours coincide, return one of the inputs
// exactly, over an axis and over all.
func TestReduceExtremaInt64Exact(t *testing.T) {
	const b = 1 << 60
	x := kernel.New(kernel.Int64, 2, 3)
	copy(kernel.Int64s(x.Host), []int64{b + 1, b + 3, b + 2, -b - 1, -b - 3, math.MinInt64})
	for _, c := range []struct {
		op   string
		axes []int64
		want []int64
	}{
		{"ReduceMax", []int64{1}, []int64{b + 3, -b - 1}},
		{"ReduceMin", []int64{1}, []int64{b + 1, math.MinInt64}},
		{"ReduceMax", nil, []int64{b + 3}},
		{"ReduceMin", []int64{0}, []int64{-b - 1, -b - 3, math.MinInt64}},
	} {
		attrs := kernel.Attrs{"keepdims": int64(0)}
		if c.axes != nil {
			attrs["axes"] = c.axes
		}
		out, err := runOp(c.op, attrs, x)
		if err != nil {
			t.Fatalf("%s %v: %v", c.op, c.axes, err)
		}
		if got := kernel.Int64s(out[0].Data()); !slices.Equal(got, c.want) {
			t.Errorf("%s over %v = %v, want %v", c.op, c.axes, got, c.want)
		}
	}
}

// TestReduceIntegerAtTheTop: reductions accumulated in float64 whose
// result rounds to 2^63 (2^64) give the largest int64 (uint64), not a
// wrapped value: the mean or L1 norm of the largest value is that value.
func TestReduceIntegerAtTheTop(t *testing.T) {
	i64 := kernel.FromInt64([]int64{math.MaxInt64}, 1)
	lo := kernel.FromInt64([]int64{math.MinInt64}, 1)
	u64 := kernel.New(kernel.Uint64, 1)
	kernel.Uint64s(u64.Host)[0] = math.MaxUint64
	for _, c := range []struct {
		op   string
		x    *kernel.Tensor
		want uint64 // the result's bits
	}{
		{"ReduceMean", i64, math.MaxInt64},
		{"ReduceL1", i64, math.MaxInt64},
		{"ReduceMean", lo, 1 << 63}, // math.MinInt64's bits
		{"ReduceMean", u64, math.MaxUint64},
		{"ReduceL1", u64, math.MaxUint64},
		{"ReduceL2", u64, math.MaxUint64},
	} {
		out, err := runOp(c.op, kernel.Attrs{"keepdims": int64(0)}, c.x)
		if err != nil {
			t.Fatalf("%s %v: %v", c.op, c.x, err)
		}
		if got := kernel.Uint64s(out[0].Data())[0]; got != c.want {
			t.Errorf("%s of %v = %#x, want %#x", c.op, c.x, got, c.want)
		}
	}
}
