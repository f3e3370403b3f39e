// Package heterogtest provides helpers for tests of heterogeneous runs, as
// net/http/httptest does for HTTP: a Manager of fresh devices released, and
// checked for leaked memory, when the test ends, and the kernel-by-kernel
// Reference outputs a heterogeneous run must reproduce.
package heterogtest

import (
	"context"
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// Manager returns a manager of a new host device and a new simulated
// accelerator (host-mapped if mapped is set). When the test ends it
// releases the manager's worker groups and reports device memory still in
// use on either device as an error.
func Manager(tb testing.TB, mapped bool) *heterog.Manager {
	tb.Helper()
	cpu, err := host.New(host.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	var accel device.Device = sim
	if mapped {
		accel = host.Map(sim)
	}
	m, err := heterog.NewManager(cpu, accel)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := m.Release(); err != nil {
			tb.Error(err)
		}
		if st := sim.Stats(); st.MemInUse != 0 {
			tb.Errorf("%d bytes of accelerator memory leaked", st.MemInUse)
		}
		if st := cpu.Stats(); st.MemInUse != 0 {
			tb.Errorf("%d bytes of host memory leaked", st.MemInUse)
		}
	})
	return m
}

// Reference runs g kernel by kernel on one actor on a fresh simulated
// device: the outputs, by name, that every schedule and placement must
// reproduce bit for bit.
func Reference(tb testing.TB, g *subgraph.Graph, in map[string]*kernel.Tensor) map[string]*kernel.Tensor {
	tb.Helper()
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		tb.Fatal(err)
	}
	dev, err := device.NewSim(device.SimOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	a, err := actor.New(c, plan.Config{Mode: plan.KBK, Device: dev}, actor.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer a.Close()
	ordered := make([]*kernel.Tensor, len(g.Inputs))
	for i, v := range g.Inputs {
		ordered[i] = in[v.Name]
	}
	outs, _, err := a.Run(context.Background(), ordered)
	if err != nil {
		tb.Fatal(err)
	}
	m := make(map[string]*kernel.Tensor, len(outs))
	for i, name := range g.Outputs {
		m[name] = outs[i]
	}
	return m
}
