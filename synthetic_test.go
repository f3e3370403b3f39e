package pipert_test

import (
	"context"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
)

// TestSyntheticIsInsideTheStages: Stats.Synthetic, the time the synthetic
// host costs took as they burnt, is zero without costs and, with them, a
// part of the stages' busy time, in every mode: each burn is timed inside
// the stage interval that holds it, a Prepare paid in Infer included
// (SetupReuse).
func TestSyntheticIsInsideTheStages(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32(make([]float32, 16), 4, 4)}
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
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
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
					case st.Synthetic > st.HostBusy():
						t.Fatalf("run %d: Synthetic %v beyond the stages' %v", run, st.Synthetic, st.HostBusy())
					}
				}
			})
		}
	}
}
