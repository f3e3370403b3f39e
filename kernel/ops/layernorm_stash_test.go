package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestLayerNormalizationStashType: every stash_type ONNX allows (a float
// type: 1, 10, 11, 16) evaluates a float64 X's statistics in float64, as
// onnxruntime's kernel does, so all give the same output; a stash_type
// that names no float type is refused, naming the attribute.
func TestLayerNormalizationStashType(t *testing.T) {
	xs := []float64{1 + 1e-9, 2 - 3e-10, 3 + 7e-9, 4.125 - 1e-12}
	x := kernel.New(kernel.Float64, 4)
	copy(kernel.Float64s(x.Host), xs)
	scale := kernel.New(kernel.Float64, 4)
	copy(kernel.Float64s(scale.Host), []float64{1, 0.5, -2, 3})
	var s, ss float64
	for _, v := range xs {
		s += v
	}
	m := s / 4
	for _, v := range xs {
		ss += (v - m) * (v - m)
	}
	inv := 1 / math.Sqrt(ss/4+float64(float32(1e-5)))
	for _, st := range []any{nil, int64(1), int64(10), int64(11), int64(16)} {
		attrs := kernel.Attrs{}
		if st != nil {
			attrs["stash_type"] = st
		}
		got := kernel.Float64s(mustRun(t, "LayerNormalization", attrs, x, scale).Data())
		for i, v := range xs {
			if want := (v - m) * inv * kernel.Float64s(scale.Host)[i]; math.Abs(got[i]-want) > 1e-15*math.Abs(want) {
				t.Errorf("stash_type %v: Y[%d] = %.17g, want %.17g", st, i, got[i], want)
			}
		}
	}
	for _, st := range []any{int64(7), int64(99), "float"} {
		wantErr(t, "LayerNormalization", kernel.Attrs{"stash_type": st}, []*kernel.Tensor{x, scale}, "stash_type")
	}
}
