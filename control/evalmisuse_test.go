package control_test

import (
	"testing"

	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// TestEvalRefusesWhatItCannotCompute checks that Eval, which computes on
// real data, refuses a virtual input, a nil input and a nil graph with an
// error instead of zeros or a panic.
func TestEvalRefusesWhatItCannotCompute(t *testing.T) {
	b := subgraph.NewBuilder("neg")
	x := b.Input("x", kernel.Float32, 3)
	b.Output(b.Op("Neg", x))
	g := b.Graph()
	for name, in := range map[string]*kernel.Tensor{
		"virtual": {DType: kernel.Float32, Shape: kernel.Shape{3}},
		"nil":     nil,
	} {
		if out, _, err := control.Eval(g, []*kernel.Tensor{in}, ops.Builtins()); err == nil {
			t.Errorf("%s input: outputs %v, no error", name, out)
		}
	}
	if _, _, err := control.Eval(nil, nil, ops.Builtins()); err == nil {
		t.Error("nil graph: no error")
	}
	out, _, err := control.Eval(g, []*kernel.Tensor{kernel.FromFloat32([]float32{1, 2, 3}, 3)}, ops.Builtins())
	if err != nil || kernel.Float32s(out[0].Host)[2] != -3 {
		t.Fatalf("real input: %v, %v", out, err)
	}
}

// TestEvalEmptyOutputsAreReal: an output of no elements, computed or an
// input passed through, is real (a non-nil Host), as Run returns it.
func TestEvalEmptyOutputsAreReal(t *testing.T) {
	b := subgraph.NewBuilder("empty")
	x := b.Input("x", kernel.Float32, 0, 3)
	b.Output(x, b.Op("ReLU", x))
	out, _, err := control.Eval(b.Graph(), []*kernel.Tensor{kernel.New(kernel.Float32, 0, 3)}, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.IsVirtual() || !o.Shape.Equal(kernel.Shape{0, 3}) {
			t.Errorf("output %d is %v, want a real float32[0,3]", i, o)
		}
	}
}
