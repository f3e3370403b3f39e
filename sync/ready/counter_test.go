package ready

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// TestCounterAgainstReference drives a Counter and a plain uint64 with the
// same random operations.
func TestCounterAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var c Counter
	var ref uint64
	ctx := context.Background()
	for i := range 50_000 {
		switch rng.IntN(4) {
		case 0:
			n := rng.Uint64N(5)
			ref += n
			if got := c.Advance(n); got != ref {
				t.Fatalf("op %d: Advance(%d) = %d, want %d", i, n, got, ref)
			}
		case 1:
			v := rng.Uint64N(ref + 10)
			ref = max(ref, v)
			c.Store(v)
		case 2:
			v := rng.Uint64N(ref + 1)
			if err := c.WaitAtLeast(ctx, v); err != nil {
				t.Fatalf("op %d: WaitAtLeast(%d) at %d = %v", i, v, ref, err)
			}
		case 3:
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			if err := c.WaitAtLeast(cctx, ref+1); !errors.Is(err, context.Canceled) {
				t.Fatalf("op %d: unsatisfiable wait = %v", i, err)
			}
		}
		if got := c.Load(); got != ref {
			t.Fatalf("op %d: Load = %d, want %d", i, got, ref)
		}
	}
}

// TestCounterWaiters has waiters for random targets (spinning or parked)
// while one goroutine advances the counter and publishes data[v-1] before
// each step; a waiter must see the data of its target.
func TestCounterWaiters(t *testing.T) {
	const n = 20_000
	data := make([]int, n)
	var c Counter
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for target := uint64(0); target < n; target += 1 + rng.Uint64N(400) {
				if err := c.WaitAtLeast(context.Background(), target); err != nil {
					t.Error(err)
					return
				}
				if got := c.Load(); got < target {
					t.Errorf("WaitAtLeast(%d) returned at %d", target, got)
					return
				}
				if target > 0 && data[target-1] != int(target) {
					t.Errorf("data of step %d not visible", target)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for v := 1; v <= n; v++ {
			data[v-1] = v
			if v%2 == 0 {
				c.Advance(1)
			} else {
				c.Store(uint64(v))
			}
			if v%64 == 0 {
				for range 50 {
					runtime.Gosched() // let waiters park now and then
				}
			}
		}
	})
	wg.Wait()
}

// TestCounterConcurrentStore checks that concurrent Stores keep the maximum.
func TestCounterConcurrentStore(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 10_000 {
				c.Store(rng.Uint64N(1_000_000))
			}
			c.Store(1_000_000 + uint64(g))
		})
	}
	wg.Wait()
	if got := c.Load(); got != 1_000_003 {
		t.Fatalf("Load = %d, want the largest Store 1000003", got)
	}
}

func TestCounterCancelParked(t *testing.T) {
	var c Counter
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	for range 3 {
		go func() { done <- c.WaitAtLeast(ctx, 10) }()
	}
	go func() { done <- c.WaitAtLeast(context.Background(), 5) }()
	for range 1000 {
		runtime.Gosched()
	}
	cancel()
	for range 3 {
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled wait = %v", err)
		}
	}
	c.Advance(5)
	if err := <-done; err != nil {
		t.Fatalf("wait for 5 = %v", err)
	}
}

func TestCounterAllocatesNothing(t *testing.T) {
	var c Counter
	ctx := context.Background()
	if n := testing.AllocsPerRun(1000, func() {
		v := c.Advance(1)
		c.Store(v)
		if err := c.WaitAtLeast(ctx, v); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Advance+Store+satisfied WaitAtLeast allocate %v", n)
	}
}

// TestAdvanceYield checks that AdvanceYield reports a yield exactly when it
// woke a parked waiter.
func TestAdvanceYield(t *testing.T) {
	var c Counter
	if v, y := c.AdvanceYield(1); v != 1 || y {
		t.Fatalf("AdvanceYield with no waiter = %d, %v; want 1, false", v, y)
	}
	done := make(chan error)
	go func() { done <- c.WaitAtLeast(context.Background(), 3) }()
	for c.waiters.want.Load() != 3 { // registered: parking
		runtime.Gosched()
	}
	if v, y := c.AdvanceYield(2); v != 3 || !y {
		t.Fatalf("AdvanceYield waking a parked waiter = %d, %v; want 3, true", v, y)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestCounterNilContext: a wait with a nil context that must wait is an
// error, not a panic; a satisfied one returns nil.
func TestCounterNilContext(t *testing.T) {
	var c Counter
	//lint:ignore SA1012 a nil context is the misuse under test
	if err := c.WaitAtLeast(nil, 1); err == nil { //nolint:staticcheck
		t.Error("WaitAtLeast(nil, 1) on 0 = nil, want an error")
	}
	c.Advance(1)
	//lint:ignore SA1012 a nil context is the misuse under test
	if err := c.WaitAtLeast(nil, 1); err != nil { //nolint:staticcheck
		t.Errorf("WaitAtLeast(nil, 1) on 1 = %v, want nil", err)
	}
}

// TestFlagNilContext: Flag.Wait with a nil context is an error on an
// unset flag and nil on a set one.
func TestFlagNilContext(t *testing.T) {
	var f Flag
	//lint:ignore SA1012 a nil context is the misuse under test
	if err := f.Wait(nil); err == nil { //nolint:staticcheck
		t.Error("Wait(nil) on an unset flag = nil, want an error")
	}
	f.Set()
	//lint:ignore SA1012 a nil context is the misuse under test
	if err := f.Wait(nil); err != nil { //nolint:staticcheck
		t.Errorf("Wait(nil) on a set flag = %v, want nil", err)
	}
}

// TestNilCounterAndFlag: a nil Counter is 0 for ever and a nil Flag unset
// for ever; a wait on either that could never end is an error at once,
// whatever the context.
func TestNilCounterAndFlag(t *testing.T) {
	var c *Counter
	if v := c.Advance(3); v != 0 || c.Load() != 0 {
		t.Errorf("nil Counter: Advance(3) = %d, Load %d; want 0, 0", v, c.Load())
	}
	c.Store(5)
	if err := c.WaitAtLeast(context.Background(), 0); err != nil {
		t.Errorf("nil Counter: WaitAtLeast(0) = %v, want nil", err)
	}
	if err := c.WaitAtLeast(context.Background(), 1); err == nil {
		t.Error("nil Counter: WaitAtLeast(1) returned nil")
	}
	var f *Flag
	f.Set()
	if f.IsSet() {
		t.Error("nil Flag: set")
	}
	if err := f.Wait(context.Background()); err == nil {
		t.Error("nil Flag: Wait returned nil")
	}
}
