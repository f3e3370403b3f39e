package plan

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// Queue capacities: the default and the largest accepted.
const (
	// DefaultQueueCapacity is the stage queues' default capacity. It is
	// small on purpose. The stage goroutines outnumber the cores (four on
	// two), and every stage's work is CPU work: a deep queue lets the
	// upstream stages run far ahead of the slowest one and take CPU from
	// it, so the slowest stage, which sets the pace, loses its core a third
	// of the time and finishes alone. A queue of 8 makes a stage that runs
	// ahead park on the full queue, and the bottleneck keeps a core
	// (pipebench -queue-capacity measures the effect: on smallops with 2
	// cores, efficiency rose from about 0.82 at 1024 to about 0.92 at 8).
	DefaultQueueCapacity = 8
	// MaxQueueCapacity is the largest queue capacity accepted.
	MaxQueueCapacity = 1 << 20
)

// ErrConfig is the cause of every error Check returns: a setting out of its
// range, or settings that contradict each other.
var ErrConfig = errors.New("invalid configuration")

// Config is every setting of an execution, declared here and nowhere else.
// The zero Config is valid: KBK on a new simulated SW-AI device, per-tensor
// barriers, queues of DefaultQueueCapacity, no synthetic host cost, the
// built-in ops. Check fills in the defaults and validates; the runtime
// takes only a checked Config.
type Config struct {
	// Mode is the execution mode of the host stages (zero: KBK, or Pipeline
	// for the device parts of a heterogeneous run).
	Mode Mode
	// Barrier is the barrier policy of value and compute dependencies
	// (zero: PerTensor).
	Barrier BarrierPolicy
	// QueueCapacity is the capacity of each stage queue, honoured exactly,
	// in [1, MaxQueueCapacity] (zero: DefaultQueueCapacity).
	QueueCapacity int
	// Costs are the synthetic host costs of every kernel, per stage: a
	// framework's own per-kernel work, burned as calibrated CPU work.
	Costs Costs
	// HostCost, when set, gives each node its own synthetic host costs and
	// overrides Costs. Nil means Costs for kernels on the accelerator and
	// Costs' Prepare and Infer for kernels on the host CPU (they need no
	// tiling, and their launch is their computation).
	HostCost HostCost
	// Device is the accelerator (nil: a new simulated SW-AI device).
	Device device.Device
	// Registry resolves ops (nil: ops.Builtins() and control's If).
	Registry kernel.Resolver
	// Trace, when set, records every run's host stages on tracks named
	// after TraceName (default: the graph's name). Give the device a
	// devtrace observer on the same recorder to see the device side. A
	// Recorder not made by trace.New or trace.Create is refused.
	Trace     *trace.Recorder
	TraceName string
	// Caches are the host caches that skip a kernel's host work when its
	// operands are what they were (zero: ATB's defaults, DefaultCaches).
	Caches Caches
	// TilingCopy is how tiling data reaches the device (zero: WithKernel);
	// TilingBlocks the blocks of the device ring MultiStream copies into
	// and Whole batches fill, of TilingBlockBytes each, in [1,
	// MaxCacheSlots] (zero: DefaultTilingBlocks).
	TilingCopy   TilingCopy
	TilingBlocks int
	// Carried names the graph outputs that later steps carry
	// (Executable.Submit with a Carry): each is handed on as soon as its
	// producing kernel completed on the device, tensor by tensor. A carry
	// of any other output waits for the end of the step that produces it.
	// Compile rejects a name that is not a graph output.
	Carried []string
	// Seed varies the data-dependent results kernels model on virtual data
	// (the output size of Unique). They vary from run to run too (a
	// kernel's Args.Seed mixes in the run's number): the n-th runs of two
	// executables with equal seeds are identical, in every mode.
	Seed uint64
	// ProfileOps labels each kernel's host stages with its op for CPU
	// profiles (runtime/pprof label pipert.op, beside pipert.stage): the
	// labels are made at Compile, and a stage sets its kernel's without
	// allocating. Off (the default), nothing is done per kernel.
	ProfileOps bool

	// Placement, when set, runs the graph heterogeneously: it places every
	// node on the host CPU or the accelerator, the graph is cut into
	// single-placement parts, and an actor per part runs concurrently with
	// the others (package heterog).
	Placement Placer
	// Schedule is how a heterogeneous run proceeds (zero: Concurrent);
	// Serial needs Placement.
	Schedule Schedule
	// Virtual names ops that are virtual operators in a heterogeneous run:
	// placed on the accelerator, they are computed by the CPU in place over
	// host-mapped device memory.
	Virtual []string

	checked bool
}

// Check returns c with its defaults filled in, or an error wrapping
// ErrConfig naming the first setting out of range. It checks every field
// every time, also of a Config it returned whose fields were changed since
// (a WithConfig of an executable's Config, then options).
func (c Config) Check() (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("pipert: %w: "+format, append([]any{ErrConfig}, args...)...)
	}
	if c.Mode == 0 {
		c.Mode = KBK
		if c.Placement != nil {
			c.Mode = Pipeline
		}
	}
	if !c.Mode.Valid() {
		return bad("Mode %d is not a mode (have kbk, async, pipeline, replay)", uint8(c.Mode))
	}
	if c.Barrier == 0 {
		c.Barrier = PerTensor
	}
	if !c.Barrier.Valid() {
		return bad("Barrier %d is not a barrier policy (have drain, per-tensor)", uint8(c.Barrier))
	}
	if c.QueueCapacity == 0 {
		c.QueueCapacity = DefaultQueueCapacity
	}
	if c.QueueCapacity < 1 || c.QueueCapacity > MaxQueueCapacity {
		return bad("QueueCapacity %d outside [1, %d]", c.QueueCapacity, MaxQueueCapacity)
	}
	if err := c.Costs.check("Costs"); err != nil {
		return bad("%v", err)
	}
	if err := c.Caches.check(); err != nil {
		return bad("%v", err)
	}
	if c.TilingCopy == 0 {
		c.TilingCopy = WithKernel
	}
	if !c.TilingCopy.Valid() {
		return bad("TilingCopy %d is not a strategy (have with-kernel, multi-stream, whole)", uint8(c.TilingCopy))
	}
	if c.TilingBlocks == 0 {
		c.TilingBlocks = DefaultTilingBlocks
	}
	if c.TilingBlocks < 1 || c.TilingBlocks > MaxCacheSlots {
		return bad("TilingBlocks %d outside [1, %d]", c.TilingBlocks, MaxCacheSlots)
	}
	if isNilPointer(c.Registry) {
		return bad("Registry is a nil %T", c.Registry)
	}
	if c.Registry == nil {
		c.Registry = control.Resolver{Base: ops.Builtins()}
	}
	if c.Schedule == 0 {
		c.Schedule = Concurrent
	}
	if c.Schedule != Concurrent && c.Schedule != Serial {
		return bad("Schedule %d is not a schedule (have concurrent, serial)", uint8(c.Schedule))
	}
	if isNilPointer(c.Placement) {
		return bad("Placement is a nil %T", c.Placement)
	}
	if c.Placement == nil && c.Schedule == Serial {
		return bad("Schedule serial needs a heterogeneous run (Placement)")
	}
	if c.Placement == nil && len(c.Virtual) > 0 {
		return bad("Virtual operators %v need a heterogeneous run (Placement)", c.Virtual)
	}
	for _, op := range c.Virtual {
		has, err := registryHas(c.Registry, op)
		if err != nil {
			return bad("Virtual operator %q: %w", op, err)
		}
		if !has {
			return bad("Virtual operator %q is not a registered op", op)
		}
	}
	if isNilPointer(c.Device) {
		return bad("Device is a nil %T", c.Device)
	}
	if c.Device == nil {
		d, err := device.NewSim(device.SimOptions{})
		if err != nil {
			return Config{}, fmt.Errorf("pipert: default device: %w", err)
		}
		c.Device = d
	} else if err := profileOf(c.Device); err != nil {
		return bad("Device: %w", err)
	}
	if c.Trace != nil && !c.Trace.Made() {
		return bad("Trace: %w: a Recorder not made by trace.New or trace.Create records nothing", trace.ErrMisuse)
	}
	c.checked = true
	return c, nil
}

// registryHas reports whether reg resolves op; a panic in reg's Has, the
// caller's code, is an error wrapping kernel.ErrPanic.
func registryHas(reg kernel.Resolver, op string) (has bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			has, err = false, fmt.Errorf("the registry's Has: %w: %v", kernel.ErrPanic, p)
		}
	}()
	return reg.Has(op), nil
}

// profileOf validates the name and profile of d, a device of the
// caller's; a panic in its Name or Profile is an error wrapping
// kernel.ErrPanic that names the method.
func profileOf(d device.Device) (err error) {
	method := "Name"
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("its %s method: %w: %v", method, kernel.ErrPanic, p)
		}
	}()
	if d.Name() == "" {
		return errors.New("has an empty Name")
	}
	method = "Profile"
	p := d.Profile()
	if p == (device.Profile{}) {
		// A device of nothing: the zero value of a device type, or a
		// wrapper (fault.New, host.Map) of a nil one.
		return fmt.Errorf("%q has a zero Profile: %w", d.Name(), device.ErrNoDevice)
	}
	return p.Validate()
}

// isNilPointer reports whether v, an interface value, holds a nil pointer:
// a setting that is set, but to nothing its methods can use.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// Checked reports whether c came from Check.
func (c *Config) Checked() bool { return c != nil && c.checked }

// CostOf returns the synthetic host costs of a node: HostCost's, or the
// default that HostCost documents. The result of a HostCost is checked: a
// negative cost, or a HostCost that panics, is an error naming the node.
func (c *Config) CostOf(n Node) (cs Costs, err error) {
	if c == nil {
		return Costs{}, fmt.Errorf("plan: cost of %q: %w: nil Config", n.Name, ErrConfig)
	}
	if c.HostCost == nil {
		if n.OnCPU {
			return Costs{Prepare: c.Costs.Prepare, Infer: c.Costs.Infer}, nil
		}
		return c.Costs, nil
	}
	defer func() {
		if p := recover(); p != nil {
			cs, err = Costs{}, fmt.Errorf("plan: %w: HostCost of node %q: %w: %v", ErrConfig, n.Name, kernel.ErrPanic, p)
		}
	}()
	cs = c.HostCost(n)
	if err := cs.check(fmt.Sprintf("HostCost of node %q", n.Name)); err != nil {
		return Costs{}, fmt.Errorf("plan: %w: %v", ErrConfig, err)
	}
	return cs, nil
}

// Plan returns the stage plan of c's mode and barrier policy.
func (c *Config) Plan() Plan {
	if c == nil {
		return Plan{}
	}
	p, _ := PlanOf(c.Mode, c.Barrier) // both checked
	return p
}

// Costs are synthetic host costs of one kernel, per stage: a calibrated
// amount of CPU work standing in for a framework's own work. Prepare is
// the kernel's Setup (what SetupReuse skips), Infer its InferShape (what
// InferReuse skips), and Tiling the part of Resize that computes the
// tiling (what a tiling cache hit skips).
type Costs struct {
	Prepare, Infer, Resize, Launch time.Duration
	// Tiling is included in Resize, at most Resize.
	Tiling time.Duration
	// Alloc is the part of Launch that allocates the kernel's outputs and
	// workspace (what a memory plan saves), at most Launch.
	Alloc time.Duration
	// Create is the construction of the kernel at Compile (ATB's Runner
	// creation; what a runner-pool hit saves), paid once per executable.
	Create time.Duration
}

// Total is the host work of one kernel.
func (c Costs) Total() time.Duration { return c.Prepare + c.Infer + c.Resize + c.Launch }

// Of returns the cost of stage s.
func (c Costs) Of(s kernel.Stage) time.Duration {
	switch s {
	case kernel.StagePrepare:
		return c.Prepare
	case kernel.StageInfer:
		return c.Infer
	case kernel.StageResize:
		return c.Resize
	case kernel.StageLaunch:
		return c.Launch
	}
	return 0
}

func (c Costs) check(what string) error {
	for s := kernel.StagePrepare; s <= kernel.StageLaunch; s++ {
		if d := c.Of(s); d < 0 || d > MaxCost {
			return fmt.Errorf("%s: %v cost %v outside [0, %v]", what, s, d, MaxCost)
		}
	}
	if c.Create > MaxCost {
		return fmt.Errorf("%s: creation cost %v above %v", what, c.Create, MaxCost)
	}
	if c.Tiling < 0 || c.Tiling > c.Resize {
		return fmt.Errorf("%s: tiling cost %v outside [0, resize cost %v]", what, c.Tiling, c.Resize)
	}
	if c.Alloc < 0 || c.Alloc > c.Launch {
		return fmt.Errorf("%s: allocation cost %v outside [0, launch cost %v]", what, c.Alloc, c.Launch)
	}
	if c.Create < 0 {
		return fmt.Errorf("%s: creation cost %v is negative", what, c.Create)
	}
	return nil
}

// MaxCost bounds every synthetic host cost: they stand for host work of
// microseconds to milliseconds, and a stage burns its cost without
// yielding (a run's context ends a cost's burn within 50 µs of work).
const MaxCost = 10 * time.Second

// Node is what a HostCost hook knows of a node when it prices it.
type Node struct {
	Name, Op string
	// OnCPU is set for a node a heterogeneous run computes on the host CPU.
	OnCPU bool
}

// HostCost gives a node its synthetic host costs. It is called when a
// graph is compiled, never during a run: once per node and placement it
// prices (a placement policy may ask for both placements of a node, and
// ask again; a policy of the caller's that asks from several goroutines
// calls it concurrently). A panic or an invalid cost fails the compile
// (ErrConfig, and kernel.ErrPanic for a panic). Its Create is
// checked but not paid: kernels are built, and Config.Costs.Create paid
// for each, before the nodes are priced.
type HostCost func(n Node) Costs

// Placer places the nodes of a validated graph on the host CPU or the
// accelerator (package heterog has the policies).
type Placer interface {
	// Place returns, by node index, subgraph.OnCPU or subgraph.OnDevice for
	// every node of c. c is the placer's own copy: changing it changes
	// nothing the executable runs.
	Place(c *subgraph.Checked, t Target) ([]subgraph.Placement, error)
}

// Target is what a Placer places nodes for: the two devices and the
// synthetic host costs of a node on either.
type Target struct {
	CPU         *host.Device
	Accelerator device.Device
	// Cost prices a node as placed (Node.OnCPU says where); never nil.
	Cost func(n Node) Costs
}

// Schedule selects how a heterogeneous run proceeds. The zero value is
// invalid; Config's default is Concurrent.
type Schedule uint8

// Schedules.
const (
	// Concurrent cuts the graph into CPU and device parts, one actor each,
	// and runs every part as soon as its inputs allow, on the worker groups
	// of their devices.
	Concurrent Schedule = iota + 1
	// Serial runs the whole graph on one actor on the accelerator, the CPU
	// nodes computed for real on the host inside its Launch stage, in
	// execution order: a runtime with the CPU/device split but a single
	// launch thread, the baseline Concurrent is measured against.
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
