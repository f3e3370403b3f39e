// Package spin burns host CPU for an exact duration: the synthetic per-stage
// host cost of benchmark scenarios, standing in for a framework's own work.
package spin

import "time"

// For busy-waits for d on the calling goroutine without yielding, as real
// host work would. It reads the monotonic clock, so it is exact to the clock's
// resolution whatever the CPU's speed. d <= 0 returns at once.
func For(d time.Duration) {
	if d <= 0 {
		return
	}
	start := time.Now()
	for time.Since(start) < d {
	}
}
