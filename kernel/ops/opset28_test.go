package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// SwiGLU (ONNX opset 28) against a·sigmoid(alpha·a)·b worked out in
// float64 (Python's math.exp), in each float type, and its refusals.
func TestSwiGLU(t *testing.T) {
	a := []float64{-3, -0.5, 0, 0.5, 2, 10}
	b := []float64{1, -2, 3, 0.25, -1, 0.5}
	for _, c := range []struct {
		name  string
		attrs kernel.Attrs
		want  []float64
	}{
		{"alpha 1", nil, []float64{-0.14227761953270035, 0.3775406687981454, 0, 0.07780741640023182, -1.7615941559557646, 4.9997730106564875}},
		{"alpha 1.702", kernel.Attrs{"alpha": float32(1.702)}, []float64{-0.01807130970778597, 0.2992231267872398, 0, 0.08759710915159503, -1.9356586231442083, 4.999999797101935}},
	} {
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float64, kernel.Float16, kernel.BFloat16} {
			got := mustRun(t, "SwiGLU", c.attrs, tensor(dt, shp(2, 3), a...), tensor(dt, shp(2, 3), b...))
			if got.DType != dt {
				t.Fatalf("%s %v: dtype %v", c.name, dt, got.DType)
			}
			// Rounded once from float64: within half an ulp of the type.
			tol := map[kernel.DType]float64{kernel.Float32: 1e-7, kernel.Float64: 1e-7, kernel.Float16: 1e-3, kernel.BFloat16: 8e-3}[dt]
			checkClose(t, c.name+" "+dt.String(), got, shp(2, 3), c.want, tol)
		}
	}
	// Rounded once: the float32 result is the float64 value rounded, not
	// Swish rounded and then multiplied.
	got := values(mustRun(t, "SwiGLU", nil, tensor(kernel.Float32, shp(1), 0.5), tensor(kernel.Float32, shp(1), 0.25)))
	if want := float64(float32(0.07780741640023182)); got[0] != want {
		t.Errorf("SwiGLU(0.5, 0.25) = %v, want %v (rounded once)", got[0], want)
	}
	x := tensor(kernel.Float32, shp(2, 3))
	wantErr(t, "SwiGLU", nil, []*kernel.Tensor{x, tensor(kernel.Float32, shp(3))}, "differ in shape")
	wantErr(t, "SwiGLU", nil, []*kernel.Tensor{x, tensor(kernel.Float16, shp(2, 3))}, "B")
	wantErr(t, "SwiGLU", nil, []*kernel.Tensor{tensor(kernel.Int32, shp(2)), tensor(kernel.Int32, shp(2))}, "A")
	wantErr(t, "SwiGLU", kernel.Attrs{"beta": float32(1)}, []*kernel.Tensor{x, x}, "beta")
	wantErr(t, "SwiGLU", nil, []*kernel.Tensor{x}, "SwiGLU")
}
