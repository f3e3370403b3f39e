package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

var allTypes = []kernel.DType{kernel.Float32, kernel.Float16, kernel.Int32, kernel.Int64, kernel.Bool}

// gatherIndices builds the output of a multi-dimensional index selection:
// output element idx reads input element (pick[0][idx[0]], pick[1][idx[1]], …).
func gatherIndices(s []int64, v []float64, pick [][]int64) ([]int64, []float64) {
	out := make([]int64, len(pick))
	for d := range pick {
		out[d] = int64(len(pick[d]))
	}
	res := make([]float64, numel(out))
	for i := range res {
		idx := unravel(int64(i), out)
		in := make([]int64, len(s))
		for d := range s {
			in[d] = pick[d][idx[d]]
		}
		res[i] = v[ravel(in, s)]
	}
	return out, res
}

func TestTransposeRandomMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for iter := range 200 {
		s := make([]int64, r.IntN(6))
		for i := range s {
			s[i] = int64(r.IntN(4) + 1)
			if r.IntN(20) == 0 {
				s[i] = 0
			}
		}
		perm := make([]int64, len(s))
		for i, p := range r.Perm(len(s)) {
			perm[i] = int64(p)
		}
		attrs := kernel.Attrs{"perm": perm}
		if iter%5 == 0 {
			attrs = nil
			for i := range perm {
				perm[i] = int64(len(s) - 1 - i)
			}
		}
		dt := allTypes[iter%len(allTypes)]
		v := randValues(r, dt, numel(s))
		inv := make([]int64, len(s))
		for i, p := range perm {
			inv[p] = int64(i)
		}
		// Output dim i walks input dim perm[i].
		os := make([]int64, len(s))
		for i, p := range perm {
			os[i] = s[p]
		}
		want := make([]float64, numel(s))
		for i := range want {
			idx := unravel(int64(i), os)
			in := make([]int64, len(s))
			for d := range s {
				in[d] = idx[inv[d]]
			}
			want[i] = v[ravel(in, s)]
		}
		got := mustRun(t, "Transpose", attrs, tensor(dt, s, v...))
		checkValues(t, "Transpose", got, os, want)
	}
}

func TestTransposeErrors(t *testing.T) {
	wantErr(t, "Transpose", kernel.Attrs{"perm": []int64{0, 0}}, nil, "repeats")
	wantErr(t, "Transpose", kernel.Attrs{"perm": []int64{0, 2}}, nil, "not a permutation")
	wantErr(t, "Transpose", kernel.Attrs{"perm": []int64{1, 0}}, []*kernel.Tensor{f32(shp(2, 2, 2))}, "has 2 entries", "rank 3")
	checkValues(t, "Transpose scalar", mustRun(t, "Transpose", nil, f32(nil, 7)), nil, []float64{7})
}

func TestConcat(t *testing.T) {
	a := f32(shp(2, 2), 1, 2, 3, 4)
	b := f32(shp(2, 1), 5, 6)
	e := f32(shp(2, 0))
	checkValues(t, "axis 1", mustRun(t, "Concat", kernel.Attrs{"axis": 1}, a, e, b), shp(2, 3), []float64{1, 2, 5, 3, 4, 6})
	checkValues(t, "axis -1", mustRun(t, "Concat", kernel.Attrs{"axis": -1}, b, a), shp(2, 3), []float64{5, 1, 2, 6, 3, 4})
	checkValues(t, "axis 0", mustRun(t, "Concat", kernel.Attrs{"axis": 0}, a, a), shp(4, 2), []float64{1, 2, 3, 4, 1, 2, 3, 4})
	checkValues(t, "one input", mustRun(t, "Concat", kernel.Attrs{"axis": 0}, b), shp(2, 1), []float64{5, 6})
	for _, dt := range allTypes {
		x := tensor(dt, shp(1, 2), 1, 0)
		y := tensor(dt, shp(1, 1), 1)
		checkValues(t, "Concat "+dt.String(), mustRun(t, "Concat", kernel.Attrs{"axis": 1}, x, y), shp(1, 3), []float64{1, 0, 1})
	}
	wantErr(t, "Concat", nil, []*kernel.Tensor{a}, `"axis" is required`)
	wantErr(t, "Concat", kernel.Attrs{"axis": 2}, []*kernel.Tensor{a}, "out of range")
	wantErr(t, "Concat", kernel.Attrs{"axis": 0}, []*kernel.Tensor{a, b}, "input 1", "differ off axis 0")
	wantErr(t, "Concat", kernel.Attrs{"axis": 0}, []*kernel.Tensor{a, i64(shp(2, 2))}, "input 1", "int64")
	wantErr(t, "Concat", kernel.Attrs{"axis": 0}, []*kernel.Tensor{a, f32(shp(4))}, "input 1 has rank 1")
	wantErr(t, "Concat", kernel.Attrs{"axis": 0}, []*kernel.Tensor{f32(nil, 1)}, "out of range for rank 0")
	wantErr(t, "Concat", kernel.Attrs{"axis": 0}, nil, "at least 1")
}

// refSliceIndices lists the indices a slice takes along one dimension,
// stepping through them one at a time.
func refSliceIndices(start, end, step, dim int64) []int64 {
	clamp := func(v, lo, hi int64) int64 { return min(max(v, lo), hi) }
	if start < 0 {
		start += dim
	}
	if end < 0 {
		end += dim
	}
	idx := []int64{}
	if step > 0 {
		for i := clamp(start, 0, dim); i < clamp(end, 0, dim); i += step {
			idx = append(idx, i)
		}
	} else {
		if end == math.MaxInt32 || end == math.MaxInt64 {
			end = -1 // onnxruntime's "to the end", walking down
		}
		for i := clamp(start, 0, dim-1); i > clamp(end, -1, dim-1); i += step {
			idx = append(idx, i)
		}
	}
	return idx
}

func TestSliceRandomMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	bound := func() int64 {
		switch r.IntN(12) {
		case 0:
			return math.MaxInt64
		case 1:
			return math.MinInt64
		}
		return int64(r.IntN(15) - 7)
	}
	for iter := range 400 {
		s := make([]int64, 1+r.IntN(4))
		for i := range s {
			s[i] = int64(r.IntN(6))
		}
		var starts, ends, axes, steps []int64
		pick := make([][]int64, len(s))
		for d := range s {
			pick[d] = refSliceIndices(0, s[d], 1, s[d])
		}
		for _, d := range r.Perm(len(s))[:r.IntN(len(s)+1)] {
			st, en, sp := bound(), bound(), int64(r.IntN(3)+1)
			if r.IntN(2) == 0 {
				sp = -sp
			}
			a := int64(d)
			if r.IntN(2) == 0 {
				a -= int64(len(s))
			}
			starts, ends, axes, steps = append(starts, st), append(ends, en), append(axes, a), append(steps, sp)
			pick[d] = refSliceIndices(st, en, sp, s[d])
		}
		dt := allTypes[iter%4]
		v := randValues(r, dt, numel(s))
		x := tensor(dt, s, v...)
		ws, wv := gatherIndices(s, v, pick)
		got := mustRun(t, "Slice", kernel.Attrs{"starts": starts, "ends": ends, "axes": axes, "steps": steps}, x)
		checkValues(t, "Slice attrs", got, ws, wv)
		n := int64(len(starts))
		got = mustRun(t, "Slice", nil, x, kernel.FromInt64(starts, n), kernel.FromInt64(ends, n), kernel.FromInt64(axes, n), kernel.FromInt64(steps, n))
		checkValues(t, "Slice inputs", got, ws, wv)
	}
}

func TestSliceDefaultsAndInputs(t *testing.T) {
	x := f32(shp(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	checkValues(t, "default axes", mustRun(t, "Slice", kernel.Attrs{"starts": []int64{1}, "ends": []int64{3}}, x), shp(2, 4),
		[]float64{4, 5, 6, 7, 8, 9, 10, 11})
	checkValues(t, "reverse", mustRun(t, "Slice", kernel.Attrs{"starts": []int64{-1}, "ends": []int64{math.MinInt64}, "axes": []int64{1}, "steps": []int64{-1}}, x),
		shp(3, 4), []float64{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8})
	checkValues(t, "int32 inputs, no steps", mustRun(t, "Slice", nil, x, kernel.FromInt32([]int32{1}, 1), kernel.FromInt32([]int32{100}, 1), kernel.FromInt32([]int32{-1}, 1)),
		shp(3, 3), []float64{1, 2, 3, 5, 6, 7, 9, 10, 11})
	checkValues(t, "step over end", mustRun(t, "Slice", kernel.Attrs{"starts": []int64{0}, "ends": []int64{3}, "steps": []int64{math.MaxInt64}}, x),
		shp(1, 4), []float64{0, 1, 2, 3})
	checkValues(t, "huge negative step", mustRun(t, "Slice", kernel.Attrs{"starts": []int64{2}, "ends": []int64{-9}, "steps": []int64{math.MinInt64}}, x),
		shp(1, 4), []float64{8, 9, 10, 11})
	k, _ := Builtins().New("Slice", nil)
	if mn, mx, _ := k.Arity(); mn != 3 || mx != 5 || !slices.Equal(k.Deps().Value, []int{1, 2, 3, 4}) {
		t.Fatalf("input-mode Slice: arity %d..%d deps %+v", mn, mx, k.Deps())
	}
	k, _ = Builtins().New("Slice", kernel.Attrs{"starts": []int64{0}, "ends": []int64{1}})
	if mn, mx, _ := k.Arity(); mn != 1 || mx != 1 || k.Deps().Value != nil {
		t.Fatalf("attribute-mode Slice: arity %d..%d deps %+v", mn, mx, k.Deps())
	}
}

// TestShapeSliceChain runs Shape on a virtual tensor, slices its (real)
// output with value-dependency inputs, and reshapes real data with it.
func TestShapeSliceChain(t *testing.T) {
	shape := mustRun(t, "Shape", nil, kernel.Virtual(kernel.Float32, 2, 3, 4))
	if shape.IsVirtual() {
		t.Fatal("Shape of a virtual tensor is virtual")
	}
	checkValues(t, "Shape", shape, shp(3), []float64{2, 3, 4})
	tail := mustRun(t, "Slice", nil, shape, kernel.FromInt64([]int64{-2}, 1), kernel.FromInt64([]int64{math.MaxInt64}, 1))
	checkValues(t, "Slice of shape", tail, shp(2), []float64{3, 4})
	data := f32(shp(12), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	got := mustRun(t, "Reshape", nil, data, tail)
	checkValues(t, "Reshape by sliced shape", got, shp(3, 4), values(data))
}

func TestSliceErrors(t *testing.T) {
	x := f32(shp(3, 4))
	wantErr(t, "Slice", kernel.Attrs{"starts": []int64{0}, "ends": []int64{1}, "steps": []int64{0}}, []*kernel.Tensor{x}, "steps[0] is 0")
	wantErr(t, "Slice", kernel.Attrs{"starts": []int64{0, 0}, "ends": []int64{1, 1}, "axes": []int64{1, -1}}, []*kernel.Tensor{x}, "both name axis 1")
	wantErr(t, "Slice", kernel.Attrs{"starts": []int64{0}, "ends": []int64{1, 2}}, []*kernel.Tensor{x}, "1 starts but 2 ends")
	wantErr(t, "Slice", kernel.Attrs{"starts": []int64{0}, "ends": []int64{1}, "axes": []int64{2}}, []*kernel.Tensor{x}, "axes[0]", "out of range")
	wantErr(t, "Slice", kernel.Attrs{"starts": []int64{0, 0, 0}, "ends": []int64{1, 1, 1}}, []*kernel.Tensor{x}, "3 starts", "rank 2")
	wantErr(t, "Slice", kernel.Attrs{"ends": []int64{1}}, nil, `"starts" is required`)
	wantErr(t, "Slice", nil, []*kernel.Tensor{x, f32(shp(1)), i64(shp(1), 1)}, "input starts", "float32")
	wantErr(t, "Slice", nil, []*kernel.Tensor{x, i64(shp(1)), kernel.Virtual(kernel.Int64, 1)}, "input ends", "not available")
	wantErr(t, "Slice", nil, []*kernel.Tensor{x}, "have 1 inputs")
}

func TestGather(t *testing.T) {
	x := f32(shp(3, 2), 1, 2, 3, 4, 5, 6)
	checkValues(t, "axis 0", mustRun(t, "Gather", nil, x, i64(shp(2, 2), 0, 1, -1, 2)), shp(2, 2, 2), []float64{1, 2, 3, 4, 5, 6, 5, 6})
	checkValues(t, "axis 1", mustRun(t, "Gather", kernel.Attrs{"axis": 1}, x, kernel.FromInt32([]int32{1, 0, 1}, 3)), shp(3, 3),
		[]float64{2, 1, 2, 4, 3, 4, 6, 5, 6})
	checkValues(t, "scalar index", mustRun(t, "Gather", nil, x, i64(nil, -2)), shp(2), []float64{3, 4})
	checkValues(t, "no indices", mustRun(t, "Gather", nil, x, i64(shp(0))), shp(0, 2), nil)
	for _, dt := range allTypes {
		checkValues(t, "Gather "+dt.String(), mustRun(t, "Gather", nil, tensor(dt, shp(3), 0, 1, 1), i64(shp(2), 2, 0)), shp(2), []float64{1, 0})
	}
	wantErr(t, "Gather", nil, []*kernel.Tensor{x, i64(shp(2), 0, 3)}, "indices element 1 is 3", "out of range")
	wantErr(t, "Gather", nil, []*kernel.Tensor{x, i64(shp(1), -4)}, "out of range")
	wantErr(t, "Gather", nil, []*kernel.Tensor{x, f32(shp(1))}, "input indices", "float32")
	wantErr(t, "Gather", kernel.Attrs{"axis": 2}, []*kernel.Tensor{x, i64(shp(1))}, "input data", "out of range")
	wantErr(t, "Gather", nil, []*kernel.Tensor{f32(nil, 1), i64(shp(1))}, "input data", "rank 0")
}

func TestGatherRandomMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for range 200 {
		s := make([]int64, 1+r.IntN(3))
		for i := range s {
			s[i] = int64(1 + r.IntN(4))
		}
		axis := r.IntN(len(s))
		is := make([]int64, r.IntN(3))
		for i := range is {
			is[i] = int64(r.IntN(3))
		}
		iv := make([]float64, numel(is))
		for i := range iv {
			iv[i] = float64(r.Int64N(2*s[axis]) - s[axis])
		}
		v := randValues(r, kernel.Float32, numel(s))
		got := mustRun(t, "Gather", kernel.Attrs{"axis": axis}, f32(s, v...), i64(is, iv...))
		var ws []int64
		ws = append(ws, s[:axis]...)
		ws = append(ws, is...)
		ws = append(ws, s[axis+1:]...)
		want := make([]float64, numel(ws))
		for i := range want {
			idx := unravel(int64(i), ws)
			in := append([]int64(nil), idx[:axis]...)
			j := int64(iv[ravel(idx[axis:axis+len(is)], is)])
			if j < 0 {
				j += s[axis]
			}
			in = append(in, j)
			in = append(in, idx[axis+len(is):]...)
			want[i] = v[ravel(in, s)]
		}
		checkValues(t, "Gather", got, ws, want)
	}
}
