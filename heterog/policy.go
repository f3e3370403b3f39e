package heterog

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/hostmem"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// Target is what a policy places nodes for: the two devices and the
// synthetic host costs a kernel pays on each.
type Target = plan.Target

// Policy decides where each node of a validated graph runs: a plan.Placer.
type Policy = plan.Placer

// costsOn prices node n of c as placed on the CPU or the accelerator.
func costsOn(t Target, n *subgraph.Node, onCPU bool) plan.Costs {
	if t.Cost == nil {
		return plan.Costs{}
	}
	return t.Cost(plan.Node{Name: n.Name, Op: n.Op, OnCPU: onCPU})
}

// Labels places nodes as their labels say: OnCPU on the CPU, OnDevice and
// Unplaced on the accelerator. It is the fallback of the other policies.
func Labels() Policy { return labels{} }

type labels struct{}

func (labels) Place(c *subgraph.Checked, _ Target) ([]subgraph.Placement, error) {
	out := make([]subgraph.Placement, len(c.Graph.Nodes))
	for i, n := range c.Graph.Nodes {
		out[i] = subgraph.OnDevice
		if n.Placement == subgraph.OnCPU {
			out[i] = subgraph.OnCPU
		}
	}
	return out, nil
}

func (labels) String() string { return "labels" }

// Fixed places every node on p, whatever its label. A p that is neither
// OnCPU nor OnDevice is an error wrapping plan.ErrConfig.
func Fixed(p subgraph.Placement) Policy { return fixed(p) }

type fixed subgraph.Placement

func (f fixed) Place(c *subgraph.Checked, _ Target) ([]subgraph.Placement, error) {
	p := subgraph.Placement(f)
	if p != subgraph.OnCPU && p != subgraph.OnDevice {
		return nil, fmt.Errorf("heterog: %w: fixed placement %v is neither cpu nor device", plan.ErrConfig, p)
	}
	out := make([]subgraph.Placement, len(c.Graph.Nodes))
	for i := range out {
		out[i] = p
	}
	return out, nil
}

func (f fixed) String() string { return "fixed " + subgraph.Placement(f).String() }

func fallback(p Policy) Policy {
	if p == nil {
		return Labels()
	}
	return p
}

// placeBy returns fallback(p)'s placements of c's nodes, one a node: a
// fallback that gives another count is an error wrapping plan.ErrConfig,
// as a top-level policy's is.
func placeBy(p Policy, c *subgraph.Checked, t Target) ([]subgraph.Placement, error) {
	if c == nil || c.Graph == nil {
		return nil, fmt.Errorf("heterog: %w: placing a nil graph", ErrInvalid)
	}
	out, err := fallback(p).Place(c, t)
	if err != nil {
		return nil, err
	}
	if len(out) != len(c.Graph.Nodes) {
		return nil, fmt.Errorf("heterog: %w: fallback policy %v placed %d of %d nodes", plan.ErrConfig, fallback(p), len(out), len(c.Graph.Nodes))
	}
	return out, nil
}

// Capability sends the nodes of ops the accelerator lacks to the CPU and
// lets Fallback place the others. Virtual operators are ops the device
// supports (they are registered for it): list them in Ops.
type Capability struct {
	Ops      []string // the ops the accelerator supports
	Fallback Policy   // nil means Labels
}

// Place implements Policy.
func (p Capability) Place(c *subgraph.Checked, t Target) ([]subgraph.Placement, error) {
	out, err := placeBy(p.Fallback, c, t)
	if err != nil {
		return nil, err
	}
	for i, n := range c.Graph.Nodes {
		if !slices.Contains(p.Ops, n.Op) {
			out[i] = subgraph.OnCPU
		}
	}
	return out, nil
}

func (p Capability) String() string { return "capability" }

// Size is MTTorch's choice by tensor size: a node whose inputs and outputs
// all have fewer than Elements elements runs on the CPU, where it costs less
// than the accelerator's fixed costs; larger ones run on the accelerator.
// Nodes without static shapes are placed by Fallback.
type Size struct {
	// Elements is the threshold; 0 means measured at start-up
	// (MeasureThreshold for the target). A negative one is an error
	// wrapping plan.ErrConfig.
	Elements int64
	Fallback Policy // nil means Labels
}

// Place implements Policy.
func (p Size) Place(c *subgraph.Checked, t Target) ([]subgraph.Placement, error) {
	out, err := placeBy(p.Fallback, c, t)
	if err != nil {
		return nil, err
	}
	limit := p.Elements
	if limit < 0 {
		return nil, fmt.Errorf("heterog: %w: Size: Elements %d: want 0 (measured) or a positive threshold", plan.ErrConfig, limit)
	}
	if limit == 0 {
		if limit, err = MeasureThreshold(t); err != nil {
			return nil, err
		}
	}
	for i, n := range c.Graph.Nodes {
		in, outs, ok := staticOperands(c, n)
		if !ok {
			continue
		}
		var largest int64
		for _, m := range append(in, outs...) {
			largest = max(largest, m.NumElements())
		}
		out[i] = subgraph.OnDevice
		if largest < limit {
			out[i] = subgraph.OnCPU
		}
	}
	return out, nil
}

func (p Size) String() string { return "size" }

// Cost compares, for each node with static shapes, the accelerator's
// modeled time (the device profile's kernel time and launch latency, plus a
// device kernel's host costs) with the CPU's measured time (the kernel run
// for real on the host on stand-in data of its shapes, plus a CPU kernel's
// host costs), and picks the cheaper. A node whose CPU time the host
// profile's roofline puts beyond ten times the accelerator's is not
// measured. Nodes without static shapes, or that fail on stand-in data, are
// placed by Fallback.
type Cost struct {
	Fallback Policy // nil means Labels
}

// Place implements Policy.
func (p Cost) Place(c *subgraph.Checked, t Target) ([]subgraph.Placement, error) {
	if t.CPU == nil || t.Accelerator == nil {
		return nil, fmt.Errorf("heterog: cost placement: %w: target without devices", plan.ErrConfig)
	}
	out, err := placeBy(p.Fallback, c, t)
	if err != nil {
		return nil, err
	}
	prof := t.Accelerator.Profile()
	hprof := t.CPU.Profile()
	measured := make(map[string]time.Duration) // by op, attributes and shapes
	for i, n := range c.Graph.Nodes {
		in, outs, ok := staticOperands(c, n)
		if !ok {
			continue
		}
		k := c.Kernels[i]
		cost := k.Cost(in, outs)
		dev := prof.KernelTime(cost) + prof.LaunchLatency + costsOn(t, n, false).Total()
		if hprof.KernelTime(cost) > 10*dev {
			out[i] = subgraph.OnDevice
			continue
		}
		key := operandKey(n, in)
		cpu, seen := measured[key]
		if !seen {
			d, ok := cpuTime(k, in)
			if !ok {
				d = -1
			}
			measured[key], cpu = d, d
		}
		if cpu < 0 {
			continue
		}
		out[i] = subgraph.OnDevice
		if cpu+costsOn(t, n, true).Total() < dev {
			out[i] = subgraph.OnCPU
		}
	}
	return out, nil
}

func (p Cost) String() string { return "cost" }

// staticOperands returns the statically known inputs and outputs of n.
func staticOperands(c *subgraph.Checked, n *subgraph.Node) (in, out []*kernel.Tensor, ok bool) {
	for _, name := range n.Inputs {
		m, ok := c.Meta[name]
		if !ok {
			return nil, nil, false
		}
		in = append(in, m)
	}
	for _, name := range n.Outputs {
		m, ok := c.Meta[name]
		if !ok {
			return nil, nil, false
		}
		out = append(out, m)
	}
	return in, out, true
}

func operandKey(n *subgraph.Node, in []*kernel.Tensor) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%v", n.Op, n.Attrs)
	for _, t := range in {
		fmt.Fprintf(&b, "|%v%v", t.DType, t.Shape)
		if t.Host != nil {
			fmt.Fprintf(&b, "%x", t.Host)
		}
	}
	return b.String()
}

// cpuTime runs k on the host on stand-in data shaped as in (real contents
// where in has them: constants; else floats of 0.5 and integers of 0) and
// returns its best time over three runs. It reports false if the kernel
// fails on the stand-ins.
func cpuTime(k kernel.Kernel, in []*kernel.Tensor) (time.Duration, bool) {
	args := &kernel.Args{In: make([]*kernel.Tensor, len(in))}
	_, trusted := k.(kernel.Trusted)
	for i, m := range in {
		t := &kernel.Tensor{Shape: m.Shape.Clone(), DType: m.DType, Host: m.Host}
		if !trusted && t.Host != nil {
			t.Host = slices.Clone(t.Host) // a constant's: the kernel may write it
		}
		if t.Host == nil {
			if hostmem.Check(t.Bytes()) != nil {
				return 0, false
			}
			t.Host = make([]byte, t.Bytes())
			switch t.DType {
			case kernel.Float32:
				for j := range kernel.Float32s(t.Host) {
					kernel.Float32s(t.Host)[j] = 0.5
				}
			case kernel.Float16:
				for j := range kernel.Uint16s(t.Host) {
					kernel.Uint16s(t.Host)[j] = kernel.F32ToF16(0.5)
				}
			}
		}
		args.In[i] = t
	}
	_, _, nOut := k.Arity()
	args.Out = make([]*kernel.Tensor, nOut)
	for i := range args.Out {
		args.Out[i] = &kernel.Tensor{}
	}
	if err := k.InferShape(args.In, args.Out); err != nil {
		return 0, false
	}
	var til kernel.Tiling
	if err := k.Resize(args.In, args.Out, &til); err != nil {
		return 0, false
	}
	for _, t := range args.Out {
		if hostmem.Check(t.Bytes()) != nil {
			return 0, false
		}
		t.Host = make([]byte, t.Bytes())
	}
	args.Tiling = til
	if til.Workspace > 0 {
		if hostmem.Check(til.Workspace) != nil {
			return 0, false
		}
		args.Workspace = device.Buffer{Addr: 1, Size: til.Workspace, Data: make([]byte, til.Workspace)}
	}
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		if err := k.Compute(args); err != nil {
			return 0, false
		}
		best = min(best, time.Since(start))
	}
	if cd, ok := k.(kernel.ComputeDependent); ok && k.Deps().Compute {
		cd.OutputShapes(args) // clear the state the computation left
	}
	return best, true
}

// MeasureThreshold returns the size threshold of the target: the smallest
// power-of-two element count (from 64 to 16 M) at which an element-wise Add
// of float32 tensors costs less on the accelerator (modeled kernel time and
// launch latency plus a device kernel's host costs) than on the CPU
// (measured, plus a CPU kernel's host costs). It measures once per target
// and caches the answer for the life of the process.
func MeasureThreshold(t Target) (int64, error) {
	if t.CPU == nil || t.Accelerator == nil {
		return 0, fmt.Errorf("heterog: measure threshold: %w: target without devices", plan.ErrConfig)
	}
	add := &subgraph.Node{Name: "threshold", Op: "Add"}
	devCosts, cpuCosts := costsOn(t, add, false), costsOn(t, add, true)
	key := thresholdKey{t.Accelerator.Profile(), devCosts, cpuCosts}
	if v, ok := thresholds.Load(key); ok {
		return v.(int64), nil
	}
	k, err := ops.Builtins().New("Add", nil)
	if err != nil {
		return 0, fmt.Errorf("heterog: measure threshold: %w", err)
	}
	prof := key.prof
	n := int64(64)
	for ; n < 1<<24; n *= 2 {
		x := &kernel.Tensor{Shape: kernel.Shape{n}, DType: kernel.Float32}
		cpu, ok := cpuTime(k, []*kernel.Tensor{x, x})
		if !ok {
			return 0, fmt.Errorf("heterog: measure threshold: Add of %d elements failed on the host", n)
		}
		dev := prof.KernelTime(k.Cost([]*kernel.Tensor{x, x}, []*kernel.Tensor{x})) + prof.LaunchLatency + devCosts.Total()
		if dev <= cpu+cpuCosts.Total() {
			break
		}
	}
	thresholds.Store(key, n)
	return n, nil
}

type thresholdKey struct {
	prof            device.Profile
	costs, cpuCosts plan.Costs
}

var thresholds sync.Map // thresholdKey -> int64
