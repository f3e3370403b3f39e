package heterog

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// Schedule selects how an Executable runs the placed graph.
type Schedule uint8

// Schedules.
const (
	// Concurrent partitions the graph into CPU and device parts, one actor
	// each, and runs every part as soon as the parts it reads from are done,
	// on the worker groups of their devices.
	Concurrent Schedule = iota + 1
	// Serial runs the whole graph on one actor on the accelerator, the CPU
	// nodes computed for real on the host inside its Launch stage, in
	// execution order with the device kernels' launches: a runtime with the
	// CPU/device split but a single launch thread. It is the baseline
	// Concurrent is measured against.
	Serial
)

func (s Schedule) String() string {
	switch s {
	case Concurrent:
		return "concurrent"
	case Serial:
		return "serial"
	}
	return fmt.Sprintf("Schedule(%d)", uint8(s))
}

// Options configure Compile. The zero value is valid: concurrent parts
// placed by their labels, device parts in the Pipeline mode with per-tensor
// barriers, no synthetic host cost, the built-in ops, the process-wide
// devices.
type Options struct {
	Schedule Schedule // zero means Concurrent
	Policy   Policy   // zero means Labels()
	// Mode and Barrier are the actor mode and barrier policy of device
	// parts (zero: actor.Pipeline and actor.PerTensor), and of the one
	// actor of the Serial schedule. CPU parts run kernel by kernel: their
	// launch is the computation itself.
	Mode          actor.Mode
	Barrier       actor.Policy
	QueueCapacity int // of the device actors' stage queues (0: actor's default)
	// Costs are the synthetic host costs of a kernel placed on the
	// accelerator. CPUCosts are those of a kernel placed on the CPU; nil
	// means Costs' Prepare and Infer (a CPU kernel is prepared and inferred
	// like any other, needs no tiling for the device, and its launch is its
	// computation). Under Serial, every kernel pays Costs.Prepare.
	Costs    actor.Costs
	CPUCosts *actor.Costs
	Registry *kernel.Registry // nil means ops.Builtins()
	Manager  *Manager         // nil means Devices()
	// Virtual names ops that are virtual operators: placed on the
	// accelerator, they are computed by the CPU in place, over host-mapped
	// device memory. The accelerator must be host-mapped (host.Map).
	Virtual []string
	// Seed varies the results modeled on virtual data; Trace and Name
	// record every actor's stages (see actor.Options).
	Seed  uint64
	Trace *trace.Recorder
	Name  string
}

func (o *Options) fill() error {
	if o.Schedule == 0 {
		o.Schedule = Concurrent
	}
	if o.Schedule != Concurrent && o.Schedule != Serial {
		return fmt.Errorf("heterog: invalid schedule %d", o.Schedule)
	}
	if o.Policy == nil {
		o.Policy = Labels()
	}
	if o.Mode == 0 {
		o.Mode = actor.Pipeline
	}
	if o.Barrier == 0 {
		o.Barrier = actor.PerTensor
	}
	if o.CPUCosts == nil {
		o.CPUCosts = &actor.Costs{Prepare: o.Costs.Prepare, Infer: o.Costs.Infer}
	}
	for _, c := range []actor.Costs{o.Costs, *o.CPUCosts} {
		if c.Prepare < 0 || c.Infer < 0 || c.Resize < 0 || c.Launch < 0 {
			return fmt.Errorf("heterog: negative synthetic host cost %+v", c)
		}
	}
	if o.Registry == nil {
		o.Registry = ops.Builtins()
	}
	if o.Manager == nil {
		o.Manager = Devices()
	}
	for _, op := range o.Virtual {
		if !o.Registry.Has(op) {
			return fmt.Errorf("heterog: virtual operator %q is not a registered op", op)
		}
	}
	if len(o.Virtual) > 0 {
		if _, ok := o.Manager.Accelerator().(host.Mapper); !ok {
			return fmt.Errorf("heterog: virtual operators on %s: %w", o.Manager.Accelerator().Name(), ErrNotHostMapped)
		}
	}
	return nil
}

// Executable is a graph compiled for the CPU and the accelerator of a
// Manager. Runs are serialised; Close ends it.
type Executable struct {
	flowBase uint64 // trace flow id base of the current run's edges
	opt      Options
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
	// Per run: written by the task of a part, read by the scheduler and
	// the tasks after it (see scheduler).
	inputs map[string]*kernel.Tensor
	outs   [][]*kernel.Tensor // by part
	stats  []actor.Stats      // by part
	xfer   []time.Duration    // by part: modeled transfers waited for
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

// shared is a device that several actors use at once. An actor restarts its
// device's accounting when its run starts; through shared it does not, and
// the executable accounts for the whole run instead.
type shared struct{ device.Device }

func (shared) ResetStats() {}

// Compile validates g, places its nodes with the policy and builds the
// actors that run it; constants are uploaded now.
func Compile(g *subgraph.Graph, opt Options) (*Executable, error) {
	if err := opt.fill(); err != nil {
		return nil, err
	}
	c, err := subgraph.Validate(g, opt.Registry)
	if err != nil {
		return nil, fmt.Errorf("heterog: compile: %w", err)
	}
	e := &Executable{opt: opt, g: g, cpu: opt.Manager.CPU(), accel: opt.Manager.Accelerator(), consts: make(map[string]*kernel.Tensor)}
	for _, k := range g.Consts {
		e.consts[k.Name] = k.Tensor
	}
	e.place, err = opt.Policy.Place(c, Target{CPU: e.cpu, Accelerator: e.accel, Costs: opt.Costs, CPUCosts: *opt.CPUCosts})
	if err != nil {
		return nil, fmt.Errorf("heterog: compile: %w", err)
	}
	if len(e.place) != len(g.Nodes) {
		return nil, fmt.Errorf("heterog: compile: policy placed %d of %d nodes", len(e.place), len(g.Nodes))
	}
	for i, p := range e.place {
		if p != subgraph.OnCPU && p != subgraph.OnDevice {
			return nil, fmt.Errorf("heterog: compile: policy placed node %q on %v", g.Nodes[i].Name, p)
		}
	}
	if opt.Schedule == Serial {
		err = e.compileSerial(c)
	} else {
		err = e.compileConcurrent(c)
	}
	if err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// wrap returns a node's kernel in a nodeKernel, made a virtual operator
// when the node is one: an op named in Options.Virtual placed on the
// device.
func (e *Executable) wrap(k kernel.Kernel, op string, p subgraph.Placement) *nodeKernel {
	nk := &nodeKernel{Kernel: k}
	if p == subgraph.OnDevice && slices.Contains(e.opt.Virtual, op) {
		nk.cpu = &onHost{stream: e.cpu.NewStream(), virtual: true}
	}
	return nk
}

func (e *Executable) actorOptions(mode actor.Mode, costs actor.Costs, name string) actor.Options {
	if e.opt.Name != "" {
		name = e.opt.Name + " " + name
	}
	return actor.Options{Mode: mode, Policy: e.opt.Barrier, QueueCapacity: e.opt.QueueCapacity, Costs: costs,
		Seed: e.opt.Seed, Trace: e.opt.Trace, Name: name}
}

func (e *Executable) compileConcurrent(c *subgraph.Checked) error {
	part, err := subgraph.Partition(c, func(i int) subgraph.Placement { return e.place[i] },
		func(p subgraph.Placement) bool { return p == subgraph.OnCPU })
	if err != nil {
		return fmt.Errorf("heterog: compile: %w", err)
	}
	e.part = part
	n := len(part.Parts)
	e.parts = make([]partRun, n)
	e.outs = make([][]*kernel.Tensor, n)
	e.stats = make([]actor.Stats, n)
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
		size := min(nCPU, runtime.GOMAXPROCS(0))
		g, err := e.opt.Manager.Group(e.cpu, size)
		if err != nil {
			return err
		}
		cpuSlot, slots = len(slots), append(slots, groupSlot{g: g, limit: size})
	}
	if nAccel > 0 {
		g, err := e.opt.Manager.Group(e.accel, nAccel)
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
		pc, err := subgraph.Validate(pt.Graph, e.opt.Registry)
		if err != nil {
			return fmt.Errorf("heterog: compile: part %d: %w", k, err)
		}
		pr := &e.parts[k]
		var dev device.Device
		var ao actor.Options
		if pt.Placement == subgraph.OnCPU {
			dev, group[k] = shared{e.cpu}, cpuSlot
			ao = e.actorOptions(actor.KBK, *e.opt.CPUCosts, pt.Graph.Name)
		} else {
			pr.onAccel = true
			dev, group[k] = shared{e.accel}, accelSlot
			ao = e.actorOptions(e.opt.Mode, e.opt.Costs, pt.Graph.Name)
			for i, nd := range pt.Graph.Nodes {
				if nk := e.wrap(pc.Kernels[i], nd.Op, pt.Placement); nk.cpu != nil {
					pc.Kernels[i] = nk
				}
			}
		}
		if pr.act, err = actor.New(pc, dev, ao); err != nil {
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
	if rec := e.opt.Trace; rec != nil {
		prefix := "part"
		if e.opt.Name != "" {
			prefix = e.opt.Name + " part"
		}
		for k := range e.parts {
			pr := &e.parts[k]
			pr.track = rec.Track(fmt.Sprintf("%s %d", prefix, k), trace.SliceTrack, trace.Host)
			pr.name = rec.Intern(fmt.Sprintf("part %d (%v)", k, part.Parts[k].Placement))
		}
		for ei, ed := range part.Edges {
			e.parts[ed.From].edgesOut = append(e.parts[ed.From].edgesOut, ei)
			e.parts[ed.To].edgesIn = append(e.parts[ed.To].edgesIn, ei)
		}
	}
	return nil
}

// runPart runs part k: it gathers the part's inputs, waits for the modeled
// transfers of virtual tensors crossing to or from the accelerator (real
// ones are copied, and their copies modeled, by the actors), and runs the
// part's actor.
func (e *Executable) runPart(ctx context.Context, k int) error {
	pr := &e.parts[k]
	t0 := device.Now()
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
	outs, st, err := pr.act.Run(ctx, pr.ins)
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
	e.outs[k], e.stats[k], e.xfer[k] = outs, st, xfer+back
	if pr.track.Enabled() {
		pr.track.Slice(t0, device.Now()-t0, pr.name)
		for _, ei := range pr.edgesIn {
			pr.track.FlowEnd(e.flowBase + uint64(ei) + 1)
		}
		for _, ei := range pr.edgesOut {
			pr.track.FlowBegin(e.flowBase + uint64(ei) + 1)
		}
	}
	return nil
}

func (e *Executable) compileSerial(c *subgraph.Checked) error {
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
	for i, nd := range g.Nodes {
		p := e.place[i]
		nk := e.wrap(c.Kernels[i], nd.Op, p)
		costs := e.opt.Costs
		if p == subgraph.OnCPU {
			costs = *e.opt.CPUCosts
			h := &onHost{stream: e.cpu.NewStream(), copies: !mapped, d2h: prof.D2H, h2d: prof.H2D,
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
		nk.infer, nk.resize, nk.launch = costs.Infer, costs.Resize, costs.Launch
		c.Kernels[i] = nk
	}
	e.outs = make([][]*kernel.Tensor, 1)
	e.outAt = make([]source, len(g.Outputs))
	for i, name := range g.Outputs {
		e.outAt[i] = source{name: name, part: 0, out: i}
	}
	var err error
	e.single, err = actor.New(c, shared{e.accel}, e.actorOptions(e.opt.Mode, actor.Costs{Prepare: e.opt.Costs.Prepare}, g.Name))
	if err != nil {
		return fmt.Errorf("heterog: compile: %w", err)
	}
	return nil
}

// Placement returns each node's placement, by node index.
func (e *Executable) Placement() []subgraph.Placement { return slices.Clone(e.place) }

// Partitioning returns the parts of a Concurrent executable (nil for Serial).
func (e *Executable) Partitioning() *subgraph.Partitioning { return e.part }

// Result is the outcome of one run.
type Result struct {
	// Outputs maps each graph output to a host tensor: real when the run
	// computed on real data, virtual otherwise.
	Outputs map[string]*kernel.Tensor
	Stats   Stats
}

// Stats describe one run. The devices' accounting restarts when a run
// starts: the device figures of runs of several executables on the same
// devices at once are mixed.
type Stats struct {
	Schedule Schedule
	Makespan time.Duration
	Kernels  int
	// Parts is the number of actors, CPUParts those on the CPU, CrossEdges
	// the tensors handed between parts, Activations the parts run.
	Parts, CPUParts, CrossEdges, Activations int
	// Stage is the host busy time of each stage summed over the actors,
	// indexed by kernel.Stage; a CPU kernel's launch is its computation.
	Stage [kernel.StageLaunch + 1]time.Duration
	// Busiest is the host work of the busiest goroutine of any actor: the
	// largest stage of a Pipeline actor, the launch stage or the rest of an
	// Async one, the whole of a KBK one. No schedule beats it.
	Busiest time.Duration
	// Wait is host time blocked on value and compute barriers; Transfer the
	// modeled transfers of virtual tensors between parts waited for.
	Wait, Transfer time.Duration
	// DeviceBusy is the accelerator's modeled busy time; CPUBusy the time
	// of the kernels run on the host (their real computation).
	DeviceBusy, CPUBusy time.Duration
	// PeakDeviceBytes is the accelerator's memory high-water mark.
	PeakDeviceBytes int64
}

// HostBusy is the host work of all stages of all actors.
func (s *Stats) HostBusy() time.Duration {
	var t time.Duration
	for _, d := range s.Stage {
		t += d
	}
	return t
}

// Bound is the makespan no schedule can beat with procs processors: the
// accelerator's busy time, the busiest goroutine's work, and the total host
// work (CPU kernels included) spread over every processor.
func (s *Stats) Bound(procs int) time.Duration {
	return max(s.DeviceBusy, s.Busiest, s.HostBusy()/time.Duration(max(procs, 1)))
}

// Efficiency is Bound(procs) / Makespan.
func (s *Stats) Efficiency(procs int) float64 {
	if s.Makespan <= 0 {
		return 0
	}
	return float64(s.Bound(procs)) / float64(s.Makespan)
}

// busiest is the work of an actor's busiest goroutine.
func busiest(st *actor.Stats) time.Duration {
	p, i, r, l := st.Stage[kernel.StagePrepare], st.Stage[kernel.StageInfer], st.Stage[kernel.StageResize], st.Stage[kernel.StageLaunch]
	switch st.Mode {
	case actor.Pipeline:
		return max(p, i, r, l)
	case actor.Async:
		return max(p+i+r, l)
	}
	return p + i + r + l
}

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("heterog: executable closed")

// Run executes the graph once. Every declared graph input must be given, by
// name; a tensor with Host data runs on real data, a virtual one on shapes.
// The first failure of any part cancels the others and is returned naming
// the part (and, inside, the node).
func (e *Executable) Run(ctx context.Context, inputs map[string]*kernel.Tensor) (*Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	for _, v := range e.g.Inputs {
		if inputs[v.Name] == nil {
			return nil, fmt.Errorf("heterog: run: missing input %q", v.Name)
		}
	}
	if len(inputs) != len(e.g.Inputs) {
		for name := range inputs {
			if !slices.ContainsFunc(e.g.Inputs, func(v subgraph.Value) bool { return v.Name == name }) {
				return nil, fmt.Errorf("heterog: run: unknown input %q", name)
			}
		}
	}
	e.accel.ResetStats()
	e.cpu.ResetStats()
	st := Stats{Schedule: e.opt.Schedule}
	start := time.Now()
	var err error
	if e.single != nil {
		err = e.runSerial(ctx, inputs, &st)
	} else {
		err = e.runConcurrent(ctx, inputs, &st)
	}
	st.Makespan = time.Since(start)
	ds, hs := e.accel.Stats(), e.cpu.Stats()
	st.DeviceBusy = time.Duration(ds.BusyNs)
	st.CPUBusy = time.Duration(hs.KernelNs)
	st.PeakDeviceBytes = ds.MemPeak
	if err != nil {
		return nil, err
	}
	r := &Result{Outputs: make(map[string]*kernel.Tensor, len(e.g.Outputs)), Stats: st}
	for _, at := range e.outAt {
		r.Outputs[at.name] = e.output(at, inputs)
	}
	clear(e.outs)
	e.inputs = nil
	return r, nil
}

func (e *Executable) runSerial(ctx context.Context, inputs map[string]*kernel.Tensor, st *Stats) error {
	in := make([]*kernel.Tensor, len(e.g.Inputs))
	for i, v := range e.g.Inputs {
		in[i] = inputs[v.Name]
	}
	outs, as, err := e.single.Run(ctx, in)
	if err != nil {
		return fmt.Errorf("heterog: run: %w", err)
	}
	e.outs[0] = outs
	st.Parts, st.Activations, st.Kernels = 1, 1, as.Kernels
	st.Stage, st.Wait, st.Busiest = as.Stage, as.Wait, busiest(&as)
	return nil
}

func (e *Executable) runConcurrent(ctx context.Context, inputs map[string]*kernel.Tensor, st *Stats) error {
	e.inputs = inputs
	clear(e.xfer)
	if e.part != nil && e.opt.Trace.Enabled() {
		n := uint64(len(e.part.Edges))
		e.flowBase = (edgeFlows.Add(n) - n) | edgeFlowBit
	}
	failed, err := e.sched.run(ctx)
	st.Parts, st.CrossEdges, st.Activations = len(e.parts), len(e.part.Edges), e.sched.ran
	for k := range e.parts {
		if !e.parts[k].onAccel {
			st.CPUParts++
		}
		as := &e.stats[k]
		st.Kernels += e.parts[k].act.Kernels()
		for s := range as.Stage {
			st.Stage[s] += as.Stage[s]
		}
		st.Wait += as.Wait
		st.Transfer += e.xfer[k]
		st.Busiest = max(st.Busiest, busiest(as))
	}
	clear(e.stats)
	if err != nil {
		clear(e.outs)
		e.inputs = nil
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
// manager. Closing twice is a no-op.
func (e *Executable) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	var errs []error
	if e.single != nil {
		errs = append(errs, e.single.Close())
	}
	for k := range e.parts {
		if a := e.parts[k].act; a != nil {
			errs = append(errs, a.Close())
		}
	}
	return errors.Join(errs...)
}
