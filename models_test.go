package pipert_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/plan"
)

// modelSetting is one execution setting a golden case runs in.
type modelSetting struct {
	name string
	opts []pipert.Option
}

// modelSettings lists KBK first, then every other mode and barrier policy,
// then heterogeneous execution with placement by tensor size: nodes whose
// operands all have fewer than 4096 elements run on the CPU.
func modelSettings() []modelSetting {
	out := []modelSetting{{name: "kbk", opts: []pipert.Option{pipert.WithMode(pipert.KBK)}}}
	for _, m := range pipert.Modes()[1:] {
		for _, b := range []pipert.BarrierPolicy{plan.Drain, plan.PerTensor} {
			out = append(out, modelSetting{name: fmt.Sprintf("%v/%v", m, b), opts: []pipert.Option{pipert.WithMode(m), pipert.WithBarrier(b)}})
		}
	}
	out = append(out, modelSetting{name: "heterogeneous/size4096", opts: []pipert.Option{
		pipert.WithMode(pipert.Pipeline), pipert.WithHeterogeneous(heterog.Size{Elements: 4096})}})
	return out
}

// TestModelGoldens runs every golden case of the real models in every
// setting: KBK matches onnxruntime within the model's tolerance, and every
// other setting is bit-identical to KBK. Streaming cases (VAD) feed the
// state output of one call back as the next call's state input.
func TestModelGoldens(t *testing.T) {
	for _, m := range []struct {
		file string
		tol  float64
		opt  func(c *onnx.Case) []pipert.ImportOption
	}{
		{"ppocrv4-det", 1e-4, nil},
	} {
		g, err := onnx.ReadGolden(filepath.Join("onnx", "testdata", m.file+".golden.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range g.Cases {
			var imp []pipert.ImportOption
			for name, s := range c.InputShapes() {
				imp = append(imp, pipert.WithInputShape(name, s...))
			}
			gr, err := pipert.LoadONNX(filepath.Join("onnx", "testdata", m.file+".onnx"), imp...)
			if err != nil {
				t.Fatalf("%s/%s: %v", m.file, c.Name, err)
			}
			var ref map[string]*kernel.Tensor
			for _, s := range modelSettings() {
				exe, err := pipert.Compile(gr, s.opts...)
				if err != nil {
					t.Fatalf("%s/%s %s: %v", m.file, c.Name, s.name, err)
				}
				res, err := exe.Run(context.Background(), c.Inputs)
				exe.Close()
				if err != nil {
					t.Fatalf("%s/%s %s: %v", m.file, c.Name, s.name, err)
				}
				if ref == nil {
					ref = res.Outputs
					maxAbs, err := c.Compare(res.Outputs, m.tol)
					if err != nil {
						t.Fatalf("%s %s: %v", m.file, s.name, err)
					}
					t.Logf("%s/%s: max abs error %.3g against %s", m.file, c.Name, maxAbs, g.Runtime)
					continue
				}
				for name, want := range ref {
					got := res.Outputs[name]
					if got == nil || string(got.Host) != string(want.Host) || !got.Shape.Equal(want.Shape) {
						t.Errorf("%s/%s %s: output %q differs from KBK's", m.file, c.Name, s.name, name)
					}
				}
			}
		}
	}
}
