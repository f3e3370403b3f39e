package heterog_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// compile compiles g, closing the executable when the test ends.
func compile(tb testing.TB, g *subgraph.Graph, o opts) *heterog.Executable {
	tb.Helper()
	e, err := compileWith(g, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := e.Close(); err != nil {
			tb.Error(err)
		}
	})
	return e
}

func run(tb testing.TB, e *heterog.Executable, in map[string]*kernel.Tensor) *heterog.Result {
	tb.Helper()
	r, err := e.Run(context.Background(), in)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestRandomGraphsMatchKBK runs random labelled graphs on real data in both
// schedules, under several policies and device modes, and checks every
// output bit for bit against kernel by kernel on one actor.
func TestRandomGraphsMatchKBK(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	mgr := newManager(t, false)
	policies := []heterog.Policy{heterog.Labels(), heterog.Fixed(subgraph.OnCPU), heterog.Fixed(subgraph.OnDevice),
		heterog.Capability{Ops: []string{"Add", "Sub", "MatMul", "GELU"}, Fallback: heterog.Fixed(subgraph.OnDevice)}}
	modes := []plan.Mode{plan.Pipeline, plan.Async, plan.KBK}
	for iter := range 40 {
		g, in := graphtest.Random(rng, graphtest.Options{Nodes: 1 + rng.IntN(30), Flip: 0.5, ValueDeps: iter%2 == 1})
		want := reference(t, g, in)
		for _, s := range []heterog.Schedule{heterog.Concurrent, heterog.Serial} {
			o := opts{Schedule: s, Policy: policies[iter%len(policies)], Mode: modes[iter%len(modes)], Manager: mgr}
			e := compile(t, g, o)
			for rep := range 2 {
				r := run(t, e, in)
				if err := sameOutputs(want, r.Outputs); err != nil {
					t.Fatalf("graph %d, %v, %v, run %d: %v", iter, s, o.Policy, rep, err)
				}
				if r.Stats.Kernels != len(g.Nodes) {
					t.Fatalf("graph %d, %v: %d kernels, graph has %d", iter, s, r.Stats.Kernels, len(g.Nodes))
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// joined is a CPU chain and a device chain, joined twice, with real data.
func joined() (*subgraph.Graph, map[string]*kernel.Tensor) {
	b := subgraph.NewBuilder("joined")
	x := b.Input("x", kernel.Float32, 4)
	y := b.Input("y", kernel.Float32, 2, 4)
	cpu := func(out string) string { b.Last().Placement = subgraph.OnCPU; return out }
	c := cpu(b.Op("ReLU", cpu(b.Op("Sub", x, b.Const("one", kernel.FromFloat32([]float32{1}, 1))))))
	d := b.Op("GELU", b.Op("MatMul", y, b.Const("w", kernel.FromFloat32([]float32{
		1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4}, 4, 4))))
	d = b.Op("Add", d, c)
	c = cpu(b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, c))
	p := cpu(b.Op("Mul", d, c))
	b.Output(p, d)
	return b.Graph(), map[string]*kernel.Tensor{
		"x": kernel.FromFloat32([]float32{0.5, 1.5, 2.5, -3}, 4),
		"y": kernel.FromFloat32([]float32{1, 2, 3, 4, -1, -2, -3, -4}, 2, 4),
	}
}

func TestConcurrentStats(t *testing.T) {
	g, in := joined()
	mgr := newManager(t, false)
	e := compile(t, g, opts{Manager: mgr, Costs: plan.Costs{Infer: 1000, Launch: 2000}})
	r := run(t, e, in)
	if err := sameOutputs(reference(t, g, in), r.Outputs); err != nil {
		t.Fatal(err)
	}
	st := r.Stats
	p := e.Partitioning()
	if !st.Heterogeneous || st.Schedule != heterog.Concurrent || len(st.Parts) != len(p.Parts) || st.Activations != len(st.Parts) || st.CrossEdges != len(p.Edges) {
		t.Fatalf("stats %+v for %d parts, %d edges", st, len(p.Parts), len(p.Edges))
	}
	if n := cpuParts(&st); n == 0 || n == len(st.Parts) || st.Kernels != len(g.Nodes) {
		t.Fatalf("stats %+v", st)
	}
	kernels := 0
	for k, ps := range st.Parts {
		kernels += ps.Kernels
		if ps.Part != k || ps.End < ps.Start || ps.End > st.Makespan || ps.OnCPU == (ps.Mode != plan.KBK) {
			t.Fatalf("part row %d: %+v", k, ps)
		}
	}
	if kernels != st.Kernels {
		t.Fatalf("part rows hold %d kernels, run %d", kernels, st.Kernels)
	}
	if st.CPUBusy <= 0 || st.DeviceBusy <= 0 || st.PeakDeviceBytes <= 0 {
		t.Fatalf("no CPU or device work accounted: %+v", st)
	}
	if st.Launch < st.CPUBusy {
		t.Fatalf("launch stages %v do not include the CPU kernels' %v", st.Launch, st.CPUBusy)
	}
	if b := st.Bound(); b < st.Busiest || b < st.DeviceWork || b < st.HostWork/time.Duration(st.Procs) || st.Efficiency() <= 0 || b > st.Makespan {
		t.Fatalf("bound %v for %+v", b, st)
	}
	if pl := e.Placement(); pl[0] != subgraph.OnCPU || pl[2] != subgraph.OnDevice {
		t.Fatalf("placement %v", pl)
	}
}

func TestWorkerGroupsAreCreatedOnce(t *testing.T) {
	g, in := joined()
	mgr := newManager(t, false)
	e := compile(t, g, opts{Manager: mgr})
	run(t, e, in)
	created := mgr.GroupsCreated()
	if created == 0 || created > 2 {
		t.Fatalf("%d groups created for one executable", created)
	}
	for range 5 {
		run(t, e, in)
	}
	again := compile(t, g, opts{Manager: mgr})
	for range 3 {
		run(t, again, in)
	}
	if n := mgr.GroupsCreated(); n != created {
		t.Fatalf("repeated runs and a same-shaped compile created %d more groups", n-created)
	}
	gCPU, err := mgr.Group(mgr.CPU(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if g2, _ := mgr.Group(mgr.CPU(), 1); g2 != gCPU || gCPU.Device() != mgr.CPU() || gCPU.Size() != 1 {
		t.Fatal("group cache returned a different group for the same key")
	}
	if _, err := mgr.Group(nil, 1); err == nil {
		t.Fatal("group for a nil device accepted")
	}
}

func TestDevicesIsOneManager(t *testing.T) {
	m := heterog.Devices()
	if m != heterog.Devices() || m.CPU() == nil || m.Accelerator() == nil {
		t.Fatal("Devices is not a singleton with both devices")
	}
	g, in := joined()
	e := compile(t, g, opts{})
	run(t, e, in)
}

// failing has a CPU chain whose Gather reads out of range on real data,
// beside a long device chain.
func failing(bad bool) (*subgraph.Graph, map[string]*kernel.Tensor) {
	b := subgraph.NewBuilder("failing")
	x := b.Input("x", kernel.Float32, 4, 4)
	idx := b.Input("idx", kernel.Int64, 2)
	g := b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, x, idx)
	b.Last().Name = "bad_gather"
	b.Last().Placement = subgraph.OnCPU
	d := x
	for range 50 {
		d = b.Op("GELU", d)
	}
	b.Output(g, d)
	i := []int64{0, 1}
	if bad {
		i[1] = 7
	}
	return b.Graph(), map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 4, 4), "idx": kernel.FromInt64(i, 2)}
}

func TestFirstErrorNamesThePartAndNode(t *testing.T) {
	mgr := newManager(t, false)
	g, bad := failing(true)
	e := compile(t, g, opts{Manager: mgr, Costs: plan.Costs{Launch: 20000}})
	_, err := e.Run(context.Background(), bad)
	var ke *kernel.Error
	if err == nil || !errors.As(err, &ke) || ke.Node != "bad_gather" {
		t.Fatalf("run with a bad index: %v", err)
	}
	if !strings.Contains(err.Error(), "failing/") || !strings.Contains(err.Error(), "cpu") {
		t.Fatalf("error %q does not name the part", err)
	}
	_, good := failing(false)
	r := run(t, e, good)
	if err := sameOutputs(reference(t, g, good), r.Outputs); err != nil {
		t.Fatalf("run after a failed run: %v", err)
	}
}

func TestRunChecksItsInputsAndContext(t *testing.T) {
	g, in := joined()
	e := compile(t, g, opts{Manager: newManager(t, false)})
	if _, err := e.Run(context.Background(), map[string]*kernel.Tensor{"x": in["x"]}); err == nil || !strings.Contains(err.Error(), `"y"`) {
		t.Fatalf("missing input: %v", err)
	}
	extra := map[string]*kernel.Tensor{"x": in["x"], "y": in["y"], "z": in["x"]}
	if _, err := e.Run(context.Background(), extra); err == nil || !strings.Contains(err.Error(), `"z"`) {
		t.Fatalf("unknown input: %v", err)
	}
	wrong := map[string]*kernel.Tensor{"x": in["y"], "y": in["y"]}
	if _, err := e.Run(context.Background(), wrong); err == nil {
		t.Fatal("input of the wrong shape accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Run(ctx, in); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	run(t, e, in)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, err := e.Run(context.Background(), in); !errors.Is(err, heterog.ErrClosed) {
		t.Fatalf("run after close: %v", err)
	}
}

func TestCompileRejectsBadOptions(t *testing.T) {
	g, _ := joined()
	mgr := newManager(t, false)
	for name, o := range map[string]opts{
		"schedule":      {Manager: mgr, Schedule: 9},
		"negative cost": {Manager: mgr, Costs: plan.Costs{Infer: -1}},
		"unknown op":    {Manager: mgr, Virtual: []string{"Nope"}},
		"not mapped":    {Manager: mgr, Virtual: []string{"Unique"}},
		"bad policy":    {Manager: mgr, Policy: heterog.Fixed(subgraph.Unplaced)},
	} {
		if _, err := compileWith(g, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := compileWith(&subgraph.Graph{Name: "empty"}, opts{Manager: mgr}); err == nil {
		t.Error("invalid graph accepted")
	}
	if _, err := compileWith(g, opts{Manager: mgr, Virtual: []string{"Unique"}}); !errors.Is(err, heterog.ErrNotHostMapped) || !errors.Is(err, plan.ErrConfig) {
		t.Errorf("virtual operators on unmapped memory: %v", err)
	}
}

func TestGraphWithoutNodes(t *testing.T) {
	g := &subgraph.Graph{Name: "empty", Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{2}}},
		Outputs: []string{"x"}}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2}, 2)}
	e := compile(t, g, opts{Manager: newManager(t, false)})
	r := run(t, e, in)
	if err := sameOutputs(in, r.Outputs); err != nil || len(r.Stats.Parts) != 0 {
		t.Fatalf("%v, %+v", err, r.Stats)
	}
	if &r.Outputs["x"].Host[0] == &in["x"].Host[0] {
		t.Fatal("a passed-through input shares memory with the caller's")
	}
}

func TestGraphOutputsThatAreInputs(t *testing.T) {
	b := subgraph.NewBuilder("passthrough")
	x := b.Input("x", kernel.Float32, 2)
	k := b.Const("k", kernel.FromFloat32([]float32{3, 4}, 2))
	b.Output(b.Op("Add", x, k), x, k)
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2}, 2)}
	for _, s := range []heterog.Schedule{heterog.Concurrent, heterog.Serial} {
		e := compile(t, b.Graph(), opts{Schedule: s, Manager: newManager(t, false)})
		r := run(t, e, in)
		if err := sameOutputs(reference(t, b.Graph(), in), r.Outputs); err != nil {
			t.Fatalf("%v: %v", s, err)
		}
	}
}

// TestVirtualOperator runs Unique as a virtual operator: placed on the
// device, it stays in the device part (no cut) and the CPU computes it in
// place over host-mapped memory, with no copy.
func TestVirtualOperator(t *testing.T) {
	b := subgraph.NewBuilder("virtual")
	x := b.Input("x", kernel.Float32, 3, 4)
	u := b.Op("Unique", b.Op("ReLU", x))
	s := b.OpAttrs("ReduceSum", kernel.Attrs{"axes": []int64{0}, "keepdims": true}, b.Op("GELU", u))
	b.Output(b.Op("Add", x, s))
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -1, 2, 2, 3, 1, 0, -2, 3, 3, 1, 5}, 3, 4)}
	want := reference(t, g, in)
	for _, schedule := range []heterog.Schedule{heterog.Concurrent, heterog.Serial} {
		mapped := newManager(t, true)
		plain := compile(t, g, opts{Schedule: schedule, Manager: mapped, Policy: heterog.Fixed(subgraph.OnDevice)})
		virt := compile(t, g, opts{Schedule: schedule, Manager: mapped, Policy: heterog.Fixed(subgraph.OnDevice), Virtual: []string{"Unique"}})
		c0 := mapped.Accelerator().Stats().Copies
		rp := run(t, plain, in)
		c1 := mapped.Accelerator().Stats().Copies
		rv := run(t, virt, in)
		copiesPlain, copiesVirt := c1-c0, mapped.Accelerator().Stats().Copies-c1
		for _, r := range []*heterog.Result{rp, rv} {
			if err := sameOutputs(want, r.Outputs); err != nil {
				t.Fatalf("%v: %v", schedule, err)
			}
		}
		if len(rv.Stats.Parts) != 1 || cpuParts(&rv.Stats) != 0 {
			t.Fatalf("%v: virtual operator cut the graph: %+v", schedule, rv.Stats)
		}
		if rp.Stats.CPUBusy != 0 || rv.Stats.CPUBusy <= 0 {
			t.Fatalf("%v: CPU busy %v without and %v with the virtual operator", schedule, rp.Stats.CPUBusy, rv.Stats.CPUBusy)
		}
		if copiesVirt != copiesPlain {
			t.Fatalf("%v: %d accelerator copies with the virtual operator, %d without", schedule, copiesVirt, copiesPlain)
		}
		if n := mapped.CPU().Stats().Kernels; n != 1 {
			t.Fatalf("%v: the host ran %d kernels, want the one Unique", schedule, n)
		}
	}
}

// TestSerialChargesCopiesBetweenCPUAndDevice checks that the serial
// schedule computes the CPU nodes on the host, and that when memory is not
// host-mapped it charges the modeled copies at the edges between CPU and
// device nodes to the launch stage: here one device-to-host copy (d into
// the CPU Mul) and one host-to-device copy (c into the device Add), each
// of 2 ms latency on this profile.
func TestSerialChargesCopiesBetweenCPUAndDevice(t *testing.T) {
	g, in := joined()
	want := reference(t, g, in)
	prof := device.Default()
	prof.Name = "slow-links"
	prof.D2H.Latency, prof.H2D.Latency = 2*time.Millisecond, 2*time.Millisecond
	sim, err := device.NewSim(device.SimOptions{Profile: prof})
	if err != nil {
		t.Fatal(err)
	}
	for _, mapped := range []bool{false, true} {
		var accel device.Device = sim
		if mapped {
			accel = host.Map(sim)
		}
		mgr, err := heterog.NewManager(nil, accel)
		if err != nil {
			t.Fatal(err)
		}
		defer mgr.Release()
		e := compile(t, g, opts{Schedule: heterog.Serial, Manager: mgr})
		r := run(t, e, in)
		if err := sameOutputs(want, r.Outputs); err != nil {
			t.Fatal(err)
		}
		if len(r.Stats.Parts) != 1 || r.Stats.CPUBusy <= 0 || mgr.CPU().Stats().Kernels != 4 {
			t.Fatalf("mapped %v: stats %+v, %d host kernels", mapped, r.Stats, mgr.CPU().Stats().Kernels)
		}
		if !mapped && r.Stats.Launch < 4*time.Millisecond {
			t.Fatalf("launch stage %v does not include two modeled copies of 2 ms", r.Stats.Launch)
		}
	}
}

func TestPolicies(t *testing.T) {
	b := subgraph.NewBuilder("sizes")
	small := b.Input("small", kernel.Float32, 8)
	// big is large enough that any host loses to the device model on it,
	// by a wide margin, with or without host costs.
	big := b.Input("big", kernel.Float32, 512, 512)
	b.Output(b.Op("Add", small, small))                                 // 0: tiny
	b.Output(b.Op("MatMul", big, big))                                  // 1: 268 MFLOP
	b.Output(b.Op("Unique", small))                                     // 2: no static output
	b.Output(b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(0)}, big)) // 3: 256 K elements
	b.Last().Placement = subgraph.OnCPU
	c, err := subgraph.Validate(b.Graph(), ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	mgr := newManager(t, false)
	costs := plan.Costs{Prepare: 2000, Infer: 5000, Resize: 6000, Launch: 8000}
	tg := heterog.Target{CPU: mgr.CPU(), Accelerator: mgr.Accelerator(), Cost: func(n plan.Node) plan.Costs {
		if n.OnCPU {
			return plan.Costs{Prepare: 2000, Infer: 5000}
		}
		return costs
	}}
	cpu, dev := subgraph.OnCPU, subgraph.OnDevice
	for _, tc := range []struct {
		p    heterog.Policy
		want []subgraph.Placement
	}{
		{heterog.Labels(), []subgraph.Placement{dev, dev, dev, cpu}},
		{heterog.Fixed(cpu), []subgraph.Placement{cpu, cpu, cpu, cpu}},
		{heterog.Capability{Ops: []string{"Add", "MatMul"}}, []subgraph.Placement{dev, dev, cpu, cpu}},
		{heterog.Capability{Ops: []string{"Unique", "Softmax"}, Fallback: heterog.Fixed(cpu)}, []subgraph.Placement{cpu, cpu, cpu, cpu}},
		{heterog.Size{Elements: 1000}, []subgraph.Placement{cpu, dev, dev, dev}},
		{heterog.Size{Elements: 1 << 20, Fallback: heterog.Fixed(cpu)}, []subgraph.Placement{cpu, cpu, cpu, cpu}},
		{heterog.Cost{}, []subgraph.Placement{cpu, dev, dev, dev}},
	} {
		got, err := tc.p.Place(c, tg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("%v placed %v, want %v", tc.p, got, tc.want)
			}
		}
	}
	n, err := heterog.MeasureThreshold(tg)
	if err != nil {
		t.Fatal(err)
	}
	if n < 64 || n&(n-1) != 0 {
		t.Fatalf("threshold %d is not a power of two from 64", n)
	}
	if again, _ := heterog.MeasureThreshold(tg); again != n {
		t.Fatalf("threshold measured twice: %d then %d", n, again)
	}
	measured, err := heterog.Size{}.Place(c, tg)
	if err != nil || measured[0] != cpu || measured[1] != dev {
		t.Fatalf("size policy with the measured threshold %d: %v, %v", n, measured, err)
	}
	if _, err := heterog.MeasureThreshold(heterog.Target{}); err == nil {
		t.Fatal("threshold of a target without devices")
	}
	if _, err := (heterog.Size{Elements: -1}).Place(c, tg); !errors.Is(err, plan.ErrConfig) || !strings.Contains(err.Error(), "Elements -1") {
		t.Fatalf("size policy with a negative threshold: %v, want an ErrConfig error naming it", err)
	}
	for _, p := range []subgraph.Placement{subgraph.Unplaced, 99} {
		if _, err := heterog.Fixed(p).Place(c, tg); !errors.Is(err, plan.ErrConfig) || !strings.Contains(err.Error(), p.String()) {
			t.Fatalf("fixed placement %v: %v, want an ErrConfig error naming it", p, err)
		}
	}
}

// meddler is a placement policy that changes the checked graph it is
// given before placing every node on the CPU: it rewires node 2 to read
// the graph's input, truncates the node list, or scrambles the order.
type meddler struct{ how string }

func (m meddler) Place(c *subgraph.Checked, t heterog.Target) ([]subgraph.Placement, error) {
	n := len(c.Graph.Nodes)
	switch m.how {
	case "rewire":
		c.Graph.Nodes[2].Inputs[0] = c.Graph.Inputs[0].Name
	case "truncate":
		c.Graph.Nodes = c.Graph.Nodes[:1]
	case "order":
		for i := range c.Order {
			c.Order[i] = 0
		}
	case "meta":
		for _, t := range c.Meta {
			t.Shape = append(t.Shape[:0], 7, 7, 7)
		}
	}
	pl := make([]subgraph.Placement, n)
	for i := range pl {
		pl[i] = subgraph.OnCPU
	}
	return pl, nil
}

// TestPolicyChangesNothingItIsGiven: a placement policy that changes the
// checked graph, its order or its shapes changes nothing the executable
// runs: outputs match kernel by kernel, and Compile does not panic.
// Placements of the wrong count or value are ErrConfig errors.
func TestPolicyChangesNothingItIsGiven(t *testing.T) {
	g, in := joined()
	want := reference(t, g, in)
	mgr := newManager(t, false)
	for _, how := range []string{"rewire", "truncate", "order", "meta"} {
		e := compile(t, g, opts{Manager: mgr, Policy: meddler{how}})
		if err := sameOutputs(want, run(t, e, in).Outputs); err != nil {
			t.Errorf("policy meddling with %s: %v", how, err)
		}
	}
	short := placeFunc(func(c *subgraph.Checked) []subgraph.Placement { return []subgraph.Placement{subgraph.OnCPU} })
	bad := placeFunc(func(c *subgraph.Checked) []subgraph.Placement { return make([]subgraph.Placement, len(c.Graph.Nodes)) })
	for name, p := range map[string]heterog.Policy{"count": short, "value": bad} {
		if _, err := compileWith(g, opts{Manager: mgr, Policy: p}); !errors.Is(err, plan.ErrConfig) {
			t.Errorf("placements of a wrong %s: %v, want an ErrConfig error", name, err)
		}
	}
}

// placeFunc is a placement policy from a function.
type placeFunc func(c *subgraph.Checked) []subgraph.Placement

func (f placeFunc) Place(c *subgraph.Checked, t heterog.Target) ([]subgraph.Placement, error) {
	return f(c), nil
}

// TestVirtualOperatorInAnArena: a virtual operator computes in place over
// tensors a memory plan placed in its arena (parts of one host-mapped
// buffer), in every mode, run after run: mode Replay and the MemoryPlan
// cache place them so from the second run on.
func TestVirtualOperatorInAnArena(t *testing.T) {
	g, in := joined()
	want := reference(t, g, in)
	for _, m := range plan.Modes() {
		for _, schedule := range []heterog.Schedule{heterog.Concurrent, heterog.Serial} {
			e := compile(t, g, opts{Schedule: schedule, Mode: m, Manager: newManager(t, true), Policy: heterog.Fixed(subgraph.OnDevice),
				Virtual: []string{"Add", "Softmax"}, Caches: plan.Caches{Kinds: plan.DefaultCaches | plan.MemoryPlan}})
			for i := range 3 {
				if err := sameOutputs(want, run(t, e, in).Outputs); err != nil {
					t.Errorf("%v %v run %d: %v", m, schedule, i, err)
				}
			}
		}
	}
}

// TestPoliciesWithoutDevices: the policies that price nodes on the target's
// devices refuse a target without them with an ErrConfig error, not a nil
// dereference; closing a nil Executable is a no-op.
func TestPoliciesWithoutDevices(t *testing.T) {
	g, _ := joined()
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]heterog.Policy{"cost": heterog.Cost{}, "size": heterog.Size{}} {
		if _, err := p.Place(c, heterog.Target{}); !errors.Is(err, plan.ErrConfig) {
			t.Errorf("%s policy without devices: %v, want an ErrConfig error", name, err)
		}
	}
	var e *heterog.Executable
	if err := e.Close(); err != nil {
		t.Errorf("Close of a nil Executable: %v", err)
	}
}

// shortPolicy places only the first node: a policy of the wrong count.
type shortPolicy struct{}

func (shortPolicy) Place(c *subgraph.Checked, _ heterog.Target) ([]subgraph.Placement, error) {
	return []subgraph.Placement{subgraph.OnDevice}, nil
}

// TestNilAndZeroValues: the methods of a nil or zero Executable and of a
// nil or zero Manager never panic: a Run is an error matching ErrInvalid,
// Close and Release do nothing, the accessors give zero values, Ended is
// closed; Compile with a zero Manager is ErrInvalid; a nil Group has no
// device and no workers.
func TestNilAndZeroValues(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1}, 1)}
	for name, e := range map[string]*heterog.Executable{"nil": nil, "zero": {}} {
		if _, err := e.Run(context.Background(), in); !errors.Is(err, heterog.ErrInvalid) {
			t.Errorf("%s Executable: Run: %v, want ErrInvalid", name, err)
		}
		if _, err := e.RunNumbered(context.Background(), in, 3); !errors.Is(err, heterog.ErrInvalid) {
			t.Errorf("%s Executable: RunNumbered: %v, want ErrInvalid", name, err)
		}
		if e.Placement() != nil || e.Partitioning() != nil {
			t.Errorf("%s Executable: placement %v, partitioning %v", name, e.Placement(), e.Partitioning())
		}
		if err := e.Close(); err != nil {
			t.Errorf("%s Executable: Close: %v", name, err)
		}
		select {
		case <-e.Ended():
		default:
			t.Errorf("%s Executable: Ended is open", name)
		}
	}
	for name, m := range map[string]*heterog.Manager{"nil": nil, "zero": {}} {
		if m.CPU() != nil || m.Accelerator() != nil || m.GroupsCreated() != 0 || m.GroupStats() != (heterog.GroupStats{}) {
			t.Errorf("%s Manager: accessors %v %v %d %+v", name, m.CPU(), m.Accelerator(), m.GroupsCreated(), m.GroupStats())
		}
		if _, err := m.Group(m.Accelerator(), 1); !errors.Is(err, heterog.ErrInvalid) {
			t.Errorf("%s Manager: Group: %v, want ErrInvalid", name, err)
		}
		if err := m.Release(); err != nil {
			t.Errorf("%s Manager: Release: %v", name, err)
		}
	}
	var g *heterog.Group
	if g.Device() != nil || g.Size() != 0 {
		t.Errorf("nil Group: %v, %d", g.Device(), g.Size())
	}
	b := subgraph.NewBuilder("z")
	b.Output(b.Op("ReLU", b.Input("x", kernel.Float32, 1)))
	if _, err := heterog.Compile(b.Graph(), plan.Config{}, &heterog.Manager{}); !errors.Is(err, heterog.ErrInvalid) {
		t.Errorf("Compile with a zero Manager: %v, want ErrInvalid", err)
	}
	if m, err := heterog.NewManager(&host.Device{}, nil); !errors.Is(err, heterog.ErrInvalid) || !errors.Is(err, device.ErrNoDevice) {
		m.Release()
		t.Errorf("NewManager of a zero host.Device: %v, want ErrInvalid and device.ErrNoDevice", err)
	}
}

// TestMisuseOfTheAPI: a built-in policy whose Fallback places the wrong
// number of nodes is ErrConfig, not a panic; Run with a nil context, a
// missing or an unknown input is an error (the inputs' matching
// subgraph.ErrBadInput), never a panic; Partitioning hands out a copy,
// so that what the caller does to it changes nothing a run reads.
func TestMisuseOfTheAPI(t *testing.T) {
	b := subgraph.NewBuilder("s")
	x := b.Input("x", kernel.Float32, 2, 3)
	a := b.Op("Add", x, x)
	b.Last().Placement = subgraph.OnCPU
	b.Output(b.Op("ReLU", a))
	g := b.Graph()
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []heterog.Policy{
		heterog.Capability{Ops: []string{"Add"}, Fallback: shortPolicy{}},
		heterog.Size{Elements: 4, Fallback: shortPolicy{}},
		heterog.Cost{Fallback: shortPolicy{}},
	} {
		if _, err := p.Place(c, heterog.Target{}); !errors.Is(err, plan.ErrConfig) {
			t.Errorf("%v with a short fallback: %v, want ErrConfig", p, err)
		}
	}
	mgr := newManager(t, false)
	exe, err := heterog.Compile(g, plan.Config{}, mgr)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4, 5, -6}, 2, 3)}
	var nilCtx context.Context
	if _, err := exe.Run(nilCtx, in); !errors.Is(err, heterog.ErrInvalid) {
		t.Errorf("Run with a nil context: %v, want ErrInvalid", err)
	}
	for name, bad := range map[string]map[string]*kernel.Tensor{
		"missing": {},
		"unknown": {"x": in["x"], "y": in["x"]},
	} {
		if _, err := exe.Run(context.Background(), bad); !errors.Is(err, subgraph.ErrBadInput) {
			t.Errorf("%s input: %v, want ErrBadInput", name, err)
		}
	}
	p := exe.Partitioning()
	if p == nil || len(p.Parts) == 0 {
		t.Fatalf("partitioning %+v", p)
	}
	p.Parts[0].Graph.Name = "renamed"
	p.Parts, p.Edges = p.Parts[:0], nil
	if q := exe.Partitioning(); len(q.Parts) == 0 || q.Parts[0].Graph.Name == "renamed" {
		t.Fatalf("the caller's change reached the executable: %+v", q)
	}
	if _, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3}, 1, 3)}); !errors.Is(err, subgraph.ErrBadInput) {
		t.Errorf("a bad input after the caller changed the partitioning: %v, want ErrBadInput", err)
	}
	res, err := exe.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := kernel.Float32s(res.Outputs[g.Outputs[0]].Host); fmt.Sprint(got) != "[2 0 6 0 10 0]" {
		t.Errorf("outputs %v", got)
	}
}
