package ready

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestFlagZeroValue(t *testing.T) {
	var f Flag
	if f.IsSet() {
		t.Fatal("zero Flag is set")
	}
	f.Set()
	if !f.IsSet() {
		t.Fatal("Set did not set")
	}
	if err := f.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.Set() // idempotent
	f.Reset()
	if f.IsSet() {
		t.Fatal("Reset did not clear")
	}
}

// TestFlagPublishes checks that writes made before Set are visible after
// Wait (the race detector flags a missing happens-before edge), with waiters
// that find the flag set, spin, or park.
func TestFlagPublishes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		var f Flag
		var payload [4]int
		waiters := 1 + rng.IntN(5)
		delay := rng.IntN(300) // yields before Set: some waiters spin, some park
		var wg sync.WaitGroup
		for range waiters {
			wg.Go(func() {
				if err := f.Wait(context.Background()); err != nil {
					t.Error(err)
					return
				}
				if payload != [4]int{round, 1, 2, 3} {
					t.Errorf("round %d: payload %v after Wait", round, payload)
				}
			})
		}
		for range delay {
			runtime.Gosched()
		}
		payload = [4]int{round, 1, 2, 3}
		f.Set()
		wg.Wait()
	}
}

// TestFlagReuse reuses one Flag through Reset: in each round the owner
// resets it, the waiters of the round wait, and a setter sets it.
func TestFlagReuse(t *testing.T) {
	var f Flag
	var payload int
	for round := 1; round <= 300; round++ {
		f.Reset() // no waiter of the previous round is left
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if err := f.Wait(context.Background()); err != nil {
					t.Error(err)
				}
				if payload != round {
					t.Errorf("round %d: payload %d", round, payload)
				}
			})
		}
		wg.Go(func() {
			for range round % 150 {
				runtime.Gosched()
			}
			payload = round
			f.Set()
		})
		wg.Wait()
	}
}

func TestFlagWaitCancel(t *testing.T) {
	var f Flag
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context = %v", err)
	}
	f.Set()
	if err := f.Wait(ctx); err != nil {
		t.Fatalf("Wait on a set flag with a cancelled context = %v, want nil", err)
	}

	// Cancel while parked: the waiter must return; the flag stays usable.
	var g Flag
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- g.Wait(ctx) }()
	for range 1000 {
		runtime.Gosched() // let it reach the parked state (not required)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Wait = %v", err)
	}
	go func() { done <- g.Wait(context.Background()) }()
	g.Set()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	dctx, dcancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer dcancel()
	var h Flag
	if err := h.Wait(dctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait past the deadline = %v", err)
	}
}

func TestFlagAllocatesNothing(t *testing.T) {
	var f Flag
	ctx := context.Background()
	if n := testing.AllocsPerRun(1000, func() { f.Set(); _ = f.IsSet() }); n != 0 {
		t.Fatalf("Set+IsSet allocate %v", n)
	}
	if n := testing.AllocsPerRun(1000, func() {
		if err := f.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Wait on a set flag allocates %v", n)
	}
}
