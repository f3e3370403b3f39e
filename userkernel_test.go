package pipert_test

import (
	"context"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// userReLU is ReLU as a kernel of the caller's: not kernel.Trusted, so
// the runner reads its inputs through views of its own.
type userReLU struct{ kernel.Kernel }

// TestUserKernelSeesEachRunsInputs: a kernel that is not kernel.Trusted
// reads each run's inputs, in every mode, Replay's replayed runs
// included: the views its inputs go through take each run's buffers.
func TestUserKernelSeesEachRunsInputs(t *testing.T) {
	reg := ops.NewRegistry()
	if err := reg.Register("UserReLU", func(kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("ReLU", nil)
		return userReLU{k}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("u")
	x := b.Input("x", kernel.Float32, 4)
	y := b.Op("UserReLU", x)
	b.Output(b.Op("Add", b.Op("UserReLU", b.Op("Neg", y)), x))
	g := b.Graph()
	for _, m := range everyMode() {
		exe, err := pipert.Compile(g, append(m.opts, pipert.WithRegistry(reg))...)
		if err != nil {
			t.Fatal(err)
		}
		for run := range 6 {
			v := []float32{float32(run), -float32(run), 2 * float32(run), -3}
			res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.FromFloat32(v, 4)})
			if err != nil {
				t.Fatalf("%s run %d: %v", m.name, run, err)
			}
			got := kernel.Float32s(res.Outputs[g.Outputs[0]].Data())
			for i, xv := range v {
				// relu(−relu(x)) is 0: the output is x.
				if got[i] != xv {
					t.Fatalf("%s run %d: output %v, want %v", m.name, run, got, v)
				}
			}
		}
		exe.Close()
	}
}
