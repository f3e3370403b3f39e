// Package ready provides acquire/release readiness cells for pipert's
// barriers: Flag, a one-shot (resettable) event, and Counter, a monotonically
// increasing sequence such as "kernels launched so far" that a per-tensor
// barrier waits on ("until the producer's launch task has run").
//
// A setter publishes with a store-release and a waiter observes with a
// load-acquire, so everything the setter did before Set or Advance is visible
// to a waiter once Wait or WaitAtLeast returns. Waiters check about a hundred
// times, yielding the processor between checks, then park on a channel, so
// that a short wait costs a few hundred nanoseconds and a long one no CPU.
// Checking an already-satisfied condition allocates nothing.
//
// Dependency rule: ready imports only the standard library.
//
// # Example
//
//	var launched ready.Counter // kernels launched so far; the zero value is 0
//
//	// Launch stage, after launching kernel n (1-based):
//	launched.Advance(1)
//
//	// A consumer of kernel k's output:
//	if err := launched.WaitAtLeast(ctx, k); err != nil {
//		return err // ctx ended first
//	}
package ready
