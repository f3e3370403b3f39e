package pipert_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// fault is what a bad kernel does once, on its nth call of the stage it
// misbehaves in; every other call behaves like ReLU. Every fault runs in
// every mode: a write to an input, or to an output's dtype, shape or
// buffer after InferShape, races with no other stage, since a kernel not
// kernel.Trusted reads its inputs, and writes its outputs in Resize and
// Compute, through views of its own.
type fault struct {
	name  string
	stage kernel.Stage
	nth   int64
	do    func(in, out []*kernel.Tensor) error // in InferShape (nil: panic in stage)
	// resize and compute, when set, misbehave after ReLU's own Resize
	// and Compute ran (the kernel contract broken, not a failure).
	resize  func(in, out []*kernel.Tensor) error
	compute func(a *kernel.Args) error
	// cost, when set, is the kernel's answer to Cost in place of ReLU's;
	// costIn misbehaves after ReLU's Cost.
	cost   func() device.Cost
	costIn func(in, out []*kernel.Tensor)
	// blocks: the fault waits for its run's context to end; the run's
	// deadline passes once the fault waits (with a timer, a host slow to
	// reach the fault saw it pass first, and the run ended elsewhere), and
	// its error must say the deadline passed.
	blocks bool
	// broken: the kernel breaks its contract; the error must match
	// kernel.ErrBadAnswer.
	broken bool
}

// panics reports whether the fault is a panic.
func (f *fault) panics() bool {
	return f.do == nil && f.resize == nil && f.compute == nil && f.cost == nil && f.costIn == nil
}

// badKernel is ReLU with a fault.
type badKernel struct {
	kernel.Kernel
	f     *fault
	armed *atomic.Bool
	calls *atomic.Int64
}

// fire reports whether this call of stage s misbehaves. Calls before the
// fault is armed (those of compilation) do not count.
func (k *badKernel) fire(s kernel.Stage) bool {
	return k.armed.Load() && k.f.stage == s && k.calls.Add(1) == k.f.nth
}

func (k *badKernel) InferShape(in, out []*kernel.Tensor) error {
	if k.fire(kernel.StageInfer) {
		if k.f.do == nil {
			panic("bad kernel: " + k.f.name)
		}
		return k.f.do(in, out)
	}
	return k.Kernel.InferShape(in, out)
}

func (k *badKernel) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	if k.fire(kernel.StageResize) {
		if k.f.resize == nil {
			panic("bad kernel: " + k.f.name)
		}
		if err := k.Kernel.Resize(in, out, t); err != nil {
			return err
		}
		return k.f.resize(in, out)
	}
	return k.Kernel.Resize(in, out, t)
}

func (k *badKernel) Cost(in, out []*kernel.Tensor) device.Cost {
	if k.f.cost != nil && k.fire(kernel.StageLaunch) {
		return k.f.cost()
	}
	if k.f.costIn != nil && k.fire(kernel.StageLaunch) {
		c := k.Kernel.Cost(in, out)
		k.f.costIn(in, out)
		return c
	}
	return k.Kernel.Cost(in, out)
}

func (k *badKernel) Compute(a *kernel.Args) error {
	if k.fire(kernel.StageLaunch) {
		if k.f.compute == nil {
			panic("bad kernel: " + k.f.name)
		}
		if err := k.Kernel.Compute(a); err != nil {
			return err
		}
		return k.f.compute(a)
	}
	return k.Kernel.Compute(a)
}

var errThousandth = errors.New("the thousandth call fails")

// badCase numbers the cases that run with the global tiling cache on.
var badCase int64

// blockCtx is the context of the test's run, whose deadline a blocking
// kernel passes once it is about to wait.
var blockCtx atomic.Pointer[graphtest.Deadline]

func faults() []*fault {
	return []*fault{
		{name: "panic in InferShape", stage: kernel.StageInfer, nth: 1},
		{name: "panic in Resize", stage: kernel.StageResize, nth: 1},
		{name: "panic in Compute", stage: kernel.StageLaunch, nth: 1},
		// The third run is the first replayed in mode replay.
		{name: "panic in the third Compute", stage: kernel.StageLaunch, nth: 3},
		{name: "negative dimension", broken: true, stage: kernel.StageInfer, nth: 1, do: func(in, out []*kernel.Tensor) error {
			out[0].DType, out[0].Shape = kernel.Float32, kernel.Shape{-3, 4}
			return nil
		}},
		{name: "overflowing element count", broken: true, stage: kernel.StageInfer, nth: 1, do: func(in, out []*kernel.Tensor) error {
			out[0].DType, out[0].Shape = kernel.Float32, kernel.Shape{1 << 40, 1 << 40}
			return nil
		}},
		{name: "nil output", broken: true, stage: kernel.StageInfer, nth: 1, do: func(in, out []*kernel.Tensor) error {
			out[0] = nil
			return nil
		}},
		// A nil put in place of an argument's tensor, in every stage: the
		// runtime puts its own back.
		{name: "InferShape sets an input to nil", broken: true, stage: kernel.StageInfer, nth: 1, do: func(in, out []*kernel.Tensor) error {
			out[0].DType, out[0].Shape = in[0].DType, in[0].Shape.Clone()
			in[0] = nil
			return nil
		}},
		{name: "Resize sets an input to nil", broken: true, stage: kernel.StageResize, nth: 1, resize: func(in, out []*kernel.Tensor) error {
			in[0] = nil
			return nil
		}},
		{name: "Resize sets an output to nil", broken: true, stage: kernel.StageResize, nth: 1, resize: func(in, out []*kernel.Tensor) error {
			out[0] = nil
			return nil
		}},
		{name: "Compute sets an input to nil", broken: true, stage: kernel.StageLaunch, nth: 1, compute: func(a *kernel.Args) error {
			a.In[0] = nil
			return nil
		}},
		{name: "Compute sets an output to nil", broken: true, stage: kernel.StageLaunch, nth: 1, compute: func(a *kernel.Args) error {
			a.Out[0] = nil
			return nil
		}},
		{name: "Cost sets an input and an output to nil", broken: true, stage: kernel.StageLaunch, nth: 1, costIn: func(in, out []*kernel.Tensor) {
			in[0], out[0] = nil, nil
		}},
		{name: "blocks until cancelled", stage: kernel.StageInfer, nth: 1, blocks: true, do: func(in, out []*kernel.Tensor) error {
			ctx := blockCtx.Load()
			ctx.Pass()
			<-ctx.Done()
			return ctx.Err()
		}},
		// A long computation polls its run's context (kernel.Args.Ctx).
		{name: "Compute runs until its run ends", stage: kernel.StageLaunch, nth: 1, blocks: true, compute: func(a *kernel.Args) error {
			if a.Ctx == nil {
				return errors.New("Compute without its run's context")
			}
			blockCtx.Load().Pass()
			<-a.Ctx.Done()
			return a.Err()
		}},
		{name: "error on the 1000th call", stage: kernel.StageInfer, nth: 1000, do: func(in, out []*kernel.Tensor) error {
			return errThousandth
		}},
		// The kernel contract broken: each gave a result that depended on
		// the mode, without an error.
		{name: "InferShape changes an input's shape", broken: true, stage: kernel.StageInfer, nth: 1, do: func(in, out []*kernel.Tensor) error {
			out[0].DType, out[0].Shape = in[0].DType, in[0].Shape.Clone()
			in[0].Shape = kernel.Shape{8}
			return nil
		}},
		{name: "Resize changes an input's shape", broken: true, stage: kernel.StageResize, nth: 1, resize: func(in, out []*kernel.Tensor) error {
			in[0].Shape = kernel.Shape{1}
			return nil
		}},
		{name: "Compute changes an input's shape", broken: true, stage: kernel.StageLaunch, nth: 1, compute: func(a *kernel.Args) error {
			a.In[0].Shape = kernel.Shape{1}
			return nil
		}},
		// Its dims in place: a kernel reads its inputs through views with
		// dims of its own, so that no other stage sees the write.
		{name: "Resize changes an input's dims in place", broken: true, stage: kernel.StageResize, nth: 1, resize: func(in, out []*kernel.Tensor) error {
			in[0].Shape[0] = 1
			return nil
		}},
		{name: "Resize changes an output's shape", broken: true, stage: kernel.StageResize, nth: 1, resize: func(in, out []*kernel.Tensor) error {
			out[0].Shape = kernel.Shape{100, 100}
			return nil
		}},
		{name: "Compute clears its output's buffer", broken: true, stage: kernel.StageLaunch, nth: 1, compute: func(a *kernel.Args) error {
			a.Out[0].Buf = device.Buffer{}
			return nil
		}},
		{name: "InferShape changes an input's dtype", broken: true, stage: kernel.StageInfer, nth: 1, do: func(in, out []*kernel.Tensor) error {
			out[0].DType, out[0].Shape = in[0].DType, in[0].Shape.Clone()
			in[0].DType = kernel.Int32
			return nil
		}},
		{name: "Resize changes an output's dtype", broken: true, stage: kernel.StageResize, nth: 1, resize: func(in, out []*kernel.Tensor) error {
			out[0].DType = kernel.Int32
			return nil
		}},
		{name: "Compute changes its output's dtype", broken: true, stage: kernel.StageLaunch, nth: 1, compute: func(a *kernel.Args) error {
			a.Out[0].DType = kernel.Int32
			return nil
		}},
		{name: "NaN cost", stage: kernel.StageLaunch, nth: 1, cost: func() device.Cost { return device.Cost{FLOPs: math.NaN()} }},
		{name: "negative cost", stage: kernel.StageLaunch, nth: 1, cost: func() device.Cost { return device.Cost{FLOPs: -1, Bytes: -1} }},
		{name: "cost of more than a day", stage: kernel.StageLaunch, nth: 1, cost: func() device.Cost { return device.Cost{FLOPs: 1e30} }},
		{name: "Compute replaces its output tensor", broken: true, stage: kernel.StageLaunch, nth: 1, compute: func(a *kernel.Args) error {
			a.Out[0] = &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{2, 4}}
			return nil
		}},
		{name: "Compute returns a typed nil *kernel.Error", stage: kernel.StageLaunch, nth: 1, compute: func(a *kernel.Args) error {
			var e *kernel.Error
			return e
		}},
	}
}

func badRegistry(t *testing.T, f *fault, armed *atomic.Bool) *ops.Registry {
	r := ops.NewRegistry()
	calls := new(atomic.Int64)
	if err := r.Register("Bad", func(a kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("ReLU", nil)
		return &badKernel{Kernel: k, f: f, armed: armed, calls: calls}, err
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

// badGraph is x → 3 × ReLU → Bad (placed on the CPU) → 3 × Add. The input
// is dynamic so that compilation infers no shape.
func badGraph() *subgraph.Graph {
	b := subgraph.NewBuilder("bad")
	h := b.Input("x", kernel.Float32, kernel.Dynamic, 4)
	for range 3 {
		h = b.Op("ReLU", h)
	}
	b.Node(&subgraph.Node{Name: "bad", Op: "Bad", Inputs: []string{h}, Placement: subgraph.OnCPU}, 1)
	h = b.Last().Outputs[0]
	for range 3 {
		h = b.Op("Add", h, h)
	}
	b.Output(h)
	return b.Graph()
}

type modeCase struct {
	name string
	opts []pipert.Option
}

func everyMode() []modeCase {
	return []modeCase{
		{"kbk", []pipert.Option{pipert.WithMode(pipert.KBK)}},
		{"async/drain", []pipert.Option{pipert.WithMode(pipert.Async), pipert.WithBarrier(pipert.Drain)}},
		{"async/per-tensor", []pipert.Option{pipert.WithMode(pipert.Async)}},
		{"pipeline/drain", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithBarrier(pipert.Drain)}},
		{"pipeline/per-tensor", []pipert.Option{pipert.WithMode(pipert.Pipeline)}},
		{"replay", []pipert.Option{pipert.WithMode(pipert.Replay)}},
		{"hetero", []pipert.Option{pipert.WithHeterogeneous(nil)}},
	}
}

// TestBadKernelsBecomeErrors: in every mode, a kernel that panics,
// returns a bad shape or nil, blocks until cancelled or fails on its
// 1000th call makes Run fail with an error naming node, op and stage; the
// executable then runs correctly, and closing it leaks no device memory
// (TestMain checks goroutines).
func TestBadKernelsBecomeErrors(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 2, 4)}
	want := []float32{8, 0, 24, 0, 40, 0, 56, 0}
	for _, m := range everyMode() {
		for _, f := range faults() {
			for _, caches := range []string{"", "/default caches"} {
				t.Run(m.name+"/"+f.name+caches, func(t *testing.T) {
					dev, err := device.NewSim(device.SimOptions{})
					if err != nil {
						t.Fatal(err)
					}
					armed := new(atomic.Bool)
					opts := append([]pipert.Option{pipert.WithDevice(dev), pipert.WithRegistry(badRegistry(t, f, armed))}, m.opts...)
					g := badGraph()
					if caches == "" {
						opts = append(opts, pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches}))
					} else {
						// An attribute of its own keeps the node's tilings
						// apart from other cases' in the global cache.
						badCase++
						for _, n := range g.Nodes {
							if n.Op == "Bad" {
								n.Attrs = kernel.Attrs{"case": badCase}
							}
						}
					}
					exe, err := pipert.Compile(g, opts...)
					if err != nil {
						t.Fatal(err)
					}
					armed.Store(true)
					var runErr error
					for i := int64(0); i < f.nth && runErr == nil; i++ {
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						if f.blocks {
							d := new(graphtest.Deadline)
							blockCtx.Store(d)
							ctx = d
						}
						_, runErr = exe.Run(ctx, in)
						cancel()
					}
					switch {
					case m.name == "replay" && f.nth == 1000:
						// Replayed runs skip InferShape: no 1000th call.
						if runErr != nil {
							t.Fatalf("a replayed run called InferShape: %v", runErr)
						}
					case runErr == nil:
						t.Fatalf("no run failed")
					default:
						checkNamed(t, runErr, f)
					}
					checkRecovered(t, exe, dev, in, want)
					if _, err := exe.Run(context.Background(), in); !errors.Is(err, pipert.ErrClosed) {
						t.Fatalf("run after Close: %v, want ErrClosed", err)
					}
				})
			}
		}
	}
}

// infCost is ReLU whose Cost is infinite on its nth call once armed.
type infCost struct {
	kernel.Kernel
	armed *atomic.Bool
	calls *atomic.Int64
	nth   int64
}

func (k *infCost) Cost(in, out []*kernel.Tensor) device.Cost {
	if k.armed.Load() && k.calls.Add(1) == k.nth {
		return device.Cost{FLOPs: math.Inf(1)}
	}
	return k.Kernel.Cost(in, out)
}

// TestReplayNamesBadCost: in mode Replay, a kernel whose Cost is
// infinite on its nth call, whichever call that is (the plan's sizing
// run, the launch or the capture of the capturing run), fails that run
// with an error naming that kernel, and the runs after it are correct
// (replayed runs call no Cost).
func TestReplayNamesBadCost(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 2, 4)}
	want := []float32{8, 0, 24, 0, 40, 0, 56, 0}
	f := &fault{stage: kernel.StageLaunch, cost: func() device.Cost { return device.Cost{} }} // for checkNamed
	for _, caches := range []pipert.Caches{{Kinds: pipert.NoCaches}, {}} {
		for nth := int64(1); nth <= 4; nth++ {
			armed, calls := new(atomic.Bool), new(atomic.Int64)
			r := ops.NewRegistry()
			if err := r.Register("Bad", func(kernel.Attrs) (kernel.Kernel, error) {
				k, err := ops.Builtins().New("ReLU", nil)
				return &infCost{Kernel: k, armed: armed, calls: calls, nth: nth}, err
			}); err != nil {
				t.Fatal(err)
			}
			exe, err := pipert.Compile(badGraph(), pipert.WithRegistry(r), pipert.WithMode(pipert.Replay), pipert.WithCaches(caches))
			if err != nil {
				t.Fatal(err)
			}
			armed.Store(true)
			failed := false
			for run := 0; run < 6; run++ {
				res, err := exe.Run(context.Background(), in)
				if err != nil {
					if failed {
						t.Fatalf("caches %v, call %d: run %d failed again: %v", caches.Kinds, nth, run, err)
					}
					failed = true
					checkNamed(t, err, f)
					continue
				}
				if got := kernel.Float32s(res.Outputs[badGraph().Outputs[0]].Host); !slices.Equal(got, want) {
					t.Fatalf("caches %v, call %d: run %d gave %v, want %v", caches.Kinds, nth, run, got, want)
				}
			}
			if made := calls.Load() >= nth; made != failed {
				t.Errorf("caches %v, call %d: %d calls of Cost, a run failed: %v", caches.Kinds, nth, calls.Load(), failed)
			}
			if err := exe.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// onceBad is ReLU whose InferShape (stage StageInfer) or Resize answers,
// on its nth call once armed, with a shape or a workspace no device holds.
type onceBad struct {
	kernel.Kernel
	stage kernel.Stage
	armed *atomic.Bool
	calls *atomic.Int64
	nth   int64
}

func (k *onceBad) fire(s kernel.Stage) bool {
	return k.stage == s && k.armed.Load() && k.calls.Add(1) == k.nth
}

func (k *onceBad) InferShape(in, out []*kernel.Tensor) error {
	if k.fire(kernel.StageInfer) {
		out[0].DType, out[0].Shape = kernel.Float32, kernel.Shape{1 << 20, 1 << 20}
		return nil
	}
	return k.Kernel.InferShape(in, out)
}

func (k *onceBad) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	err := k.Kernel.Resize(in, out, t)
	if k.fire(kernel.StageResize) {
		t.Workspace = 1 << 50
	}
	return err
}

// TestOneBadAnswerIsNotKept: a kernel that answers InferShape with a
// shape no device holds, or Resize with a workspace no device holds, once
// (the first run's call, whose answer the caches keep), fails that run, in
// every mode, with the host caches on (the defaults, every kind but the
// global tiling cache, every kind but the local one, the global alone);
// the runs after
// it ask the kernel again and are correct, instead of being served the
// bad answer the caches kept.
func TestOneBadAnswerIsNotKept(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 2, 4)}
	want := []float32{8, 0, 24, 0, 40, 0, 56, 0}
	for _, stage := range []kernel.Stage{kernel.StageInfer, kernel.StageResize} {
		for _, m := range everyMode() {
			for _, caches := range []pipert.Caches{{}, {Kinds: pipert.TilingLocal | pipert.InferReuse | pipert.SetupReuse | pipert.MemoryPlan},
				{Kinds: pipert.TilingGlobal | pipert.InferReuse | pipert.SetupReuse | pipert.MemoryPlan}, {Kinds: pipert.TilingGlobal}} {
				dev, err := device.NewSim(device.SimOptions{})
				if err != nil {
					t.Fatal(err)
				}
				armed := new(atomic.Bool)
				r := ops.NewRegistry()
				if err := r.Register("Bad", func(kernel.Attrs) (kernel.Kernel, error) {
					k, err := ops.Builtins().New("ReLU", nil)
					return &onceBad{Kernel: k, stage: stage, armed: armed, calls: new(atomic.Int64), nth: 1}, err
				}); err != nil {
					t.Fatal(err)
				}
				g := badGraph()
				badCase++ // the node's tilings apart from other cases' in the global cache
				for _, n := range g.Nodes {
					if n.Op == "Bad" {
						n.Attrs = kernel.Attrs{"case": badCase}
					}
				}
				exe, err := pipert.Compile(g, append([]pipert.Option{pipert.WithDevice(dev), pipert.WithRegistry(r), pipert.WithCaches(caches)}, m.opts...)...)
				if err != nil {
					t.Fatal(err)
				}
				armed.Store(true)
				failed := 0
				for run := range 5 {
					res, err := exe.Run(context.Background(), in)
					if err != nil {
						failed++
						continue
					}
					if got := kernel.Float32s(res.Outputs[g.Outputs[0]].Host); !slices.Equal(got, want) {
						t.Errorf("%v, %s, caches %v: run %d gave %v, want %v", stage, m.name, caches.Kinds, run, got, want)
					}
				}
				if failed != 1 {
					t.Errorf("%v, %s, caches %v: %d of 5 runs failed, want the one the bad answer was given in", stage, m.name, caches.Kinds, failed)
				}
				if err := exe.Close(); err != nil {
					t.Fatal(err)
				}
				if n := dev.Stats().MemInUse; n != 0 {
					t.Errorf("%v, %s: %d device bytes leaked", stage, m.name, n)
				}
			}
		}
	}
}

// checkRecovered checks, after a failed run, that the next run of exe
// gives want, that Close succeeds and that no device memory of dev leaks.
func checkRecovered(t *testing.T, exe *pipert.Executable, dev device.Device, in map[string]*kernel.Tensor, want []float32) {
	t.Helper()
	res, err := exe.Run(context.Background(), in)
	if err != nil {
		t.Fatalf("run after the failure: %v", err)
	}
	if got := kernel.Float32s(res.Outputs[badGraph().Outputs[0]].Host); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("run after the failure gave %v, want %v", got, want)
	}
	if err := exe.Close(); err != nil {
		t.Fatal(err)
	}
	if n := dev.Stats().MemInUse; n != 0 {
		t.Fatalf("%d device bytes leaked", n)
	}
}

func checkNamed(t *testing.T, err error, f *fault) {
	t.Helper()
	if f.blocks {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v does not say the run was cancelled", err)
		}
	}
	var ke *kernel.Error
	if !errors.As(err, &ke) {
		t.Fatalf("error %v is not a *kernel.Error", err)
	}
	if ke.Node != "bad" || ke.Op != "Bad" || ke.Stage != f.stage {
		t.Fatalf("error names node %q op %q stage %v, want bad Bad %v: %v", ke.Node, ke.Op, ke.Stage, f.stage, err)
	}
	if f.panics() && !strings.Contains(err.Error(), "bad kernel: "+f.name) {
		t.Fatalf("error %v does not carry the panic value", err)
	}
	if f.panics() != errors.Is(err, pipert.ErrPanic) {
		t.Fatalf("error %v: errors.Is(err, ErrPanic) = %v for a kernel that panics: %v", err, !f.panics(), f.panics())
	}
	if f.cost != nil && !errors.Is(err, pipert.ErrLaunchFailed) {
		t.Fatalf("error %v for a cost no device can model does not match ErrLaunchFailed", err)
	}
	if f.nth == 1000 && !errors.Is(err, errThousandth) {
		t.Fatalf("error %v does not wrap the kernel's", err)
	}
	if f.broken != errors.Is(err, kernel.ErrBadAnswer) {
		t.Fatalf("error %v: errors.Is(err, kernel.ErrBadAnswer) = %v for a kernel that breaks its contract: %v", err, !f.broken, f.broken)
	}
	// An InferShape that refused its operands at run time failed shape
	// inference, as Validate's at Compile.
	if f.nth == 1000 && !errors.Is(err, subgraph.ErrInferShape) {
		t.Fatalf("error %v of InferShape does not match subgraph.ErrInferShape", err)
	}
}

// TestFactoryFailuresAreErrors: a factory that panics or returns no kernel
// fails Compile with an error naming the op.
func TestFactoryFailuresAreErrors(t *testing.T) {
	for name, f := range map[string]kernel.Factory{
		"panics":   func(kernel.Attrs) (kernel.Kernel, error) { panic("factory") },
		"nil, nil": func(kernel.Attrs) (kernel.Kernel, error) { return nil, nil },
		"an error": func(kernel.Attrs) (kernel.Kernel, error) { return nil, errors.New("no") },
	} {
		r := ops.NewRegistry()
		if err := r.Register("Bad", f); err != nil {
			t.Fatal(err)
		}
		for _, m := range everyMode() {
			_, err := pipert.Compile(badGraph(), append([]pipert.Option{pipert.WithRegistry(r)}, m.opts...)...)
			if err == nil || !strings.Contains(err.Error(), "Bad") {
				t.Errorf("factory that %s, %s: error %v", name, m.name, err)
			}
			if (name == "panics") != errors.Is(err, pipert.ErrPanic) {
				t.Errorf("factory that %s, %s: errors.Is(%v, ErrPanic) wrong", name, m.name, err)
			}
		}
	}
}

// fickleDeps is ReLU whose Deps gives another answer on its nth call
// (which the Kernel contract forbids: Deps is constant).
type fickleDeps struct {
	kernel.Kernel
	calls *atomic.Int64
	nth   int64
	other func() kernel.Deps
}

func (k *fickleDeps) Deps() kernel.Deps {
	if k.calls.Add(1) == k.nth {
		return k.other()
	}
	return k.Kernel.Deps()
}

// TestFickleDepsAreNoPanic: a kernel whose Deps panics, or names a
// negative input, on any one of its calls fails Compile with an error (a
// panic one matching ErrPanic) or compiles, in every mode: Deps is read
// once, so the answer the runtime acts on is the one Validate checked.
// A compiled executable runs correctly.
func TestFickleDepsAreNoPanic(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8}, 2, 4)}
	want := []float32{8, 0, 24, 0, 40, 0, 56, 0}
	for _, bad := range []struct {
		name  string
		other func() kernel.Deps
	}{
		{"panics", func() kernel.Deps { panic("Deps") }},
		{"names input -1", func() kernel.Deps { return kernel.Deps{Value: []int{-1}} }},
	} {
		for _, m := range everyMode() {
			for nth := int64(1); nth <= 6; nth++ {
				r := ops.NewRegistry()
				calls := new(atomic.Int64)
				if err := r.Register("Bad", func(kernel.Attrs) (kernel.Kernel, error) {
					k, err := ops.Builtins().New("ReLU", nil)
					return &fickleDeps{Kernel: k, calls: calls, nth: nth, other: bad.other}, err
				}); err != nil {
					t.Fatal(err)
				}
				e, err := func() (e *pipert.Executable, err error) {
					defer func() {
						if p := recover(); p != nil {
							err = fmt.Errorf("Compile panicked: %v", p)
						}
					}()
					return pipert.Compile(badGraph(), append([]pipert.Option{pipert.WithRegistry(r)}, m.opts...)...)
				}()
				if err != nil {
					if !strings.Contains(err.Error(), `"bad"`) || bad.name == "panics" && !errors.Is(err, pipert.ErrPanic) {
						t.Errorf("Deps that %s on call %d, %s: %v", bad.name, nth, m.name, err)
					}
					continue
				}
				res, err := e.Run(context.Background(), in)
				if err != nil {
					t.Errorf("Deps that %s on call %d, %s: run: %v", bad.name, nth, m.name, err)
				} else if got := kernel.Float32s(res.Outputs[badGraph().Outputs[0]].Host); !slices.Equal(got, want) {
					t.Errorf("Deps that %s on call %d, %s: %v, want %v", bad.name, nth, m.name, got, want)
				}
				if err := e.Close(); err != nil {
					t.Errorf("Deps that %s on call %d, %s: close: %v", bad.name, nth, m.name, err)
				}
			}
		}
	}
}

// addChain is a chain of n Adds on a 4×4 input.
func addChain(n int) *subgraph.Graph {
	b := subgraph.NewBuilder(fmt.Sprintf("chain%d", n))
	h := b.Input("x", kernel.Float32, 4, 4)
	for range n {
		h = b.Op("Add", h, h)
	}
	b.Output(h)
	return b.Graph()
}

// TestAllocationsPerKernel: in steady state a run allocates nothing per
// kernel in any mode, on static-shape graphs: the allocations of a
// 1 000-kernel run equal those of a 100-kernel run.
func TestAllocationsPerKernel(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32(make([]float32, 16), 4, 4)}
	for _, m := range everyMode()[:5] {
		var per [2]float64
		for i, n := range []int{100, 1000} {
			exe, err := pipert.Compile(addChain(n), m.opts...)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for range 3 {
				if _, err := exe.Run(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			per[i] = testing.AllocsPerRun(20, func() {
				if _, err := exe.Run(ctx, in); err != nil {
					t.Fatal(err)
				}
			})
			exe.Close()
		}
		if per[1] > per[0] {
			t.Errorf("%s: %.0f allocations a run at 100 kernels, %.0f at 1000: the per-kernel term is not 0", m.name, per[0], per[1])
		}
		// The fixed term: the inputs, outputs and result of a run (7);
		// the queued modes' run context is reused.
		if limit := 7.0; per[0] > limit {
			t.Errorf("%s: %.0f allocations a run, want at most %.0f", m.name, per[0], limit)
		}
		t.Logf("%s: %.0f allocations a run (100 kernels), %.0f (1000 kernels)", m.name, per[0], per[1])
	}
}

// TestRunIntoAllocations: RunInto with caller-owned outputs and every
// host cache on, in steady state, allocates at most once a run whatever
// the kernel count, in every mode.
func TestRunIntoAllocations(t *testing.T) {
	all := pipert.WithCaches(pipert.Caches{Kinds: pipert.TilingLocal | pipert.TilingGlobal | pipert.InferReuse | pipert.SetupReuse | pipert.MemoryPlan})
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32(make([]float32, 16), 4, 4)}
	loop, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, m := range everyMode()[:6] { // hetero aside
		for _, ctx := range []context.Context{context.Background(), loop} {
			var per [2]float64
			for i, n := range []int{100, 1000} {
				g := addChain(n)
				exe, err := pipert.Compile(g, append(m.opts, all)...)
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]*kernel.Tensor{g.Outputs[0]: kernel.New(kernel.Float32, 4, 4)}
				for range 3 {
					if _, err := exe.RunInto(ctx, in, out); err != nil {
						t.Fatal(err)
					}
				}
				per[i] = testing.AllocsPerRun(20, func() {
					if _, err := exe.RunInto(ctx, in, out); err != nil {
						t.Fatal(err)
					}
				})
				want, err := exe.Run(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				if w, g := want.Outputs[g.Outputs[0]], out[g.Outputs[0]]; !w.Shape.Equal(g.Shape) || string(w.Host) != string(g.Host) {
					t.Fatalf("%s: RunInto gave %v, Run %v", m.name, g, w)
				}
				exe.Close()
			}
			// At most one: the channel of the run's context, made when
			// some goroutine parks on it. A cancellable context's hook is
			// registered once for the loop of runs under it.
			cancellable := ctx.Done() != nil
			if per[0] > 1 || per[1] > 1 {
				t.Errorf("%s (cancellable context %v): %.0f allocations a RunInto at 100 kernels, %.0f at 1000, want at most 1", m.name, cancellable, per[0], per[1])
			}
			t.Logf("%s (cancellable context %v): %.0f allocations a RunInto (100 kernels), %.0f (1000 kernels)", m.name, cancellable, per[0], per[1])
		}
	}
}

// TestRunIntoMisuse: missing, unknown and too small outputs are errors.
func TestRunIntoMisuse(t *testing.T) {
	g := badGraph()
	exe, err := pipert.Compile(g, pipert.WithRegistry(badRegistry(t, &fault{}, new(atomic.Bool))))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32(make([]float32, 8), 2, 4)}
	ctx := context.Background()
	name := g.Outputs[0]
	if _, err := exe.RunInto(ctx, in, map[string]*kernel.Tensor{}); err == nil {
		t.Error("no output tensors: no error")
	}
	if _, err := exe.RunInto(ctx, in, map[string]*kernel.Tensor{name: kernel.New(kernel.Float32, 2, 4), "nosuch": kernel.New(kernel.Float32, 1)}); err == nil {
		t.Error("an unknown output: no error")
	}
	if _, err := exe.RunInto(ctx, in, map[string]*kernel.Tensor{name: kernel.New(kernel.Float32, 1, 4)}); !errors.Is(err, pipert.ErrShortOutput) {
		t.Errorf("a short output: %v, want ErrShortOutput", err)
	}
	if _, err := exe.RunInto(ctx, in, map[string]*kernel.Tensor{name: in["x"]}); err == nil || !strings.Contains(err.Error(), "input") {
		t.Errorf("an output that is the input's tensor: %v", err)
	}
	view := &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{2, 4}, Host: in["x"].Host}
	if _, err := exe.RunInto(ctx, in, map[string]*kernel.Tensor{name: view}); err == nil {
		t.Error("an output sharing the input's contents: no error")
	}
	wide := make([]byte, 64)
	in2 := map[string]*kernel.Tensor{"x": {DType: kernel.Float32, Shape: kernel.Shape{2, 4}, Host: wide[:32]}}
	inside := &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{2, 4}, Host: wide[4:36]}
	if _, err := exe.RunInto(ctx, in2, map[string]*kernel.Tensor{name: inside}); err == nil {
		t.Error("an output overlapping the input's contents from inside: no error")
	}
	out := map[string]*kernel.Tensor{name: kernel.New(kernel.Float32, 2, 4)}
	if _, err := exe.RunInto(ctx, in, out); err != nil {
		t.Fatalf("after the failures: %v", err)
	}
}

// TestRunIntoAliasedOutputs: two outputs given one tensor is an error.
func TestRunIntoAliasedOutputs(t *testing.T) {
	b := subgraph.NewBuilder("two")
	x := b.Input("x", kernel.Float32, 2)
	b.Output(b.Op("ReLU", x))
	b.Output(b.Op("Neg", x))
	g := b.Graph()
	exe, err := pipert.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2}, 2)}
	one := kernel.New(kernel.Float32, 2)
	if _, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{g.Outputs[0]: one, g.Outputs[1]: one}); err == nil || !strings.Contains(err.Error(), "share") {
		t.Errorf("two outputs in one tensor: %v", err)
	}
	buf := make([]byte, 12)
	a := &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{2}, Host: buf[0:8:8]}
	c := &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{2}, Host: buf[4:12:12]}
	if _, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{g.Outputs[0]: a, g.Outputs[1]: c}); err == nil {
		t.Error("two outputs overlapping by 4 bytes: no error")
	}
	apart := &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{2}, Host: buf[8:12:12]}
	first := &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{2}, Host: make([]byte, 8)}
	if _, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{g.Outputs[0]: first, g.Outputs[1]: apart}); err != nil && strings.Contains(err.Error(), "share") {
		t.Errorf("outputs in separate buffers refused: %v", err)
	}
}

// TestRunIntoEmptyOutputIsReal: a real output of no elements, written by
// RunInto into a zero-value tensor, is real (host data of no bytes), as
// Run returns it, in every mode.
func TestRunIntoEmptyOutputIsReal(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": {DType: kernel.Float32, Shape: kernel.Shape{0, 2}, Host: []byte{}}}
	for _, m := range everyMode() {
		exe, err := pipert.Compile(reluGraph(), m.opts...)
		if err != nil {
			t.Fatal(err)
		}
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		name := reluGraph().Outputs[0]
		if res.Outputs[name].IsVirtual() {
			t.Fatalf("%s: Run returned a virtual empty output", m.name)
		}
		d := &kernel.Tensor{}
		if _, err := exe.RunInto(context.Background(), in, map[string]*kernel.Tensor{name: d}); err != nil {
			t.Fatalf("%s: RunInto: %v", m.name, err)
		}
		if d.IsVirtual() || !d.Shape.Equal(kernel.Shape{0, 2}) {
			t.Errorf("%s: RunInto wrote %+v, want a real [0 2] tensor", m.name, d)
		}
		exe.Close()
	}
}
