// Package pipert is an asynchronous, multi-stage, pipelined runtime for AI
// kernels, with a simulated accelerator behind it.
//
// Frameworks lose time when the host cannot issue kernels as fast as the
// device runs them (small ops, small-batch LLM decode, dynamic shapes).
// pipert takes each kernel through its host stages — prepare, InferShape,
// Resize, Launch — and schedules those stages so the host stays off the
// device's critical path, while value- and compute-dependency barriers keep
// results exact.
//
// This package is the facade for integrators: describe a graph with
// subgraph.Builder, Compile it for a device with options, Run it with real or
// virtual tensors, and read the outputs and run statistics.
package pipert

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime/debug"
	"slices"
	"sync"
	"unsafe"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// Config is every setting of an executable, declared, defaulted and
// validated in one place (package plan); the options below fill it.
type Config = plan.Config

// Mode selects how host stages are scheduled; see plan.Mode.
type Mode = plan.Mode

// Execution modes.
const (
	KBK      = plan.KBK
	Async    = plan.Async
	Pipeline = plan.Pipeline
	Replay   = plan.Replay
)

// Tiling-copy strategies; see plan.TilingCopy.
const (
	WithKernel  = plan.WithKernel
	MultiStream = plan.MultiStream
	Whole       = plan.Whole
)

// WithTilingCopy selects how tiling data reaches the device (default
// WithKernel, ATB's) and, for MultiStream, the blocks of its device ring
// (0: 32, ATB's pool of 3 MB blocks).
func WithTilingCopy(t TilingCopy, blocks int) Option {
	return func(c *Config) { c.TilingCopy, c.TilingBlocks = t, blocks }
}

// BarrierPolicy selects how a kernel waits at value and compute
// dependencies; see plan.BarrierPolicy.
type BarrierPolicy = plan.BarrierPolicy

// Barrier policies.
const (
	Drain     = plan.Drain
	PerTensor = plan.PerTensor
)

// ParseBarrierPolicy returns the policy called s ("drain", "per-tensor");
// another name is an error wrapping ErrConfig.
func ParseBarrierPolicy(s string) (BarrierPolicy, error) { return plan.ParseBarrierPolicy(s) }

// Costs are synthetic host costs per stage; see plan.Costs.
type Costs = plan.Costs

// Stats are the statistics of one run, the same shape in every mode; see
// plan.Stats.
type Stats = plan.Stats

// Caches configure the host caches (tiling, InferShape and Setup reuse);
// see plan.Caches. CacheKinds is a set of them.
type (
	Caches     = plan.Caches
	CacheKinds = plan.CacheKinds
)

// CacheStats count a run's hits and misses of each host cache; see
// plan.CacheStats.
type CacheStats = plan.CacheStats

// PlanStats describe a run's memory plan; see plan.PlanStats.
type PlanStats = plan.PlanStats

// ReplayStats count a run's captures and replays (mode Replay); see
// plan.ReplayStats.
type ReplayStats = plan.ReplayStats

// TilingCopy is how tiling data reaches the device; TilingStats count it
// (see plan.TilingCopy).
type (
	TilingCopy  = plan.TilingCopy
	TilingStats = plan.TilingStats
)

// The host caches; see plan.CacheKinds.
const (
	TilingLocal   = plan.TilingLocal
	TilingGlobal  = plan.TilingGlobal
	InferReuse    = plan.InferReuse
	SetupReuse    = plan.SetupReuse
	MemoryPlan    = plan.MemoryPlan
	Runners       = plan.Runners
	NoCaches      = plan.NoCaches
	DefaultCaches = plan.DefaultCaches
)

// Errors every layer's failures are matched against with errors.Is.
var (
	// ErrClosed: the executable was closed.
	ErrClosed = errors.New("pipert: executable closed")
	// ErrConfig: a setting out of its range.
	ErrConfig = plan.ErrConfig
	// ErrUnknownOp: a node names an op the registry lacks.
	ErrUnknownOp = kernel.ErrUnknownOp
	// ErrOutOfMemory: the device ran out of memory.
	ErrOutOfMemory = device.ErrOutOfMemory
	// ErrLaunchFailed, ErrCopyFailed: a launch or a copy failed.
	// ErrKernelFault: a kernel faulted on the device (sticky until the
	// device is reset). ErrDeviceLost: the device is gone.
	ErrLaunchFailed = device.ErrLaunchFailed
	ErrCopyFailed   = device.ErrCopyFailed
	ErrKernelFault  = device.ErrKernelFault
	ErrDeviceLost   = device.ErrDeviceLost
	// ErrShortOutput: a RunInto output tensor cannot hold its output.
	ErrShortOutput = actor.ErrShortOutput
	// ErrDynamicWorkspace: WorkspaceSize of a graph whose sizes depend on
	// run-time values; ErrShortWorkspace: UseWorkspace of a buffer smaller
	// than WorkspaceSize, or whose contents are shorter than its size.
	ErrDynamicWorkspace = actor.ErrDynamicWorkspace
	ErrShortWorkspace   = actor.ErrShortWorkspace
	// ErrBadInput: a run's inputs do not match the graph's: an input
	// missing, unknown, nil, of another dtype or shape than declared, or
	// whose data does not fit its shape; or a Carry that cannot feed its
	// input. (The same sentinel as subgraph's for a bad input
	// declaration.)
	ErrBadInput = subgraph.ErrBadInput
	// ErrBadOutput: RunInto's outputs do not match the graph's: an output
	// missing, unknown, or sharing its tensor or memory with another
	// output or an input. (The same sentinel as subgraph's.)
	ErrBadOutput = subgraph.ErrBadOutput
	// ErrInvalid: a nil context or graph, a method of a nil or zero Executable or
	// Pending (one Compile or Submit did not make), a Carry from a nil or
	// zero Pending, or a workspace that is not memory of the executable's
	// device (device.Owner).
	ErrInvalid = errors.New("invalid argument")
	// ErrPanic: user code panicked — a kernel's method, an op factory, a
	// registry, a placement policy, a host-cost hook, a device of the
	// caller's. The error names where and carries the panic value.
	// (kernel.ErrPanic.)
	ErrPanic = kernel.ErrPanic
	// ErrTilingSpace: tiling data does not fit the device's tiling ring
	// (WithTilingCopy: a kernel's beyond a 3 MB block, or a Whole batch's
	// beyond the ring). (plan.ErrTilingSpace.)
	ErrTilingSpace = plan.ErrTilingSpace
)

// Option sets a field of the Config Compile uses.
type Option func(*Config)

// WithConfig starts from c; later options override its fields. It
// replaces the whole Config, so options before it are lost: give it
// first.
func WithConfig(c Config) Option { return func(d *Config) { *d = c } }

// WithMode selects the execution mode (default KBK).
func WithMode(m Mode) Option { return func(c *Config) { c.Mode = m } }

// WithBarrier selects the barrier policy (default PerTensor).
func WithBarrier(p BarrierPolicy) Option { return func(c *Config) { c.Barrier = p } }

// WithQueueCapacity sets the capacity of each stage queue, in [1, 1<<20]
// (default, also for 0, plan.DefaultQueueCapacity, 8; see there why it is
// small).
func WithQueueCapacity(n int) Option { return func(c *Config) { c.QueueCapacity = n } }

// WithCosts adds synthetic host costs per stage (default none).
func WithCosts(cs Costs) Option { return func(c *Config) { c.Costs = cs } }

// WithCaches sets the host caches (default: ATB's, plan.DefaultCaches with
// one local and five global tiling slots). WithCaches(Caches{Kinds:
// NoCaches}) runs every stage of every kernel on every run.
func WithCaches(cs Caches) Option { return func(c *Config) { c.Caches = cs } }

// WithHostCost prices each node's host stages with f, overriding WithCosts.
func WithHostCost(f plan.HostCost) Option { return func(c *Config) { c.HostCost = f } }

// WithDevice runs on d (default: a new simulated device with the default
// SW-AI profile).
func WithDevice(d device.Device) Option { return func(c *Config) { c.Device = d } }

// WithRegistry resolves ops in r (default: ops.Builtins()).
func WithRegistry(r kernel.Resolver) Option { return func(c *Config) { c.Registry = r } }

// WithTrace records every run's host stages on tracks named after name
// (default: the graph's name). Give the device a devtrace observer on the
// same recorder to see the device side and complete each kernel's flow; a
// heterogeneous executable's host CPU device records its CPU kernels on
// tracks named "<name> cpu". The recorder must outlive the executable's
// runs: once it is closed, runs go on untraced (their events are dropped,
// and no error says so).
func WithTrace(rec *trace.Recorder, name string) Option {
	return func(c *Config) { c.Trace, c.TraceName = rec, name }
}

// WithHeterogeneous runs the graph partitioned by placement: p places
// every node on the host CPU or the device (nil: the nodes' labels, see
// heterog.Labels), the graph is cut into single-placement subgraphs, and
// one actor per subgraph runs as soon as its inputs are ready, concurrently
// with the others — CPU subgraphs compute on the host, device subgraphs
// run in the configured mode (Pipeline unless WithMode says otherwise).
// See package heterog.
func WithHeterogeneous(p plan.Placer) Option {
	if p == nil {
		p = heterog.Labels()
	}
	return func(c *Config) { c.Placement = p }
}

// WithCarried names the graph outputs later submitted steps carry (see
// Submit): they are handed on tensor by tensor, as soon as produced.
func WithCarried(outputs ...string) Option {
	outputs = slices.Clone(outputs)
	// Clipped: the Config's list may be the caller's (WithConfig), whose
	// spare capacity is not ours to write.
	return func(c *Config) { c.Carried = append(slices.Clip(c.Carried), outputs...) }
}

// WithSeed seeds the data-dependent results modeled on virtual data.
func WithSeed(s uint64) Option { return func(c *Config) { c.Seed = s } }

// Executable is a compiled graph bound to a device. Its methods are safe for
// concurrent use; runs are serialised (a call waiting for its turn gives up
// when its context ends). Tensors a call writes (RunInto's outputs) must
// not be shared with a concurrent call. Only Compile makes a usable one:
// the methods of a nil or zero Executable return errors wrapping
// ErrInvalid (Config and Device return zero values).
type Executable struct {
	g   *subgraph.Graph
	cfg Config
	act *actor.SuperKernelActor // one actor, or
	het *heterog.Executable     // concurrent actors by placement
	mgr *heterog.Manager
	// cpuObs traces the host CPU device Compile made for a traced
	// heterogeneous executable; closed with it.
	cpuObs *devtrace.Observer
	mu     sync.RWMutex
	done   bool
	once   sync.Once
	// slices holds []*kernel.Tensor of the graph's input count then its
	// output count, reused by RunInto.
	slices sync.Pool

	// Submitted steps (submit.go). smu serialises Run, RunInto, Submit
	// and Close; lane 0 is act, lane 1 (second) made by the first Submit.
	runners  *actor.Runners // nil: kernels built, not pooled
	smu      turn
	second   *actor.SuperKernelActor
	last     *Pending // the latest step that launched, while in flight
	inflight sync.WaitGroup
	flying   []*Pending // the steps submitted since the last settle
	// runs counts the Runs, RunIntos and Submits that had their turn
	// (kernel.Args.Run), under smu; runFeed carries the number of a Run
	// or RunInto.
	runs    uint64
	runFeed actor.Feed
}

// claimRun numbers a call that has its turn (holds smu): every Run,
// RunInto and Submit counts from then on, whatever happens to it after,
// in every mode, so that the n-th call's kernels see the same
// kernel.Args.Run and Seed however the executable runs.
func (e *Executable) claimRun() uint64 {
	e.runs++
	return e.runs
}

// feedOf is the Feed of a Run or RunInto numbered run (claimRun).
func (e *Executable) feedOf(run uint64) *actor.Feed {
	e.runFeed = actor.Feed{Seq: run}
	return &e.runFeed
}

// Compile validates g and prepares it to run: kernels are built, the
// execution order fixed, constants uploaded to the device. Every setting
// is checked first: an out-of-range one is an error wrapping ErrConfig.
// The executable keeps its own copy of g, constants' contents included
// (subgraph.Graph.Clone): changing g afterwards changes nothing it does.
// Options may be shared by concurrent Compiles; none writes what the caller
// gave it.
func Compile(g *subgraph.Graph, opts ...Option) (*Executable, error) {
	return CompileContext(context.Background(), g, opts...)
}

// CompileContext is Compile waiting for the device only as long as ctx lets
// it: when ctx has ended before the compilation or ends before the
// constants are uploaded (a device of the caller's that does not answer, a
// deadline), what was uploaded is freed and the error wraps ctx.Err().
func CompileContext(ctx context.Context, g *subgraph.Graph, opts ...Option) (*Executable, error) {
	if ctx == nil {
		return nil, fmt.Errorf("pipert: compile: %w: nil context", ErrInvalid)
	}
	var c Config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if g == nil {
		return nil, fmt.Errorf("pipert: compile: %w: nil graph", ErrInvalid)
	}
	// The caller may change its graph after: the executable keeps its own
	// copy. A heterogeneous one keeps the whole graph; any other keeps its
	// declarations and kernels, which see only the nodes' attributes, so
	// it copies no more than those (compileCopy).
	if c.Placement != nil {
		g = g.Clone()
	} else {
		g = compileCopy(g)
	}
	// The same for the Config's lists, which WithConfig shares with the caller.
	c.Carried, c.Virtual = slices.Clone(c.Carried), slices.Clone(c.Virtual)
	c, err := c.Check()
	if err != nil {
		return nil, err
	}
	for _, name := range c.Carried {
		if !slices.Contains(g.Outputs, name) {
			return nil, fmt.Errorf("pipert: compile: %w: Carried: %q is not an output of graph %q", ErrConfig, name, g.Name)
		}
	}
	if err := ctx.Err(); err != nil {
		// Whatever the mode and device: an ended context compiles nothing.
		return nil, fmt.Errorf("pipert: compile: %w", err)
	}
	// Kernels come from the runner pool (or pay their creation cost);
	// the executable gives them back at Close.
	rc := c
	var runners *actor.Runners
	if c.Caches.Kinds.Has(plan.Runners) || c.Costs.Create > 0 {
		runners = actor.NewRunners(c)
		rc.Registry = runners
		runners.Within(ctx) // the creation costs end with ctx
		defer runners.Within(context.Background())
	}
	fail := func(err error) (*Executable, error) {
		if runners != nil {
			runners.Release()
		}
		return nil, fmt.Errorf("pipert: compile: %w", err)
	}
	if c.Placement != nil {
		var cpu *host.Device // nil: the manager opens an untraced one
		var cpuObs *devtrace.Observer
		if c.Trace != nil {
			// The facade owns the host CPU device: traced, so that CPU
			// kernels' flows end on its slices as device kernels' do on
			// the caller's observed device.
			name := c.TraceName
			if name == "" {
				name = g.Name
			}
			cpuObs = devtrace.New(c.Trace, name+" cpu")
			if cpu, err = host.New(host.Options{Observer: cpuObs}); err != nil {
				return fail(fmt.Errorf("pipert: compile: %w", err))
			}
		}
		m, err := heterog.NewManager(cpu, c.Device)
		if err != nil {
			return fail(err)
		}
		returned := false
		defer func() {
			if !returned {
				// A device's runtime.Goexit on the calling goroutine:
				// release the manager's pool before it ends.
				m.Release()
			}
		}()
		h, err := heterog.CompileContext(ctx, g, rc, m)
		returned = true
		if err != nil {
			m.Release()
			return fail(err)
		}
		return &Executable{g: g, cfg: c, het: h, mgr: m, cpuObs: cpuObs, runners: runners, smu: make(turn, 1)}, nil
	}
	checked, err := subgraph.Validate(g, rc.Registry)
	if err != nil {
		return fail(err)
	}
	act, err := actor.NewContext(ctx, checked, rc, actor.Options{})
	if err != nil {
		return fail(err)
	}
	// The executable keeps the graph's declarations, not its nodes: the
	// actor's program holds what a run needs, and Submit's second lane
	// shares it (see actor.Lane).
	decl := &subgraph.Graph{Name: g.Name, Inputs: g.Inputs, Consts: g.Consts, Outputs: g.Outputs}
	e := &Executable{g: decl, cfg: c, act: act, runners: runners, smu: make(turn, 1)}
	return e, nil
}

// compileCopy is what Compile of a homogeneous graph works on: g's
// declarations (inputs, constants, outputs) copied, which the executable
// keeps, and its nodes g's own but for those with attributes, copied, since
// a kernel may keep its attributes. The executable keeps no node, nor any
// of a node's lists: it reads them only while it compiles.
func compileCopy(g *subgraph.Graph) *subgraph.Graph {
	c := (&subgraph.Graph{Name: g.Name, Inputs: g.Inputs, Consts: g.Consts, Outputs: g.Outputs}).Clone()
	if g.Nodes != nil {
		c.Nodes = make([]*subgraph.Node, len(g.Nodes))
	}
	for i, n := range g.Nodes {
		if n != nil && n.Attrs != nil {
			n = n.Clone()
		}
		c.Nodes[i] = n
	}
	return c
}

// Config is the checked configuration the executable runs with, a copy:
// changing it changes nothing the executable does.
func (e *Executable) Config() Config {
	if e == nil {
		return Config{}
	}
	c := e.cfg
	c.Carried, c.Virtual = slices.Clone(c.Carried), slices.Clone(c.Virtual)
	return c
}

// Device is the device the executable runs on.
func (e *Executable) Device() device.Device {
	if e == nil {
		return nil
	}
	return e.cfg.Device
}

// compiled reports whether e was made by Compile.
func (e *Executable) compiled() bool { return e != nil && (e.act != nil || e.het != nil) }

// usable returns nil if e can run, or why not: ErrInvalid for an
// executable Compile did not make, ErrClosed for a closed one.
func (e *Executable) usable(op string) error {
	if !e.compiled() {
		return fmt.Errorf("pipert: %s: %w: executable not made by Compile", op, ErrInvalid)
	}
	e.mu.RLock()
	done := e.done
	e.mu.RUnlock()
	if done {
		return ErrClosed
	}
	return nil
}

// runHet is a heterogeneous executable's Run: on failure, the Result it
// returns beside the error (when the run started) has the run's Stats.
func (e *Executable) runHet(ctx context.Context, inputs map[string]*kernel.Tensor) (*heterog.Result, error) {
	if err := e.smu.lock(ctx); err != nil {
		return nil, fmt.Errorf("pipert: run: waiting for the executable's earlier call: %w", err)
	}
	defer e.smu.unlock()
	run := e.claimRun()
	if err := e.settle(ctx); err != nil {
		return nil, fmt.Errorf("pipert: run: %w", err)
	}
	res, err := e.het.RunNumbered(ctx, inputs, run)
	if err != nil {
		return res, e.runErr(err)
	}
	return res, nil
}

// Result is the outcome of one run.
type Result struct {
	// Outputs maps each graph output name to a host tensor: real when the
	// run computed on real data, virtual otherwise.
	Outputs map[string]*kernel.Tensor
	Stats   Stats
}

// Run executes the graph once. Every declared graph input must be given, by
// name; a tensor with Host data runs on real data, a virtual one (no Host,
// no Buf) on shapes. An input's Buf is not read.
// A failing kernel (an error or a panic) is an error naming node, op and
// stage; the executable stays usable. A panic in the methods of a device
// of the caller's (WithDevice) fails the run, or Compile, with an error too.
// Calls of one executable take turns; a call waiting for its turn (or for
// submitted steps to end) returns when ctx ends, with an error wrapping
// ctx's (so a kernel that runs its own executable waits for the run it is
// part of until ctx ends: don't). When ctx ends, the run stops at the next kernel boundary, or inside a
// kernel that polls its run's context (kernel.Args.Ctx: the built-in
// matrix products, convolutions, recurrent cells and attention), and
// returns an error wrapping ctx's.
func (e *Executable) Run(ctx context.Context, inputs map[string]*kernel.Tensor) (*Result, error) {
	if err := e.usable("run"); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, fmt.Errorf("pipert: run: %w: nil context", ErrInvalid)
	}
	in := make([]*kernel.Tensor, len(e.g.Inputs))
	if err := e.bindInputs("run", in, inputs); err != nil {
		return nil, err
	}
	if e.het != nil {
		res, err := e.runHet(ctx, inputs)
		if err != nil {
			return nil, err
		}
		return &Result{Outputs: res.Outputs, Stats: res.Stats}, nil
	}
	if err := e.smu.lock(ctx); err != nil {
		return nil, fmt.Errorf("pipert: run: waiting for the executable's earlier call: %w", err)
	}
	defer e.smu.unlock()
	run := e.claimRun()
	if err := e.settle(ctx); err != nil {
		return nil, fmt.Errorf("pipert: run: %w", err)
	}
	outs, st, err := e.act.RunFeed(ctx, in, e.feedOf(run))
	if err != nil {
		return nil, e.runErr(err)
	}
	r := &Result{Outputs: make(map[string]*kernel.Tensor, len(outs)), Stats: st}
	for i, name := range e.g.Outputs {
		r.Outputs[name] = outs[i]
	}
	return r, nil
}

// bindInputs puts inputs in the graph's input order into in, and rejects
// missing and unknown names and tensors that do not match their
// declarations (ErrBadInput).
func (e *Executable) bindInputs(op string, in []*kernel.Tensor, inputs map[string]*kernel.Tensor) error {
	for i, v := range e.g.Inputs {
		t, ok := inputs[v.Name]
		if !ok {
			return fmt.Errorf("pipert: %s: %w: missing input %q", op, ErrBadInput, v.Name)
		}
		if err := checkInput(v, t); err != nil {
			return fmt.Errorf("pipert: %s: %w", op, err)
		}
		in[i] = t
	}
	if len(inputs) != len(e.g.Inputs) {
		for name := range inputs {
			if !e.hasInput(name) {
				return e.unknownInput(op, name)
			}
		}
	}
	return nil
}

// checkInput checks tensor t given for graph input v: its dtype and shape
// are the declared ones (a Dynamic dimension takes any size; an AnyShape
// input any valid dtype and shape), real data fills its shape exactly, and
// a virtual one holds no device buffer.
func checkInput(v subgraph.Value, t *kernel.Tensor) error {
	switch {
	case t == nil:
		return fmt.Errorf("%w: input %q is nil", ErrBadInput, v.Name)
	case !t.DType.Valid():
		return fmt.Errorf("%w: input %q: dtype %v", ErrBadInput, v.Name, t.DType)
	case !t.Shape.Known():
		return fmt.Errorf("%w: input %q: shape %v has a negative dimension", ErrBadInput, v.Name, t.Shape)
	case v.AnyShape:
	case t.DType != v.DType:
		return fmt.Errorf("%w: input %q: dtype %v, declared %v", ErrBadInput, v.Name, t.DType, v.DType)
	case len(t.Shape) != len(v.Shape):
		return fmt.Errorf("%w: input %q: shape %v, declared %v", ErrBadInput, v.Name, t.Shape, v.Shape)
	default:
		for j, d := range v.Shape {
			if d != kernel.Dynamic && d != t.Shape[j] {
				return fmt.Errorf("%w: input %q: shape %v, declared %v", ErrBadInput, v.Name, t.Shape, v.Shape)
			}
		}
	}
	n, ok := bytesOf(t)
	switch {
	case !ok:
		return fmt.Errorf("%w: input %q: %v %v is more than 2^63 bytes", ErrBadInput, v.Name, t.DType, t.Shape)
	case t.Host != nil && int64(len(t.Host)) != n:
		return fmt.Errorf("%w: input %q: %d bytes of data for %v %v", ErrBadInput, v.Name, len(t.Host), t.DType, t.Shape)
	case t.Host == nil && !t.Buf.IsZero():
		// Inputs are read from Host; a device buffer alone would run
		// the graph on shapes only, without a word.
		return fmt.Errorf("%w: input %q holds a device buffer but no host data: an input is read from Host (a virtual one has neither)", ErrBadInput, v.Name)
	}
	return nil
}

// bytesOf returns the byte size of t's contents, with false if it does not
// fit an int64. t's shape is known and its dtype valid.
func bytesOf(t *kernel.Tensor) (int64, bool) {
	n := uint64(t.DType.Size())
	for _, d := range t.Shape {
		if d == 0 {
			return 0, true
		}
	}
	for _, d := range t.Shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}

// RunInto is Run with caller-owned outputs: outputs maps every graph
// output name to a tensor whose dtype and shape RunInto sets (the shape
// in its Shape slice, which grows when its capacity is short of the
// output's rank) and whose Host it fills within its capacity (make it
// with kernel.New of the output's largest shape; a virtual output gets a
// nil Host). An output whose Host does not fit fails the run with
// ErrShortOutput, and then no output tensor is changed. Reusing the same
// tensors (their Shape of the outputs' ranks), a steady-state run
// allocates nothing for its outputs.
func (e *Executable) RunInto(ctx context.Context, inputs, outputs map[string]*kernel.Tensor) (Stats, error) {
	if err := e.usable("run"); err != nil {
		return Stats{}, err
	}
	if ctx == nil {
		return Stats{}, fmt.Errorf("pipert: run: %w: nil context", ErrInvalid)
	}
	if len(outputs) != len(e.g.Outputs) {
		for name := range outputs {
			if !slices.Contains(e.g.Outputs, name) {
				return Stats{}, fmt.Errorf("pipert: run: %w: unknown output %q", ErrBadOutput, name)
			}
		}
	}
	for i, name := range e.g.Outputs {
		d := outputs[name]
		if d == nil {
			return Stats{}, fmt.Errorf("pipert: run: %w: no tensor for output %q", ErrBadOutput, name)
		}
		if err := aliased(name, d, e.g.Outputs[i+1:], outputs, inputs); err != nil {
			return Stats{}, err
		}
	}
	if e.het != nil {
		if err := e.bindInputs("run", make([]*kernel.Tensor, len(e.g.Inputs)), inputs); err != nil {
			return Stats{}, err
		}
		res, err := e.runHet(ctx, inputs)
		if err != nil {
			var st Stats
			if res != nil {
				st = res.Stats // what the run measured before it failed
			}
			return st, err
		}
		// Every output fits, or none is written.
		for _, name := range e.g.Outputs {
			if t, d := res.Outputs[name], outputs[name]; t.Host != nil && cap(d.Host) < len(t.Host) {
				return res.Stats, fmt.Errorf("pipert: run: output %q: %d bytes into a buffer of %d: %w", name, len(t.Host), cap(d.Host), ErrShortOutput)
			}
		}
		for name, t := range res.Outputs {
			d := outputs[name]
			d.DType, d.Shape = t.DType, append(d.Shape[:0], t.Shape...)
			if t.Host == nil {
				d.Host = nil
			} else if d.Host = append(d.Host[:0], t.Host...); d.Host == nil {
				d.Host = []byte{} // real, and empty: not virtual
			}
		}
		return res.Stats, nil
	}
	n := len(e.g.Inputs)
	bufp, _ := e.slices.Get().(*[]*kernel.Tensor)
	if bufp == nil {
		b := make([]*kernel.Tensor, n+len(e.g.Outputs))
		bufp = &b
	}
	defer e.slices.Put(bufp)
	in, outs := (*bufp)[:n], (*bufp)[n:]
	if err := e.bindInputs("run", in, inputs); err != nil {
		return Stats{}, err
	}
	for i, name := range e.g.Outputs {
		outs[i] = outputs[name]
	}
	if err := e.smu.lock(ctx); err != nil {
		clear(*bufp)
		return Stats{}, fmt.Errorf("pipert: run: waiting for the executable's earlier call: %w", err)
	}
	run := e.claimRun()
	err := e.settle(ctx)
	var st Stats
	if err == nil {
		st, err = e.act.RunIntoFeed(ctx, in, outs, e.feedOf(run))
	}
	e.smu.unlock()
	clear(*bufp)
	if err != nil {
		return st, e.runErr(err)
	}
	return st, nil
}

// WorkspaceSize returns the device bytes the memory plan's arena needs
// for a run, before any run (ATB's Setup/Execute contract): every
// intermediate tensor and workspace placed by lifetime. The graph must
// have static shapes: a dynamic input dimension or a node that reads a
// run-time value is an error wrapping ErrDynamicWorkspace naming it. It
// plans with the executable's kernels, so it waits for the calls in
// flight and the submitted steps to end, as Run does. A heterogeneous
// executable has no single arena: it answers with an error wrapping
// errors.ErrUnsupported.
func (e *Executable) WorkspaceSize() (int64, error) {
	if err := e.usable("WorkspaceSize"); err != nil {
		return 0, err
	}
	if e.het != nil {
		return 0, fmt.Errorf("pipert: WorkspaceSize: %w for heterogeneous executables", errors.ErrUnsupported)
	}
	unlock := e.quiesce()
	defer unlock()
	n, err := e.act.WorkspaceSize()
	return n, e.wrapErr(err)
}

// quiesce takes the executable's turn and waits for its submitted steps,
// for a call that uses the kernels outside a run; it returns the release.
func (e *Executable) quiesce() (unlock func()) {
	_ = e.smu.lock(context.Background()) // Background never ends: no error
	_ = e.settle(context.Background())
	return e.smu.unlock
}

// UseWorkspace hands the executable a device buffer of the caller's (on
// Device(), at least WorkspaceSize bytes, materialized for real data) as
// the arena of its memory plan (WithCaches with MemoryPlan): runs then
// place every intermediate tensor and workspace in it. The caller frees it
// after Close. A smaller buffer, or one whose contents (Data) are shorter
// than its size, is an error wrapping ErrShortWorkspace; a buffer of
// another device, or one freed, when the device tells (device.Owner), one
// wrapping ErrInvalid; on a heterogeneous executable, or one without the
// memory plan, one wrapping errors.ErrUnsupported. Like WorkspaceSize, it
// waits for the calls in flight and the submitted steps to end.
func (e *Executable) UseWorkspace(buf device.Buffer) error {
	if err := e.usable("UseWorkspace"); err != nil {
		return err
	}
	if e.het != nil {
		return fmt.Errorf("pipert: UseWorkspace: %w for heterogeneous executables", errors.ErrUnsupported)
	}
	if o, ok := e.cfg.Device.(device.Owner); ok && !buf.IsZero() {
		switch mine, err := owns(o, buf); {
		case err != nil:
			return err
		case !mine:
			return fmt.Errorf("pipert: UseWorkspace: %w: buffer [%#x, +%d) is not allocated memory of the executable's device (another device's, or freed)", ErrInvalid, buf.Addr, buf.Size)
		}
	}
	unlock := e.quiesce()
	defer unlock()
	return e.wrapErr(e.act.UseWorkspace(buf))
}

// owns asks a device whether buf is its memory; its panic is an error
// matching ErrPanic.
func owns(o device.Owner, buf device.Buffer) (mine bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("pipert: UseWorkspace: device: %w", &actor.PanicError{Value: p, Stack: debug.Stack()})
		}
	}()
	return o.Owns(buf), nil
}

// aliased reports output d (named name) sharing its tensor, any byte of
// its buffer or any dimension of its shape (up to their capacities, which
// the run may fill) with a later output (of names) or with an input: the
// run would write one result over another, or over its own operands.
func aliased(name string, d *kernel.Tensor, names []string, outputs, inputs map[string]*kernel.Tensor) error {
	full, shape := d.Host[:cap(d.Host)], dimBytes(d.Shape[:cap(d.Shape)])
	for _, o := range names {
		if t := outputs[o]; t != nil && (t == d || overlap(full, t.Host[:cap(t.Host)])) {
			return fmt.Errorf("pipert: run: %w: outputs %q and %q share their tensor or contents", ErrBadOutput, name, o)
		} else if t != nil && overlap(shape, dimBytes(t.Shape[:cap(t.Shape)])) {
			return fmt.Errorf("pipert: run: %w: outputs %q and %q share their Shape slice", ErrBadOutput, name, o)
		}
	}
	for in, t := range inputs {
		if t != nil && (t == d || overlap(full, t.Host)) {
			return fmt.Errorf("pipert: run: %w: output %q shares its tensor or contents with input %q", ErrBadOutput, name, in)
		} else if t != nil && overlap(shape, dimBytes(t.Shape)) {
			return fmt.Errorf("pipert: run: %w: output %q shares its Shape slice with input %q", ErrBadOutput, name, in)
		}
	}
	return nil
}

// dimBytes is the memory of dims, as bytes.
func dimBytes(dims kernel.Shape) []byte {
	if len(dims) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dims))), len(dims)*8)
}

// overlap reports whether byte slices a and b share memory.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// wrapErr wraps a failure outside a run; a lower layer's "closed" also
// matches ErrClosed.
func (e *Executable) wrapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, actor.ErrClosed):
		return fmt.Errorf("pipert: %w (%w)", ErrClosed, err)
	}
	return fmt.Errorf("pipert: %w", err)
}

// runErr wraps a run's failure; a lower layer's "closed" also matches
// ErrClosed.
func (e *Executable) runErr(err error) error {
	if errors.Is(err, actor.ErrClosed) || errors.Is(err, heterog.ErrClosed) {
		return fmt.Errorf("pipert: run: %w (%w)", ErrClosed, err)
	}
	return fmt.Errorf("pipert: run: %w", err)
}

func (e *Executable) hasInput(name string) bool {
	for _, v := range e.g.Inputs {
		if v.Name == name {
			return true
		}
	}
	return false
}

// unknownInput is the error of a run given an input the graph does not
// take: it says when the name is one of the graph's constants (an ONNX
// initializer listed among the model's inputs is imported as one).
func (e *Executable) unknownInput(op, name string) error {
	for _, c := range e.g.Consts {
		if c.Name == name {
			return fmt.Errorf("pipert: %s: %w: unknown input %q: it is a constant of the graph (an ONNX initializer listed among the model's inputs is imported as one: give its value at import with onnx.Options.Values, or remove the initializer from the model to feed it at every run)", op, ErrBadInput, name)
		}
	}
	return fmt.Errorf("pipert: %s: %w: unknown input %q", op, ErrBadInput, name)
}

// Close releases the device memory the executable holds, once the calls
// in flight have returned. Runs after Close fail with ErrClosed; closing
// twice is a no-op. Close must not be called from the executable's own
// kernels, factories or device observers: it would wait for the call it
// is part of.
func (e *Executable) Close() error {
	if !e.compiled() {
		return fmt.Errorf("pipert: close: %w: executable not made by Compile", ErrInvalid)
	}
	var err error
	e.once.Do(func() {
		e.mu.Lock()
		e.done = true
		e.mu.Unlock()
		e.smu.lock(context.Background())
		e.settle(context.Background())
		e.smu.unlock()
		if e.het != nil {
			err = errors.Join(e.het.Close(), e.mgr.Release())
			if err == nil {
				// Release waited for every part a cancelled run left
				// running: their actors are being closed, their
				// device memory freed.
				<-e.het.Ended()
			}
			if e.cpuObs != nil {
				// Parts a cancelled run left running may still trace on
				// the CPU device: its tracks close when they return.
				select {
				case <-e.het.Ended():
					e.cpuObs.Close()
				default:
					go func() {
						<-e.het.Ended()
						e.cpuObs.Close()
					}()
				}
			}
		} else {
			err = e.act.Close()
			if e.second != nil {
				err = errors.Join(err, e.second.Close())
			}
		}
		if e.runners != nil {
			e.runners.Release()
		}
	})
	return err
}

// ImportOption sets a field of the onnx.Options LoadONNX uses.
type ImportOption func(*onnx.Options)

// WithInputShape fixes the dimensions of graph input name at import, so
// that the shape computations that follow from it fold.
func WithInputShape(name string, dims ...int64) ImportOption {
	dims = slices.Clone(dims)
	return func(o *onnx.Options) {
		if o.Shapes == nil {
			o.Shapes = map[string][]int64{}
		}
		o.Shapes[name] = dims
	}
}

// WithInputValue fixes graph input name to the value t at import (a sample
// rate, say): it becomes a constant, and what follows from it folds.
func WithInputValue(name string, t *kernel.Tensor) ImportOption {
	return func(o *onnx.Options) {
		if o.Values == nil {
			o.Values = map[string]*kernel.Tensor{}
		}
		o.Values[name] = t
	}
}

// WithOutputs takes the named tensors as the graph's outputs instead of
// the model's: graph outputs or any tensor the model computes (the
// probabilities before a scikit-learn classifier's ZipMap, a layer's
// activation). Only the nodes they need are imported (onnx.Options.Outputs).
func WithOutputs(names ...string) ImportOption {
	return func(o *onnx.Options) { o.Outputs = append([]string{}, names...) }
}

// LoadONNX reads the ONNX model in file path and imports it as a graph to
// Compile (see package onnx for what is folded at import and what is
// refused). Errors name the node, op and opset at fault.
func LoadONNX(path string, opts ...ImportOption) (*subgraph.Graph, error) {
	var o onnx.Options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	g, err := onnx.ImportFile(path, o)
	if err != nil {
		return nil, fmt.Errorf("pipert: %w", err)
	}
	return g, nil
}

// Modes lists the execution modes, KBK first.
func Modes() []Mode { return plan.Modes() }

// ParseMode returns the mode called s ("kbk", "async", "pipeline",
// "replay"); another name is an error wrapping ErrConfig.
func ParseMode(s string) (Mode, error) { return plan.ParseMode(s) }
