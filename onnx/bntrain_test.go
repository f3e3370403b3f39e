package onnx_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
)

// bnModel reads fixture name's model and golden case, for variations of
// its BatchNormalization node.
func bnModel(t *testing.T, name string) (*onnx.Model, *onnx.Case) {
	t.Helper()
	gold, err := onnx.ReadGolden("testdata/opset/" + name + ".golden.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.ReadFile("testdata/opset/" + gold.Model)
	if err != nil {
		t.Fatal(err)
	}
	return m, &gold.Cases[0]
}

// TestBatchNormTrainingEmptyOutputs runs training-mode BatchNormalization
// with an optional output left empty (onnxruntime 1.30 crashes on that
// model): the outputs it has are those of the fixture with all three.
func TestBatchNormTrainingEmptyOutputs(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		outs    []string // the node's outputs; the graph's are the named ones
	}{
		{"bntrain_o15", []string{"y", "", "rv"}},
		{"bntrain_o15", []string{"y", "rm"}},
		{"bntrain_o15", []string{"y"}},
		{"bntrain_o9_five_outputs", []string{"y", "rm", "", "", "sv"}},
	} {
		m, c := bnModel(t, tc.fixture)
		m.Graph.Nodes[0].Outputs = tc.outs
		m.Graph.Outputs = slices.DeleteFunc(m.Graph.Outputs, func(v *onnx.ValueInfo) bool { return !slices.Contains(tc.outs, v.Name) })
		g, err := onnx.Import(m, onnx.Options{})
		if err != nil {
			t.Fatalf("%s %q: import: %v", tc.fixture, tc.outs, err)
		}
		for _, mode := range []pipert.Mode{pipert.KBK, pipert.Pipeline} {
			res, err := runIn(g, c.Inputs, mode)
			if err != nil {
				t.Fatalf("%s %q, %v: %v", tc.fixture, tc.outs, mode, err)
			}
			for name, got := range res.Outputs {
				if err := within(got, c.Outputs[name], 0, 1e-5); err != nil {
					t.Errorf("%s %q, %v: output %s: %v", tc.fixture, tc.outs, mode, name, err)
				}
			}
			if len(res.Outputs) != len(m.Graph.Outputs) {
				t.Errorf("%s %q, %v: %d outputs, want %d", tc.fixture, tc.outs, mode, len(res.Outputs), len(m.Graph.Outputs))
			}
		}
	}
}

// TestBatchNormTrainingOffset checks training-mode statistics of float32
// values near 1000 with a variance near 0.1 against the float64 formula
// (onnxruntime's float32 statistics are 1e-4 off there).
func TestBatchNormTrainingOffset(t *testing.T) {
	m, _ := bnModel(t, "bntrain_o15")
	const n, c, hw = 2, 3, 4
	x := make([]float32, n*c*hw)
	for i := range x {
		x[i] = 1000 + float32((i*37)%11)/8 - 0.6
	}
	stat := func(v ...float32) *kernel.Tensor { return kernel.FromFloat32(v, c) }
	in := map[string]*kernel.Tensor{
		"x": kernel.FromFloat32(x, n, c, 2, 2),
		"s": stat(1, -2, 0.5), "b": stat(0, 1, -1), "m": stat(999, 1000, 1001), "v": stat(0.5, 1, 2),
	}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runIn(g, in, pipert.KBK)
	if err != nil {
		t.Fatal(err)
	}
	y, rm, rv := kernel.Float32s(res.Outputs["y"].Data()), kernel.Float32s(res.Outputs["rm"].Data()), kernel.Float32s(res.Outputs["rv"].Data())
	scale, bias, m0, v0 := kernel.Float32s(in["s"].Data()), kernel.Float32s(in["b"].Data()), kernel.Float32s(in["m"].Data()), kernel.Float32s(in["v"].Data())
	eps, mom := float64(float32(1e-5)), float64(float32(0.9))
	for ch := range c {
		var sum, sq float64
		for b := range n {
			for i := range hw {
				sum += float64(x[(b*c+ch)*hw+i])
			}
		}
		mean := sum / (n * hw)
		for b := range n {
			for i := range hw {
				d := float64(x[(b*c+ch)*hw+i]) - mean
				sq += d * d
			}
		}
		vr := sq / (n * hw)
		for b := range n {
			for i := range hw {
				at := (b*c+ch)*hw + i
				want := float32((float64(x[at])-mean)/math.Sqrt(vr+eps)*float64(scale[ch]) + float64(bias[ch]))
				if d := math.Abs(float64(y[at] - want)); d > 1e-6*math.Abs(float64(want))+1e-6 {
					t.Fatalf("y[%d] = %v, want %v", at, y[at], want)
				}
			}
		}
		if want := float32(float64(m0[ch])*mom + mean*(1-mom)); rm[ch] != want {
			t.Errorf("running_mean[%d] = %v, want %v", ch, rm[ch], want)
		}
		if want := float32(float64(v0[ch])*mom + vr*(1-mom)); rv[ch] != want {
			t.Errorf("running_var[%d] = %v, want %v", ch, rv[ch], want)
		}
	}
}

// TestBatchNormTrainingErrors: the forms ONNX or onnxruntime refuse are
// refused at import, naming what is wrong.
func TestBatchNormTrainingErrors(t *testing.T) {
	attr := func(name string, v int64) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrInt, I: v}
	}
	for _, tc := range []struct {
		name    string
		fixture string
		outs    []string
		attrs   []*onnx.Attribute
		want    error
	}{
		{"three outputs at opset 9", "bntrain_o9_five_outputs", []string{"y", "rm", "rv"}, nil, onnx.ErrImport},
		{"pipert's attribute in a model", "bntrain_o9_five_outputs", nil, []*onnx.Attribute{attr(ops.TrainingAttr, 1)}, onnx.ErrImport},
		{"training_mode 2", "bntrain_o15", nil, []*onnx.Attribute{attr("training_mode", 2)}, onnx.ErrUnsupported},
		{"inference with three outputs", "bntrain_o15", nil, []*onnx.Attribute{attr("training_mode", 0)}, onnx.ErrUnsupported},
		{"training with spatial 0", "bntrain_o7_spatial", nil, []*onnx.Attribute{attr("spatial", 0)}, onnx.ErrUnsupported},
	} {
		m, _ := bnModel(t, tc.fixture)
		nd := m.Graph.Nodes[0]
		if tc.outs != nil {
			nd.Outputs = tc.outs
			m.Graph.Outputs = m.Graph.Outputs[:len(tc.outs)]
		}
		for _, a := range tc.attrs {
			nd.Attrs = slices.DeleteFunc(nd.Attrs, func(b *onnx.Attribute) bool { return b.Name == a.Name })
			nd.Attrs = append(nd.Attrs, a)
		}
		_, err := onnx.Import(m, onnx.Options{})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
