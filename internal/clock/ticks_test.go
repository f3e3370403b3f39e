package clock

import (
	"sync"
	"testing"
	"time"
)

func TestTickMapAt(t *testing.T) {
	for _, c := range []struct {
		m    tickMap
		t    int64
		want int64
	}{
		{tickMap{tsc: 100, ns: 7, mult: 1 << scale}, 100, 7},
		{tickMap{tsc: 100, ns: 7, mult: 1 << scale}, 1<<50 + 100, 1<<50 + 7},
		{tickMap{tsc: 0, ns: 0, mult: 1 << (scale - 2)}, 1 << 60, 1 << 58}, // 4 GHz for 2^60 ticks: no overflow
		{tickMap{tsc: 10, ns: 1000, mult: 3 << (scale - 1)}, 12, 1003},     // 1.5 ns per tick
	} {
		if got := c.m.at(c.t); got != c.want {
			t.Errorf("%+v.at(%d) = %d, want %d", c.m, c.t, got, c.want)
		}
	}
	if got := maxWindow(1<<62+1, 5); got != 1<<63-1 {
		t.Errorf("maxWindow near the top = %d, want the largest int64", got)
	}
	if got := maxWindow(1000, 10); got != 1090 {
		t.Errorf("maxWindow(1000, 10) = %d, want 1090", got)
	}
}

// TestNowMonotonic reads the clock from several goroutines across the first
// measurement of the counter's rate and the refinement after it: no
// goroutine ever sees it go back, and it stays with the operating system's
// clock to well within the drift one measurement allows.
func TestNowMonotonic(t *testing.T) {
	end := anchor.ns + int64(3*firstWindow) + int64(60*time.Millisecond)
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for range 4 {
		wg.Go(func() {
			last := Now()
			for last < end {
				n := Now()
				if n < last {
					errs <- "clock went back"
					return
				}
				last = n
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if !ticking.Load() {
		t.Skip("the processor's counter is not used on this machine")
	}
	if current.Load() == nil {
		t.Fatal("the counter's rate was never measured")
	}
	// The drift: at most a few microseconds; 1 ms catches a wrong scale
	// or offset. Now is read between two readings of the operating
	// system's clock and checked against both, so that a goroutine
	// descheduled between the readings widens the bracket instead of
	// counting as drift.
	before, now, after := osNow(), Now(), osNow()
	if d := before - now; d > int64(time.Millisecond) {
		t.Fatalf("Now is %v behind the operating system's clock", time.Duration(d))
	}
	if d := now - after; d > int64(time.Millisecond) {
		t.Fatalf("Now is %v ahead of the operating system's clock", time.Duration(d))
	}
}

// TestRefineContinues: a map whose window has ended is replaced by one that
// starts where it left the clock.
func TestRefineContinues(t *testing.T) {
	for Now() < anchor.ns+int64(2*firstWindow) {
		time.Sleep(time.Millisecond)
	}
	m := current.Load()
	if m == nil {
		t.Skip("the processor's counter is not used on this machine")
	}
	before := Now()
	ended := *m
	ended.next = counter() // ends now
	current.Store(&ended)
	after := Now()
	if after < before {
		t.Fatalf("Now went from %d to %d across a refinement", before, after)
	}
	if current.Load() == &ended {
		t.Fatal("the ended map is still in use")
	}
}
