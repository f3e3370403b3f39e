package pipert_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	devfault "github.com/pipert/pipert/device/fault"
	"github.com/pipert/pipert/internal/race"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// tracedDevice returns a recorder writing a trace file at path and a
// simulated device observed on it.
func tracedDevice(t *testing.T) (path string, rec *trace.Recorder, dev *device.Sim) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "t.pftrace")
	rec, err := trace.Create(path, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if dev, err = device.NewSim(device.SimOptions{Observer: devtrace.New(rec, "")}); err != nil {
		t.Fatal(err)
	}
	return path, rec, dev
}

// validated closes rec, which writes to path, reads the trace back and
// returns trace.Validate's verdict on it.
func validated(t *testing.T, rec *trace.Recorder, path string) error {
	t.Helper()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return trace.Validate(p)
}

// TestHeterogeneousTraceValidates: a heterogeneous executable traced with
// WithTrace, on a device observed on the same recorder, writes a trace
// whose every flow ends: its CPU kernels' flows end on the slices of the
// host CPU device the executable owns.
func TestHeterogeneousTraceValidates(t *testing.T) {
	for _, cpuOp := range []string{"ReLU", "Shape"} {
		path, rec, dev := tracedDevice(t)
		b := subgraph.NewBuilder("g")
		h := b.Op("Neg", b.Input("x", kernel.Float32, 4))
		c := b.Op(cpuOp, h)
		b.Last().Placement = subgraph.OnCPU
		b.Output(c, b.Op("Neg", h))
		e, err := pipert.Compile(b.Graph(), pipert.WithHeterogeneous(nil), pipert.WithDevice(dev), pipert.WithTrace(rec, "g"))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := e.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 4)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if err := validated(t, rec, path); err != nil {
			t.Errorf("CPU op %s: %v", cpuOp, err)
		}
	}
}

// cancelKernel is ReLU that ends its run's context in Compute, after which
// the kernels after it are never launched.
type cancelKernel struct {
	kernel.Kernel
	cancel *context.CancelFunc
}

func (k cancelKernel) Compute(a *kernel.Args) error {
	(*k.cancel)()
	return k.Kernel.Compute(a)
}

// TestFailedRunTraceValidates: a run that ends early (its context
// cancelled by a kernel in the middle of the graph), in every mode, plain
// and submitted, leaves a trace with no dangling flow: the flows of the
// kernels that began and were never launched end on the run's "abandoned"
// slices.
func TestFailedRunTraceValidates(t *testing.T) {
	var cancel context.CancelFunc
	reg := ops.NewRegistry()
	if err := reg.Register("CancelRun", func(kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("ReLU", nil)
		return cancelKernel{Kernel: k, cancel: &cancel}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 2, 4)
	y := x
	for i := range 24 {
		y = b.Op("Add", y, x)
		if i == 8 {
			y = b.Op("CancelRun", y)
		}
	}
	b.Output(y)
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -1, 2, 0, 3, 1, -2, 5}, 2, 4)}
	for _, m := range everyMode() {
		for _, submit := range []bool{false, true} {
			path, rec, dev := tracedDevice(t)
			exe, err := pipert.Compile(g, append(m.opts, pipert.WithRegistry(reg), pipert.WithDevice(dev), pipert.WithTrace(rec, "g"))...)
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for range 4 {
				var ctx context.Context
				ctx, cancel = context.WithCancel(context.Background())
				if submit {
					var p *pipert.Pending
					if p, err = exe.Submit(ctx, in); err == nil {
						_, err = p.Wait()
					}
				} else {
					_, err = exe.Run(ctx, in)
				}
				if err != nil {
					failed++
				}
				cancel()
			}
			exe.Close()
			if failed == 0 {
				t.Fatalf("%s submit %v: no run failed", m.name, submit)
			}
			if err := validated(t, rec, path); err != nil {
				t.Errorf("%s submit %v: %d runs failed: %v", m.name, submit, failed, err)
			}
		}
	}
}

// TestAbandonedEdgesTraceValidates: a device part that reads a CPU part's
// tensor and hands one of its own to another CPU part (per-tensor, before
// it ends) fails at a later launch: the failed run's trace completes the
// flows of both edges on the device part's track, in time order.
func TestAbandonedEdgesTraceValidates(t *testing.T) {
	path, rec, sim := tracedDevice(t)
	dev := devfault.New(sim, 1)
	b := subgraph.NewBuilder("g")
	h := b.Op("Neg", b.Input("x", kernel.Float32, 4))
	b.Last().Placement = subgraph.OnCPU
	y := b.Op("ReLU", h)
	z := b.Op("Sigmoid", b.Op("Abs", y))
	c := b.Op("Tanh", y)
	b.Last().Placement = subgraph.OnCPU
	b.Output(c, z)
	// Abs's InferShape takes long enough for the CPU part reading ReLU's
	// output to finish before Sigmoid's launch fails.
	slow := func(n plan.Node) plan.Costs {
		if n.Op == "Abs" {
			return plan.Costs{Infer: 20 * time.Millisecond}
		}
		return plan.Costs{}
	}
	exe, err := pipert.Compile(b.Graph(), pipert.WithHeterogeneous(nil), pipert.WithDevice(dev), pipert.WithTrace(rec, "g"), pipert.WithHostCost(slow))
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}
	if _, err := exe.Run(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	dev.SetRules(devfault.Rule{Kind: devfault.Launch, Op: "Sigmoid", Nth: 1})
	if _, err := exe.Run(context.Background(), in); !errors.Is(err, pipert.ErrLaunchFailed) {
		t.Fatalf("run: %v, want a failed launch", err)
	}
	exe.Close()
	if err := validated(t, rec, path); err != nil {
		t.Error(err)
	}
}

// sleepKernel is ReLU whose Compute takes 300 ms without looking at its
// run's context: longer than a cancelled heterogeneous run waits for its
// parts.
type sleepKernel struct{ kernel.Kernel }

func (k sleepKernel) Compute(a *kernel.Args) error {
	time.Sleep(300 * time.Millisecond)
	return k.Kernel.Compute(a)
}

// TestCancelledPartsTraceValidates: a cancelled heterogeneous run returns
// while its CPU part still runs; the next run, or Close, waits for that
// part, and the cancelled run's cross-part flows are ended then: the trace
// validates.
func TestCancelledPartsTraceValidates(t *testing.T) {
	reg := ops.NewRegistry()
	if err := reg.Register("Sleep", func(a kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("ReLU", a)
		return sleepKernel{k}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("g")
	s := b.Op("Sleep", b.Op("Neg", b.Input("x", kernel.Float32, 4)))
	b.Last().Placement = subgraph.OnCPU
	b.Output(b.Op("Neg", s))
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}
	for _, thenRun := range []bool{true, false} {
		path, rec, dev := tracedDevice(t)
		exe, err := pipert.Compile(b.Graph(), pipert.WithHeterogeneous(nil), pipert.WithDevice(dev), pipert.WithRegistry(reg), pipert.WithTrace(rec, "g"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err = exe.Run(ctx, in)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cancelled run: %v", err)
		}
		if thenRun {
			if _, err := exe.Run(context.Background(), in); err != nil {
				t.Fatal(err)
			}
		}
		exe.Close() // waits for the part the cancelled run left running
		if err := validated(t, rec, path); err != nil {
			t.Errorf("then run %v: %v", thenRun, err)
		}
	}
}

// TestFailedKernelTraceValidates: in every mode, a run whose kernel
// panics or calls runtime.Goexit (on the CPU-placed node of badGraph,
// between two device parts in mode hetero) writes a trace whose every
// slice ends and every flow ends: the kernels' and, in mode hetero, the
// cross-part edges'.
func TestFailedKernelTraceValidates(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 2, 4)}
	faults := append([]*fault{{name: "panic in Compute", stage: kernel.StageLaunch, nth: 1}}, goexitFaults()...)
	for _, m := range everyMode() {
		for _, f := range faults {
			t.Run(m.name+"/"+f.name, func(t *testing.T) {
				path, rec, dev := tracedDevice(t)
				armed := new(atomic.Bool)
				exe, err := pipert.Compile(badGraph(), append(slices.Clone(m.opts), pipert.WithDevice(dev),
					pipert.WithRegistry(badRegistry(t, f, armed)), pipert.WithTrace(rec, "g"))...)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := exe.Run(context.Background(), in); err != nil {
					t.Fatal(err)
				}
				armed.Store(true)
				// On a goroutine of its own: a Goexit on the caller's
				// goroutine ends it.
				done := make(chan struct{})
				go func() {
					defer close(done)
					exe.Run(context.Background(), in)
				}()
				<-done
				armed.Store(false)
				if _, err := exe.Run(context.Background(), in); err != nil {
					t.Fatal(err)
				}
				exe.Close()
				if err := validated(t, rec, path); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestRandomHeterogeneousTracesValidate: random graphs run heterogeneous,
// traced, in each device mode and barrier policy, three runs each, write
// traces that validate: under per-tensor hand-over a part publishes some
// outputs before its last input arrives, so its outgoing edges' flows
// begin at its activation, before any consumer of them ends.
func TestRandomHeterogeneousTracesValidate(t *testing.T) {
	seeds := 16
	if race.Enabled {
		seeds = 6
	}
	for seed := range uint64(seeds) {
		for _, m := range []pipert.Mode{pipert.Pipeline, pipert.KBK} {
			for _, bp := range []pipert.BarrierPolicy{pipert.PerTensor, pipert.Drain} {
				path, rec, dev := tracedDevice(t)
				g, ins, rng := randomGraph(500+seed, 3)
				for _, n := range g.Nodes {
					if rng.IntN(3) == 0 { // many parts, fed tensor by tensor
						n.Placement = subgraph.OnCPU
					}
				}
				e, err := pipert.Compile(g, pipert.WithMode(m), pipert.WithBarrier(bp), pipert.WithDevice(dev), pipert.WithTrace(rec, "h"), pipert.WithHeterogeneous(nil))
				if err != nil {
					t.Fatal(err)
				}
				for _, in := range ins {
					if _, err := e.Run(context.Background(), in); err != nil {
						t.Fatalf("seed %d %v/%v: %v", 500+seed, m, bp, err)
					}
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				if err := validated(t, rec, path); err != nil {
					t.Errorf("seed %d %v/%v: %v", 500+seed, m, bp, err)
				}
			}
		}
	}
}

// signalKernel is Neg that closes its channel at its first Compute.
type signalKernel struct {
	kernel.Kernel
	once *sync.Once
	mid  chan struct{}
}

func (k signalKernel) Compute(a *kernel.Args) error {
	k.once.Do(func() { close(k.mid) })
	return k.Kernel.Compute(a)
}

// TestRecorderClosedUnderRuns: in every mode, plain and submitted, the
// recorder may be closed while a traced run goes on (its kernels record
// on the runner's, stages' and device's tracks all the while): no data
// race (-race), Close returns nil once the run has stopped recording, the
// run's outputs are right, the trace reads back, and the executable then
// runs, untraced, and closes.
func TestRecorderClosedUnderRuns(t *testing.T) {
	var mid chan struct{}
	var once *sync.Once
	reg := ops.NewRegistry()
	if err := reg.Register("Signal", func(a kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("Neg", a)
		return signalKernel{Kernel: k, once: once, mid: mid}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("g")
	y := b.Op("Neg", b.Input("x", kernel.Float32, 4))
	y = b.Op("Signal", y)
	b.Last().Placement = subgraph.OnCPU
	for range 1500 {
		y = b.Op("Neg", y)
	}
	b.Output(y)
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}
	for _, m := range everyMode() {
		for _, submit := range []bool{false, true} {
			mid, once = make(chan struct{}), new(sync.Once)
			path, rec, dev := tracedDevice(t)
			exe, err := pipert.Compile(g, append(m.opts, pipert.WithRegistry(reg), pipert.WithDevice(dev), pipert.WithTrace(rec, "g"))...)
			if err != nil {
				t.Fatal(err)
			}
			run := func() ([]float32, error) {
				if !submit {
					res, err := exe.Run(context.Background(), in)
					if err != nil {
						return nil, err
					}
					return kernel.Float32s(res.Outputs[y].Data()), nil
				}
				p, err := exe.Submit(context.Background(), in)
				if err != nil {
					return nil, err
				}
				res, err := p.Wait()
				if err != nil {
					return nil, err
				}
				return kernel.Float32s(res.Outputs[y].Data()), nil
			}
			type answer struct {
				got []float32
				err error
			}
			done := make(chan answer, 1)
			go func() {
				got, err := run()
				done <- answer{got, err}
			}()
			<-mid
			if err := rec.Close(); err != nil {
				t.Errorf("%s, submit %v: Close under a run: %v", m.name, submit, err)
			}
			for i := range 2 {
				a := answer{}
				if i == 0 {
					a = <-done
				} else {
					a.got, a.err = run()
				}
				if a.err != nil || !slices.Equal(a.got, []float32{1, -2, 3, -4}) {
					t.Errorf("%s, submit %v: run %d = %v, %v; want [1 -2 3 -4]", m.name, submit, i, a.got, a.err)
				}
			}
			if err := exe.Close(); err != nil {
				t.Errorf("%s, submit %v: Close: %v", m.name, submit, err)
			}
			if _, err := trace.ReadFile(path); err != nil {
				t.Errorf("%s, submit %v: the trace cut by Close: %v", m.name, submit, err)
			}
		}
	}
}
