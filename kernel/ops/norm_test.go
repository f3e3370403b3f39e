package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// refSoftmax computes softmax or log-softmax along axis in float64.
func refSoftmax(s []int64, v []float64, axis int, log bool) []float64 {
	out := make([]float64, len(v))
	for i := range v {
		idx := unravel(int64(i), s)
		m := math.Inf(-1)
		for j := range s[axis] {
			idx2 := append([]int64(nil), idx...)
			idx2[axis] = j
			m = math.Max(m, v[ravel(idx2, s)])
		}
		var sum float64
		for j := range s[axis] {
			idx2 := append([]int64(nil), idx...)
			idx2[axis] = j
			sum += math.Exp(v[ravel(idx2, s)] - m)
		}
		if log {
			out[i] = v[i] - m - math.Log(sum)
		} else {
			out[i] = math.Exp(v[i]-m) / sum
		}
	}
	return out
}

func TestSoftmaxMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, op := range []string{"Softmax", "LogSoftmax"} {
		for _, c := range []struct {
			shape []int64
			axis  int64
		}{{shp(5), -1}, {shp(3, 4), 1}, {shp(3, 4), 0}, {shp(2, 3, 4), 1}, {shp(2, 3, 4), -3}, {shp(1, 70), -1}, {shp(2, 0, 3), 1}, {shp(0, 3), -1}} {
			for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
				v := randValues(r, dt, numel(c.shape))
				got := mustRun(t, op, kernel.Attrs{"axis": c.axis}, tensor(dt, c.shape, v...))
				axis, _ := kernel.NormAxis(c.axis, len(c.shape))
				tol := 1e-5
				if dt == kernel.Float16 {
					tol = 2e-3
				}
				checkClose(t, op, got, c.shape, refSoftmax(c.shape, v, axis, op == "LogSoftmax"), tol)
			}
		}
	}
}

func TestSoftmaxIsStableForLargeInputs(t *testing.T) {
	got := mustRun(t, "Softmax", nil, f32(shp(3), 1000, 1001, 1002))
	checkClose(t, "Softmax large", got, shp(3), refSoftmax(shp(3), []float64{0, 1, 2}, 0, false), 1e-6)
	got = mustRun(t, "LogSoftmax", nil, f32(shp(2), -1e30, 0))
	checkClose(t, "LogSoftmax large", got, shp(2), []float64{-1e30, 0}, 1e-6)
}

func TestSoftmaxErrorsAndWorkspace(t *testing.T) {
	wantErr(t, "Softmax", kernel.Attrs{"axis": 2}, []*kernel.Tensor{f32(shp(2, 2))}, "axis 2 out of range")
	wantErr(t, "Softmax", nil, []*kernel.Tensor{f32(nil, 1)}, "out of range for rank 0")
	wantErr(t, "LogSoftmax", nil, []*kernel.Tensor{i64(shp(2), 1, 2)}, "input X", "int64")
	wantErr(t, "Softmax", kernel.Attrs{"axis": "last"}, nil, "axis")
	k, _ := Builtins().New("Softmax", kernel.Attrs{"axis": 1})
	in, out := []*kernel.Tensor{kernel.Virtual(kernel.Float16, 4, 1000, 6)}, []*kernel.Tensor{{}}
	if err := k.InferShape(in, out); err != nil {
		t.Fatal(err)
	}
	var tl kernel.Tiling
	err := k.Resize(in, out, &tl)
	if err != nil {
		t.Fatal(err)
	}
	d := decoder{b: tl.Data}
	w := [softmaxWords]int64{}
	for i := range w {
		w[i] = d.word()
	}
	// outer 4, axis 1000, inner 6; 24 rows of 1000 over 24 cores, chunk 1024.
	want := [softmaxWords]int64{4, 1000, 6, 24, 1000, 1, 24, 1024}
	if w != want || tl.Workspace != 24*8 {
		t.Fatalf("tiling %v workspace %d, want %v and %d", w, tl.Workspace, want, 24*8)
	}
}

// refLayerNorm normalizes rows of length n in float64.
func refLayerNorm(v, g, b []float64, n int, eps float64) []float64 {
	out := make([]float64, len(v))
	for r := 0; r < len(v)/n; r++ {
		row := v[r*n : (r+1)*n]
		var mean, sq float64
		for _, x := range row {
			mean += x
		}
		mean /= float64(n)
		for _, x := range row {
			sq += (x - mean) * (x - mean)
		}
		rstd := 1 / math.Sqrt(sq/float64(n)+eps)
		for j, x := range row {
			out[r*n+j] = (x-mean)*rstd*g[j] + b[j]
		}
	}
	return out
}

func TestLayerNormMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		shape []int64
		axis  int64
		beta  bool
	}{{shp(4, 8), -1, true}, {shp(2, 3, 4), -2, true}, {shp(2, 3, 4), 0, false}, {shp(5), -1, true}, {shp(0, 4), -1, true}, {shp(3, 0), -1, true}} {
		for _, dt := range []kernel.DType{kernel.Float32, kernel.Float16} {
			axis, _ := kernel.NormAxis(c.axis, len(c.shape))
			norm := c.shape[axis:]
			v := randValues(r, dt, numel(c.shape))
			g := randValues(r, dt, numel(norm))
			b := make([]float64, len(g))
			in := []*kernel.Tensor{tensor(dt, c.shape, v...), tensor(dt, norm, g...)}
			if c.beta {
				b = randValues(r, dt, numel(norm))
				in = append(in, tensor(dt, norm, b...))
			}
			got := mustRun(t, "LayerNorm", kernel.Attrs{"axis": c.axis, "epsilon": 1e-3}, in...)
			tol := 1e-5
			if dt == kernel.Float16 {
				tol = 2e-3
			}
			var want []float64
			if n := numel(norm); n > 0 {
				want = refLayerNorm(v, g, b, int(n), 1e-3)
			}
			checkClose(t, "LayerNorm", got, c.shape, want, tol)
		}
	}
}

func TestLayerNormErrors(t *testing.T) {
	x := f32(shp(2, 3))
	wantErr(t, "LayerNorm", nil, []*kernel.Tensor{x, f32(shp(2))}, "input gamma", "[2]", "[3]")
	wantErr(t, "LayerNorm", nil, []*kernel.Tensor{x, f32(shp(3)), f32(shp(1, 3))}, "input beta")
	wantErr(t, "LayerNorm", nil, []*kernel.Tensor{x, tensor(kernel.Float16, shp(3))}, "input gamma", "float16")
	wantErr(t, "LayerNorm", nil, []*kernel.Tensor{i64(shp(3)), i64(shp(3))}, "input X", "int64")
	wantErr(t, "LayerNorm", kernel.Attrs{"axis": -3}, []*kernel.Tensor{x, f32(shp(2, 3))}, "axis -3 out of range")
	wantErr(t, "LayerNorm", kernel.Attrs{"epsilon": -1.0}, nil, "epsilon")
	wantErr(t, "LayerNorm", nil, []*kernel.Tensor{x}, "have 1 inputs")
}

// Below opset 17, LayerNormalization is onnxruntime's contrib form, whose
// Scale, B and Y share a float type (V) that may differ from X's; from 17
// Y is of X's type.
func TestLayerNormalizationContribScaleType(t *testing.T) {
	x := []float64{1, 2, 3, 4, -1, 0.5, 0, 2}
	scale, bias := []float64{1, 2, 1, 0.5}, []float64{0.25, 0, -1, 0}
	want := refLayerNorm(x, scale, bias, 4, float64(float32(1e-5)))
	for _, c := range []struct {
		opset  int64
		x, s   kernel.DType
		y      kernel.DType
		tol    float64
		reason string
	}{
		{16, kernel.Float16, kernel.Float32, kernel.Float32, 1e-6, "Y of Scale's type"},
		{16, kernel.Float32, kernel.Float16, kernel.Float16, 2e-3, "Y of Scale's type"},
		{17, kernel.Float16, kernel.Float16, kernel.Float16, 2e-3, "Y of X's type"},
	} {
		attrs := kernel.Attrs{kernel.OpsetAttr: c.opset}
		out, err := runOp("LayerNormalization", attrs, tensor(c.x, shp(2, 4), x...), tensor(c.s, shp(4), scale...), tensor(c.s, shp(4), bias...))
		if err != nil {
			t.Fatalf("opset %d X %v Scale %v: %v", c.opset, c.x, c.s, err)
		}
		if out[0].DType != c.y {
			t.Fatalf("opset %d X %v Scale %v: Y is %v, want %v (%s)", c.opset, c.x, c.s, out[0].DType, c.y, c.reason)
		}
		checkClose(t, fmt.Sprintf("LayerNormalization opset %d X %v Scale %v", c.opset, c.x, c.s), out[0], shp(2, 4), want, c.tol)
	}
	wantErr(t, "LayerNormalization", kernel.Attrs{kernel.OpsetAttr: int64(16)}, []*kernel.Tensor{f32(shp(2, 4)), i64(shp(4))}, "Scale", "int64")
}
