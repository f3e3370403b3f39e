package heterog_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/heterog/heterogtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// newManager is heterogtest.Manager.
func newManager(tb testing.TB, mapped bool) *heterog.Manager { return heterogtest.Manager(tb, mapped) }

// reference is heterogtest.Reference.
func reference(tb testing.TB, g *subgraph.Graph, in map[string]*kernel.Tensor) map[string]*kernel.Tensor {
	return heterogtest.Reference(tb, g, in)
}

// sameOutputs reports the first difference between two output sets.
func sameOutputs(want, got map[string]*kernel.Tensor) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d outputs, want %d", len(got), len(want))
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, g := want[n], got[n]
		if g == nil {
			return fmt.Errorf("output %q missing", n)
		}
		if g.DType != w.DType || !g.Shape.Equal(w.Shape) {
			return fmt.Errorf("output %q: %v, want %v", n, g, w)
		}
		if !bytes.Equal(g.Host, w.Host) {
			return fmt.Errorf("output %q: contents differ", n)
		}
	}
	return nil
}

// opts are the settings the tests vary, turned into a plan.Config.
type opts struct {
	Schedule heterog.Schedule
	Policy   heterog.Policy
	Mode     plan.Mode
	Barrier  plan.BarrierPolicy
	Costs    plan.Costs
	CPUCosts *plan.Costs
	Manager  *heterog.Manager
	Virtual  []string
	Seed     uint64
	Trace    *trace.Recorder
	Name     string
	Caches   plan.Caches
}

func (o opts) config() plan.Config {
	c := plan.Config{Mode: o.Mode, Barrier: o.Barrier, Costs: o.Costs, Placement: o.Policy, Schedule: o.Schedule,
		Virtual: o.Virtual, Seed: o.Seed, Trace: o.Trace, TraceName: o.Name, Caches: o.Caches}
	if c.Mode == 0 {
		c.Mode = plan.Pipeline
	}
	if o.CPUCosts != nil {
		dev, cpu := o.Costs, *o.CPUCosts
		c.HostCost = func(n plan.Node) plan.Costs {
			if n.OnCPU {
				return cpu
			}
			return dev
		}
	}
	return c
}

func compileWith(g *subgraph.Graph, o opts) (*heterog.Executable, error) {
	return heterog.Compile(g, o.config(), o.Manager)
}

// cpuParts counts the CPU parts of a run.
func cpuParts(s *plan.Stats) int {
	n := 0
	for _, p := range s.Parts {
		if p.OnCPU {
			n++
		}
	}
	return n
}
