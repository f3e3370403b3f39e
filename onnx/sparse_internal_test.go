package onnx

import (
	"errors"
	"slices"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestDensify checks the scatter of sparse values, in both index forms,
// and that bad indices are format errors.
func TestDensify(t *testing.T) {
	vals := &Tensor{Name: "v", DataType: Int64, Dims: []int64{2}, Int64s: []int64{7, 9}}
	idx := func(dims []int64, v ...int64) *Tensor { return &Tensor{DataType: Int64, Dims: dims, Int64s: v} }
	for _, c := range []struct {
		name    string
		indices *Tensor
		dims    []int64
		want    []int64
	}{
		{"flat", idx([]int64{2}, 0, 5), []int64{2, 3}, []int64{7, 0, 0, 0, 0, 9}},
		{"coordinates", idx([]int64{2, 2}, 0, 2, 1, 1), []int64{2, 3}, []int64{0, 0, 7, 0, 9, 0}},
	} {
		d, err := densify(vals, c.indices, c.dims)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		k, err := d.Kernel()
		if err != nil {
			t.Fatal(err)
		}
		got := kernel.Int64s(k.Host)
		if d.Name != "v" || !k.Shape.Equal(c.dims) || !slices.Equal(got, c.want) {
			t.Errorf("%s: %s %v %v, want v %v %v", c.name, d.Name, k.Shape, got, c.dims, c.want)
		}
	}
	for name, bad := range map[string]*Tensor{
		"flat out of range":       idx([]int64{2}, 0, 6),
		"negative":                idx([]int64{2}, -1, 0),
		"coordinate out of range": idx([]int64{2, 2}, 0, 3, 1, 1),
		"shape":                   idx([]int64{3}, 0, 1, 2),
		"dtype":                   {DataType: Int32, Dims: []int64{2}, Int32s: []int32{0, 1}},
	} {
		if _, err := densify(vals, bad, []int64{2, 3}); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
	if _, err := densify(vals, nil, []int64{2, 3}); !errors.Is(err, ErrFormat) {
		t.Errorf("values without indices: %v, want ErrFormat", err)
	}
}
