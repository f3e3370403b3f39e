// Package spin burns host CPU: the synthetic per-stage host cost of
// benchmark scenarios, standing in for a framework's own work.
//
// The cost is a calibrated amount of CPU work, not a stretch of wall time.
// A goroutine descheduled in the middle of its burn still does all of its
// work when it runs again, so its stage takes longer on the wall clock but
// the host work it stands for is unchanged; a wall-clock burn would instead
// "complete" its cost while not running, and the stage intervals that
// measure host work would count time the CPU spent elsewhere.
//
// Calibration runs once, on the first burn: the loop is timed several times
// and the fastest rate is kept, the rate of a goroutine that was not
// interrupted.
package spin

import (
	"sync"
	"sync/atomic"
	"time"
)

// For burns d of calibrated CPU work on the calling goroutine without
// yielding, as real host work would. d <= 0 returns at once.
func For(d time.Duration) {
	if d <= 0 {
		return
	}
	burn(Iterations(d))
}

// slice is the work ForUntil does between two looks at its channel.
const slice = 50 * time.Microsecond

// ForUntil is For that stops early once done is closed: it looks at done
// before each slice of 50 µs of work (not at all for a shorter cost or a
// nil done), so that a long synthetic cost ends soon after its run was
// cancelled. It reports whether all of d was burnt.
func ForUntil(d time.Duration, done <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	n := Iterations(d)
	if done == nil || d <= slice {
		burn(n)
		return true
	}
	per := max(Iterations(slice), 1)
	for n > 0 {
		select {
		case <-done:
			return false
		default:
		}
		k := min(n, per)
		burn(k)
		n -= k
	}
	return true
}

// Iterations is the number of loop iterations For(d) runs.
func Iterations(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(float64(d) * rate())
}

// Rate is the calibrated loop rate, in iterations per nanosecond.
func Rate() float64 { return rate() }

var rate = sync.OnceValue(calibrate)

// calibrationLoop is the iteration count of one timing of the loop: long
// enough (tens of microseconds) for the clock, short enough to run between
// two preemptions.
const calibrationLoop = 1 << 15

func calibrate() float64 {
	burn(calibrationLoop) // warm up
	best := time.Duration(1<<63 - 1)
	for range 40 {
		t0 := time.Now()
		burn(calibrationLoop)
		best = min(best, time.Since(t0))
	}
	return float64(calibrationLoop) / float64(max(best, 1))
}

// sink keeps the loop's result alive so the compiler cannot drop the loop;
// it is atomic because goroutines burn concurrently.
var sink atomic.Uint64

// burn runs n iterations of a dependent integer chain (a linear
// congruential step), which takes the same time per iteration whatever the
// data.
func burn(n int64) {
	x := uint64(n)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink.Store(x)
}
