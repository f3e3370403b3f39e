package heterog_test

import (
	"path/filepath"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// TestTracedRunValidates traces a concurrent run with both devices
// observed: every actor's stages land on its own tracks, and every kernel's
// flow runs from its prepare slice to its slice on the device that ran it,
// the host included, and every cross-part edge is a flow between the two
// parts' activations.
func TestTracedRunValidates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.pftrace")
	rec, mgr := tracedDevices(t, path)
	g, in := joined()
	e := compile(t, g, opts{Manager: mgr, Trace: rec, Name: "joined"})
	const runs = 2
	for range runs {
		run(t, e, in)
	}
	p := closeAndRead(t, e, rec, path)
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

// TestSerialTracesEveryHostKernel: the Serial schedule computes its CPU
// nodes on one host stream, and every one of a long chain's kernels ends
// its flow on a device slice, the host's included.
func TestSerialTracesEveryHostKernel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serial.pftrace")
	rec, mgr := tracedDevices(t, path)
	b := subgraph.NewBuilder("long")
	x := b.Input("x", kernel.Float32, 4)
	for i := range 150 {
		x = b.Op("ReLU", x)
		if i%3 != 0 {
			b.Last().Placement = subgraph.OnCPU
		}
	}
	b.Output(x)
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}
	e := compile(t, g, opts{Manager: mgr, Trace: rec, Name: "long", Schedule: heterog.Serial})
	const runs = 2
	for range runs {
		run(t, e, in)
	}
	p := closeAndRead(t, e, rec, path)
	ends := map[uint64]bool{}
	for _, ev := range p.Events {
		if ev.Kind == trace.EvFlowEnd && ev.Flow&(1<<62) == 0 {
			ends[ev.Flow] = true
		}
	}
	if want := runs * len(g.Nodes); len(ends) != want {
		t.Fatalf("%d kernel flows end on a device slice, want %d", len(ends), want)
	}
	if _, ok := p.TrackIndex("cpu stream 1"); ok {
		t.Fatal("the CPU nodes use more than one host stream")
	}
}

// tracedDevices returns a recorder writing to path and a manager of a
// host CPU and a simulated accelerator traced into it, as "cpu" and
// "accel".
func tracedDevices(t *testing.T, path string) (*trace.Recorder, *heterog.Manager) {
	t.Helper()
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
	t.Cleanup(func() { mgr.Release() })
	return rec, mgr
}

// closeAndRead closes e and rec, and reads back and validates the trace
// at path.
func closeAndRead(t *testing.T, e *heterog.Executable, rec *trace.Recorder, path string) *trace.Parsed {
	t.Helper()
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
	return p
}
