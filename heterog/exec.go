package heterog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/sync/ready"
	"github.com/pipert/pipert/trace"
)

// Schedule selects how an Executable runs the placed graph.
type Schedule = plan.Schedule

// Schedules.
const (
	Concurrent = plan.Concurrent
	Serial     = plan.Serial
)

// Executable is a graph compiled for the CPU and the accelerator of a
// Manager. Runs are serialised; Close ends it.
type Executable struct {
	flowBase uint64 // trace flow id base of the current run's edges
	cfg      plan.Config
	mgr      *Manager
	mem      actor.Memory // the accelerator memory of every actor
	g        *subgraph.Graph
	place    []subgraph.Placement
	cpu      *host.Device
	accel    device.Device
	consts   map[string]*kernel.Tensor
	// outAt locates each graph output: output out of part part, or a graph
	// input or constant passed through (part -1).
	outAt []source

	// Concurrent.
	part  *subgraph.Partitioning
	parts []partRun
	sched *scheduler
	// Serial.
	single *actor.SuperKernelActor

	mu     sync.Mutex // serialises runs and Close
	closed bool
	ended  chan struct{} // closed when Close has closed every part
	// numbered counts the calls of Run (or is the number RunNumbered was
	// last given); runs is the number of the run in progress
	// (kernel.Args.Run of every part's kernels) and seq carries it to the
	// actor runs without a Feed of their own. runs and seq are written
	// only once the parts of an earlier, cancelled run have returned
	// (they read them).
	numbered uint64
	runs     uint64
	seq      actor.Feed
	// Per run: written by the task of a part, read by the scheduler and
	// the tasks after it (see scheduler).
	inputs map[string]*kernel.Tensor
	outs   [][]*kernel.Tensor // by part
	stats  []plan.Stats       // by part
	span   []plan.Span        // by part: its activation
	xfer   []time.Duration    // by part: modeled transfers waited for
	start  int64              // the current run's start
	// begun and done mark, by edge, a traced run's flows begun at
	// their producer's activation and ended at their consumer's: a
	// failed run ends the others (see abandon).
	begun, done []bool
	began       []int64 // by part: when its activation began
	abandoned   trace.Name
	// unended is set when a traced run returned with parts still
	// running: once they have returned, abandon ends its flows.
	unended bool
}

// partRun is a part compiled to an actor.
type partRun struct {
	act     *actor.SuperKernelActor
	onAccel bool
	src     []source         // by actor input
	ins     []*kernel.Tensor // by actor input, reused run after run
	// leaving lists the output positions other parts read.
	leaving []int
	// track records the part's activations when tracing, with a flow per
	// cross-part edge from the producer's activation to the consumer's;
	// edgesIn and edgesOut index Partitioning.Edges.
	track             *trace.Track
	name              trace.Name
	edgesIn, edgesOut []int
	// Per-tensor hand-over: the part's feed, and a cell per output other
	// parts read (nil elsewhere), set as soon as its producer completed.
	feed  actor.Feed
	cells []*cell
	// xferIn and xferOut are the modeled transfers of virtual tensors the
	// part waited for, written by its goroutine 0 and its publisher.
	xferIn, xferOut atomic.Int64
	// lastAwait is when the part last received an input from another
	// part (goroutine 0 of its actor only): its trace flows end there.
	lastAwait int64
	ready     trace.Name
}

// cell is one cross-part tensor of a per-tensor run. Its producer's
// publisher sets t and then ready; its consumers wait for ready. Cells are
// reset when a run begins, when nothing waits on them.
type cell struct {
	ready ready.Flag
	t     *kernel.Tensor
}

// edgeFlows hands out the trace flow ids of cross-part edges, one per edge
// and run; the high bit keeps them apart from the actors' kernel flows.
var edgeFlows atomic.Uint64

const edgeFlowBit = 1 << 62

// source is where an actor input comes from: a graph input (part -1) or
// output out of part part.
type source struct {
	name      string
	part, out int
}

// Compile validates g, places its nodes with cfg.Placement (nil: Labels)
// and builds the actors that run it on the devices of m (nil: Devices(), or
// a new manager of cfg.Device when that is set); constants are uploaded
// now. The device parts run in cfg's mode and barrier policy (Mode zero:
// Pipeline); CPU parts run kernel by kernel.
func Compile(g *subgraph.Graph, cfg plan.Config, m *Manager) (*Executable, error) {
	return CompileContext(context.Background(), g, cfg, m)
}

// CompileContext is Compile waiting for the constants' upload only as long
// as ctx lets it: when ctx ends first, what was uploaded is freed and the
// error wraps ctx.Err().
func CompileContext(ctx context.Context, g *subgraph.Graph, cfg plan.Config, m *Manager) (*Executable, error) {
	if ctx == nil {
		return nil, fmt.Errorf("heterog: compile: %w: nil context", ErrInvalid)
	}
	if m != nil && !m.made() {
		return nil, fmt.Errorf("heterog: compile: %w: manager not made by NewManager", ErrInvalid)
	}
	if cfg.Placement == nil {
		cfg.Placement = Labels()
	}
	if m == nil {
		if cfg.Device != nil {
			var err error
			if m, err = NewManager(nil, cfg.Device); err != nil {
				return nil, err
			}
		} else {
			m = Devices()
		}
	}
	if cfg.Device == nil {
		cfg.Device = m.Accelerator()
	}
	if cfg.Device != m.Accelerator() {
		return nil, fmt.Errorf("heterog: compile: %w: Device %s is not the manager's accelerator %s", plan.ErrConfig, cfg.Device.Name(), m.Accelerator().Name())
	}
	cfg, err := cfg.Check()
	if err != nil {
		return nil, err
	}
	if len(cfg.Virtual) > 0 {
		if _, ok := m.Accelerator().(host.Mapper); !ok {
			return nil, fmt.Errorf("heterog: compile: %w: Virtual operators %v need a host-mapped device, and %s is not: %w", plan.ErrConfig, cfg.Virtual, m.Accelerator().Name(), ErrNotHostMapped)
		}
	}
	c, err := subgraph.Validate(g, cfg.Registry)
	if err != nil {
		return nil, fmt.Errorf("heterog: compile: %w", err)
	}
	e := &Executable{cfg: cfg, mgr: m, g: g, cpu: m.CPU(), accel: m.Accelerator(), consts: make(map[string]*kernel.Tensor), ended: make(chan struct{})}
	for _, k := range g.Consts {
		if slices.Contains(g.Outputs, k.Name) {
			// A constant passed through to the outputs: the executable
			// keeps its own, as the actors keep theirs on the device.
			e.consts[k.Name] = &kernel.Tensor{DType: k.Tensor.DType, Shape: k.Tensor.Shape.Clone(), Host: slices.Clone(k.Tensor.Host)}
		}
	}
	e.place, err = e.placeNodes(c)
	if err != nil {
		return nil, fmt.Errorf("heterog: compile: %w", err)
	}
	if len(e.place) != len(g.Nodes) {
		return nil, fmt.Errorf("heterog: compile: %w: policy placed %d of %d nodes", plan.ErrConfig, len(e.place), len(g.Nodes))
	}
	for i, p := range e.place {
		if p != subgraph.OnCPU && p != subgraph.OnDevice {
			return nil, fmt.Errorf("heterog: compile: %w: policy placed node %q on %v", plan.ErrConfig, g.Nodes[i].Name, p)
		}
	}
	returned := false
	defer func() {
		if !returned {
			e.Close() // a device's runtime.Goexit: free the parts compiled
		}
	}()
	if err := e.compileParts(ctx, c); err != nil {
		e.Close()
		returned = true
		return nil, err
	}
	returned = true
	return e, nil
}

// compileParts builds the actors of the configured schedule; a panic of
// the device's code is the error.
func (e *Executable) compileParts(ctx context.Context, c *subgraph.Checked) (err error) {
	defer devicePanic("compile", &err)
	if e.cfg.Schedule == Serial {
		return e.compileSerial(ctx, c)
	}
	return e.compileConcurrent(ctx, c)
}

// devicePanic turns a panic of the device's code on the calling goroutine
// into the error *err of operation op; use as `defer devicePanic(op, &err)`.
func devicePanic(op string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("heterog: %s: device: %w", op, &actor.PanicError{Value: p, Stack: debug.Stack()})
	}
}

// deviceStats reads the statistics of both devices.
func (e *Executable) deviceStats() (ds, hs device.Stats, err error) {
	defer devicePanic("run", &err)
	return e.accel.Stats(), e.cpu.Stats(), nil
}

// placeNodes runs the placement policy under recover: it is user code.
// The policy gets a copy of c, so that what it changes in the graph, the
// order or the shapes changes nothing the executable runs.
func (e *Executable) placeNodes(c *subgraph.Checked) (pl []subgraph.Placement, err error) {
	defer func() {
		if p := recover(); p != nil {
			pl, err = nil, fmt.Errorf("placement policy: %w: %v\n\n%s", kernel.ErrPanic, p, debug.Stack())
		}
	}()
	view := &subgraph.Checked{Graph: c.Graph.Clone(), Order: slices.Clone(c.Order), Kernels: slices.Clone(c.Kernels),
		Producer: maps.Clone(c.Producer), Meta: make(map[string]*kernel.Tensor, len(c.Meta))}
	for _, k := range view.Graph.Consts {
		view.Meta[k.Name] = k.Tensor // the view's own copy (Graph.Clone)
	}
	for name, t := range c.Meta {
		if _, ok := view.Meta[name]; ok {
			continue
		}
		m := *t
		m.Shape, m.Host = t.Shape.Clone(), slices.Clone(t.Host)
		view.Meta[name] = &m
	}
	// A host-cost hook that fails (a panic, an invalid cost) fails the
	// placement: the policy gets zero costs meanwhile (Target.Cost has no
	// error), and the first failure is reported once it returns.
	var (
		mu      sync.Mutex
		costErr error
	)
	pl, err = e.cfg.Placement.Place(view, Target{CPU: e.cpu, Accelerator: e.accel, Cost: func(n plan.Node) plan.Costs {
		cs, err := e.cfg.CostOf(n)
		if err != nil {
			mu.Lock()
			if costErr == nil {
				costErr = err
			}
			mu.Unlock()
			return plan.Costs{}
		}
		return cs
	}})
	mu.Lock()
	defer mu.Unlock()
	if err == nil && costErr != nil {
		return nil, fmt.Errorf("placement policy: pricing nodes: %w", costErr)
	}
	return pl, err
}

// costs returns the pricing of c's nodes as placed by place(i).
func (e *Executable) costs(c *subgraph.Checked, onCPU func(i int) bool) func(i int) (plan.Costs, error) {
	return func(i int) (plan.Costs, error) {
		n := c.Graph.Nodes[i]
		return e.cfg.CostOf(plan.Node{Name: n.Name, Op: n.Op, OnCPU: onCPU(i)})
	}
}

// wrap returns a node's kernel in a nodeKernel, made a virtual operator
// when the node is one: an op named in Options.Virtual placed on the
// device. Its host computation goes to *hs, a host stream made on first
// need and shared by the nodes of one actor (one launching goroutine).
func (e *Executable) wrap(k kernel.Kernel, op string, p subgraph.Placement, hs *device.Stream) *nodeKernel {
	nk := newNodeKernel(k)
	if p == subgraph.OnDevice && slices.Contains(e.cfg.Virtual, op) {
		nk.cpu = &onHost{stream: e.hostStream(hs), virtual: true}
	}
	return nk
}

// hostStream returns *hs, made first if nil.
func (e *Executable) hostStream(hs *device.Stream) device.Stream {
	if *hs == nil {
		*hs = e.cpu.NewStream()
	}
	return *hs
}

// traceName is the trace name of an actor of the executable.
func (e *Executable) traceName(name string) string {
	if e.cfg.TraceName != "" {
		return e.cfg.TraceName + " " + name
	}
	return name
}

func (e *Executable) compileConcurrent(ctx context.Context, c *subgraph.Checked) error {
	part, err := subgraph.Partition(c, func(i int) subgraph.Placement { return e.place[i] },
		func(p subgraph.Placement) bool { return p == subgraph.OnCPU })
	if err != nil {
		return fmt.Errorf("heterog: compile: %w", err)
	}
	if e.cfg.Barrier == plan.PerTensor {
		// Parts hand their tensors over one by one: the accelerator's
		// parts merge into as few as stay acyclic.
		if part, err = part.Merged(c, func(p subgraph.Placement) bool { return p != subgraph.OnCPU }); err != nil {
			return fmt.Errorf("heterog: compile: %w", err)
		}
	}
	e.part = part
	n := len(part.Parts)
	e.parts = make([]partRun, n)
	e.outs = make([][]*kernel.Tensor, n)
	e.stats = make([]plan.Stats, n)
	e.span = make([]plan.Span, n)
	e.xfer = make([]time.Duration, n)
	succ := make([][]int, n)
	group := make([]int, n)
	var nCPU, nAccel int
	for _, pt := range part.Parts {
		if pt.Placement == subgraph.OnCPU {
			nCPU++
		} else {
			nAccel++
		}
	}
	// CPU parts compute on the processors: more of them at once than there
	// are processors would only share the processors and delay them all.
	var slots []groupSlot
	cpuSlot, accelSlot := -1, -1
	if nCPU > 0 {
		size := min(nCPU, cpuLimit*runtime.GOMAXPROCS(0))
		g, err := e.mgr.Group(e.cpu, size)
		if err != nil {
			return err
		}
		cpuSlot, slots = len(slots), append(slots, groupSlot{g: g, limit: size})
	}
	if nAccel > 0 {
		g, err := e.mgr.Group(e.accel, nAccel)
		if err != nil {
			return err
		}
		accelSlot, slots = len(slots), append(slots, groupSlot{g: g, limit: nAccel})
	}
	for _, ed := range part.Edges {
		if !slices.Contains(succ[ed.From], ed.To) {
			succ[ed.From] = append(succ[ed.From], ed.To)
		}
		lv := &e.parts[ed.From].leaving
		if o := slices.Index(part.Parts[ed.From].Graph.Outputs, ed.Tensor); !slices.Contains(*lv, o) {
			*lv = append(*lv, o)
		}
	}
	for k, pt := range part.Parts {
		pc, err := subgraph.Validate(pt.Graph, e.cfg.Registry)
		if err != nil {
			return fmt.Errorf("heterog: compile: part %d: %w", k, err)
		}
		pr := &e.parts[k]
		onCPU := pt.Placement == subgraph.OnCPU
		ao := actor.Options{Name: e.traceName(pt.Graph.Name), Costs: e.costs(pc, func(int) bool { return onCPU })}
		if onCPU {
			ao.Device, ao.Memory, group[k] = e.cpu, new(actor.Memory), cpuSlot
			// CPU parts compute in their launch: kernel by kernel, yielding
			// after each so that device actors' stages keep running.
			ao.Plan = plan.Plan{Mode: plan.KBK, Barrier: e.cfg.Barrier, YieldAfterLaunch: true}
		} else {
			pr.onAccel = true
			ao.Device, ao.Memory, group[k] = e.accel, &e.mem, accelSlot
			var hs device.Stream
			for i, nd := range pt.Graph.Nodes {
				if nk := e.wrap(pc.Kernels[i], nd.Op, pt.Placement, &hs); nk.cpu != nil {
					pc.Kernels[i] = nk
				}
			}
		}
		if pr.act, err = actor.NewContext(ctx, pc, e.cfg, ao); err != nil {
			return fmt.Errorf("heterog: compile: part %d: %w", k, err)
		}
		pr.src = make([]source, len(pt.Graph.Inputs))
		pr.ins = make([]*kernel.Tensor, len(pt.Graph.Inputs))
		for j, v := range pt.Graph.Inputs {
			s := source{name: v.Name, part: pt.Sources[j], out: -1}
			if s.part >= 0 {
				s.out = slices.Index(part.Parts[s.part].Graph.Outputs, v.Name)
			}
			pr.src[j] = s
		}
	}
	e.outAt = make([]source, len(e.g.Outputs))
	for i, name := range e.g.Outputs {
		e.outAt[i] = source{name: name, part: -1, out: -1}
		for k, pt := range part.Parts {
			if o := slices.Index(pt.Graph.Outputs, name); o >= 0 {
				e.outAt[i] = source{name: name, part: k, out: o}
				break
			}
		}
	}
	e.sched = newScheduler(succ, group, slots, e.runPart)
	e.sched.goexited = func(k int) error { return e.parts[k].act.Goexited() }
	if e.cfg.Barrier == plan.PerTensor {
		// Parts start when the parts they read from have started, and
		// await each tensor they read as soon as it is produced.
		e.sched.early = true
		for k := range e.parts {
			e.feedPart(k)
		}
	}
	if rec := e.cfg.Trace; rec != nil {
		prefix := e.traceName("part")
		for k := range e.parts {
			pr := &e.parts[k]
			pr.track = rec.Track(fmt.Sprintf("%s %d", prefix, k), trace.SliceTrack, trace.Host)
			pr.name = rec.Intern(fmt.Sprintf("part %d (%v)", k, part.Parts[k].Placement))
			pr.ready = rec.Intern("inputs ready")
		}
		for ei, ed := range part.Edges {
			e.parts[ed.From].edgesOut = append(e.parts[ed.From].edgesOut, ei)
			e.parts[ed.To].edgesIn = append(e.parts[ed.To].edgesIn, ei)
		}
		e.begun, e.done = make([]bool, len(part.Edges)), make([]bool, len(part.Edges))
		e.began = make([]int64, len(e.parts))
		e.abandoned = rec.Intern("abandoned")
	}
	return nil
}

// feedPart makes part k's feed for per-tensor hand-over.
func (e *Executable) feedPart(k int) {
	pr := &e.parts[k]
	prof := e.accel.Profile()
	pr.cells = make([]*cell, len(e.part.Parts[k].Graph.Outputs))
	for _, o := range pr.leaving {
		pr.cells[o] = new(cell)
	}
	pr.feed = actor.Feed{
		Outputs: pr.leaving,
		Await: func(ctx context.Context, j int) (*kernel.Tensor, error) {
			s := pr.src[j]
			c := e.parts[s.part].cells[s.out]
			if err := c.ready.Wait(ctx); err != nil {
				return nil, err
			}
			t := c.t
			pr.lastAwait = clock.Now()
			if t.Host == nil && pr.onAccel {
				d := prof.H2D.Time(t.Bytes())
				pr.xferIn.Add(int64(d))
				if err := pause(ctx, d); err != nil {
					return nil, err
				}
			}
			return t, nil
		},
		Publish: func(o int, t *kernel.Tensor) {
			if t.Host == nil && pr.onAccel {
				d := prof.D2H.Time(t.Bytes())
				pr.xferOut.Add(int64(d))
				pause(e.sched.ctx, d) // a cancelled run's consumers stop anyway
			}
			c := pr.cells[o]
			c.t = t
			c.ready.Set()
		},
	}
}

// runPart runs part k: it gathers the part's inputs, waits for the modeled
// transfers of virtual tensors crossing to or from the accelerator (real
// ones are copied, and their copies modeled, by the actors), and runs the
// part's actor.
func (e *Executable) runPart(ctx context.Context, k int) error {
	pr := &e.parts[k]
	t0 := clock.Now()
	if e.began != nil {
		e.began[k] = t0
	}
	if pr.feed.Await != nil {
		return e.runPartFed(ctx, k, t0)
	}
	prof := e.accel.Profile()
	var xfer time.Duration
	for j, s := range pr.src {
		if s.part < 0 {
			pr.ins[j] = e.inputs[s.name]
			continue
		}
		t := e.outs[s.part][s.out]
		pr.ins[j] = t
		if t.Host == nil && pr.onAccel {
			xfer += prof.H2D.Time(t.Bytes())
		}
	}
	if err := pause(ctx, xfer); err != nil {
		return err
	}
	outs, st, err := pr.act.RunFeed(ctx, pr.ins, &e.seq)
	if err != nil {
		return err
	}
	var back time.Duration
	if pr.onAccel {
		for _, o := range pr.leaving {
			if outs[o].Host == nil {
				back += prof.D2H.Time(outs[o].Bytes())
			}
		}
	}
	if err := pause(ctx, back); err != nil {
		return err
	}
	e.finished(k, outs, st, xfer+back, t0)
	return nil
}

// runPartFed runs part k with per-tensor hand-over: inputs from other
// parts are awaited by the actor when its first reader needs them, and
// the outputs other parts read are published as soon as produced.
func (e *Executable) runPartFed(ctx context.Context, k int, t0 int64) error {
	pr := &e.parts[k]
	for j, s := range pr.src {
		pr.ins[j] = nil
		if s.part < 0 {
			pr.ins[j] = e.inputs[s.name]
		}
	}
	pr.xferIn.Store(0)
	pr.xferOut.Store(0)
	pr.lastAwait = 0
	pr.feed.Seq = e.runs
	outs, st, err := pr.act.RunFeed(ctx, pr.ins, &pr.feed)
	if err != nil {
		return err
	}
	e.finished(k, outs, st, time.Duration(pr.xferIn.Load()+pr.xferOut.Load()), t0)
	return nil
}

// finished records part k's run.
func (e *Executable) finished(k int, outs []*kernel.Tensor, st plan.Stats, xfer time.Duration, t0 int64) {
	pr := &e.parts[k]
	t1 := clock.Now()
	e.outs[k], e.stats[k], e.xfer[k], e.span[k] = outs, st, xfer, plan.Span{Start: t0, End: t1}
	if rec := e.cfg.Trace; pr.track.Enabled() && rec.Hold() {
		// Held: the recorder may be closed while a part goes on (one a
		// cancelled run left running).
		defer rec.Release()
		// The flows of the part's outputs begin at its activation: a
		// part fed tensor by tensor publishes some outputs before its
		// last input arrives, and their consumers may finish before it.
		pr.track.Slice(t0, t1-t0, pr.name)
		for _, ei := range pr.edgesOut {
			pr.track.FlowBegin(e.flowBase + uint64(ei) + 1)
			e.begun[ei] = true
		}
		if pr.feed.Await != nil && len(pr.edgesIn) > 0 {
			// Fed parts start before their inputs exist: the flows of
			// their inputs end when the last one arrived.
			pr.track.Slice(max(pr.lastAwait, t0), 1, pr.ready)
		}
		for _, ei := range pr.edgesIn {
			pr.track.FlowEnd(e.flowBase + uint64(ei) + 1)
			e.done[ei] = true
		}
	}
}

// abandon completes, after a failed traced run (every part done), the
// flows of the edges that only one side recorded, so that no flow of the
// trace dangles: a flow whose producer finished and whose consumer did
// not ends now on an "abandoned" slice of no duration on the consumer's
// track; one whose consumer finished (fed tensor by tensor) and whose
// producer did not begins on such a slice on the producer's track, when
// the producer's activation began. The beginnings are recorded first:
// a part can be the producer of one such edge and the consumer of
// another, and its track's timestamps must not go backwards.
func (e *Executable) abandon() {
	if !e.cfg.Trace.Hold() {
		return // closed: the trace is written
	}
	defer e.cfg.Trace.Release()
	now := clock.Now()
	for ei, ed := range e.part.Edges {
		if e.done[ei] && !e.begun[ei] {
			e.parts[ed.From].track.SliceFlow(e.began[ed.From], 0, e.abandoned, trace.EvFlowBegin, e.flowBase+uint64(ei)+1)
		}
	}
	for ei, ed := range e.part.Edges {
		if e.begun[ei] && !e.done[ei] {
			e.parts[ed.To].track.SliceFlow(now, 0, e.abandoned, trace.EvFlowEnd, e.flowBase+uint64(ei)+1)
		}
	}
}

// collect waits for the parts a cancelled run left running, then ends
// that run's flows if it was traced.
func (e *Executable) collect(ctx context.Context) error {
	if err := e.sched.collect(ctx); err != nil {
		return err
	}
	if e.unended {
		e.unended = false
		e.abandon()
	}
	return nil
}

func (e *Executable) compileSerial(ctx context.Context, c *subgraph.Checked) error {
	g := c.Graph
	_, mapped := e.accel.(host.Mapper)
	prof := e.accel.Profile()
	readByDevice := make(map[string]bool)
	for i, nd := range g.Nodes {
		if e.place[i] == subgraph.OnDevice {
			for _, in := range nd.Inputs {
				readByDevice[in] = true
			}
		}
	}
	// The actor's launch goroutine computes every host node: on one host
	// stream.
	var hs device.Stream
	for i, nd := range g.Nodes {
		p := e.place[i]
		nk := e.wrap(c.Kernels[i], nd.Op, p, &hs)
		if p == subgraph.OnCPU {
			h := &onHost{stream: e.hostStream(&hs), copies: !mapped, d2h: prof.D2H, h2d: prof.H2D,
				fromDevice: make([]bool, len(nd.Inputs)), toDevice: make([]bool, len(nd.Outputs))}
			for j, in := range nd.Inputs {
				if u := c.Producer[in]; u >= 0 && e.place[u] == subgraph.OnDevice {
					h.fromDevice[j] = true
				}
			}
			for j, o := range nd.Outputs {
				h.toDevice[j] = readByDevice[o]
			}
			nk.cpu = h
		}
		c.Kernels[i] = nk
	}
	e.outs = make([][]*kernel.Tensor, 1)
	e.outAt = make([]source, len(g.Outputs))
	for i, name := range g.Outputs {
		e.outAt[i] = source{name: name, part: 0, out: i}
	}
	var err error
	e.single, err = actor.NewContext(ctx, c, e.cfg, actor.Options{Memory: &e.mem, Device: e.accel, Name: e.traceName(g.Name),
		Costs: e.costs(c, func(i int) bool { return e.place[i] == subgraph.OnCPU })})
	if err != nil {
		return fmt.Errorf("heterog: compile: %w", err)
	}
	return nil
}

// Placement returns each node's placement, by node index (nil for a nil
// or zero Executable).
func (e *Executable) Placement() []subgraph.Placement {
	if !e.made() {
		return nil
	}
	return slices.Clone(e.place)
}

// Partitioning returns a copy of the parts of a Concurrent executable
// (nil for Serial, and for a nil or zero Executable): changing it changes
// nothing the executable runs.
func (e *Executable) Partitioning() *subgraph.Partitioning {
	if !e.made() {
		return nil
	}
	return e.part.Clone()
}

// made reports whether e was made by Compile: the methods of a nil or
// zero Executable run nothing.
func (e *Executable) made() bool { return e != nil && e.ended != nil }

// Result is the outcome of one run.
type Result struct {
	// Outputs maps each graph output to a host tensor: real when the run
	// computed on real data, virtual otherwise.
	Outputs map[string]*kernel.Tensor
	// Stats has Heterogeneous set, Mode the device parts' mode, and a row
	// per part (one row for the Serial schedule).
	Stats plan.Stats
}

// ErrClosed is the cause of Run's failure after Close.
var ErrClosed = errors.New("heterog: executable closed")

// ErrInvalid is the cause of a failure on an invalid argument: a nil
// context, a Run of a nil or zero Executable (one not made by Compile),
// a zero Manager (not made by NewManager).
var ErrInvalid = errors.New("heterog: invalid argument")

// Run executes the graph once. Every declared graph input must be given, by
// name; a tensor with Host data runs on real data, a virtual one on shapes.
// The first failure of any part cancels the others and is returned naming
// the part (and, inside, the node); a run that started and failed returns
// a Result with its Stats and no outputs beside the error. A context
// already ended fails the run before it starts. Every call given valid
// inputs is numbered (kernel.Args.Run), failed or not.
func (e *Executable) Run(ctx context.Context, inputs map[string]*kernel.Tensor) (*Result, error) {
	return e.run(ctx, inputs, 0)
}

// RunNumbered is Run with the run's number (kernel.Args.Run, Seed) given
// by the caller, one that numbers its calls itself (pipert's Executable
// numbers its Runs and Submits, in every mode, as they get their turn).
// The next Run's number follows it. Zero numbers the run as Run does.
func (e *Executable) RunNumbered(ctx context.Context, inputs map[string]*kernel.Tensor, run uint64) (*Result, error) {
	return e.run(ctx, inputs, run)
}

func (e *Executable) run(ctx context.Context, inputs map[string]*kernel.Tensor, run uint64) (*Result, error) {
	if !e.made() {
		return nil, fmt.Errorf("heterog: run: %w: executable not made by Compile", ErrInvalid)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	if ctx == nil {
		return nil, fmt.Errorf("heterog: run: %w: nil context", ErrInvalid)
	}
	for _, v := range e.g.Inputs {
		if inputs[v.Name] == nil {
			return nil, fmt.Errorf("heterog: run: %w: missing input %q", subgraph.ErrBadInput, v.Name)
		}
	}
	if len(inputs) != len(e.g.Inputs) {
		for name := range inputs {
			if !slices.ContainsFunc(e.g.Inputs, func(v subgraph.Value) bool { return v.Name == name }) {
				return nil, fmt.Errorf("heterog: run: %w: unknown input %q", subgraph.ErrBadInput, name)
			}
		}
	}
	if run == 0 {
		run = e.numbered + 1
	}
	e.numbered = run
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("heterog: run: %w", err)
	}
	// Parts a cancelled run left running read the per-run state below:
	// they end first.
	if e.sched != nil {
		if err := e.collect(ctx); err != nil {
			return nil, fmt.Errorf("heterog: run: %w", err)
		}
	}
	ds0, hs0, err := e.deviceStats()
	if err != nil {
		return nil, err
	}
	e.mem.ResetPeak()
	st := plan.Stats{Mode: e.cfg.Mode, Barrier: e.cfg.Barrier, Heterogeneous: true, Schedule: e.cfg.Schedule, Procs: runtime.GOMAXPROCS(0)}
	e.start = clock.Now()
	e.runs = run
	e.seq = actor.Feed{Seq: e.runs}
	if e.single != nil {
		err = e.runSerial(ctx, inputs, &st)
	} else {
		err = e.runConcurrent(ctx, inputs, &st)
	}
	st.Makespan = time.Duration(clock.Now() - e.start)
	ds1, hs1, serr := e.deviceStats()
	if err == nil {
		err = serr
	}
	ds, hs := ds1.Sub(ds0), hs1.Sub(hs0)
	// A device of the caller's whose counters go back gives no negative
	// figure (as an actor's run).
	st.DeviceBusy = time.Duration(max(ds.BusyNs, 0))
	st.CPUBusy = time.Duration(max(hs.KernelNs, 0))
	st.PeakDeviceBytes = e.mem.Peak()
	if err != nil {
		return &Result{Stats: st}, err
	}
	r := &Result{Outputs: make(map[string]*kernel.Tensor, len(e.g.Outputs)), Stats: st}
	for _, at := range e.outAt {
		r.Outputs[at.name] = e.output(at, inputs)
	}
	clear(e.outs)
	e.inputs = nil
	return r, nil
}

func (e *Executable) runSerial(ctx context.Context, inputs map[string]*kernel.Tensor, st *plan.Stats) error {
	in := make([]*kernel.Tensor, len(e.g.Inputs))
	for i, v := range e.g.Inputs {
		in[i] = inputs[v.Name]
	}
	outs, as, err := e.single.RunFeed(ctx, in, &e.seq)
	if err != nil {
		return fmt.Errorf("heterog: run: %w", err)
	}
	e.outs[0] = outs
	st.Activations, st.Kernels = 1, as.Kernels
	st.Prepare, st.Infer, st.Resize, st.Launch = as.Prepare, as.Infer, as.Resize, as.Launch
	st.Synthetic, st.Compute = as.Synthetic, as.Compute
	st.Wait, st.Busiest, st.HostWork = as.Wait, as.Busiest, as.HostWork
	st.DeviceWork = as.DeviceWork
	st.Cache, st.Replay, st.Tiling, st.Plan = as.Cache, as.Replay, as.Tiling, as.Plan
	st.Parts = []plan.PartStats{{Mode: as.Mode, Kernels: as.Kernels, End: as.Makespan,
		Prepare: as.Prepare, Infer: as.Infer, Resize: as.Resize, Launch: as.Launch, Wait: as.Wait, Busiest: as.Busiest}}
	return nil
}

func (e *Executable) runConcurrent(ctx context.Context, inputs map[string]*kernel.Tensor, st *plan.Stats) error {
	e.inputs = inputs
	clear(e.xfer)
	clear(e.span)
	for k := range e.parts {
		for _, c := range e.parts[k].cells {
			if c != nil {
				c.ready.Reset()
				c.t = nil
			}
		}
	}
	traced := e.part != nil && e.cfg.Trace.Enabled()
	if traced {
		n := uint64(len(e.part.Edges))
		e.flowBase = (edgeFlows.Add(n) - n) | edgeFlowBit
		clear(e.begun)
		clear(e.done)
	}
	failed, err := e.sched.run(ctx)
	if e.sched.orphans > 0 {
		// Parts ignoring the cancellation still run and own their state:
		// the run's flows are ended once they have returned (collect).
		e.unended = traced
		return fmt.Errorf("heterog: run: %w", err)
	}
	if traced && err != nil {
		e.abandon()
	}
	st.CrossEdges, st.Activations = len(e.part.Edges), e.sched.ran
	st.Parts = make([]plan.PartStats, len(e.parts))
	var lists [][]plan.Span
	for k := range e.parts {
		pr := &e.parts[k]
		as := &e.stats[k]
		st.Kernels += pr.act.Kernels()
		st.Prepare += as.Prepare
		st.Infer += as.Infer
		st.Resize += as.Resize
		st.Launch += as.Launch
		st.Synthetic += as.Synthetic
		st.Compute += as.Compute
		st.Wait += as.Wait
		st.Cache.Add(as.Cache)
		// Replays, tiling copies and memory plans: summed over the
		// parts, but for the replays' launch path, each part's serial
		// on its own goroutine: the longest bounds the run.
		launch := max(st.Replay.Launch, as.Replay.Launch)
		st.Replay.Add(as.Replay)
		st.Replay.Launch = launch
		st.Tiling.Add(as.Tiling)
		st.Plan.Add(as.Plan)
		st.Transfer += e.xfer[k]
		st.Busiest = max(st.Busiest, as.Busiest)
		if pr.onAccel {
			// The busiest of the parts' streams (each part has its own).
			// The device's busy time would count the work of other
			// executables sharing it too.
			st.DeviceWork = max(st.DeviceWork, as.DeviceWork)
		}
		ps := &st.Parts[k]
		*ps = plan.PartStats{Part: k, OnCPU: !pr.onAccel, Mode: pr.act.Mode(), Kernels: pr.act.Kernels(),
			Prepare: as.Prepare, Infer: as.Infer, Resize: as.Resize, Launch: as.Launch, Wait: as.Wait, Busiest: as.Busiest}
		if sp := e.span[k]; sp.End > 0 {
			ps.Start, ps.End = time.Duration(sp.Start-e.start), time.Duration(sp.End-e.start)
			lists = append(lists, pr.act.Spans()...)
		}
	}
	st.HostWork = plan.HostWork(st.Procs, lists...)
	clear(e.stats)
	if err != nil {
		clear(e.outs)
		e.inputs = nil
		if failed < 0 {
			return fmt.Errorf("heterog: run: %w", err)
		}
		pt := e.part.Parts[failed]
		return fmt.Errorf("heterog: run: part %d %q (%v): %w", failed, pt.Graph.Name, pt.Placement, err)
	}
	return nil
}

// output returns a graph output after a successful run.
func (e *Executable) output(at source, inputs map[string]*kernel.Tensor) *kernel.Tensor {
	if at.part >= 0 {
		return e.outs[at.part][at.out]
	}
	// An input or constant of the graph, passed through.
	t, ok := inputs[at.name]
	if !ok {
		t = e.consts[at.name]
	}
	out := &kernel.Tensor{Shape: t.Shape.Clone(), DType: t.DType}
	if t.Host != nil {
		out.Host = slices.Clone(t.Host)
	}
	return out
}

// Close releases the actors' device memory. The worker groups stay with the
// manager. Closing twice, or a nil or zero Executable, is a no-op.
func (e *Executable) Close() error {
	if !e.made() {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	if e.sched != nil && e.sched.orphans > 0 {
		// Parts of a cancelled run ignore the cancellation: close their
		// actors when they return, without making the caller wait.
		go func() {
			e.collect(context.Background())
			e.closeActors()
			close(e.ended)
		}()
		return nil
	}
	err := e.closeActors()
	close(e.ended)
	return err
}

// Ended returns a channel closed once Close has closed every part: when
// Close returns, unless a cancelled run left parts running (they ignore
// their cancellation); then when the last of them returned. Until then
// those parts may still use the devices. A nil or zero Executable's is
// closed: it runs nothing.
func (e *Executable) Ended() <-chan struct{} {
	if !e.made() {
		return closedChan
	}
	return e.ended
}

// closedChan is the Ended channel of an Executable Compile did not make.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (e *Executable) closeActors() error {
	var errs []error
	if e.single != nil {
		errs = append(errs, e.single.Close())
	}
	held := e.cfg.Trace.Hold() // a closed recorder has taken the tracks' chunks
	for k := range e.parts {
		if a := e.parts[k].act; a != nil {
			errs = append(errs, a.Close())
		}
		if held {
			e.parts[k].track.Close() // the recorder keeps no chunk for it
		}
	}
	if held {
		e.cfg.Trace.Release()
	}
	return errors.Join(errs...)
}

// cpuLimit is how many CPU parts run at once per processor. A CPU part
// does not compute all the time it runs (it waits for its inputs, for the
// transfers of its outputs, and under per-tensor hand-over for the parts it
// reads from), so one per processor leaves processors idle: on the hetero
// scenario, 2 cores, 2 per processor took the heterogeneous makespan from
// 3.50 ms to 3.26 ms (drain) and 3.86 ms to 3.44 ms (per-tensor), medians
// of 5 and 7 interleaved runs.
const cpuLimit = 2
