package heterog_test

import (
	"path/filepath"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/trace"
)

// TestTracedRunValidates traces a concurrent run with both devices
// observed: every actor's stages land on its own tracks, and every kernel's
// flow runs from its prepare slice to its slice on the device that ran it,
// the host included, and every cross-part edge is a flow between the two
// parts' activations.
func TestTracedRunValidates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.pftrace")
	rec, err := trace.Create(path, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := host.New(host.Options{Observer: devtrace.New(rec, "cpu")})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := device.NewSim(device.SimOptions{Observer: devtrace.New(rec, "accel")})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := heterog.NewManager(cpu, sim)
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Release()
	g, in := joined()
	e := compile(t, g, opts{Manager: mgr, Trace: rec, Name: "joined"})
	const runs = 2
	for range runs {
		run(t, e, in)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Validate(p); err != nil {
		t.Fatal(err)
	}
	flows := map[uint64]int{}
	for _, ev := range p.Events {
		if ev.Kind == trace.EvFlowBegin || ev.Kind == trace.EvFlowEnd {
			flows[ev.Flow]++
		}
	}
	kernels, edges := 0, 0
	for id, n := range flows {
		if n != 2 {
			continue
		}
		if id&(1<<62) != 0 {
			edges++
		} else {
			kernels++
		}
	}
	if want := runs * len(g.Nodes); kernels != want {
		t.Fatalf("%d complete kernel flows, want %d", kernels, want)
	}
	// Every cross-part edge of every run is a flow from the producing
	// part's activation to the consuming part's.
	if want := runs * len(e.Partitioning().Edges); edges != want || want == 0 {
		t.Fatalf("%d complete edge flows, want %d", edges, want)
	}
}
