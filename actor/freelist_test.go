package actor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// realChain is a chain of n MatMul and GELU kernels on an 8×8 input, with
// real data.
func realChain(n int) (*subgraph.Graph, []*kernel.Tensor) {
	b := subgraph.NewBuilder(fmt.Sprintf("chain%d", n))
	h := b.Input("x", kernel.Float32, 8, 8)
	w := kernel.New(kernel.Float32, 8, 8)
	x := kernel.New(kernel.Float32, 8, 8)
	w.Host, x.Host = make([]byte, w.Bytes()), make([]byte, x.Bytes())
	for i := range w.Host {
		w.Host[i], x.Host[i] = byte(i%7), byte(i%5)
	}
	wc := b.Const("w", w)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			h = b.Op("MatMul", h, wc)
		} else {
			h = b.Op("GELU", h)
		}
	}
	b.Output(h)
	return b.Graph(), []*kernel.Tensor{x}
}

// TestSpareBuffersServeTheRunsLaunches: without a memory plan, a run's
// launches reuse the buffers earlier launches of the run freed (the
// runner's free list), so the device allocator is called per run a number
// of times independent of the number of kernels; the device holds after
// each run exactly what it held before (the list is released at the end of
// the run), and steady-state runs make as many Go allocations for 100 kernels
// as for 1000.
func TestSpareBuffersServeTheRunsLaunches(t *testing.T) {
	for _, cfg := range variants {
		var allocs [2]int64
		var goAllocs [2]float64
		for i, n := range []int{100, 1000} {
			g, in := realChain(n)
			a, dev, done := newActor(t, g, cfg, ops.Builtins())
			ctx := context.Background()
			if _, _, err := a.Run(ctx, in); err != nil {
				t.Fatal(err)
			}
			d0 := dev.Stats()
			if _, _, err := a.Run(ctx, in); err != nil {
				t.Fatal(err)
			}
			d := dev.Stats().Sub(d0)
			allocs[i] = d.Allocs
			if d.Frees != d.Allocs || dev.Stats().MemInUse != d0.MemInUse {
				t.Errorf("%s, %d kernels: %d allocations, %d frees, %d bytes in use after the run, %d before",
					name(cfg), n, d.Allocs, d.Frees, dev.Stats().MemInUse, d0.MemInUse)
			}
			goAllocs[i] = testing.AllocsPerRun(5, func() {
				if _, _, err := a.Run(ctx, in); err != nil {
					t.Fatal(err)
				}
			})
			done()
		}
		if allocs[0] != allocs[1] || allocs[0] > 4 {
			t.Errorf("%s: %d and %d allocator calls a run for 100 and 1000 kernels, want the same few", name(cfg), allocs[0], allocs[1])
		}
		if goAllocs[0] != goAllocs[1] {
			t.Errorf("%s: %v and %v Go allocations a run for 100 and 1000 kernels", name(cfg), goAllocs[0], goAllocs[1])
		}
	}
}

// TestSpareBuffersBounded: the free list holds at most a sixteenth of the
// device's memory; beyond, launches free to the device, and a graph whose
// buffers are all larger than that calls the allocator for every tensor.
func TestSpareBuffersBounded(t *testing.T) {
	g, in := realChain(50)
	c, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		t.Fatal(err)
	}
	p := device.Default()
	p.MemoryBytes = 16 * 256 // the list holds 256 bytes, one 8×8 float32 tensor is 256
	for _, limit := range []int64{p.MemoryBytes, p.MemoryBytes - 16} {
		p.MemoryBytes = limit
		sim, err := device.NewSim(device.SimOptions{Profile: p})
		if err != nil {
			t.Fatal(err)
		}
		a, err := actor.New(c, plan.Config{Mode: plan.KBK, Device: sim}, actor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, _, err := a.Run(ctx, in); err != nil {
			t.Fatal(err)
		}
		d0 := sim.Stats()
		if _, _, err := a.Run(ctx, in); err != nil {
			t.Fatal(err)
		}
		n := sim.Stats().Sub(d0).Allocs
		if limit == 16*256 && n > 4 || limit < 16*256 && n < 50 {
			t.Errorf("device of %d bytes: %d allocator calls for 50 kernels", limit, n)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if st := sim.Stats(); st.MemInUse != 0 {
			t.Errorf("%d bytes leaked", st.MemInUse)
		}
	}
}
