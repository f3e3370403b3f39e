package pipert_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
)

// TestSyntheticIsInsideTheStages: Stats.Synthetic, the time the synthetic
// host costs took as they burnt, is zero without costs and, with them, a
// part of the stages' busy time, in every mode: each burn is timed inside
// the stage interval that holds it, a Prepare paid in Infer included
// (SetupReuse). Stats.Compute, the kernels' computation on real data, is
// another part, disjoint from it, and zero on virtual tensors.
func TestSyntheticIsInsideTheStages(t *testing.T) {
	for _, real := range []bool{true, false} {
		in := map[string]*kernel.Tensor{"x": kernel.FromFloat32(make([]float32, 16), 4, 4)}
		if !real {
			in["x"] = &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{4, 4}} // virtual: no data
		}
		syntheticInsideStages(t, in, real)
	}
}

func syntheticInsideStages(t *testing.T, in map[string]*kernel.Tensor, real bool) {
	costs := pipert.Costs{Prepare: 2 * time.Microsecond, Infer: 3 * time.Microsecond, Resize: 4 * time.Microsecond, Launch: 5 * time.Microsecond}
	for _, m := range everyMode() {
		for _, c := range []struct {
			name  string
			costs pipert.Costs
			more  []pipert.Option
		}{
			{"no costs", pipert.Costs{}, nil},
			{"costs", costs, nil},
			{"costs/setup reuse", costs, []pipert.Option{pipert.WithCaches(pipert.Caches{Kinds: pipert.SetupReuse})}},
		} {
			t.Run(fmt.Sprintf("%s/%s/real=%v", m.name, c.name, real), func(t *testing.T) {
				opts := append(append([]pipert.Option{pipert.WithCosts(c.costs)}, m.opts...), c.more...)
				exe, err := pipert.Compile(addChain(40), opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer exe.Close()
				for run := range 3 {
					res, err := exe.Run(context.Background(), in)
					if err != nil {
						t.Fatal(err)
					}
					st := res.Stats
					switch {
					case c.costs == (pipert.Costs{}) && st.Synthetic != 0:
						t.Fatalf("run %d: Synthetic %v without costs", run, st.Synthetic)
					case c.costs != (pipert.Costs{}) && m.name != "replay" && st.Synthetic <= 0:
						t.Fatalf("run %d: Synthetic %v with costs", run, st.Synthetic)
					case st.Synthetic+st.Compute > st.HostBusy():
						t.Fatalf("run %d: Synthetic %v and Compute %v beyond the stages' %v", run, st.Synthetic, st.Compute, st.HostBusy())
					case !real && st.Compute != 0, st.Compute < 0:
						t.Fatalf("run %d: Compute %v, real data %v", run, st.Compute, real)
					case real && m.name != "hetero" && st.Compute <= 0:
						t.Fatalf("run %d: Compute %v on real data", run, st.Compute)
					}
				}
			})
		}
	}
}
