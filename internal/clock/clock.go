// Package clock is pipert's monotonic clock: the host time that stage
// intervals are measured on and that simulated device timelines are kept on,
// and the one way pipert waits for a point on it.
//
// Waiting never sleeps for less than a millisecond: on Linux time.Sleep(d)
// for any d below 1 ms sleeps about 1 ms. Short waits yield-spin (yield,
// which wakes no idle processor); long ones park on a timer and spin for
// the rest.
package clock

import (
	"context"
	"time"
)

var epoch = time.Now()

// Now is the monotonic clock in nanoseconds since the process started
// (more exactly, since this package was initialised). It reads the
// processor's counter where that can be trusted (see ticks.go).
func Now() int64 {
	m := current.Load()
	if m == nil {
		return slowNow(nil, 0)
	}
	t := counter()
	if t < m.tsc || t >= m.next {
		return slowNow(m, t)
	}
	return m.at(t)
}

// parkMargin is how long before a deadline a waiter stops parking and starts
// spinning: timers on Linux overshoot by up to about a millisecond.
const parkMargin = 1500 * time.Microsecond

// WaitUntil blocks until Now() >= t or ctx is done. Waits shorter than
// parkMargin spin, yielding the processor on every turn; longer ones park on a
// timer first and spin for the rest. It returns ctx.Err() if ctx ended first.
func WaitUntil(ctx context.Context, t int64) error {
	for i := 0; ; i++ {
		now := Now()
		if now >= t {
			return nil
		}
		if rem := time.Duration(t - now); rem > 2*parkMargin {
			timer := time.NewTimer(rem - parkMargin)
			select {
			case <-ctx.Done():
				timer.Stop()
				return ctx.Err()
			case <-timer.C:
			}
			continue
		}
		if i&63 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		yield()
	}
}
