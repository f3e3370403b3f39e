package pipert_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	devfault "github.com/pipert/pipert/device/fault"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// faultyGraph has every kind of device call site: inputs to upload, a
// shape computed on the device from the data (a value staged to the host
// for a Reshape), a compute-dependent Unique, several outputs.
func faultyGraph() (*subgraph.Graph, map[string]*kernel.Tensor) {
	b := subgraph.NewBuilder("faulty")
	x := b.Input("x", kernel.Float32, 4, 4)
	h := b.Op("ReLU", b.Op("MatMul", x, b.Const("w", kernel.FromFloat32([]float32{
		1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1}, 4, 4))))
	// zero, computed on the device from x's values: the Reshape's shape
	// is a value the host must stage.
	zero := b.Op("Mul", b.OpAttrs("Cast", kernel.Attrs{"to": "int64"}, b.OpAttrs("ReduceMax", kernel.Attrs{"keepdims": false}, x)),
		b.Const("zero", kernel.FromInt64([]int64{0}, 1)))
	shape := b.Op("Add", b.Const("shape", kernel.FromInt64([]int64{2, 8}, 2)), zero)
	b.Output(b.Op("Reshape", h, shape))
	u := b.Op("Unique", b.OpAttrs("Cast", kernel.Attrs{"to": "int64"}, x))
	b.Output(b.OpAttrs("ReduceSum", kernel.Attrs{"keepdims": false}, b.OpAttrs("Cast", kernel.Attrs{"to": "float32"}, u)))
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{
		1, -2, 3, -4, 5, -6, 7, -8, 1, 2, 3, 4, 5, 6, 7, 8}, 4, 4)}
	return b.Graph(), in
}

// faultSite is a device call site of a run, by the kind of call and
// which one of the run's calls of that kind.
type faultSite struct {
	name string
	kind devfault.Kind
	// nth picks the call among the n a healthy run makes.
	nth func(n int64) int64
}

var faultSites = []faultSite{
	{"input upload", devfault.CopyH2D, func(int64) int64 { return 1 }},
	{"allocation", devfault.Alloc, func(n int64) int64 { return (n + 1) / 2 }},
	{"launch", devfault.Launch, func(n int64) int64 { return (n + 1) / 2 }},
	{"value staging", devfault.CopyD2H, func(int64) int64 { return 1 }},
	{"output download", devfault.CopyD2H, func(n int64) int64 { return n }},
	{"sync", devfault.Sync, func(n int64) int64 { return n }},
	{"free", devfault.Free, func(n int64) int64 { return 1 }},
}

// sentinel is the error a fault of effect ef at a call of kind k fails
// a run with (nil: the run succeeds).
func sentinel(k devfault.Kind, ef devfault.Effect) error {
	switch {
	case ef == devfault.Lost:
		return device.ErrDeviceLost
	case ef == devfault.Async || k == devfault.Sync:
		return device.ErrKernelFault
	case k == devfault.Alloc:
		return device.ErrOutOfMemory
	case k == devfault.Launch:
		return device.ErrLaunchFailed
	case k == devfault.Free:
		return nil // a free never fails
	}
	return device.ErrCopyFailed
}

// TestFaultAtEveryCallSite injects every effect at every device call site
// of a run, in every mode and barrier policy, on a graph with value and
// compute dependencies: the run fails with the sentinel of the fault,
// naming node, op and stage where a kernel's launch failed; a fault that
// does not stick leaves the device with the bytes it had before the run;
// after a sticky one the device is reset; either way the caller's inputs
// are untouched, the next run on the healthy device gives KBK's outputs,
// and Close leaves no device memory (TestMain checks goroutines).
func TestFaultAtEveryCallSite(t *testing.T) {
	g, in := faultyGraph()
	ref, err := pipert.Compile(g, pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches}))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Run(context.Background(), in)
	ref.Close()
	if err != nil {
		t.Fatal(err)
	}
	effects := []devfault.Effect{devfault.Fail, devfault.Async, devfault.Lost}
	injected := 0
	for _, m := range everyMode() {
		for _, site := range faultSites {
			for _, ef := range effects {
				t.Run(fmt.Sprintf("%s/%s/%v", m.name, site.name, ef), func(t *testing.T) {
					sim, err := device.NewSim(device.SimOptions{})
					if err != nil {
						t.Fatal(err)
					}
					d := devfault.New(sim, 1)
					exe, err := pipert.Compile(g, append([]pipert.Option{pipert.WithDevice(d)}, m.opts...)...)
					if err != nil {
						t.Fatal(err)
					}
					ctx := context.Background()
					// Warm up (replay captures on its second run), and count
					// the calls of a healthy run.
					for range 3 {
						if _, err := exe.Run(ctx, in); err != nil {
							t.Fatal(err)
						}
					}
					before := d.Calls(site.kind)
					if _, err := exe.Run(ctx, in); err != nil {
						t.Fatal(err)
					}
					n := d.Calls(site.kind) - before
					if n == 0 {
						t.Skipf("a run makes no %v call", site.kind)
					}
					inUse := sim.Stats().MemInUse
					d.SetRules(devfault.Rule{Kind: site.kind, Nth: site.nth(n), Effect: ef})
					saved := map[string]string{}
					for name, x := range in {
						saved[name] = string(x.Host)
					}
					_, runErr := exe.Run(ctx, in)
					for name, x := range in {
						if string(x.Host) != saved[name] {
							t.Fatalf("the failed run changed input %q", name)
						}
					}
					wantErr := sentinel(site.kind, ef)
					if runErr == nil && (ef == devfault.Async || site.kind == devfault.Free && ef == devfault.Lost) {
						// Nothing synchronised after the fault in this run: the
						// next run meets it.
						_, runErr = exe.Run(ctx, in)
					}
					switch {
					case wantErr == nil && runErr != nil:
						t.Fatalf("a fault at a free failed the run: %v", runErr)
					case wantErr != nil && !errors.Is(runErr, wantErr):
						t.Fatalf("run error %v, want %v", runErr, wantErr)
					}
					if wantErr == nil {
						if d.Injected() != 0 {
							t.Fatalf("a Fail rule on a free fired")
						}
					} else if d.Injected() != 1 {
						t.Fatalf("%d faults injected", d.Injected())
					} else {
						injected++
					}
					if site.kind == devfault.Launch && ef == devfault.Fail {
						var ke *kernel.Error
						if !errors.As(runErr, &ke) || ke.Node == "" || ke.Stage != kernel.StageLaunch {
							t.Fatalf("a failed launch's error names no node: %v", runErr)
						}
					}
					d.SetRules()
					if d.Faulted() != nil {
						if _, err := exe.Run(ctx, in); !errors.Is(err, wantErr) {
							t.Fatalf("run on a faulted device: %v, want %v", err, wantErr)
						}
						if err := d.Reset(); err != nil {
							t.Fatal(err)
						}
					} else if got := sim.Stats().MemInUse; got != inUse {
						t.Fatalf("%d device bytes in use after the failed run, %d before", got, inUse)
					}
					for range 3 { // replay: sized, captured, replayed again
						res, err := exe.Run(ctx, in)
						if err != nil {
							t.Fatalf("run after the fault: %v", err)
						}
						for name, w := range want.Outputs {
							if got := res.Outputs[name]; got == nil || string(got.Host) != string(w.Host) || !got.Shape.Equal(w.Shape) {
								t.Fatalf("run after the fault: output %s differs from KBK's", name)
							}
						}
					}
					if err := exe.Close(); err != nil {
						t.Fatal(err)
					}
					if n := sim.Stats().MemInUse; n != 0 {
						t.Fatalf("%d device bytes left after Close", n)
					}
				})
			}
		}
	}
	if injected < len(everyMode())*len(effects)*4 {
		t.Errorf("only %d faults injected", injected)
	}
}

// TestReplayFaultNamesItsKernel: a launch fault on one kernel of a
// replayed sequence fails the run with an error naming that kernel's
// node, not the sequence's first; the next runs replay correctly.
func TestReplayFaultNamesItsKernel(t *testing.T) {
	b := subgraph.NewBuilder("seq")
	x := b.Input("x", kernel.Float32, 4, 4)
	h := b.Op("Tanh", b.Op("Sigmoid", b.Op("ReLU", b.Op("MatMul", x, x))))
	b.Output(b.Op("Add", h, x))
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{
		1, -2, 3, -4, 5, -6, 7, -8, 1, 2, 3, 4, 5, 6, 7, 8}, 4, 4)}
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := devfault.New(sim, 1)
	exe, err := pipert.Compile(g, pipert.WithDevice(d), pipert.WithMode(pipert.Replay))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	ctx := context.Background()
	var want *pipert.Result
	for range 3 { // sized, captured, replayed
		if want, err = exe.Run(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if want.Stats.Replay.Replays == 0 {
		t.Fatalf("the third run replayed nothing: %+v", want.Stats.Replay)
	}
	for _, op := range []string{"MatMul", "Sigmoid", "Add"} {
		d.SetRules(devfault.Rule{Kind: devfault.Launch, Op: op, Nth: 1, Effect: devfault.Fail})
		_, err := exe.Run(ctx, in)
		var ke *kernel.Error
		if !errors.As(err, &ke) || ke.Op != op || ke.Stage != kernel.StageLaunch || !errors.Is(err, device.ErrLaunchFailed) {
			t.Fatalf("a failed replayed launch of %s: %v, want a launch error naming its node", op, err)
		}
		d.SetRules()
		res, err := exe.Run(ctx, in)
		if err != nil {
			t.Fatalf("run after the fault on %s: %v", op, err)
		}
		for name, w := range want.Outputs {
			if got := res.Outputs[name]; string(got.Host) != string(w.Host) {
				t.Fatalf("run after the fault on %s: output %s differs", op, name)
			}
		}
	}
}
