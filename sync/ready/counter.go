package ready

import (
	"context"
	"errors"
	"sync/atomic"
)

// errNilCounter is the error of a wait for more than 0 on a nil *Counter.
var errNilCounter = errors.New("ready: a wait on a nil Counter, which nothing advances")

// Counter is a monotonically increasing uint64 with acquire/release
// semantics: a goroutine that observes a value (Load, WaitAtLeast) sees every
// write made before the Advance or Store that produced it. The zero Counter
// is 0 and ready to use. A Counter must not be copied after first use. A
// nil *Counter is 0 for ever: Advance and Store do nothing, and a wait for
// more than 0 is an error at once.
//
// All methods are safe for concurrent use.
type Counter struct {
	v       atomic.Uint64
	waiters waitList
}

// Load returns the current value. load-acquire: pairs with Advance and
// Store.
func (c *Counter) Load() uint64 {
	if c == nil {
		return 0
	}
	return c.v.Load()
}

// Advance adds n to the counter, wakes the waiters it satisfies and returns
// the new value. The counter counts events: an n that takes it past 2^64−1
// is a misuse, and wraps it (a check would cost every hand-off an atomic
// compare-and-swap loop).
func (c *Counter) Advance(n uint64) uint64 {
	v, _ := c.AdvanceYield(n)
	return v
}

// AdvanceYield is Advance that also reports whether it yielded the
// processor, which it does after waking waiters, so that a caller timing
// its own work knows whether a clock reading taken before the call still
// stands after it.
func (c *Counter) AdvanceYield(n uint64) (v uint64, yielded bool) {
	if c == nil {
		return 0, false
	}
	v = c.v.Add(n) // read-modify-write, release: publishes prior writes
	return v, c.waiters.wake(v)
}

// Store raises the counter to v. The counter never decreases: a v at or
// below the current value leaves it unchanged, so concurrent Stores keep
// the largest.
func (c *Counter) Store(v uint64) {
	if c == nil {
		return
	}
	for {
		cur := c.v.Load()
		if v <= cur {
			return
		}
		if c.v.CompareAndSwap(cur, v) { // release: publishes prior writes
			c.waiters.wake(v)
			return
		}
	}
}

// WaitAtLeast returns nil once the counter is at least v, or ctx.Err() if
// ctx ends first. A satisfied wait returns at once and allocates nothing;
// one that must wait with a nil ctx is an error.
func (c *Counter) WaitAtLeast(ctx context.Context, v uint64) error {
	if v == 0 {
		return nil
	}
	if c == nil {
		return errNilCounter
	}
	return c.waiters.wait(ctx, &c.v, v)
}
