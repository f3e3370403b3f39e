package scenarios_test

import (
	"context"
	"slices"
	"testing"

	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
)

// virtualOnly places as labelled but op on the device: the placement of
// one virtual operator.
type virtualOnly struct{ ops []string }

func (v virtualOnly) Place(c *subgraph.Checked, t plan.Target) ([]subgraph.Placement, error) {
	out, err := heterog.Labels().Place(c, t)
	for i, n := range c.Graph.Nodes {
		if slices.Contains(v.ops, n.Op) {
			out[i] = subgraph.OnDevice
		}
	}
	return out, err
}

// TestMTTorchMatchesKBK runs the real-data mttorch scenario on its MT-3000
// platform copied (as labelled), with each virtual operator and with both,
// in both schedules, and checks every output bit for bit against kernel by
// kernel on one actor.
func TestMTTorchMatchesKBK(t *testing.T) {
	sc, err := scenarios.Get("mttorch")
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(scenarios.Config{Real: true, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := kbk(t, w)
	sets := [][]string{nil, {"CumSum"}, {"ArgMax"}, sc.Virtual}
	for _, virtual := range sets {
		for _, s := range []heterog.Schedule{heterog.Concurrent, heterog.Serial} {
			pl, err := sc.Platform(nil)
			if err != nil {
				t.Fatal(err)
			}
			m, err := heterog.NewManager(pl.CPU, pl.Accelerator, heterog.WithGroupCosts(heterog.GroupCosts{Create: pl.GroupCreate, Cached: pl.GroupCached}))
			if err != nil {
				t.Fatal(err)
			}
			cfg := plan.Config{Mode: plan.Pipeline, Schedule: s, Placement: virtualOnly{virtual}, Virtual: virtual, Costs: sc.Costs, Seed: 5}
			e, err := heterog.Compile(w.Graph, cfg, m)
			if err != nil {
				t.Fatal(err)
			}
			r, err := e.Run(context.Background(), w.Inputs)
			if err != nil {
				t.Fatal(err)
			}
			for name, o := range want {
				g := r.Outputs[name]
				if g == nil || string(g.Host) != string(o.Host) || !g.Shape.Equal(o.Shape) {
					t.Errorf("virtual %v, %v: output %q differs", virtual, s, name)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if err := m.Release(); err != nil {
				t.Fatal(err)
			}
			if st := pl.Accelerator.Stats(); st.MemInUse != 0 {
				t.Errorf("virtual %v, %v: %d bytes leaked", virtual, s, st.MemInUse)
			}
		}
	}
}

// TestMTTorchSizes: the benchmark size builds, its parameters override it,
// and the two CPU operators of every layer are labelled for the CPU.
func TestMTTorchSizes(t *testing.T) {
	sc, err := scenarios.Get("mttorch")
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(scenarios.Config{Params: map[string]int64{"layers": 5, "heads": 3}})
	if err != nil {
		t.Fatal(err)
	}
	cpu := 0
	for _, n := range w.Graph.Nodes {
		if n.Placement == subgraph.OnCPU {
			cpu++
			if !slices.Contains(sc.Virtual, n.Op) {
				t.Errorf("node %s (%s) on the CPU is not a virtual candidate", n.Name, n.Op)
			}
		}
	}
	if cpu != 8 || len(w.Graph.Nodes) != 5*4+3*4 {
		t.Errorf("5 layers, 3 heads: %d nodes, %d on the CPU", len(w.Graph.Nodes), cpu)
	}
	if _, err := sc.Build(scenarios.Config{Params: map[string]int64{"hidden": 0}}); err == nil {
		t.Error("hidden 0 accepted")
	}
}
