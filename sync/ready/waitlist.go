package ready

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spinChecks is how many failed checks a waiter makes, yielding between
// them, before it slows down: it then reads the value every sparseEvery
// yields, until spinFor has passed, and parks.
const spinChecks = 100

// spinFor is how long a waiter yield-spins before it parks. A parked
// waiter is woken through the kernel, and on a virtual machine whose idle
// processor halts that is slow on both sides: on 2 cores the waker spent
// about 36 µs in the wake-up and the woken ran about 36 µs after it. A
// runner at a value barrier waits for a launch for 50–400 µs (320 µs the
// median, the hetero scenario in async mode): with only spinChecks (a few
// µs) it parked at nearly every barrier. Spinning up to 1 ms made that
// scenario's async runs 10–13% faster and its pipeline runs 5–6% (five
// interleaved pairs), other scenarios unchanged beyond noise.
const spinFor = time.Millisecond

// sparseEvery is how many yields a waiter past spinChecks makes between two
// reads of the value: reading it on every yield pulls its cache line from
// the goroutine that writes it at every hand-off.
const sparseEvery = 8

// ctxCheckEvery is how often (in spins) a spinning waiter looks at its
// context; ctx.Err may take a lock.
const ctxCheckEvery = 16

// waitList parks goroutines until a value that other goroutines raise
// reaches the target each of them needs. The zero waitList is empty.
//
// Protocol: a sleeper, holding mu, lowers want to its target, re-checks the
// value, and only then takes the channel ch (creating it if needed) and
// releases mu to sleep on it. A waker stores the value and then loads want;
// if the value reached want it takes mu, resets want to 0, closes ch and
// sets it to nil, which wakes every sleeper registered so far; those not yet
// satisfied register again.
//
// Why no wake-up is lost: store want / load value on the sleeper's side and
// store value / load want on the waker's form a store-load pair, and Go's
// atomics are sequentially consistent, so either the sleeper's re-check sees
// the new value and it does not sleep, or the waker sees the lowered want (or
// a lower one) and takes mu. The sleeper holds mu from its store of want
// until it has taken ch, so the waker closes the very channel the sleeper
// waits on. want is raised only by that reset, which always comes with the
// close.
type waitList struct {
	want atomic.Uint64 // smallest target of a registered sleeper; 0 if none
	mu   sync.Mutex
	ch   chan struct{} // closed to wake the sleepers; nil when none parked; guarded by mu
}

// wait returns nil once v.Load() >= target, or ctx.Err() if ctx ends first.
// target must be positive. It yield-spins, for up to spinFor, then parks. A wait that must
// wait with a nil ctx is an error.
func (w *waitList) wait(ctx context.Context, v *atomic.Uint64, target uint64) error {
	if ctx == nil && v.Load() < target {
		return errors.New("ready: a wait with a nil context")
	}
	var start time.Time
	for i := 1; ; i++ {
		// load-acquire: pairs with the setter's store-release.
		if (i < spinChecks || i%sparseEvery == 0) && v.Load() >= target {
			return nil
		}
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if i >= spinChecks {
				if start.IsZero() {
					start = time.Now()
				} else if time.Since(start) >= spinFor {
					break
				}
			}
		}
		runtime.Gosched()
	}
	for {
		c := w.register(v, target)
		if c == nil {
			return nil
		}
		select {
		case <-c:
		case <-ctx.Done():
			// Our registration may leave want low; that costs a later waker
			// one needless lock, never a lost wake-up.
			if v.Load() >= target {
				return nil
			}
			return ctx.Err()
		}
		if v.Load() >= target {
			return nil
		}
	}
}

// register records target and returns the channel to sleep on, or nil if
// the value already reached target.
func (w *waitList) register(v *atomic.Uint64, target uint64) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cur := w.want.Load(); cur == 0 || target < cur {
		w.want.Store(target) // store: must precede the re-check below
	}
	if v.Load() >= target {
		return nil
	}
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

// wake wakes the sleepers if the value, just stored as now, reached the
// smallest target, and reports whether it woke any (and then yielded).
// Executed after every store that raises the value.
func (w *waitList) wake(now uint64) bool {
	if want := w.want.Load(); want == 0 || now < want {
		return false
	}
	w.mu.Lock()
	w.want.Store(0)
	woke := w.ch != nil
	if woke {
		close(w.ch)
		w.ch = nil
	}
	w.mu.Unlock()
	if woke {
		// The Go scheduler puts a goroutine readied by the close in this P's
		// runnext slot, which idle Ps do not steal while the waker keeps
		// running: yield so that the woken one runs now and the waker moves
		// to the global run queue, where an idle P can pick it up.
		runtime.Gosched()
	}
	return woke
}
