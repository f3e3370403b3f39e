package queues

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// waitList parks goroutines until a counter that one goroutine advances (a
// queue's handled count) reaches the target each of them needs.
//
// Protocol: a sleeper, holding mu, lowers want to its target and then
// re-checks the counter; the waker stores the counter and then loads want,
// and if the new value reaches want it takes mu, resets want to 0 and
// broadcasts. The sleeper holds mu from its store of want until cond.Wait
// releases it, so a broadcast cannot fall between the re-check and the
// sleep.
//
// Why no wake-up is lost: store want / load counter on one side and store
// counter / load want on the other form a store-load pair; Go's atomics are
// sequentially consistent, so either the sleeper's re-check sees the new
// counter and it does not sleep, or the waker sees the lowered want (or a
// lower one, which it also acts on) and broadcasts. want is only raised by a
// reset to 0 under mu together with a broadcast, which wakes every sleeper
// registered so far; those not yet satisfied register again.
//
// Keying the wake-up on want means the worker touches mu only when some
// sleeper's target is reached, not once per task.
type waitList struct {
	want atomic.Uint64 // smallest target of a registered sleeper; 0 if none
	mu   sync.Mutex
	cond sync.Cond
}

func (w *waitList) init() { w.cond.L = &w.mu }

// wait blocks until counter >= target. Executed by any goroutine but the one
// that advances counter.
func (w *waitList) wait(counter *atomic.Uint64, target uint64) {
	w.mu.Lock()
	for {
		if cur := w.want.Load(); cur == 0 || target < cur {
			w.want.Store(target) // store: must precede the re-check below
		}
		if counter.Load() >= target { // load-acquire: pairs with the waker's store
			break
		}
		w.cond.Wait()
	}
	w.mu.Unlock()
}

// wake wakes the sleepers if the counter, just stored as v, reached the
// smallest target, and reports whether it did (and yielded). Executed by the
// goroutine that advances the counter, after its store.
func (w *waitList) wake(v uint64) bool {
	if want := w.want.Load(); want == 0 || v < want {
		return false
	}
	w.mu.Lock()
	w.want.Store(0)
	w.cond.Broadcast()
	w.mu.Unlock()
	// Let the woken run now rather than from this P's runnext slot, which
	// idle Ps do not steal while we keep running (see Queue.wakeWorker).
	runtime.Gosched()
	return true
}
