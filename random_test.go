package pipert_test

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	devfault "github.com/pipert/pipert/device/fault"
	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/internal/race"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

var long = flag.Bool("long", false, "TestLong…: 10 000 random graphs with random faults and cancellations")

// configurations are every way to run a graph that must match KBK.
func configurations() []modeCase {
	all := pipert.WithCaches(pipert.Caches{Kinds: pipert.TilingLocal | pipert.TilingGlobal | pipert.InferReuse | pipert.SetupReuse | pipert.MemoryPlan})
	out := everyMode()
	out = append(out,
		modeCase{"pipeline/all caches", []pipert.Option{pipert.WithMode(pipert.Pipeline), all}},
		modeCase{"pipeline/queue 1", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithQueueCapacity(1)}},
		modeCase{"pipeline/queue 64", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithQueueCapacity(64)}},
		modeCase{"pipeline/multi-stream tiling", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithTilingCopy(pipert.MultiStream, 2)}},
		modeCase{"pipeline/whole tiling", []pipert.Option{pipert.WithMode(pipert.Pipeline), pipert.WithTilingCopy(pipert.Whole, 0)}},
		modeCase{"replay/all caches", []pipert.Option{pipert.WithMode(pipert.Replay), all}},
	)
	return out
}

// reordered is g with its nodes in another valid topological order, drawn
// from rng: the execution order follows the nodes' order where
// dependencies allow, so the runtime sees another order.
func reordered(g *subgraph.Graph, rng *rand.Rand) *subgraph.Graph {
	producer := map[string]int{}
	for i, n := range g.Nodes {
		for _, o := range n.Outputs {
			producer[o] = i
		}
	}
	need := make([]int, len(g.Nodes))
	users := make([][]int, len(g.Nodes))
	for i, n := range g.Nodes {
		for _, in := range n.Inputs {
			if p, ok := producer[in]; ok {
				need[i]++
				users[p] = append(users[p], i)
			}
		}
	}
	var ready, order []int
	for i := range g.Nodes {
		if need[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		k := rng.IntN(len(ready))
		i := ready[k]
		ready = append(ready[:k], ready[k+1:]...)
		order = append(order, i)
		for _, u := range users[i] {
			if need[u]--; need[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	c := *g
	c.Nodes = make([]*subgraph.Node, len(order))
	for k, i := range order {
		c.Nodes[k] = g.Nodes[i]
	}
	return &c
}

// randomGraph draws graph seed and the inputs of its runs (rows changing
// where the graph allows).
func randomGraph(seed uint64, runs int) (*subgraph.Graph, []map[string]*kernel.Tensor, *rand.Rand) {
	rng := rand.New(rand.NewPCG(seed, 97))
	o := graphtest.Options{Nodes: 2 + rng.IntN(14), ValueDeps: rng.IntN(2) == 0, DataRanks: rng.IntN(3) == 0,
		DynamicRows: rng.IntN(2) == 0, Flip: 0.3 * rng.Float64()}
	g, first := graphtest.Random(rng, o)
	ins := []map[string]*kernel.Tensor{first}
	for range runs - 1 {
		if !o.DynamicRows {
			ins = append(ins, first)
			continue
		}
		in := map[string]*kernel.Tensor{}
		for i, t := range graphtest.Refill(rng, g, 1+rng.Int64N(4)) {
			in[g.Inputs[i].Name] = t
		}
		ins = append(ins, in)
	}
	return g, ins, rng
}

// TestRandomGraphsInEveryConfiguration: 500 random graphs (value and
// compute dependencies, ranks known only at run time, CPU placement, rows
// changing between runs), each run in every configuration — every mode
// and policy, heterogeneous, host caches, queue capacities 1 and 64,
// tiling copies — and in another valid node order, on a device shared
// with another executable running at the same time: every output of every
// run is KBK's, bit for bit. Under the race detector, which makes each
// graph some tenfold slower, the first 120 (.ci/run runs all 500 without
// it too).
func TestRandomGraphsInEveryConfiguration(t *testing.T) {
	n := 500
	switch {
	case testing.Short():
		n = 60
	case race.Enabled:
		n = 120
	}
	ctx := context.Background()
	configs := configurations()
	for seed := range uint64(n) {
		g, ins, rng := randomGraph(seed, 3)
		ref, err := pipert.Compile(g, pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches}))
		if err != nil {
			t.Fatalf("seed %d: kbk: %v", seed, err)
		}
		want := make([]*pipert.Result, len(ins))
		for i, in := range ins {
			if want[i], err = ref.Run(ctx, in); err != nil {
				t.Fatalf("seed %d run %d: kbk: %v", seed, i, err)
			}
		}
		ref.Close()
		c := configs[int(seed)%len(configs)]
		check := func(what string, g *subgraph.Graph, opts ...pipert.Option) {
			t.Helper()
			exe, err := pipert.Compile(g, opts...)
			if err != nil {
				t.Fatalf("seed %d, %s: %v", seed, what, err)
			}
			defer exe.Close()
			for i, in := range ins {
				got, err := exe.Run(ctx, in)
				if err == nil {
					err = sameResults(want[i], got)
				}
				if err != nil {
					t.Fatalf("seed %d run %d, %s: %v", seed, i, what, err)
				}
			}
		}
		for _, c2 := range configs {
			check(c2.name, g, c2.opts...)
		}
		// Metamorphic: another node order; a shared, busy device.
		check(c.name+"/reordered", reordered(g, rng), c.opts...)
		if seed%5 == 0 {
			sim, err := device.NewSim(device.SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			other, err := pipert.Compile(g, pipert.WithDevice(sim), pipert.WithMode(pipert.Pipeline))
			if err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := other.Run(ctx, ins[0]); err != nil {
						t.Errorf("seed %d: the other executable: %v", seed, err)
						return
					}
				}
			}()
			check(c.name+"/shared device", g, append([]pipert.Option{pipert.WithDevice(sim)}, c.opts...)...)
			close(stop)
			wg.Wait()
			other.Close()
		}
	}
}

// TestLongRandomFaultsAndCancellations (-long): 10 000 random graphs, each
// in a random configuration on a device with random faults and with runs
// cancelled at random points: a run either gives KBK's outputs or fails
// with a fault's sentinel or the cancellation, and after a device reset
// the next run is exact. It reports the counts.
func TestLongRandomFaultsAndCancellations(t *testing.T) {
	n := 200
	if *long {
		n = 10_000
	}
	configs := configurations()
	var ok, faulted, cancelled int
	sentinels := []error{device.ErrOutOfMemory, device.ErrLaunchFailed, device.ErrCopyFailed, device.ErrKernelFault, device.ErrDeviceLost}
	for seed := range uint64(n) {
		g, ins, rng := randomGraph(seed, 4)
		ref, err := pipert.Compile(g, pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches}))
		if err != nil {
			t.Fatalf("seed %d: kbk: %v", seed, err)
		}
		want := make([]*pipert.Result, len(ins))
		for i, in := range ins {
			if want[i], err = ref.Run(context.Background(), in); err != nil {
				t.Fatalf("seed %d run %d: kbk: %v", seed, i, err)
			}
		}
		ref.Close()
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kinds := []devfault.Kind{devfault.Alloc, devfault.Launch, devfault.CopyH2D, devfault.CopyD2H, devfault.Sync, devfault.Free}
		d := devfault.New(sim, seed, devfault.Rule{Kind: kinds[rng.IntN(len(kinds))], Prob: 0.02 + 0.1*rng.Float64(),
			Effect: devfault.Effect(1 + rng.IntN(3))})
		c := configs[rng.IntN(len(configs))]
		exe, err := pipert.Compile(g, append([]pipert.Option{pipert.WithDevice(d)}, c.opts...)...)
		if err != nil {
			if anyIs(err, sentinels) { // a fault while uploading constants
				faulted++
				continue
			}
			t.Fatalf("seed %d, %s: %v", seed, c.name, err)
		}
		for i, in := range ins {
			ctx, cancel := context.WithCancel(context.Background())
			if rng.IntN(4) == 0 {
				time.AfterFunc(time.Duration(rng.IntN(300))*time.Microsecond, cancel)
			}
			got, err := exe.Run(ctx, in)
			cancel()
			switch {
			case err == nil:
				if err := sameResults(want[i], got); err != nil {
					t.Fatalf("seed %d run %d, %s: %v", seed, i, c.name, err)
				}
				ok++
			case errors.Is(err, context.Canceled):
				cancelled++
			case anyIs(err, sentinels):
				faulted++
			default:
				t.Fatalf("seed %d run %d, %s: unexpected error %v", seed, i, c.name, err)
			}
			if d.Faulted() != nil {
				if err := d.Reset(); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Healthy again (a fault injected may not have surfaced yet: reset
		// whenever one was): exact.
		d.SetRules()
		if d.Injected() > 0 {
			if err := d.Reset(); err != nil {
				t.Fatal(err)
			}
		}
		got, err := exe.Run(context.Background(), ins[0])
		if err == nil {
			err = sameResults(want[0], got)
		}
		if err != nil {
			t.Fatalf("seed %d, %s: the run on a healthy device: %v", seed, c.name, err)
		}
		if err := exe.Close(); err != nil {
			t.Fatal(err)
		}
		if d.Faulted() == nil && sim.Stats().MemInUse != 0 {
			t.Fatalf("seed %d, %s: %d device bytes left after Close", seed, c.name, sim.Stats().MemInUse)
		}
	}
	t.Logf("%d graphs: %d exact runs, %d faulted, %d cancelled", n, ok, faulted, cancelled)
	if ok == 0 || faulted == 0 {
		t.Errorf("the schedule did not exercise both outcomes: %d exact, %d faulted", ok, faulted)
	}
}

func anyIs(err error, targets []error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
