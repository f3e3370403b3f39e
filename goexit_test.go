package pipert_test

import (
	"context"
	"errors"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// partNamed matches a heterogeneous error's naming of a part.
var partNamed = regexp.MustCompile(`part \d+`)

// errEnded stands for a run whose goroutine ended without returning.
var errEnded = errors.New("the goroutine ended")

// goexitFaults are kernels that call runtime.Goexit (as testing's FailNow
// and Fatal do) in each of their stages.
func goexitFaults() []*fault {
	exit := func(in, out []*kernel.Tensor) error { runtime.Goexit(); return nil }
	return []*fault{
		{name: "Goexit in InferShape", stage: kernel.StageInfer, nth: 1, do: exit},
		{name: "Goexit in Resize", stage: kernel.StageResize, nth: 1, resize: exit},
		{name: "Goexit in Compute", stage: kernel.StageLaunch, nth: 1, compute: func(a *kernel.Args) error { runtime.Goexit(); return nil }},
	}
}

// TestGoexitInKernel: in every mode, through Run and through Submit, a
// kernel that calls runtime.Goexit neither hangs the run nor leaves the
// executable broken. Where the kernel ran on a goroutine of pipert's, the
// run fails with an error matching ErrGoexit and ErrPanic that names the
// node; where it ran on the caller's goroutine, that goroutine ends, as
// Goexit asks. Either way the next run is correct, Close returns, and no
// device memory or goroutine leaks (TestMain).
func TestGoexitInKernel(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 2, 4)}
	want := []float32{8, 0, 24, 0, 40, 0, 56, 0}
	for _, m := range everyMode() {
		for _, f := range goexitFaults() {
			for _, submit := range []bool{false, true} {
				name := m.name + "/" + f.name
				if submit {
					name += "/Submit"
				}
				t.Run(name, func(t *testing.T) {
					dev, err := device.NewSim(device.SimOptions{})
					if err != nil {
						t.Fatal(err)
					}
					armed := new(atomic.Bool)
					opts := append([]pipert.Option{pipert.WithDevice(dev), pipert.WithRegistry(badRegistry(t, f, armed)),
						pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches})}, m.opts...)
					exe, err := pipert.Compile(badGraph(), opts...)
					if err != nil {
						t.Fatal(err)
					}
					armed.Store(true)
					returned := make(chan error, 1)
					go func() {
						ok := false
						defer func() {
							if !ok {
								returned <- errEnded
							}
						}()
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						if submit {
							p, err := exe.Submit(ctx, in)
							if err == nil {
								_, err = p.Wait()
							}
							ok = true
							returned <- err
							return
						}
						_, err := exe.Run(ctx, in)
						ok = true
						returned <- err
					}()
					// The kernel's stage runs on the caller's goroutine in KBK,
					// and, but for Launch, in Async.
					caller := !submit && (m.name == "kbk" || strings.HasPrefix(m.name, "async") && f.stage != kernel.StageLaunch)
					select {
					case err := <-returned:
						switch {
						case caller && err != errEnded:
							t.Fatalf("the run on the caller's goroutine returned %v; the kernel's Goexit should have ended the goroutine", err)
						case !caller && (!errors.Is(err, kernel.ErrGoexit) || !errors.Is(err, pipert.ErrPanic)):
							t.Fatalf("the failed run: %v, want an error matching ErrGoexit and ErrPanic", err)
						case !caller:
							// Named, also when the node's part ran on a
							// pool worker (hetero: the Bad node is on the
							// CPU).
							var ke *kernel.Error
							if !errors.As(err, &ke) || ke.Node != "bad" || ke.Stage != f.stage {
								t.Fatalf("the failed run: %v, want it to name node bad, stage %v", err, f.stage)
							}
							if n := len(partNamed.FindAllString(err.Error(), -1)); m.name == "hetero" && n != 1 {
								t.Fatalf("the failed run: %v names its part %d times, want once", err, n)
							}
						}
					case <-time.After(15 * time.Second):
						t.Fatal("the run hangs")
					}
					armed.Store(false)
					checkRecovered(t, exe, dev, in, want)
				})
			}
		}
	}
}

// goexitDev is a simulator whose streams' Synchronize calls
// runtime.Goexit on its first call.
type goexitDev struct {
	*device.Sim
	calls atomic.Int64
}

func (d *goexitDev) NewStream() device.Stream { return &goexitStream{Stream: d.Sim.NewStream(), d: d} }

type goexitStream struct {
	device.Stream
	d *goexitDev
}

func (s *goexitStream) Synchronize(ctx context.Context) error {
	if s.d.calls.Add(1) == 1 {
		runtime.Goexit()
	}
	return s.Stream.Synchronize(ctx)
}

// TestGoexitInCompile: a device whose code calls runtime.Goexit while
// Compile uploads the constants ends the caller's goroutine, as Goexit
// asks, and leaves no device memory in use (nor goroutines: TestMain), in
// every mode.
func TestGoexitInCompile(t *testing.T) {
	g, _ := faultyGraph()
	for _, m := range everyMode() {
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d := &goexitDev{Sim: sim}
		done := make(chan bool)
		go func() {
			returned := false
			defer func() { done <- returned }()
			if exe, err := pipert.Compile(g, append(m.opts, pipert.WithDevice(d))...); err == nil {
				exe.Close()
			}
			returned = true
		}()
		if <-done {
			t.Errorf("%s: Compile returned; the device's Goexit should have ended the goroutine", m.name)
		}
		if n := sim.Stats().MemInUse; n != 0 {
			t.Errorf("%s: %d device bytes in use after Compile ended by Goexit", m.name, n)
		}
	}
}

// parkedGoexitReLU is ReLU whose Resize, the first time after its
// executable armed it, tells started and then, once released, calls
// runtime.Goexit.
type parkedGoexitReLU struct {
	kernel.Kernel
	armed            *atomic.Bool
	started, release chan struct{}
}

func (k parkedGoexitReLU) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	if k.armed.CompareAndSwap(true, false) {
		close(k.started)
		<-k.release
		runtime.Goexit()
	}
	return k.Kernel.Resize(in, out, t)
}

// TestGoexitInResizeSparesAnotherExecutable: a kernel that calls
// runtime.Goexit in Resize fails its own run only, not the run of another
// executable whose node waits for the same key of the process's global
// tiling cache (which computes concurrent misses once).
func TestGoexitInResizeSparesAnotherExecutable(t *testing.T) {
	armed, started, release := new(atomic.Bool), make(chan struct{}), make(chan struct{})
	reg := ops.NewRegistry()
	if err := reg.Register("ParkedGoexit", func(kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("ReLU", nil)
		return parkedGoexitReLU{k, armed, started, release}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("g")
	b.Output(b.Op("ParkedGoexit", b.Input("x", kernel.Float32, 4)))
	g := b.Graph()
	// A slot count of its own: no other test's entries.
	opts := []pipert.Option{pipert.WithRegistry(reg), pipert.WithMode(pipert.Pipeline),
		pipert.WithCaches(pipert.Caches{Kinds: pipert.TilingGlobal, GlobalSlots: 13})}
	var exes [2]*pipert.Executable
	for i := range exes {
		exe, err := pipert.Compile(g, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer exe.Close()
		exes[i] = exe
	}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}
	var errs [2]chan error
	run := func(i int) {
		errs[i] = make(chan error, 1)
		go func() { _, err := exes[i].Run(context.Background(), in); errs[i] <- err }()
	}
	armed.Store(true)
	run(0)
	<-started
	run(1)
	// The second run's Resize misses the key and waits for the first's.
	time.Sleep(50 * time.Millisecond)
	close(release)
	if err := <-errs[0]; !errors.Is(err, kernel.ErrGoexit) {
		t.Errorf("the run whose kernel called Goexit: %v, want ErrGoexit", err)
	}
	if err := <-errs[1]; err != nil {
		t.Errorf("the other executable's run: %v", err)
	}
}

// allocGoexitDev is a simulator whose Alloc calls runtime.Goexit on its
// first call once armed.
type allocGoexitDev struct {
	*device.Sim
	armed atomic.Bool
}

func (d *allocGoexitDev) Alloc(size int64, materialize bool) (device.Buffer, error) {
	if d.armed.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
	return d.Sim.Alloc(size, materialize)
}

// TestGoexitOutsideKernelSteps: a device that calls runtime.Goexit while
// a submitted run uploads its inputs, before any kernel's step, fails the
// run with an error matching ErrGoexit that names no kernel's step (it
// named the first node, at a stage "Stage(0)").
func TestGoexitOutsideKernelSteps(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 2, 4)}
	for _, m := range everyMode()[:6] {
		t.Run(m.name, func(t *testing.T) {
			sim, err := device.NewSim(device.SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := &allocGoexitDev{Sim: sim}
			b := subgraph.NewBuilder("g")
			h := b.Input("x", kernel.Float32, 2, 4)
			for range 3 {
				h = b.Op("ReLU", h)
			}
			b.Output(h)
			exe, err := pipert.Compile(b.Graph(), append(m.opts, pipert.WithDevice(d))...)
			if err != nil {
				t.Fatal(err)
			}
			defer exe.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for run := range 2 {
				d.armed.Store(run == 1)
				p, err := exe.Submit(ctx, in)
				if err == nil {
					_, err = p.Wait()
				}
				if run == 0 {
					if err != nil {
						t.Fatal(err)
					}
					continue
				}
				if !errors.Is(err, kernel.ErrGoexit) {
					t.Fatalf("the run whose upload called Goexit: %v, want ErrGoexit", err)
				}
				var ke *kernel.Error
				if errors.As(err, &ke) && (ke.Stage < kernel.StagePrepare || ke.Stage > kernel.StageLaunch) {
					t.Fatalf("the run whose upload called Goexit: %v names stage %v", err, ke.Stage)
				}
			}
		})
	}
}
