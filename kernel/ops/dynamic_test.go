package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

func TestUniqueReal(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, dt := range numericTypes {
		for range 30 {
			s := shp(int64(r.IntN(4)), int64(r.IntN(5)))
			v := randValues(r, dt, numel(s))
			want := slices.Clone(v)
			slices.Sort(want)
			want = slices.Compact(want)
			got := mustRun(t, "Unique", nil, tensor(dt, s, v...))
			if got.DType != dt {
				t.Fatalf("dtype %v, want %v", got.DType, dt)
			}
			checkValues(t, "Unique "+dt.String(), got, shp(int64(len(want))), want)
		}
	}
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
		got := mustRun(t, "Unique", nil, tensor(dt, shp(7), nan, 1, 0, nan, negZero, math.Inf(-1), 1))
		checkValues(t, "Unique floats "+dt.String(), got, shp(4), []float64{math.Inf(-1), negZero, 1, nan})
	}
	checkValues(t, "scalar", mustRun(t, "Unique", nil, i64(nil, 3)), shp(1), []float64{3})
	wantErr(t, "Unique", nil, []*kernel.Tensor{tensor(kernel.Bool, shp(1), 1)}, "input X", "bool")
}

// TestUniqueOutputShapes checks the upper bound from InferShape, and
// OutputShapes for real data and for the seeded model on virtual data.
func TestUniqueOutputShapes(t *testing.T) {
	k, err := Builtins().New("Unique", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !k.Deps().Compute {
		t.Fatal("Unique is not compute dependent")
	}
	cd := k.(kernel.ComputeDependent)
	a, err := prepare(k, 0, i64(shp(6), 5, 1, 5, 2, 1, 5))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Out[0].Shape.Equal(kernel.Shape{6}) {
		t.Fatalf("upper bound %v, want [6]", a.Out[0].Shape)
	}
	if _, err := cd.OutputShapes(a); err == nil {
		t.Fatal("OutputShapes before the launch: no error")
	}
	if err := k.Compute(a); err != nil {
		t.Fatal(err)
	}
	s, err := cd.OutputShapes(a)
	if err != nil || len(s) != 1 || !s[0].Equal(kernel.Shape{3}) {
		t.Fatalf("OutputShapes = %v, %v; want [[3]]", s, err)
	}

	seen := map[int64]bool{}
	for seed := range uint64(200) {
		a, err := prepare(k, seed, kernel.Virtual(kernel.Float32, 10))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Compute(a); err != nil {
			t.Fatal(err)
		}
		s1, err1 := cd.OutputShapes(a)
		s2, err2 := cd.OutputShapes(a)
		if err1 != nil || err2 != nil || !s1[0].Equal(s2[0]) {
			t.Fatalf("seed %d: %v %v / %v %v: not reproducible", seed, s1, err1, s2, err2)
		}
		u := s1[0][0]
		if len(s1[0]) != 1 || u < 1 || u > 10 {
			t.Fatalf("seed %d: shape %v outside [1..10]", seed, s1[0])
		}
		seen[u] = true
	}
	if len(seen) < 8 {
		t.Fatalf("virtual sizes over 200 seeds take only %d values", len(seen))
	}
	// A zero-size input counts as real (there is nothing to hold).
	a, _ = prepare(k, 5, kernel.Virtual(kernel.Float32, 0))
	if err := launch(k, a); err != nil || !a.Out[0].Shape.Equal(kernel.Shape{0}) {
		t.Fatalf("empty input: %v %v", a.Out[0], err)
	}
}

// refNonZero lists the multi-indices of nonzero elements, one row per
// dimension.
func refNonZero(s []int64, v []float64) ([]int64, []float64) {
	r := max(len(s), 1)
	var cols [][]int64
	for i, x := range v {
		if x != 0 {
			idx := unravel(int64(i), s)
			if len(s) == 0 {
				idx = []int64{0}
			}
			cols = append(cols, idx)
		}
	}
	out := make([]float64, r*len(cols))
	for j, c := range cols {
		for d := range r {
			out[d*len(cols)+j] = float64(c[d])
		}
	}
	return shp(int64(r), int64(len(cols))), out
}

func TestNonZeroReal(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for iter := range 200 {
		s := make([]int64, r.IntN(4))
		for i := range s {
			s[i] = int64(r.IntN(4))
		}
		dt := allTypes[iter%len(allTypes)]
		v := randValues(r, dt, numel(s))
		for i := range v {
			if r.IntN(2) == 0 {
				v[i] = 0
			}
		}
		ws, wv := refNonZero(s, v)
		got := mustRun(t, "NonZero", nil, tensor(dt, s, v...))
		if got.DType != kernel.Int64 {
			t.Fatalf("dtype %v", got.DType)
		}
		checkValues(t, "NonZero "+dt.String()+kernel.Shape(s).String(), got, ws, wv)
	}
	checkValues(t, "NaN and -0", mustRun(t, "NonZero", nil, f32(shp(3), math.Copysign(0, -1), math.NaN(), 0)), shp(1, 1), []float64{1})
	checkValues(t, "float16 -0", mustRun(t, "NonZero", nil, tensor(kernel.Float16, shp(2), math.Copysign(0, -1), 2)), shp(1, 1), []float64{1})
	checkValues(t, "scalar", mustRun(t, "NonZero", nil, f32(nil, 2)), shp(1, 1), []float64{0})
}

func TestNonZeroOutputShapes(t *testing.T) {
	k, err := Builtins().New("NonZero", nil)
	if err != nil {
		t.Fatal(err)
	}
	cd := k.(kernel.ComputeDependent)
	a, err := prepare(k, 0, kernel.Virtual(kernel.Int32, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Out[0].Shape.Equal(kernel.Shape{2, 12}) || a.Out[0].DType != kernel.Int64 {
		t.Fatalf("upper bound %v, want int64[2,12]", a.Out[0])
	}
	seen := map[int64]bool{}
	for seed := range uint64(300) {
		a.Seed = seed
		if err := k.Compute(a); err != nil {
			t.Fatal(err)
		}
		s, err := cd.OutputShapes(a)
		if err != nil || len(s) != 1 || len(s[0]) != 2 || s[0][0] != 2 || s[0][1] < 0 || s[0][1] > 12 {
			t.Fatalf("seed %d: %v %v", seed, s, err)
		}
		seen[s[0][1]] = true
	}
	if !seen[0] || !seen[12] || len(seen) != 13 {
		t.Fatalf("virtual nnz over 300 seeds: %v, want all of 0..12", seen)
	}
}
