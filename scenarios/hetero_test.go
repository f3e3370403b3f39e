package scenarios_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/heterog/heterogtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
)

func heteroWorkload(t *testing.T, c scenarios.Config) (scenarios.Scenario, *scenarios.Workload) {
	t.Helper()
	sc, err := scenarios.Get("hetero")
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(c)
	if err != nil {
		t.Fatal(err)
	}
	return sc, w
}

// kbk runs w kernel by kernel on one actor: the reference. The real-data
// scenario must give real outputs.
func kbk(t *testing.T, w *scenarios.Workload) map[string]*kernel.Tensor {
	t.Helper()
	m := heterogtest.Reference(t, w.Graph, w.Inputs)
	for name, o := range m {
		if o.Host == nil {
			t.Fatalf("reference output %q is virtual", name)
		}
	}
	return m
}

// TestHeteroEveryPolicyMatchesKBK runs the real-data hetero scenario under
// every placement policy, in both schedules, and with Unique as a virtual
// operator on host-mapped memory, and checks every output bit for bit
// against kernel by kernel on one actor.
func TestHeteroEveryPolicyMatchesKBK(t *testing.T) {
	sc, w := heteroWorkload(t, scenarios.Config{Real: true, Seed: 3})
	want := kbk(t, w)
	all := ops.Builtins().Ops()
	var noDynamic []string
	for _, op := range all {
		if op != "Unique" && op != "NonZero" {
			noDynamic = append(noDynamic, op)
		}
	}
	policies := map[string]heterog.Policy{
		"labels":             heterog.Labels(),
		"capability":         heterog.Capability{Ops: noDynamic, Fallback: heterog.Fixed(subgraph.OnDevice)},
		"capability+labels":  heterog.Capability{Ops: noDynamic},
		"size measured":      heterog.Size{},
		"size 16":            heterog.Size{Elements: 16, Fallback: heterog.Fixed(subgraph.OnDevice)},
		"cost":               heterog.Cost{},
		"cost on the device": heterog.Cost{Fallback: heterog.Fixed(subgraph.OnDevice)},
		"all cpu":            heterog.Fixed(subgraph.OnCPU),
		"all device":         heterog.Fixed(subgraph.OnDevice),
	}
	for name, p := range policies {
		for _, s := range []heterog.Schedule{heterog.Concurrent, heterog.Serial} {
			for _, virtual := range []bool{false, true} {
				o := plan.Config{Mode: plan.Pipeline, Schedule: s, Placement: p, Costs: sc.Costs, Seed: 3}
				if virtual {
					o.Virtual = []string{"Unique"}
					if c, ok := p.(heterog.Capability); ok {
						c.Ops = all
						o.Placement = c
					}
				}
				e, err := heterog.Compile(w.Graph, o, heterogtest.Manager(t, virtual))
				if err != nil {
					t.Fatalf("%s, %v: %v", name, s, err)
				}
				r, err := e.Run(context.Background(), w.Inputs)
				if err != nil {
					t.Fatalf("%s, %v, virtual %v: %v", name, s, virtual, err)
				}
				for out, tw := range want {
					tg := r.Outputs[out]
					if tg == nil || !tg.Shape.Equal(tw.Shape) || !bytes.Equal(tg.Host, tw.Host) {
						t.Fatalf("%s, %v, virtual %v: output %q is %v, want %v", name, s, virtual, out, tg, tw)
					}
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestHeteroShape checks the benchmark-size graph: CPU-labelled index work
// on real data, a virtual dense tower, and a partition into concurrent CPU
// chains and device segments.
func TestHeteroShape(t *testing.T) {
	_, w := heteroWorkload(t, scenarios.Config{Quick: true, Seed: 1})
	c, err := subgraph.Validate(w.Graph, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	var cpu, dev int
	for _, n := range c.Graph.Nodes {
		if n.Placement == subgraph.OnCPU {
			cpu++
		} else {
			dev++
		}
	}
	if cpu < 30 || dev < 20 {
		t.Fatalf("%d CPU and %d device nodes", cpu, dev)
	}
	for name, in := range w.Inputs {
		if real := in.Host != nil; real != (name != "x") {
			t.Fatalf("input %q: real %v", name, real)
		}
	}
	p, err := subgraph.Partition(c, func(i int) subgraph.Placement {
		if c.Graph.Nodes[i].Placement == subgraph.OnCPU {
			return subgraph.OnCPU
		}
		return subgraph.OnDevice
	}, func(p subgraph.Placement) bool { return p == subgraph.OnCPU })
	if err != nil {
		t.Fatal(err)
	}
	// Three chains per segment run as parts of their own.
	if len(p.Parts) < 3*2+2 {
		t.Fatalf("%d parts", len(p.Parts))
	}
}
