package actor

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// Options place an actor inside a larger executable (package heterog). The
// zero Options make a stand-alone actor: its own memory accounting, the
// Config's device, costs and stage plan.
type Options struct {
	// Memory accounts the actor's device memory (nil: its own).
	Memory *Memory
	// Device overrides Config.Device (a heterogeneous run's CPU parts run
	// on the host device).
	Device device.Device
	// Costs prices node i (by graph node index); nil means
	// Config.CostOf(plan.Node{Name, Op}).
	Costs func(i int) (plan.Costs, error)
	// Plan overrides the Config's stage plan when its Mode is set.
	Plan plan.Plan
	// Name names the actor's trace tracks (default: Config.TraceName, or
	// the graph's name).
	Name string
}

// SuperKernelActor runs one validated graph on one device stream, in the
// graph's execution order, with the stage plan of its Config. Runs are
// serialised: Run may be called from any goroutine, one run at a time;
// Close ends the actor. New makes one: the zero SuperKernelActor runs
// nothing (its runs and Lane fail with ErrMisuse, its Close does nothing).
type SuperKernelActor struct {
	prog *program
	cfg  plan.Config
	plan plan.Plan
	dev  device.Device
	mem  *Memory
	r    *KernelRunner

	mu     sync.Mutex // serialises runs and Close
	closed bool
	eng    *engine
	tr     *tracer // nil when not tracing
	labels context.Context
	// goexit is the error of the last run that user code ended by
	// runtime.Goexit on the caller's goroutine (nil: it did not).
	goexit atomic.Pointer[error]
}

// Goexited is the error of the last run whose caller's goroutine user code
// ended by runtime.Goexit (a kernel of a KBK run, say): that run never
// returned it. It names the node, op and stage, matches kernel.ErrGoexit
// and kernel.ErrPanic, and is nil when the last run did not end so. A
// caller that recovers from the Goexit (a goroutine pool's worker) reads
// it to say what ended the run.
func (a *SuperKernelActor) Goexited() error {
	if a == nil {
		return nil
	}
	if p := a.goexit.Load(); p != nil {
		return *p
	}
	return nil
}

// New lowers a validated graph for cfg (checked here if it was not).
// Constants are uploaded now and stay resident until Close.
func New(c *subgraph.Checked, cfg plan.Config, opt Options) (*SuperKernelActor, error) {
	return NewContext(context.Background(), c, cfg, opt)
}

// NewContext is New waiting for the constants' upload only as long as ctx
// lets it: when ctx ends first, what was uploaded is freed and the error
// wraps ctx.Err().
func NewContext(ctx context.Context, c *subgraph.Checked, cfg plan.Config, opt Options) (*SuperKernelActor, error) {
	if ctx == nil {
		return nil, errors.New("actor: nil context")
	}
	if c == nil || c.Graph == nil {
		return nil, errors.New("actor: no validated graph (subgraph.Validate's result)")
	}
	cfg, err := cfg.Check()
	if err != nil {
		return nil, err
	}
	pl := opt.Plan
	if pl.Mode == 0 {
		pl = cfg.Plan()
	}
	if err := pl.Validate(); err != nil {
		return nil, fmt.Errorf("actor: %w", err)
	}
	dev := opt.Device
	if dev == nil {
		dev = cfg.Device
	}
	costs := opt.Costs
	if costs == nil {
		costs = func(i int) (plan.Costs, error) {
			n := c.Graph.Nodes[i]
			return cfg.CostOf(plan.Node{Name: n.Name, Op: n.Op})
		}
	}
	prog, err := newProgram(c, costs, cfg.CostOf)
	if err != nil {
		return nil, err
	}
	return start(ctx, prog, cfg, pl, dev, opt.Memory, opt.Name)
}

// Lane returns a new actor running a's program (its lowered graph,
// kernels, configuration, stage plan and device) with the per-run state,
// streams, caches and trace tracks of its own, so that the two may run at
// once; name names its trace tracks (as Options.Name), mem accounts its
// device memory (nil: its own). The kernels are a's: shared by the two
// lanes, as Submit's lanes share them. The constants are uploaded again,
// for the lane; ctx bounds that as in NewContext.
func (a *SuperKernelActor) Lane(ctx context.Context, name string, mem *Memory) (*SuperKernelActor, error) {
	if a == nil || a.prog == nil {
		return nil, errUnmade("Lane")
	}
	if ctx == nil {
		return nil, errors.New("actor: nil context")
	}
	return start(ctx, a.prog, a.cfg, a.plan, a.dev, mem, name)
}

// start makes an actor of prog and uploads its constants.
func start(ctx context.Context, prog *program, cfg plan.Config, pl plan.Plan, dev device.Device, mem *Memory, name string) (*SuperKernelActor, error) {
	if mem == nil {
		mem = new(Memory)
	}
	if name == "" {
		name = cfg.TraceName
	}
	if name == "" {
		name = prog.name
	}
	a := &SuperKernelActor{prog: prog, cfg: cfg, plan: pl, dev: dev, mem: mem,
		labels: pprof.WithLabels(context.Background(), pprof.Labels("pipert.actor", name, "pipert.stage", "prepare", "pipert.mode", pl.Mode.String())),
	}
	if err := a.setUp(name); err != nil {
		return nil, err // nothing is allocated on the device yet
	}
	returned := false
	defer func() {
		if !returned {
			// The device's code called runtime.Goexit on the calling
			// goroutine: free what was uploaded before it ends.
			a.Close()
		}
	}()
	if err := a.r.uploadConsts(ctx); err != nil {
		a.Close()
		returned = true
		return nil, err
	}
	returned = true
	return a, nil
}

// setUp makes the actor's runner, its streams and events, on the device;
// a panic of the device's code is the error.
func (a *SuperKernelActor) setUp(name string) (err error) {
	defer devicePanic(&err)
	a.r = newRunner(a.prog, a.dev, a.mem, a.cfg.Seed)
	a.r.setCaches(a.cfg.Caches)
	if a.plan.Replay {
		a.r.enableReplay()
	}
	a.r.tiling = newTilingCopy(a.r, a.cfg.TilingCopy, a.cfg.TilingBlocks)
	a.tr = newTracer(a.cfg.Trace, name, a.plan, a.prog, a.cfg.Caches.Kinds)
	if a.tr != nil {
		a.r.launched = a.tr.launched
	}
	if ep, ok := a.dev.(device.Epocher); ok {
		a.r.epoch = ep.Epoch()
	}
	return nil
}

// Plan is the actor's stage plan (the zero Plan of a nil actor).
func (a *SuperKernelActor) Plan() plan.Plan {
	if a == nil {
		return plan.Plan{}
	}
	return a.plan
}

// Mode reports the actor's execution mode (zero for a nil actor).
func (a *SuperKernelActor) Mode() plan.Mode { return a.Plan().Mode }

// Kernels is the number of kernels one run launches.
func (a *SuperKernelActor) Kernels() int {
	if a == nil || a.prog == nil {
		return 0
	}
	return len(a.prog.nodes)
}

// Memory is the actor's device memory accounting (nil for a nil actor).
func (a *SuperKernelActor) Memory() *Memory {
	if a == nil {
		return nil
	}
	return a.mem
}

// Close stops the stage workers and frees the constants. Closing twice is a
// no-op. A panic of the device's code is the error.
func (a *SuperKernelActor) Close() (err error) {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	defer devicePanic(&err)
	if a.closed || a.prog == nil { // closed, or the zero actor: nothing to close
		return nil
	}
	a.closed = true
	if a.eng != nil {
		a.eng.close()
		a.eng = nil
	}
	a.tr.close()
	a.r.releaseStreams()
	if ep, ok := a.dev.(device.Epocher); ok && ep.Epoch() != a.r.epoch {
		a.r.forgetDevice() // a reset freed them
	}
	return errors.Join(a.r.releaseConsts(), a.r.dropPlan(), a.r.releaseTiling())
}

// ErrClosed is the cause of Run's failure after Close.
var ErrClosed = errors.New("actor: closed")

// ErrMisuse is matched by the errors of a method called on a value this
// package did not make: a nil or zero SuperKernelActor (New makes one),
// the zero KernelRunner (an actor makes its own) and the zero Runners
// (NewRunners makes one).
var ErrMisuse = errors.New("actor: misuse")

// errUnmade is the error of method m of a nil or zero value.
func errUnmade(m string) error {
	return fmt.Errorf("actor: %s of a nil or zero value, not made by this package: %w", m, ErrMisuse)
}

// Run executes the graph once with inputs in the order of the graph's
// declared inputs. Inputs with Host data run on real data; virtual inputs
// run on shapes only. The returned outputs are new host tensors (virtual
// where the computation was). Whatever fails, every buffer the run
// allocated is freed and the next run starts clean.
func (a *SuperKernelActor) Run(ctx context.Context, inputs []*kernel.Tensor) ([]*kernel.Tensor, plan.Stats, error) {
	return a.RunFeed(ctx, inputs, nil)
}

// Feed connects a run to the other parts of a heterogeneous run: inputs it
// awaits one by one and outputs it hands on one by one, instead of all at
// the start and the end.
type Feed struct {
	// Await returns graph input i, which Run was given as nil, once it is
	// available (it may block, and must return when ctx ends). It is
	// called on the calling goroutine, in execution order, before the
	// first node reading the input is prepared.
	Await func(ctx context.Context, input int) (*kernel.Tensor, error)
	// Outputs lists graph outputs (by position) to publish; Publish gets
	// each as a new host tensor (virtual when the computation was) as soon
	// as its producer completed on the device, from one goroutine of the
	// run, or at the end of the run when it could not be earlier. A failed
	// run may leave some unpublished.
	Outputs []int
	Publish func(output int, t *kernel.Tensor)
	// After, when not nil, is an event of another run on the same device
	// whose kernels this run's follow: the run's stream waits for it once
	// the inputs are uploaded, before the first launch.
	After device.Event
	// Launched, when not nil, is called once per run on the calling
	// goroutine, when every kernel of the run has been enqueued on the
	// device (or the run stopped before), with an event recorded after the
	// last of them: the After of a run that follows. The event is reused by
	// the actor's next run.
	Launched func(last device.Event)
	// Seq, when not 0, is the run's number in its executable
	// (kernel.Args.Run), counted by the caller over every actor that runs
	// its runs (heterogeneous parts, Submit's lanes); 0 counts the actor's
	// own runs.
	Seq uint64
}

// handsOver reports whether f hands tensors or events over (anything
// but Seq): only then is the run a fed one.
func (f *Feed) handsOver() bool {
	return f.Await != nil || len(f.Outputs) > 0 || f.Publish != nil || f.After != nil || f.Launched != nil
}

// RunFeed is Run with a Feed (nil: Run).
func (a *SuperKernelActor) RunFeed(ctx context.Context, inputs []*kernel.Tensor, f *Feed) ([]*kernel.Tensor, plan.Stats, error) {
	return a.run(ctx, inputs, f, nil)
}

// RunIntoFeed is RunInto with a Feed (nil: RunInto).
func (a *SuperKernelActor) RunIntoFeed(ctx context.Context, inputs, outs []*kernel.Tensor, f *Feed) (plan.Stats, error) {
	if err := a.checkOutsInto(outs); err != nil {
		return plan.Stats{}, err
	}
	_, st, err := a.run(ctx, inputs, f, outs)
	return st, err
}

// ErrShortOutput is the cause of RunInto's failure when a caller's output
// tensor cannot hold the output.
var ErrShortOutput = errors.New("output buffer too small")

// RunInto is Run with caller-owned outputs: outs holds a tensor per graph
// output, in order, whose dtype and shape RunInto sets and whose Host it
// fills, within its capacity (an output too large for it fails the run
// with ErrShortOutput); a virtual output gets a nil Host. In steady state
// it allocates no outputs.
func (a *SuperKernelActor) RunInto(ctx context.Context, inputs, outs []*kernel.Tensor) (plan.Stats, error) {
	return a.RunIntoFeed(ctx, inputs, outs, nil)
}

// checkOutsInto checks RunInto's outs: one tensor per graph output.
func (a *SuperKernelActor) checkOutsInto(outs []*kernel.Tensor) error {
	if a == nil || a.prog == nil {
		return errUnmade("RunInto")
	}
	if len(outs) != len(a.prog.outputs) {
		return fmt.Errorf("actor: graph %q has %d outputs, RunInto got %d", a.prog.name, len(a.prog.outputs), len(outs))
	}
	for i, o := range outs {
		if o == nil {
			return fmt.Errorf("actor: RunInto: output %q is nil", a.prog.slots[a.prog.outputs[i]].name)
		}
	}
	return nil
}

func (a *SuperKernelActor) run(ctx context.Context, inputs []*kernel.Tensor, f *Feed, into []*kernel.Tensor) (_ []*kernel.Tensor, _ plan.Stats, err error) {
	if a == nil {
		return nil, plan.Stats{}, errUnmade("Run")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	// The engine recovers the device's panics in a run; those of the
	// calls around it (a new engine's stream, the statistics) fail the
	// run here, and the next run starts with a new engine.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("actor: device: %w", &PanicError{Value: p, Stack: debug.Stack()})
			if a.eng != nil {
				a.eng.close()
				a.eng = nil
			}
		}
	}()
	if a.closed {
		return nil, plan.Stats{}, ErrClosed
	}
	if a.prog == nil {
		return nil, plan.Stats{}, errUnmade("Run")
	}
	a.goexit.Store(nil)
	var seq uint64
	if f != nil {
		seq = f.Seq
		if !f.handsOver() {
			f = nil // a run's number only: a plain run
		}
	}
	if err := a.checkInputs(inputs, f != nil); err != nil {
		return nil, plan.Stats{}, err
	}
	if f != nil {
		if f.Await == nil && slices.Contains(inputs, nil) {
			return nil, plan.Stats{}, errors.New("actor: a Feed with awaited inputs needs Await")
		}
		if f.Publish == nil && len(f.Outputs) > 0 {
			return nil, plan.Stats{}, errors.New("actor: a Feed with outputs needs Publish")
		}
		for _, o := range f.Outputs {
			if o < 0 || o >= len(a.prog.outputs) {
				return nil, plan.Stats{}, fmt.Errorf("actor: Feed output %d of %d", o, len(a.prog.outputs))
			}
		}
	}
	if err := a.r.ensureDevice(ctx); err != nil {
		return nil, plan.Stats{}, fmt.Errorf("actor: %w", err)
	}
	if a.eng == nil {
		e, err := newEngine(a)
		if err != nil {
			return nil, plan.Stats{}, err
		}
		a.eng = e
	}
	eng := a.eng // a run that fails badly replaces a.eng
	eng.setFeed(f)
	eng.seq = seq
	st := plan.Stats{Mode: a.plan.Mode, Barrier: a.plan.Barrier, Kernels: len(a.prog.nodes), Procs: runtime.GOMAXPROCS(0)}
	dev0, str0 := a.dev.Stats(), a.r.stream.Stats()
	cp0 := eng.copy.Stats()
	a.mem.ResetPeak()
	pprof.SetGoroutineLabels(a.labels)
	defer pprof.SetGoroutineLabels(ctx)
	if a.tr.hold() {
		defer a.tr.release() // deferred: a kernel's Goexit ends the run here
	}
	start := clock.Now()
	a.tr.runBegin(start, dev0)
	outs, err := eng.run(ctx, inputs, into, start, &st)
	end := clock.Now()
	if err != nil {
		a.r.forgetAnswers(err)
	}
	a.tr.runEnd(end, st.Cache)
	st.Makespan = time.Duration(end - start)
	ds := a.dev.Stats().Sub(dev0)
	// A device of the caller's whose counters go back gives no negative
	// figure.
	st.DeviceBusy = time.Duration(max(ds.BusyNs, 0))
	st.DeviceWork = time.Duration(max(a.r.stream.Stats().Sub(str0).BusyNs, eng.copy.Stats().Sub(cp0).BusyNs, 0))
	st.PeakDeviceBytes = a.mem.Peak()
	if err != nil {
		return nil, st, err
	}
	return outs, st, nil
}

func (a *SuperKernelActor) checkInputs(inputs []*kernel.Tensor, fed bool) error {
	decl := a.prog.decl
	if len(inputs) != len(decl) {
		return fmt.Errorf("actor: %w: graph %q takes %d inputs, got %d", subgraph.ErrBadInput, a.prog.name, len(decl), len(inputs))
	}
	for i, t := range inputs {
		d := decl[i]
		if t == nil && fed {
			continue // awaited
		}
		if t != nil && d.AnyShape {
			if !t.DType.Valid() || !t.Shape.Known() {
				return fmt.Errorf("actor: %w: input %q: dtype %v, shape %v", subgraph.ErrBadInput, d.Name, t.DType, t.Shape)
			}
			if n, ok := bytesOf(t.Shape, t.DType); !ok || t.Host != nil && int64(len(t.Host)) != n {
				return fmt.Errorf("actor: %w: input %q: %d bytes of data for %v %v", subgraph.ErrBadInput, d.Name, len(t.Host), t.DType, t.Shape)
			}
			continue
		}
		switch {
		case t == nil:
			return fmt.Errorf("actor: %w: input %q is nil", subgraph.ErrBadInput, d.Name)
		case t.DType != d.DType:
			return fmt.Errorf("actor: %w: input %q: dtype %v, declared %v", subgraph.ErrBadInput, d.Name, t.DType, d.DType)
		case len(t.Shape) != len(d.Shape):
			return fmt.Errorf("actor: %w: input %q: shape %v, declared %v", subgraph.ErrBadInput, d.Name, t.Shape, d.Shape)
		case !t.Shape.Known():
			return fmt.Errorf("actor: %w: input %q: shape %v has unknown dimensions", subgraph.ErrBadInput, d.Name, t.Shape)
		}
		n, ok := bytesOf(t.Shape, t.DType)
		if !ok {
			return fmt.Errorf("actor: %w: input %q: shape %v has a negative dimension or too many bytes", subgraph.ErrBadInput, d.Name, t.Shape)
		}
		if t.Host != nil && int64(len(t.Host)) != n {
			return fmt.Errorf("actor: %w: input %q: %d bytes of data for %v", subgraph.ErrBadInput, d.Name, len(t.Host), t.Shape)
		}
		for j, dim := range d.Shape {
			if dim != kernel.Dynamic && dim != t.Shape[j] {
				return fmt.Errorf("actor: %w: input %q: shape %v, declared %v", subgraph.ErrBadInput, d.Name, t.Shape, d.Shape)
			}
		}
	}
	return nil
}
