package actor_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// TestTracedRunsValidate traces a dynshape run (value and compute barriers)
// in every mode, to both formats, and checks the trace's invariants: every
// kernel's flow runs from its prepare slice to its device slice.
func TestTracedRunsValidate(t *testing.T) {
	sc, _ := scenarios.Get("dynshape")
	w, err := sc.Build(scenarios.Config{Real: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	c, err := subgraph.Validate(w.Graph, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".pftrace", ".json"} {
		path := filepath.Join(t.TempDir(), "run"+ext)
		rec, err := trace.Create(path, trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		kernels := 0
		var acts []*actor.SuperKernelActor
		for _, v := range variants {
			v.Trace, v.TraceName = rec, name(v)
			dev, _ := device.NewSim(device.SimOptions{Observer: devtrace.New(rec, name(v))})
			v.Device = dev
			a, err := actor.New(c, v, actor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			acts = append(acts, a)
			for r := 0; r < 2; r++ {
				if _, _, err := a.Run(context.Background(), ordered(w.Graph, w.Inputs)); err != nil {
					t.Fatalf("%s: %v", name(v), err)
				}
				kernels += a.Kernels()
			}
		}
		for _, a := range acts {
			a.Close()
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		p, err := trace.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := trace.Validate(p); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		flows := map[uint64]int{}
		for _, e := range p.Events {
			if e.Kind == trace.EvFlowBegin || e.Kind == trace.EvFlowEnd {
				flows[e.Flow]++
			}
		}
		complete := 0
		for _, n := range flows {
			if n == 2 {
				complete++
			}
		}
		if complete != kernels {
			t.Fatalf("%s: %d complete kernel flows, want %d", ext, complete, kernels)
		}
	}
}
