package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestReduceExtremaOfNothing: over an empty axis ReduceMax of an integer
// type gives the type's minimum and ReduceMin its maximum, as ONNX says
// ("minus infinity if supported by the data type, or the minimum value of
// the data type otherwise") and its reference implementation computes
// (numpy's iinfo), in the attribute form (opset 13) and the input form
// (18); floats give -Inf and +Inf.
func TestReduceExtremaOfNothing(t *testing.T) {
	for _, c := range []struct {
		dt       kernel.DType
		min, max int64
	}{
		{kernel.Int8, math.MinInt8, math.MaxInt8},
		{kernel.Uint8, 0, math.MaxUint8},
		{kernel.Int32, math.MinInt32, math.MaxInt32},
		{kernel.Int64, math.MinInt64, math.MaxInt64},
	} {
		x := tensor(c.dt, shp(0, 3))
		for _, form := range []struct {
			attrs kernel.Attrs
			in    []*kernel.Tensor
		}{
			{formAttrs(13, "axes", []int64{0}, "keepdims", int64(0)), []*kernel.Tensor{x}},
			{formAttrs(18, "keepdims", int64(0)), []*kernel.Tensor{x, i64(shp(1), 0)}},
		} {
			for op, want := range map[string]int64{"ReduceMax": c.min, "ReduceMin": c.max} {
				got := mustRun(t, op, form.attrs, form.in...)
				if !got.Shape.Equal(shp(3)) || got.DType != c.dt {
					t.Fatalf("%s of %v%v: %v %v", op, c.dt, x.Shape, got.DType, got.Shape)
				}
				for i := range 3 {
					var v int64
					switch c.dt {
					case kernel.Int8:
						v = int64(kernel.Int8s(got.Data())[i])
					case kernel.Uint8:
						v = int64(got.Data()[i])
					case kernel.Int32:
						v = int64(kernel.Int32s(got.Data())[i])
					case kernel.Int64:
						v = kernel.Int64s(got.Data())[i]
					}
					if v != want {
						t.Errorf("%s of nothing, %v, opset %v: element %d is %d, want %d", op, c.dt, form.attrs[kernel.OpsetAttr], i, v, want)
					}
				}
			}
		}
	}
	x := tensor(kernel.Float32, shp(0, 2))
	checkValues(t, "ReduceMax of nothing, float32", mustRun(t, "ReduceMax", formAttrs(13, "axes", []int64{0}, "keepdims", int64(0)), x), shp(2), []float64{math.Inf(-1), math.Inf(-1)})
	checkValues(t, "ReduceMin of nothing, float32", mustRun(t, "ReduceMin", formAttrs(13, "axes", []int64{0}, "keepdims", int64(0)), x), shp(2), []float64{math.Inf(1), math.Inf(1)})
}

// TestReduceNormsOfNothing: over an empty axis ReduceSumSquare, ReduceL1
// and ReduceL2 are +0 (a sum of no squares or absolute values), not -0,
// in every float type and in both forms.
func TestReduceNormsOfNothing(t *testing.T) {
	for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64, kernel.Float16, kernel.BFloat16} {
		x := tensor(dt, shp(2, 0))
		for _, form := range []struct {
			attrs kernel.Attrs
			in    []*kernel.Tensor
		}{
			{formAttrs(13, "axes", []int64{1}, "keepdims", int64(0)), []*kernel.Tensor{x}},
			{formAttrs(18, "keepdims", int64(0)), []*kernel.Tensor{x, i64(shp(1), 1)}},
		} {
			for _, op := range []string{"ReduceSumSquare", "ReduceL1", "ReduceL2"} {
				got := mustRun(t, op, form.attrs, form.in...)
				if !got.Shape.Equal(shp(2)) || got.DType != dt {
					t.Fatalf("%s of %v%v: %v %v", op, dt, x.Shape, got.DType, got.Shape)
				}
				for i, b := range got.Data() {
					if b != 0 {
						t.Errorf("%s of nothing, %v, opset %v: byte %d is %#x, want +0", op, dt, form.attrs[kernel.OpsetAttr], i, b)
					}
				}
			}
		}
	}
}
