package main

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

// roundTrip measures how long a cache line takes to go from one core to
// another and back: two goroutines, each locked to an OS thread, pass a
// counter back and forth by spinning on it for a pass of about d, and
// the median over passes (after a first of 4d, not counted) of the time
// a round trip took is returned, in ns. A performance engineer reads it beside the makespans: hand-offs
// between stage goroutines cost a few of these, so it tells a machine (or
// a virtual machine's moment) whose cores talk slowly from a slower
// pipert. It is about 200–300 ns between two vCPUs of a virtual machine,
// 50–100 ns between the cores of one socket, and varies by a third from
// one measurement to the next on a busy virtual machine.
//
// ok is false when GOMAXPROCS is below 2 (the two goroutines could not
// spin at once) or when a round trip took more than a second: a core
// taken away for that long makes no figure worth reporting.
func roundTrip(d time.Duration, passes int) (ns float64, ok bool) {
	if runtime.GOMAXPROCS(0) < 2 || d <= 0 || passes <= 0 {
		return 0, false
	}
	// A collection under way would run its workers on the processors
	// the two sides spin on; the probe allocates nothing, so none starts
	// once this one is done.
	runtime.GC()
	// A first pass, not counted, gives the operating system time to put
	// the two threads on two cores: a thread new to the process starts
	// on its parent's core, and while the two share one a round trip
	// costs a time slice.
	if _, ok := roundTripPass(4 * d); !ok {
		return 0, false
	}
	var per []float64
	for range passes {
		ns, ok := roundTripPass(d)
		if !ok {
			return 0, false
		}
		per = append(per, ns)
	}
	slices.Sort(per)
	return per[len(per)/2], true
}

// The values of roundTripPass's turn besides the round trips' counts.
const (
	turnEchoStarting = -1 // the echo's thread is not spinning yet
	turnStop         = -2 // the pass is over: the echo returns
)

// roundTripPass is one pass of roundTrip: the ns a round trip took, over
// as many as fit in about d. Each side waits for its turn by spinning;
// after many reads without it, it yields its processor (the other side
// may be waiting for one) and gives up past a second.
func roundTripPass(d time.Duration) (float64, bool) {
	var turn atomic.Int64 // even: the measuring side's turn; odd: the echo's
	turn.Store(turnEchoStarting)
	var failed atomic.Bool
	wait := func(want int64) bool {
		var since time.Time
		for n := 1; ; n++ {
			switch v := turn.Load(); {
			case v == want:
				return true
			case v == turnStop || failed.Load():
				return false
			}
			if n%(1<<14) == 0 {
				runtime.Gosched()
				if since.IsZero() {
					since = time.Now()
				} else if time.Since(since) > time.Second {
					failed.Store(true)
					return false
				}
			}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		turn.Store(0)
		for i := int64(1); wait(i); i += 2 {
			turn.Store(i + 1)
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ns, ok := 0.0, wait(0) // the echo's start (a new thread, perhaps) is not timed
	if ok {
		start := time.Now()
		for i := int64(0); ; i += 2 {
			if !wait(i) {
				ok = false
				break
			}
			if i%512 == 0 && i > 0 {
				if el := time.Since(start); el >= d {
					ns = float64(el.Nanoseconds()) / float64(i/2)
					break
				}
			}
			turn.Store(i + 1)
		}
	}
	turn.Store(turnStop)
	<-done
	return ns, ok && !failed.Load()
}
