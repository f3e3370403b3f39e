package actor_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/internal/race"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
)

var noCaches = plan.Caches{Kinds: plan.NoCaches}

// cacheVariants are the cache settings checked against KBK without
// caches.
var cacheVariants = []plan.Caches{
	{Kinds: plan.TilingLocal},
	{Kinds: plan.TilingGlobal, GlobalSlots: 1},
	{Kinds: plan.InferReuse | plan.SetupReuse},
	{Kinds: plan.MemoryPlan},
	{Kinds: plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse | plan.MemoryPlan},
	{Kinds: plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse | plan.MemoryPlan, LocalSlots: 3, GlobalSlots: 2},
}

// TestCachesMatchKBKAcrossShapeChanges: random graphs whose inputs change
// rows between runs (and keep them, so that caches hit), run by one
// executable per mode and cache setting, give outputs bit-identical to KBK
// without caches, run after run; the counts add up, and every memory plan
// keeps tensors whose lifetimes overlap apart. A second pass makes
// every key hash alike: the caches must still never hand a tiling to
// another shape.
func TestCachesMatchKBKAcrossShapeChanges(t *testing.T) {
	modes := []plan.Config{
		{Mode: plan.KBK},
		{Mode: plan.Async, Barrier: plan.Drain},
		{Mode: plan.Pipeline, Barrier: plan.PerTensor},
		{Mode: plan.Pipeline, Barrier: plan.PerTensor, QueueCapacity: 1},
	}
	n := 30
	if testing.Short() || race.Enabled { // .ci/run runs the 30 without the race detector
		n = 8
	}
	for _, collide := range []bool{false, true} {
		if collide {
			saved := *actor.KeyHash
			*actor.KeyHash = func([]byte) uint64 { return 7 }
			defer func() { *actor.KeyHash = saved }()
		}
		rng := rand.New(rand.NewPCG(13, 5))
		for i := 0; i < n; i++ {
			cols := 1 + rng.Int64N(4)
			g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 3 + rng.IntN(20), Cols: cols, ValueDeps: true, DynamicRows: true})
			steps := make([][]*kernel.Tensor, 7)
			rows := 1 + rng.Int64N(4)
			for s := range steps {
				if rng.IntN(2) == 0 {
					rows = 1 + rng.Int64N(4)
				}
				steps[s] = graphtest.Refill(rng, g, rows)
			}
			want := kbkRuns(t, g, steps)
			for _, m := range modes {
				for _, cs := range cacheVariants {
					cfg := m
					cfg.Caches = cs
					a, _, done := newActor(t, g, cfg, ops.Builtins())
					for s, in := range steps {
						got, st, err := a.Run(context.Background(), in)
						if err == nil {
							err = sameOutputs(want[s], got)
						}
						if err == nil {
							err = cacheCountsAddUp(cs.Kinds, a.Kernels(), &st.Cache)
						}
						if err == nil && cs.Kinds.Has(plan.MemoryPlan) {
							_, err = actor.CheckPlan(a)
						}
						if err != nil {
							t.Fatalf("collide %v, graph %d, step %d, %s, caches %v: %v", collide, i, s, name(cfg), cs.Kinds, err)
						}
					}
					done()
				}
			}
		}
	}
}

// kbkRuns runs g in KBK without caches on each step's inputs, in order,
// and returns each step's outputs: the reference.
func kbkRuns(t *testing.T, g *subgraph.Graph, steps [][]*kernel.Tensor) [][]*kernel.Tensor {
	t.Helper()
	ref, _, done := newActor(t, g, plan.Config{Mode: plan.KBK, Caches: noCaches}, ops.Builtins())
	defer done()
	want := make([][]*kernel.Tensor, len(steps))
	for s, in := range steps {
		out, _, err := ref.Run(context.Background(), in)
		if err != nil {
			t.Fatalf("%s step %d: kbk: %v", g.Name, s, err)
		}
		want[s] = out
	}
	return want
}

// cacheCountsAddUp checks a run's cache counts against the kernels it ran
// (graphtest graphs have no volatile node and no branch).
func cacheCountsAddUp(k plan.CacheKinds, kernels int, c *plan.CacheStats) error {
	if k.Has(plan.TilingLocal) && c.LocalHits+c.LocalMisses != kernels {
		return fmt.Errorf("local tiling lookups %+v for %d kernels", c, kernels)
	}
	if k.Has(plan.TilingGlobal) {
		looked := kernels
		if k.Has(plan.TilingLocal) {
			looked = c.LocalMisses
		}
		if c.GlobalHits+c.GlobalMisses != looked {
			return fmt.Errorf("global tiling lookups %+v, want %d", c, looked)
		}
	}
	if k.Has(plan.InferReuse) && c.InferHits+c.InferMisses != kernels {
		return fmt.Errorf("infer lookups %+v for %d kernels", c, kernels)
	}
	if k.Has(plan.SetupReuse) && c.SetupHits+c.SetupMisses != kernels {
		return fmt.Errorf("setup lookups %+v for %d kernels", c, kernels)
	}
	return nil
}

// counting is Identity counting its InferShape and Resize calls.
type counting struct {
	kernel.Kernel
	name  string
	calls *callCounts
}

type callCounts struct {
	mu            sync.Mutex
	infer, resize map[string]int
}

func (c *callCounts) add(m map[string]int, name string) {
	c.mu.Lock()
	m[name]++
	c.mu.Unlock()
}

// take returns the counts so far and resets them.
func (c *callCounts) take() (infer, resize map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	infer, resize = c.infer, c.resize
	c.infer, c.resize = map[string]int{}, map[string]int{}
	return infer, resize
}

func (k *counting) InferShape(in, out []*kernel.Tensor) error {
	k.calls.add(k.calls.infer, k.name)
	return k.Kernel.InferShape(in, out)
}

func (k *counting) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	k.calls.add(k.calls.resize, k.name)
	return k.Kernel.Resize(in, out, t)
}

// TestShapeChangeRecomputesOnlyDownstream: a graph of two chains, on
// inputs a and b, joined by a node whose inputs keep their shapes when
// a's rows change. With InferShape reuse and the local tiling cache, a
// run with the previous shapes calls no InferShape and no Resize; changing
// a's rows calls them exactly for the nodes whose input shapes changed;
// outputs stay equal to KBK's without caches.
func TestShapeChangeRecomputesOnlyDownstream(t *testing.T) {
	calls := &callCounts{}
	calls.take()
	reg := ops.NewRegistry()
	if err := reg.Register("Count", func(a kernel.Attrs) (kernel.Kernel, error) {
		name, err := a.String("name", "")
		if err != nil {
			return nil, err
		}
		k, err := ops.Builtins().New("Identity", nil)
		return &counting{Kernel: k, name: name, calls: calls}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("two chains")
	count := func(name, in string) string { return b.OpAttrs("Count", kernel.Attrs{"name": name}, in) }
	a1 := count("a1", b.Input("a", kernel.Float32, kernel.Dynamic, 4))
	a2 := count("a2", b.Op("ReLU", a1))
	r := count("r", b.OpAttrs("ReduceSum", kernel.Attrs{"axes": []int64{0}, "keepdims": true}, a2)) // [1, 4] whatever a's rows
	b1 := count("b1", b.Input("b", kernel.Float32, kernel.Dynamic, 4))
	b2 := count("b2", b.Op("GELU", b1))
	j := count("j", b.Op("Add", r, b2))
	b.Output(j, a2)
	g := b.Graph()

	rng := rand.New(rand.NewPCG(3, 3))
	input := func(ra, rb int64) []*kernel.Tensor {
		in := graphtest.Refill(rng, g, ra)
		in[1] = graphtest.Refill(rng, g, rb)[1]
		return in
	}
	type step struct {
		ra, rb int64
		want   []string // Count nodes whose InferShape and Resize run
		slots2 []string // the same with two local tiling slots, for Resize
	}
	all := []string{"a1", "a2", "b1", "b2", "j", "r"}
	steps := []step{
		{2, 3, all, all},
		{2, 3, nil, nil},
		{5, 3, []string{"a1", "a2"}, []string{"a1", "a2"}},
		{5, 3, nil, nil},
		{2, 3, []string{"a1", "a2"}, nil}, // back to the first shape: two slots still hold it
		{2, 1, []string{"b1", "b2", "j"}, []string{"b1", "b2", "j"}},
	}
	for _, slots := range []int{1, 2} {
		for _, m := range []plan.Config{{Mode: plan.KBK}, {Mode: plan.Pipeline}} {
			cfg := m
			cfg.Caches = plan.Caches{Kinds: plan.InferReuse | plan.TilingLocal, LocalSlots: slots}
			a, _, done := newActor(t, g, cfg, reg)
			refCfg := plan.Config{Mode: plan.KBK, Caches: noCaches}
			ref, _, refDone := newActor(t, g, refCfg, reg)
			for i, s := range steps {
				in := input(s.ra, s.rb)
				want, _, err := ref.Run(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				calls.take()
				got, st, err := a.Run(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameOutputs(want, got); err != nil {
					t.Fatalf("%s, %d slots, step %d: %v", name(cfg), slots, i, err)
				}
				infer, resize := calls.take()
				wantResize := s.want
				if slots == 2 {
					wantResize = s.slots2
				}
				if got := names(infer); fmt.Sprint(got) != fmt.Sprint(sorted(s.want)) {
					t.Errorf("%s, %d slots, step %d (rows %d, %d): InferShape ran for %v, want %v", name(cfg), slots, i, s.ra, s.rb, got, sorted(s.want))
				}
				if got := names(resize); fmt.Sprint(got) != fmt.Sprint(sorted(wantResize)) {
					t.Errorf("%s, %d slots, step %d (rows %d, %d): Resize ran for %v, want %v", name(cfg), slots, i, s.ra, s.rb, got, sorted(wantResize))
				}
				if st.Cache.InferHits+st.Cache.InferMisses != a.Kernels() {
					t.Errorf("step %d: infer counts %+v for %d kernels", i, st.Cache, a.Kernels())
				}
			}
			refDone()
			done()
		}
	}
}

func names(m map[string]int) []string {
	var out []string
	for k, n := range m {
		if n != 1 {
			out = append(out, fmt.Sprintf("%s×%d", k, n))
			continue
		}
		out = append(out, k)
	}
	return sorted(out)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestSetupReuseFollowsTheInputs: a node's Setup is reused when its
// input shapes are its previous run's, whatever happened to the other
// nodes, and a cancelled run does not lose what was set up.
func TestSetupReuseFollowsTheInputs(t *testing.T) {
	b := subgraph.NewBuilder("setup")
	x := b.Op("ReLU", b.Input("a", kernel.Float32, kernel.Dynamic, 4))
	y := b.Op("ReLU", b.Input("b", kernel.Float32, kernel.Dynamic, 4))
	b.Output(x, y)
	g := b.Graph()
	rng := rand.New(rand.NewPCG(1, 2))
	a, _, done := newActor(t, g, plan.Config{Mode: plan.Pipeline, Caches: plan.Caches{Kinds: plan.SetupReuse}}, ops.Builtins())
	defer done()
	check := func(i int, ctx context.Context, ra, rb int64, hits, miss int) {
		t.Helper()
		in := graphtest.Refill(rng, g, ra)
		in[1] = graphtest.Refill(rng, g, rb)[1]
		_, st, err := a.Run(ctx, in)
		if ctx.Err() != nil {
			if err == nil {
				t.Fatal("a cancelled run succeeded")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if st.Cache.SetupHits != hits || st.Cache.SetupMisses != miss {
			t.Errorf("step %d: setup %d hits, %d misses; want %d, %d", i, st.Cache.SetupHits, st.Cache.SetupMisses, hits, miss)
		}
	}
	bg := context.Background()
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	check(0, bg, 2, 2, 0, 2)
	check(1, bg, 2, 2, 2, 0)
	check(2, bg, 3, 2, 1, 1)
	check(3, bg, 3, 5, 1, 1)
	check(4, bg, 3, 5, 2, 0)
	check(5, cancelled, 3, 5, 0, 0)
	check(6, bg, 3, 5, 2, 0)
}

// TestCachedConfigErrors: cache settings out of range are errors.
func TestCachedConfigErrors(t *testing.T) {
	for _, bad := range []plan.Caches{
		{Kinds: plan.NoCaches | plan.TilingLocal},
		{Kinds: 1 << 6},
		{LocalSlots: -1},
		{GlobalSlots: plan.MaxCacheSlots + 1},
	} {
		if _, err := (plan.Config{Caches: bad}).Check(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestPlannedRunsCallTheAllocatorPerRunOnly: with a memory plan, a run of
// a static graph calls the device allocator once per graph input, whatever
// the number of kernels, and makes no Go allocation per kernel either.
func TestPlannedRunsCallTheAllocatorPerRunOnly(t *testing.T) {
	chain := func(n int) *subgraph.Graph {
		b := subgraph.NewBuilder(fmt.Sprintf("chain%d", n))
		h := b.Input("x", kernel.Float32, 8, 8)
		w := b.Const("w", kernel.New(kernel.Float32, 8, 8))
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				h = b.Op("MatMul", h, w)
			} else {
				h = b.Op("GELU", h)
			}
		}
		b.Output(h)
		return b.Graph()
	}
	all := plan.Caches{Kinds: plan.TilingLocal | plan.TilingGlobal | plan.InferReuse | plan.SetupReuse | plan.MemoryPlan}
	for _, m := range []plan.Mode{plan.KBK, plan.Pipeline} {
		var allocs [2]int64
		var goAllocs [2]float64
		for i, n := range []int{100, 1000} {
			g := chain(n)
			a, dev, done := newActor(t, g, plan.Config{Mode: m, Caches: all}, ops.Builtins())
			in := []*kernel.Tensor{kernel.New(kernel.Float32, 8, 8)}
			ctx := context.Background()
			for range 2 { // the first run makes the plan
				if _, _, err := a.Run(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			d0 := dev.Stats()
			_, st, err := a.Run(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			allocs[i] = dev.Stats().Sub(d0).Allocs
			if st.Plan.Fallbacks != 0 || st.Plan.ArenaBytes == 0 {
				t.Errorf("%v, %d kernels: plan %+v", m, n, st.Plan)
			}
			if _, err := actor.CheckPlan(a); err != nil {
				t.Error(err)
			}
			goAllocs[i] = testing.AllocsPerRun(5, func() {
				if _, _, err := a.Run(ctx, in); err != nil {
					t.Fatal(err)
				}
			})
			done()
		}
		if allocs[0] != 1 || allocs[1] != 1 {
			t.Errorf("%v: %d and %d allocator calls a run for 100 and 1000 kernels, want 1 (the input)", m, allocs[0], allocs[1])
		}
		if goAllocs[0] != goAllocs[1] {
			t.Errorf("%v: %v and %v Go allocations a run for 100 and 1000 kernels", m, goAllocs[0], goAllocs[1])
		}
	}
}

// TestPlanArenaNearItsLowerBound: on every built-in scenario at benchmark
// size (quick), the plan is sound and the planned arena is at most 1.1
// times the bytes live at once.
func TestPlanArenaNearItsLowerBound(t *testing.T) {
	limit := map[string]float64{}
	for _, sc := range scenarios.All() {
		w, err := sc.Build(scenarios.Config{Quick: true, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		a, _, done := newActor(t, w.Graph, plan.Config{Mode: plan.Pipeline, Caches: plan.Caches{Kinds: plan.MemoryPlan}}, control.Resolver{Base: ops.Builtins()})
		if _, _, err := a.Run(context.Background(), ordered(w.Graph, w.Inputs)); err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		f, err := actor.CheckPlan(a)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		ratio := float64(f.Arena) / float64(f.PeakLive)
		t.Logf("%s: arena %d bytes, %.3f x the peak live %d, %.3f x the sum %d", sc.Name, f.Arena, ratio, f.PeakLive, float64(f.Arena)/float64(f.Sum), f.Sum)
		lim := 1.1
		if l, ok := limit[sc.Name]; ok {
			lim = l
		}
		if ratio > lim {
			t.Errorf("%s: arena %d bytes is %.3f x the %d bytes live at once", sc.Name, f.Arena, ratio, f.PeakLive)
		}
		done()
	}
}

// TestGlobalCacheSharedByConcurrentExecutables: executables of the same
// graph, run from their own goroutines at once with the global tiling
// cache (their nodes share its entries), give KBK's outputs.
func TestGlobalCacheSharedByConcurrentExecutables(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 20, ValueDeps: true, DynamicRows: true})
	steps := [][]*kernel.Tensor{graphtest.Refill(rng, g, 2), graphtest.Refill(rng, g, 3), graphtest.Refill(rng, g, 2)}
	ref, _, done := newActor(t, g, plan.Config{Caches: noCaches}, ops.Builtins())
	var want [][]*kernel.Tensor
	for _, in := range steps {
		out, _, err := ref.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, out)
	}
	done()
	cs := plan.Caches{Kinds: plan.TilingGlobal | plan.InferReuse, GlobalSlots: 2}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	actors := make([]*actor.SuperKernelActor, len(errs))
	for i := range actors {
		a, _, done := newActor(t, g, plan.Config{Mode: plan.Pipeline, Caches: cs}, ops.Builtins())
		defer done()
		actors[i] = a
	}
	for i, a := range actors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 10 && errs[i] == nil; r++ {
				s := (r + i) % len(steps)
				got, _, err := a.Run(context.Background(), steps[s])
				if err == nil {
					err = sameOutputs(want[s], got)
				}
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("executable %d: %v", i, err)
		}
	}
}

// TestWorkspaceSizeBeforeRun: on a static graph WorkspaceSize equals the
// arena a run plans, a caller's buffer of that size serves every run (one
// allocator call a run: the input) with KBK's outputs, and the misuses
// are errors: a short buffer, no memory plan, a dynamic input, a node that
// reads a run-time value.
func TestWorkspaceSizeBeforeRun(t *testing.T) {
	b := subgraph.NewBuilder("static")
	x := b.Input("x", kernel.Float32, 3, 8)
	w := b.Const("w", kernel.New(kernel.Float32, 8, 8))
	h := b.Op("GELU", b.Op("MatMul", x, w))
	b.Output(b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, b.Op("Add", h, x)))
	g := b.Graph()
	rng := rand.New(rand.NewPCG(5, 5))
	in := graphtest.Refill(rng, g, 3)
	ref, _, refDone := newActor(t, g, plan.Config{Caches: noCaches}, ops.Builtins())
	want, _, err := ref.Run(context.Background(), in)
	refDone()
	if err != nil {
		t.Fatal(err)
	}
	cfg := plan.Config{Mode: plan.Pipeline, Caches: plan.Caches{Kinds: plan.MemoryPlan | plan.TilingLocal}}
	a, dev, done := newActor(t, g, cfg, ops.Builtins())
	defer done()
	size, err := a.WorkspaceSize()
	if err != nil || size <= 0 {
		t.Fatalf("WorkspaceSize: %d, %v", size, err)
	}
	short, err := dev.Alloc(size-1, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.UseWorkspace(short); !errors.Is(err, actor.ErrShortWorkspace) {
		t.Errorf("a short workspace: %v", err)
	}
	buf, err := dev.Alloc(size, true)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Free(buf)
	defer dev.Free(short)
	hollow := buf
	hollow.Data = hollow.Data[:size/2]
	if err := a.UseWorkspace(hollow); !errors.Is(err, actor.ErrShortWorkspace) {
		t.Errorf("a workspace whose contents are shorter than its size: %v", err)
	}
	if err := a.UseWorkspace(buf); err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 3; run++ {
		d0 := dev.Stats()
		got, st, err := a.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameOutputs(want, got); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if n := dev.Stats().Sub(d0).Allocs; n != 1 || st.Plan.Fallbacks != 0 || st.Plan.ArenaBytes != size {
			t.Errorf("run %d: %d allocator calls, plan %+v (workspace %d)", run, n, st.Plan, size)
		}
	}

	// Misuse.
	plain, _, plainDone := newActor(t, g, plan.Config{Caches: noCaches}, ops.Builtins())
	defer plainDone()
	if err := plain.UseWorkspace(buf); err == nil {
		t.Error("UseWorkspace without a memory plan: no error")
	}
	dyn := *g
	dyn.Inputs = []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{kernel.Dynamic, 8}}}
	d, _, dynDone := newActor(t, &dyn, cfg, ops.Builtins())
	defer dynDone()
	if _, err := d.WorkspaceSize(); !errors.Is(err, actor.ErrDynamicWorkspace) || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("dynamic input: %v", err)
	}
	vb := subgraph.NewBuilder("valuedep")
	vx := vb.Input("x", kernel.Float32, 2, 3)
	shape := vb.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, vb.Op("Shape", vx), vb.Const("perm", kernel.FromInt64([]int64{1, 0}, 2)))
	vb.Output(vb.Op("Reshape", vx, shape))
	v, _, vDone := newActor(t, vb.Graph(), cfg, ops.Builtins())
	defer vDone()
	if _, err := v.WorkspaceSize(); !errors.Is(err, actor.ErrDynamicWorkspace) || !strings.Contains(err.Error(), "Reshape") {
		t.Errorf("value dependency: %v", err)
	}
	// A node that fails on a compute-dependent node's upper bound (NonZero
	// of 4 elements: [1, 4]), though every run gives it fewer.
	cb := subgraph.NewBuilder("computedep")
	cx := cb.Input("x", kernel.Float32, 4)
	cb.Output(cb.Op("Reshape", cb.Op("NonZero", cx), cb.Const("three", kernel.FromInt64([]int64{3}, 1))))
	c, _, cDone := newActor(t, cb.Graph(), cfg, ops.Builtins())
	defer cDone()
	if _, err := c.WorkspaceSize(); !errors.Is(err, actor.ErrDynamicWorkspace) || !strings.Contains(err.Error(), "compute-dependent node \"nonzero_0\"") {
		t.Errorf("compute dependency: %v", err)
	}
}

// TestPlanConvergesOnVaryingShapes: two chains whose rows change run to
// run independently (each at its largest in different runs). A replan
// never shrinks the plan, so the executable stops replanning once it has
// seen each chain's largest rows; every run is sound.
func TestPlanConvergesOnVaryingShapes(t *testing.T) {
	b := subgraph.NewBuilder("rows")
	w := b.Const("w", kernel.New(kernel.Float32, 16, 16))
	var outs []string
	for _, name := range []string{"x", "y"} {
		h := b.Input(name, kernel.Float32, -1, 16)
		for range 10 {
			h = b.Op("GELU", b.Op("MatMul", h, w))
		}
		outs = append(outs, h)
	}
	b.Output(outs...)
	a, _, done := newActor(t, b.Graph(), plan.Config{Mode: plan.Pipeline, Caches: plan.Caches{Kinds: plan.MemoryPlan}}, ops.Builtins())
	defer done()
	ctx := context.Background()
	var last plan.PlanStats
	for run := range 40 {
		rx, ry := int64(64), int64(1) // the chains take turns at their largest
		if run%2 == 1 {
			rx, ry = ry, rx
		}
		_, st, err := a.Run(ctx, []*kernel.Tensor{kernel.Virtual(kernel.Float32, rx, 16), kernel.Virtual(kernel.Float32, ry, 16)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := actor.CheckPlan(a); err != nil {
			t.Fatal(err)
		}
		if run >= 4 && st.Plan.Fallbacks != 0 {
			t.Fatalf("run %d (rows %d and %d) did not fit the plan: %+v", run, rx, ry, st.Plan)
		}
		last = st.Plan
	}
	if last.Replans > 3 {
		t.Errorf("%d replans in 40 runs, want at most 3", last.Replans)
	}
}

// TestGlobalCacheKeysDTypeAttributes: a node whose attribute is a
// kernel.DType (Cast's "to", as the ONNX importer and builders set it) is
// looked up in the global tiling cache after a local miss, so that the
// counts add up, and a second executable finds the first's tilings there.
func TestGlobalCacheKeysDTypeAttributes(t *testing.T) {
	b := subgraph.NewBuilder("casts")
	x := b.Input("x", kernel.Float32, 3)
	h := b.OpAttrs("Cast", kernel.Attrs{"to": kernel.Int32}, x)
	h = b.OpAttrs("Cast", kernel.Attrs{"to": kernel.Float64}, h)
	b.Output(h)
	g := b.Graph()
	in := []*kernel.Tensor{kernel.FromFloat32([]float32{1.5, -2, 3}, 3)}
	cs := plan.Caches{Kinds: plan.TilingLocal | plan.TilingGlobal}
	for i := range 2 {
		a, _, done := newActor(t, g, plan.Config{Caches: cs}, ops.Builtins())
		_, st, err := a.Run(context.Background(), in)
		done()
		if err != nil {
			t.Fatal(err)
		}
		if err := cacheCountsAddUp(cs.Kinds, st.Kernels, &st.Cache); err != nil {
			t.Errorf("executable %d: %v", i, err)
		}
		if i == 1 && st.Cache.GlobalHits != 2 {
			t.Errorf("second executable: %d global hits, want 2 (the first's Casts)", st.Cache.GlobalHits)
		}
	}
}

// TestWorkspaceSizeAfterReplays: in mode Replay, WorkspaceSize after runs
// that were captured and replayed is what it was before any run, and a
// replayed run after it still replays: the dry plan is no run.
func TestWorkspaceSizeAfterReplays(t *testing.T) {
	b := subgraph.NewBuilder("replayed")
	x := b.Input("x", kernel.Float32, 3, 8)
	h := b.Op("GELU", b.Op("MatMul", x, b.Const("w", kernel.New(kernel.Float32, 8, 8))))
	b.Output(b.OpAttrs("Softmax", kernel.Attrs{"axis": int64(-1)}, b.Op("Add", h, x)))
	g := b.Graph()
	in := graphtest.Refill(rand.New(rand.NewPCG(6, 6)), g, 3)
	a, _, done := newActor(t, g, plan.Config{Mode: plan.Replay, Caches: plan.Caches{Kinds: plan.MemoryPlan}}, ops.Builtins())
	defer done()
	before, err := a.WorkspaceSize()
	if err != nil || before <= 0 {
		t.Fatalf("WorkspaceSize: %d, %v", before, err)
	}
	for run := range 5 {
		_, st, err := a.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if run >= 2 && st.Replay.Replays != 1 {
			t.Errorf("run %d: replay %+v, want the graph replayed", run, st.Replay)
		}
		if size, err := a.WorkspaceSize(); err != nil || size != before {
			t.Errorf("after run %d: WorkspaceSize %d, %v, want %d", run, size, err, before)
		}
	}
}

// TestDryPlanKeepsTheCapture: in mode Replay, a dry plan (WorkspaceSize,
// UseWorkspace) between runs leaves the captured segments as they were:
// a segment after a compute-dependent node, captured at its run-time
// shapes, replays with their tiling, not with the upper bound's the dry
// plan computed (Concat failed: "tiling is for 24 elements").
func TestDryPlanKeepsTheCapture(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 3, 4)
	u := b.Op("Unique", x)
	b.Output(b.OpAttrs("Concat", kernel.Attrs{"axis": int64(0)}, u, u))
	g := b.Graph()
	in := []*kernel.Tensor{kernel.New(kernel.Float32, 3, 4)}
	for i := range kernel.Float32s(in[0].Host) {
		kernel.Float32s(in[0].Host)[i] = float32(i % 5)
	}
	for _, drain := range []bool{false, true} {
		cfg := plan.Config{Mode: plan.Replay, Caches: plan.Caches{Kinds: plan.MemoryPlan}}
		if drain {
			cfg.Barrier = plan.Drain
		}
		a, _, done := newActor(t, g, cfg, ops.Builtins())
		var want []byte
		for run := range 6 {
			if run >= 2 {
				if _, err := a.WorkspaceSize(); err != nil {
					t.Fatal(err)
				}
			}
			outs, _, err := a.Run(context.Background(), in)
			if err != nil {
				t.Fatalf("drain %v, run %d: %v", drain, run, err)
			}
			got := outs[0].Data()
			if want == nil {
				want = append([]byte(nil), got...)
			} else if string(got) != string(want) {
				t.Fatalf("drain %v, run %d: output differs from the first run's", drain, run)
			}
		}
		done()
	}
}
