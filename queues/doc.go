// Package queues provides the host-side queues of pipert's runtime: Queue, a
// bounded lock-free multi-producer single-consumer ring of task values served
// by one worker goroutine, and Pipeline, three such queues chained
// Infer → Resize → Launch so that the host stages of consecutive kernels
// overlap.
//
// Every waiting goroutine — the worker facing an empty ring, a producer facing
// a full one, a caller of Wait — first checks its condition about a hundred
// times, yielding the processor between checks (runtime.Gosched), and only
// then parks. On a machine with fewer cores than busy goroutines a waiter that
// spins without yielding starves the goroutine it waits for; one that parks at
// once pays a thread wake-up (about 10 µs) on every hand-off. Yield-spinning
// over deep rings keeps hand-offs in the hundreds of nanoseconds.
//
// The opposite also happens: a worker whose queue never empties never
// enters the scheduler, and Go does not take its processor for about 10 ms,
// so with more stage goroutines than processors the stages before the last
// can hold both processors while the last one, runnable, waits for tens of
// microseconds. A handler that ends a long stretch of work says so
// (Queue.LongTurn); its worker then yields after the push if the next stage
// made no progress since its previous long task and has two tasks waiting.
//
// Errors are sticky: the first task error is kept, later pushes return it,
// and the worker drains the remaining tasks without running them, so that
// Wait and Close never hang on a failed queue.
//
// Dependency rule: queues imports only the standard library. Other pipert
// packages build on it (the actor runtime, barriers); it knows nothing of
// kernels or devices.
//
// # Example
//
//	q := queues.New("launch", 1024, func(k int) error { return launch(k) })
//	for k := range kernels {
//		if err := q.Push(k); err != nil {
//			return err // the first launch error, or a closed queue
//		}
//	}
//	err := q.Close() // drains, stops the worker, returns the first error
package queues
