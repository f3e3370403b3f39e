package actor_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"

	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// TestTilingCopiesMatchKBK: random graphs with value and compute
// dependencies, whose rows change between runs, give KBK's outputs in
// every mode under every tiling-copy strategy, with a ring of one block
// (every copy after the first may wait for the kernel before) and of 32;
// the counts say the tilings went: one transfer per kernel with a tiling
// (WithKernel, MultiStream), one per batch at most (Whole), and only
// MultiStream's copies wait for a block (TestTilingRingStalls shows they
// do).
func TestTilingCopiesMatchKBK(t *testing.T) {
	modes := []plan.Config{
		{Mode: plan.KBK},
		{Mode: plan.Async, Barrier: plan.Drain},
		{Mode: plan.Pipeline},
		{Mode: plan.Pipeline, Barrier: plan.Drain, QueueCapacity: 1},
		{Mode: plan.Replay},
	}
	n := 12
	if testing.Short() {
		n = 4
	}
	rng := rand.New(rand.NewPCG(31, 9))
	for i := 0; i < n; i++ {
		g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 3 + rng.IntN(16), Cols: 1 + rng.Int64N(4), ValueDeps: i%2 == 0, DynamicRows: true})
		steps := make([][]*kernel.Tensor, 5)
		for s := range steps {
			steps[s] = graphtest.Refill(rng, g, 1+int64(s%2)*rng.Int64N(4))
		}
		want := kbkRuns(t, g, steps)
		for _, m := range modes {
			for _, how := range []plan.TilingCopy{plan.WithKernel, plan.MultiStream, plan.Whole} {
				for _, blocks := range []int{1, 32} {
					cfg := m
					cfg.TilingCopy, cfg.TilingBlocks = how, blocks
					a, _, done := newActor(t, g, cfg, ops.Builtins())
					for s, in := range steps {
						got, st, err := a.Run(context.Background(), in)
						if err == nil {
							err = sameOutputs(want[s], got)
						}
						if err != nil {
							t.Fatalf("graph %d step %d, %s, %v, %d blocks: %v", i, s, name(cfg), how, blocks, err)
						}
						ts := st.Tiling
						launched := a.Kernels() - st.Replay.Kernels
						switch {
						case ts.Bytes < 0 || ts.Copies < 0 || ts.Stalls < 0:
						case how != plan.Whole && ts.Copies > launched:
						case how == plan.Whole && ts.Copies > launched:
						case ts.Copies > 0 && ts.Bytes == 0:
						case how != plan.MultiStream && ts.Stalls != 0:
						case st.Replay.Kernels == 0 && ts.Copies == 0:
						default:
							continue
						}
						t.Fatalf("graph %d step %d, %s, %v, %d blocks: tiling stats %+v for %d launched kernels", i, s, name(cfg), how, blocks, ts, launched)
					}
					done()
				}
			}
		}
	}
}

// TestTilingRingStalls: with a ring of one block and kernels that keep
// the device 2 ms each, MultiStream's copy of a kernel's tiling finds the
// block still read by the kernel before, in every queued mode and in KBK,
// waits for it, and counts the stall; the outputs stay KBK's.
func TestTilingRingStalls(t *testing.T) {
	b := subgraph.NewBuilder("chain")
	x := b.Input("x", kernel.Float32, 4)
	one := b.Const("one", kernel.FromFloat32([]float32{1}, 1))
	for range 8 {
		x = b.Op("Add", x, one)
	}
	b.Output(x)
	g := b.Graph()
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	in := []*kernel.Tensor{kernel.FromFloat32([]float32{0, 1, 2, 3}, 4)}
	for _, m := range []plan.Mode{plan.KBK, plan.Async, plan.Pipeline} {
		prof := device.Default()
		prof.KernelFixed = 2 * time.Millisecond
		sim, err := device.NewSim(device.SimOptions{Profile: prof})
		if err != nil {
			t.Fatal(err)
		}
		a, err := actor.New(c, plan.Config{Mode: m, Device: sim, TilingCopy: plan.MultiStream, TilingBlocks: 1}, actor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := a.Run(context.Background(), in)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if want := []float32{8, 9, 10, 11}; !slices.Equal(kernel.Float32s(got[0].Host), want) {
			t.Errorf("%v: outputs %v, want %v", m, kernel.Float32s(got[0].Host), want)
		}
		if ts := st.Tiling; ts.Copies != len(g.Nodes) || ts.Stalls == 0 {
			t.Errorf("%v: tiling stats %+v for %d kernels: want a copy each and stalls", m, ts, len(g.Nodes))
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// pinnedSim is a Sim with pinned host memory (device.HostAllocator) that
// records where each host-to-device copy's source lies.
type pinnedSim struct {
	*device.Sim
	mu                 sync.Mutex
	live               map[*byte]int // pinned blocks by first byte
	allocs, frees      int
	pinnedCopies, rest int
}

func (d *pinnedSim) MallocHost(size int64) ([]byte, time.Duration, error) {
	b := make([]byte, size)
	d.mu.Lock()
	d.live[unsafe.SliceData(b)] = len(b)
	d.allocs++
	d.mu.Unlock()
	return b, 0, nil
}

func (d *pinnedSim) FreeHost(b []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.live[unsafe.SliceData(b)]; !ok {
		return fmt.Errorf("free of %d bytes never allocated", len(b))
	}
	delete(d.live, unsafe.SliceData(b))
	d.frees++
	return nil
}

func (d *pinnedSim) NewStream() device.Stream { return &pinnedStream{d.Sim.NewStream(), d} }

type pinnedStream struct {
	device.Stream
	d *pinnedSim
}

func (s *pinnedStream) CopyH2D(dst device.Buffer, src []byte) error {
	s.d.mu.Lock()
	in := false
	p := uintptr(unsafe.Pointer(unsafe.SliceData(src)))
	for b, n := range s.d.live {
		if q := uintptr(unsafe.Pointer(b)); p >= q && p+uintptr(len(src)) <= q+uintptr(n) {
			in = true
		}
	}
	if in {
		s.d.pinnedCopies++
	} else {
		s.d.rest++
	}
	s.d.mu.Unlock()
	return s.Stream.CopyH2D(dst, src)
}

// TestTilingStagedInPinnedMemory: on a device with pinned host memory,
// MultiStream and Whole copy every tiling from the host block they keep
// there (ATB's host ring), with KBK's outputs, one allocation per growth,
// and the block freed at Close.
func TestTilingStagedInPinnedMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 17))
	g, _ := graphtest.Random(rng, graphtest.Options{Nodes: 12, Cols: 3, ValueDeps: true, DynamicRows: true})
	steps := make([][]*kernel.Tensor, 4)
	for s := range steps {
		steps[s] = graphtest.Refill(rng, g, 1+rng.Int64N(4))
	}
	want := kbkRuns(t, g, steps)
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []plan.TilingCopy{plan.MultiStream, plan.Whole} {
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d := &pinnedSim{Sim: sim, live: map[*byte]int{}}
		a, err := actor.New(c, plan.Config{Mode: plan.Pipeline, TilingCopy: how, Device: d}, actor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var copies int
		for s, in := range steps {
			got, st, err := a.Run(context.Background(), in)
			if err == nil {
				err = sameOutputs(want[s], got)
			}
			if err != nil {
				t.Fatalf("%v step %d: %v", how, s, err)
			}
			copies += st.Tiling.Copies
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		d.mu.Lock()
		if copies == 0 || d.pinnedCopies != copies {
			t.Errorf("%v: %d tiling copies, %d copies from pinned memory (%d others: the inputs)", how, copies, d.pinnedCopies, d.rest)
		}
		if d.allocs == 0 || d.frees != d.allocs || len(d.live) != 0 {
			t.Errorf("%v: %d pinned blocks allocated, %d freed, %d live after Close", how, d.allocs, d.frees, len(d.live))
		}
		d.mu.Unlock()
	}
}
