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
	"sync"
	"time"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// Mode selects how host stages are scheduled; see package actor.
type Mode = actor.Mode

// Execution modes.
const (
	KBK      = actor.KBK
	Async    = actor.Async
	Pipeline = actor.Pipeline
)

// Policy selects how the queued modes wait at value and compute
// dependencies; see package actor.
type Policy = actor.Policy

// Barrier policies.
const (
	Drain     = actor.Drain
	PerTensor = actor.PerTensor
)

// ParsePolicy returns the policy called s ("drain", "per-tensor").
func ParsePolicy(s string) (Policy, error) { return actor.ParsePolicy(s) }

// Costs are synthetic host costs per stage; see actor.Costs.
type Costs = actor.Costs

// config is what Options set; defaults are filled in Compile.
type config struct {
	mode   Mode
	policy Policy
	qcap   int
	costs  Costs
	dev    device.Device
	reg    *kernel.Registry
	seed   uint64
	rec    *trace.Recorder
	name   string
	hetero heterog.Policy // non-nil: run partitioned by placement
}

// Option configures Compile.
type Option func(*config)

// WithMode selects the execution mode (default KBK).
func WithMode(m Mode) Option { return func(c *config) { c.mode = m } }

// WithPolicy selects the barrier policy of the queued modes (default
// PerTensor).
func WithPolicy(p Policy) Option { return func(c *config) { c.policy = p } }

// WithQueueCapacity sets the capacity of each stage queue (default
// actor.DefaultQueueCapacity, 8; see there why it is small).
func WithQueueCapacity(n int) Option { return func(c *config) { c.qcap = n } }

// WithCosts adds synthetic host costs per stage (default none).
func WithCosts(cs Costs) Option { return func(c *config) { c.costs = cs } }

// WithDevice runs on dev (default: a new simulated device with the default
// SW-AI profile).
func WithDevice(d device.Device) Option { return func(c *config) { c.dev = d } }

// WithRegistry resolves ops in reg (default: the built-in ops).
func WithRegistry(r *kernel.Registry) Option { return func(c *config) { c.reg = r } }

// WithTrace records every run's host stages on tracks named after name
// (default: the graph's name). Give the device a devtrace observer on the
// same recorder to see the device side and complete each kernel's flow.
func WithTrace(rec *trace.Recorder, name string) Option {
	return func(c *config) { c.rec, c.name = rec, name }
}

// WithHeterogeneous runs the graph partitioned by placement: policy places
// every node on the host CPU or the device (nil: the nodes' labels, see
// heterog.Labels), the graph is cut into single-placement subgraphs, and
// one actor per subgraph runs as soon as its inputs are ready, concurrently
// with the others — CPU subgraphs compute on the host, device subgraphs
// run in the configured mode (Pipeline unless WithMode says otherwise; KBK
// is not a heterogeneous mode). See package heterog.
func WithHeterogeneous(policy heterog.Policy) Option {
	return func(c *config) {
		if policy == nil {
			policy = heterog.Labels()
		}
		c.hetero = policy
	}
}

// WithSeed seeds the data-dependent results modeled on virtual data.
func WithSeed(s uint64) Option { return func(c *config) { c.seed = s } }

// Executable is a compiled graph bound to a device. Its methods are safe for
// concurrent use; runs are serialised.
type Executable struct {
	g      *subgraph.Graph
	dev    device.Device
	act    *actor.SuperKernelActor // one actor, or
	het    *heterog.Executable     // concurrent actors by placement
	mgr    *heterog.Manager
	policy Policy
	once   sync.Once
}

// Compile validates g and prepares it to run: kernels are built, the
// execution order fixed, constants uploaded to the device.
func Compile(g *subgraph.Graph, opts ...Option) (*Executable, error) {
	c := config{mode: KBK}
	for _, o := range opts {
		o(&c)
	}
	if c.reg == nil {
		c.reg = ops.Builtins()
	}
	if c.dev == nil {
		d, err := device.NewSim(device.SimOptions{})
		if err != nil {
			return nil, fmt.Errorf("pipert: %w", err)
		}
		c.dev = d
	}
	policy := c.policy
	if policy == 0 {
		policy = PerTensor
	}
	if c.hetero != nil {
		return compileHetero(g, c, policy)
	}
	checked, err := subgraph.Validate(g, c.reg)
	if err != nil {
		return nil, fmt.Errorf("pipert: compile: %w", err)
	}
	act, err := actor.New(checked, c.dev, actor.Options{Mode: c.mode, Policy: c.policy, QueueCapacity: c.qcap, Costs: c.costs, Seed: c.seed, Trace: c.rec, Name: c.name})
	if err != nil {
		return nil, fmt.Errorf("pipert: compile: %w", err)
	}
	return &Executable{g: g, dev: c.dev, act: act, policy: policy}, nil
}

func compileHetero(g *subgraph.Graph, c config, policy Policy) (*Executable, error) {
	mode := c.mode
	if mode == KBK {
		mode = Pipeline
	}
	m, err := heterog.NewManager(nil, c.dev)
	if err != nil {
		return nil, fmt.Errorf("pipert: compile: %w", err)
	}
	h, err := heterog.Compile(g, heterog.Options{Policy: c.hetero, Mode: mode, Barrier: policy, QueueCapacity: c.qcap,
		Costs: c.costs, Registry: c.reg, Manager: m, Seed: c.seed, Trace: c.rec, Name: c.name})
	if err != nil {
		m.Release()
		return nil, fmt.Errorf("pipert: compile: %w", err)
	}
	return &Executable{g: g, dev: c.dev, het: h, mgr: m, policy: policy}, nil
}

// Device is the device the executable runs on.
func (e *Executable) Device() device.Device { return e.dev }

// Result is the outcome of one run.
type Result struct {
	// Outputs maps each graph output name to a host tensor: real when the
	// run computed on real data, virtual otherwise.
	Outputs map[string]*kernel.Tensor
	Stats   Stats
}

// Stats are the statistics of one run.
type Stats struct {
	Mode     Mode
	Policy   Policy
	Kernels  int
	Makespan time.Duration
	// Wait is the host time blocked on value and compute barriers.
	Wait time.Duration
	// Prepare, Infer, Resize and Launch are the host busy time of each
	// stage, summed over kernels.
	Prepare, Infer, Resize, Launch time.Duration
	// DeviceBusy is the modeled time the device had work.
	DeviceBusy time.Duration
	// PeakDeviceBytes is the high-water mark of device memory.
	PeakDeviceBytes int64
	// Subgraphs is the number of actors that ran (1 unless heterogeneous);
	// CPUBusy the time of kernels computed on the host CPU device.
	Subgraphs int
	CPUBusy   time.Duration
}

// HostBusy is the host work of all stages.
func (s Stats) HostBusy() time.Duration { return s.Prepare + s.Infer + s.Resize + s.Launch }

// DeviceUtil is DeviceBusy / Makespan.
func (s Stats) DeviceUtil() float64 {
	if s.Makespan <= 0 {
		return 0
	}
	return float64(s.DeviceBusy) / float64(s.Makespan)
}

// Run executes the graph once. Every declared graph input must be given, by
// name; a tensor with Host data runs on real data, a virtual one on shapes.
func (e *Executable) Run(ctx context.Context, inputs map[string]*kernel.Tensor) (*Result, error) {
	in := make([]*kernel.Tensor, len(e.g.Inputs))
	for i, v := range e.g.Inputs {
		t, ok := inputs[v.Name]
		if !ok {
			return nil, fmt.Errorf("pipert: run: missing input %q", v.Name)
		}
		in[i] = t
	}
	if len(inputs) != len(e.g.Inputs) {
		for name := range inputs {
			if !e.hasInput(name) {
				return nil, fmt.Errorf("pipert: run: unknown input %q", name)
			}
		}
	}
	if e.het != nil {
		return e.runHetero(ctx, inputs)
	}
	outs, st, err := e.act.Run(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("pipert: run: %w", err)
	}
	r := &Result{Outputs: make(map[string]*kernel.Tensor, len(outs))}
	for i, name := range e.g.Outputs {
		r.Outputs[name] = outs[i]
	}
	r.Stats = Stats{
		Mode: st.Mode, Policy: e.policy, Kernels: st.Kernels, Makespan: st.Makespan, Wait: st.Wait,
		Prepare: st.Stage[kernel.StagePrepare], Infer: st.Stage[kernel.StageInfer],
		Resize: st.Stage[kernel.StageResize], Launch: st.Stage[kernel.StageLaunch],
		DeviceBusy: st.DeviceBusy, PeakDeviceBytes: st.PeakDeviceBytes, Subgraphs: 1,
	}
	return r, nil
}

func (e *Executable) runHetero(ctx context.Context, inputs map[string]*kernel.Tensor) (*Result, error) {
	res, err := e.het.Run(ctx, inputs)
	if err != nil {
		return nil, fmt.Errorf("pipert: run: %w", err)
	}
	st := &res.Stats
	return &Result{Outputs: res.Outputs, Stats: Stats{
		Mode: Pipeline, Policy: e.policy, Kernels: st.Kernels, Makespan: st.Makespan, Wait: st.Wait,
		Prepare: st.Stage[kernel.StagePrepare], Infer: st.Stage[kernel.StageInfer],
		Resize: st.Stage[kernel.StageResize], Launch: st.Stage[kernel.StageLaunch],
		DeviceBusy: st.DeviceBusy, PeakDeviceBytes: st.PeakDeviceBytes, Subgraphs: st.Parts, CPUBusy: st.CPUBusy,
	}}, nil
}

func (e *Executable) hasInput(name string) bool {
	for _, v := range e.g.Inputs {
		if v.Name == name {
			return true
		}
	}
	return false
}

// Close releases the device memory the executable holds.
func (e *Executable) Close() error {
	var err error
	e.once.Do(func() {
		if e.het != nil {
			err = errors.Join(e.het.Close(), e.mgr.Release())
			return
		}
		err = e.act.Close()
	})
	return err
}

// Modes lists the execution modes, KBK first.
func Modes() []Mode { return actor.Modes() }

// ParseMode returns the mode called s ("kbk", ...).
func ParseMode(s string) (Mode, error) { return actor.ParseMode(s) }
