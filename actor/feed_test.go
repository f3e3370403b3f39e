package actor_test

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// TestFedRunsAllocateAsPlainRuns: a run that publishes its output as soon
// as it is computed (a Feed, as a heterogeneous part's run does) makes no
// more Go allocations than a plain run, which downloads the same output at
// its end: the publishing goroutine, its channels, the published outputs'
// list and the feed's tables are made once, not per run. The published
// output is checked against the plain run's, and a plain run after a fed
// one, on other inputs, returns its own output, not the one published.
func TestFedRunsAllocateAsPlainRuns(t *testing.T) {
	b := subgraph.NewBuilder("fed")
	h := b.Input("x", kernel.Float32, 4, 4)
	for i := 0; i < 6; i++ {
		h = b.Op("Add", b.Op("Mul", h, h), h)
	}
	b.Output(h)
	g := b.Graph()
	vals := func(k float32) []*kernel.Tensor {
		v := make([]float32, 16)
		for i := range v {
			v[i] = k * float32(i%5) / 8
		}
		return []*kernel.Tensor{kernel.FromFloat32(v, 4, 4)}
	}
	in, other := vals(1), vals(-1)
	for _, cfg := range variants {
		a, _, done := newActor(t, g, cfg, ops.Builtins())
		ctx := context.Background()
		var got *kernel.Tensor
		f := &actor.Feed{Outputs: []int{0}, Publish: func(_ int, t *kernel.Tensor) { got = t }}
		plainOn := func(in []*kernel.Tensor) []*kernel.Tensor {
			outs, _, err := a.Run(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			return outs
		}
		plain := func() []*kernel.Tensor { return plainOn(in) }
		fed := func() {
			if _, _, err := a.RunFeed(ctx, in, f); err != nil {
				t.Fatal(err)
			}
		}
		want, wantOther := plain(), plainOn(other)
		fed()
		if got == nil {
			t.Fatalf("%s: the fed run published nothing", name(cfg))
		}
		if err := sameOutputs(want, []*kernel.Tensor{got}); err != nil {
			t.Errorf("%s: published output: %v", name(cfg), err)
		}
		if err := sameOutputs(wantOther, plainOn(other)); err != nil {
			t.Errorf("%s: a plain run after a fed one: %v", name(cfg), err)
		}
		nPlain := testing.AllocsPerRun(20, func() { plain() })
		nFed := testing.AllocsPerRun(20, fed)
		if nFed > nPlain {
			t.Errorf("%s: %v Go allocations a fed run, %v a plain run; want no more", name(cfg), nFed, nPlain)
		}
		done()
	}
}

// TestPublishThatGoexits: a Feed.Publish that ends its goroutine with
// runtime.Goexit fails the run with kernel.ErrGoexit, and the actor then
// runs fed and plain runs correctly (its publishing goroutine is made
// again); no goroutine is left behind (TestMain).
func TestPublishThatGoexits(t *testing.T) {
	b := subgraph.NewBuilder("goexit")
	x := b.Input("x", kernel.Float32, 4)
	b.Output(b.Op("Add", b.Op("Mul", x, x), x))
	g := b.Graph()
	in := []*kernel.Tensor{kernel.FromFloat32([]float32{1, 2, 3, 4}, 4)}
	for _, cfg := range variants {
		a, _, done := newActor(t, g, cfg, ops.Builtins())
		ctx := context.Background()
		want, _, err := a.Run(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		exit := true
		var got *kernel.Tensor
		f := &actor.Feed{Outputs: []int{0}, Publish: func(_ int, t *kernel.Tensor) {
			if exit {
				exit = false
				runtime.Goexit()
			}
			got = t
		}}
		if _, _, err := a.RunFeed(ctx, in, f); !errors.Is(err, kernel.ErrGoexit) {
			t.Errorf("%s: a Publish that calls runtime.Goexit: error %v, want kernel.ErrGoexit", name(cfg), err)
		}
		if _, _, err := a.RunFeed(ctx, in, f); err != nil {
			t.Fatalf("%s: the fed run after: %v", name(cfg), err)
		}
		if got == nil {
			t.Fatalf("%s: the fed run after published nothing", name(cfg))
		}
		if err := sameOutputs(want, []*kernel.Tensor{got}); err != nil {
			t.Errorf("%s: published output after: %v", name(cfg), err)
		}
		outs, _, err := a.Run(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameOutputs(want, outs); err != nil {
			t.Errorf("%s: plain run after: %v", name(cfg), err)
		}
		done()
	}
}
