package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

func TestShape(t *testing.T) {
	checkValues(t, "real input", mustRun(t, "Shape", nil, f32(shp(2, 0, 5))), shp(3), []float64{2, 0, 5})
	checkValues(t, "scalar", mustRun(t, "Shape", nil, f32(nil, 1)), shp(0), nil)
	v := kernel.Virtual(kernel.Float16, 7, 8, 9, 10)
	checkValues(t, "start", mustRun(t, "Shape", kernel.Attrs{"start": 1}, v), shp(3), []float64{8, 9, 10})
	checkValues(t, "start end", mustRun(t, "Shape", kernel.Attrs{"start": -3, "end": -1}, v), shp(2), []float64{8, 9})
	checkValues(t, "clamped", mustRun(t, "Shape", kernel.Attrs{"start": -100, "end": 100}, v), shp(4), []float64{7, 8, 9, 10})
	checkValues(t, "empty range", mustRun(t, "Shape", kernel.Attrs{"start": 3, "end": 1}, v), shp(0), nil)
	k, _ := Builtins().New("Shape", nil)
	if d := k.Deps(); !d.ShapeOnly || d.Compute || d.Value != nil {
		t.Fatalf("Shape deps %+v", d)
	}
	wantErr(t, "Shape", kernel.Attrs{"start": "0"}, nil, "start")
}

func TestReshape(t *testing.T) {
	x := f32(shp(2, 3, 4))
	cases := []struct {
		shape []int64
		want  []int64
		attrs kernel.Attrs
	}{
		{[]int64{4, 6}, shp(4, 6), nil},
		{[]int64{-1}, shp(24), nil},
		{[]int64{0, -1}, shp(2, 12), nil},
		{[]int64{0, 0, 2, 2}, shp(2, 3, 2, 2), nil},
		{[]int64{2, -1, 3}, shp(2, 4, 3), nil},
		{[]int64{1, 24, 1}, shp(1, 24, 1), nil},
	}
	for _, c := range cases {
		got := mustRun(t, "Reshape", c.attrs, x, kernel.FromInt64(c.shape, int64(len(c.shape))))
		checkValues(t, "Reshape", got, c.want, values(x))
	}
	data := f32(shp(2, 2), 1, 2, 3, 4)
	checkValues(t, "contents", mustRun(t, "Reshape", nil, onDevice(t, data), kernel.FromInt64([]int64{4}, 1)), shp(4), []float64{1, 2, 3, 4})
	checkValues(t, "to scalar", mustRun(t, "Reshape", nil, f32(shp(1, 1), 9), kernel.FromInt64(nil, 0)), nil, []float64{9})
	z := f32(shp(0, 3))
	checkValues(t, "zero copy", mustRun(t, "Reshape", nil, z, kernel.FromInt64([]int64{0, 3}, 2)), shp(0, 3), nil)
	checkValues(t, "allowzero", mustRun(t, "Reshape", kernel.Attrs{"allowzero": 1}, z, kernel.FromInt64([]int64{3, 0}, 2)), shp(3, 0), nil)
	// The shape input may live only on the device.
	checkValues(t, "device shape", mustRun(t, "Reshape", nil, data, onDevice(t, kernel.FromInt64([]int64{1, 4}, 2))), shp(1, 4), []float64{1, 2, 3, 4})

	k, _ := Builtins().New("Reshape", nil)
	if d := k.Deps(); len(d.Value) != 1 || d.Value[0] != 1 || d.Compute || d.ShapeOnly {
		t.Fatalf("Reshape deps %+v", d)
	}
}

func TestReshapeErrors(t *testing.T) {
	x := f32(shp(2, 3))
	bad := func(shape []int64, frags ...string) {
		t.Helper()
		wantErr(t, "Reshape", nil, []*kernel.Tensor{x, kernel.FromInt64(shape, int64(len(shape)))}, frags...)
	}
	bad([]int64{4}, "cannot reshape", "6 elements")
	bad([]int64{-1, -1}, "more than one -1")
	bad([]int64{-1, 4}, "cannot reshape")
	bad([]int64{2, -2, 3}, "negative dimension")
	bad([]int64{0, 0, 0}, "copies dimension 2")
	bad([]int64{1 << 40, 1 << 40}, "more than 2^63")
	wantErr(t, "Reshape", kernel.Attrs{"allowzero": 1}, []*kernel.Tensor{x, kernel.FromInt64([]int64{0, -1}, 2)}, "next to a zero")
	wantErr(t, "Reshape", nil, []*kernel.Tensor{x, kernel.FromInt32([]int32{6}, 1)}, "input shape", "int32")
	wantErr(t, "Reshape", nil, []*kernel.Tensor{x, kernel.FromInt64([]int64{6}, 1, 1)}, "input shape has rank 2")
	wantErr(t, "Reshape", nil, []*kernel.Tensor{x, kernel.Virtual(kernel.Int64, 1)}, "not available")
	wantErr(t, "Reshape", kernel.Attrs{"shape": []int64{6}}, nil, "unknown attribute")
}
