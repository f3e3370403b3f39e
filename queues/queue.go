package queues

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// Errors returned by queues, wrapped with the queue's name.
var (
	// ErrClosed is returned by pushes after Close.
	ErrClosed = errors.New("queues: closed")
	// ErrTicket is returned by WaitTicket for a ticket no push has returned.
	ErrTicket = errors.New("queues: ticket not issued")
	// ErrCapacity is returned by New and NewPipeline for a capacity outside
	// [0, MaxCapacity], or one whose rings need more memory than the host
	// has available.
	ErrCapacity = errors.New("queues: capacity out of range")
	// ErrPanic is the cause of a task error when the handler panicked.
	ErrPanic = errors.New("queues: handler panicked")

	// errZero is the pushes' error on a nil or zero Queue or Pipeline.
	errZero = fmt.Errorf("queues: a nil or zero value, not made by New or NewPipeline: %w", ErrClosed)
)

// closedBit is set in Queue.tail by Close. A producer's claim is a CAS from a
// value without the bit, so once it is set no position can be claimed.
const closedBit = 1 << 63

// cacheLinePad keeps fields written by different goroutines on different
// cache lines.
type cacheLinePad struct{ _ [64]byte }

// slot is one cell of the ring. seq says whose turn it is: for the position p
// that maps to the slot, seq == p means free for the producer that claims p,
// seq == p+1 means val holds the task at p, ready for the worker, and the
// worker frees the slot for the next lap by storing p+size.
type slot[T any] struct {
	seq atomic.Uint64
	val T
}

// Queue is a bounded multi-producer single-consumer ring of task values
// served by one worker goroutine, which calls the handler for each task in
// the order the pushes were linearized (their tickets), so in push order per
// producer. Tasks are stored by value in the ring: pushing and handling
// allocate nothing. Queues are made by New; the zero Queue has no worker
// and runs nothing: it behaves as a closed Queue (pushes fail with an
// error matching ErrClosed). A nil *Queue (New's on an error) behaves as
// the zero Queue.
//
// # Ring protocol (bounded sequence-number ring)
//
// The ring has size = 2^k slots; position p (0, 1, 2, …) lives in slot
// p mod size, and slot i starts with seq = i.
//
//   - Push (any producer): load tail = p; load slot[p].seq. If seq == p the
//     slot is free for p: CAS tail p → p+1 to claim p, write val, store
//     seq = p+1. If seq < p the slot still holds position p−size: the ring is
//     full. If seq > p another producer claimed p first: reload tail, retry.
//   - Handle (the worker only, with its private head = p): load slot[p].seq;
//     if it is p+1, copy val out, zero it, store seq = p+size, which frees the
//     slot for the producer of p+size, run the handler, then store
//     handled = p+1.
//
// The ticket of the task at position p is p+1; handled counts the tasks taken
// off the ring and finished, so "handled >= t" means task t is done.
//
// # Invariants
//
//  1. handled <= head <= tail: the worker takes positions in order, each
//     exactly once, and only positions a producer claimed.
//  2. tail − handled <= limit <= size: a producer claims p only when fewer
//     than limit tasks are claimed and not yet handled (the capacity asked
//     for, honoured exactly although the ring's size is a power of two),
//     and only after the worker freed slot p mod size, i.e. took position
//     p−size off the ring.
//  3. After Close, tail never grows; the worker exits exactly when head
//     reaches it, so every claimed task is handled.
//  4. After the first task error (queue-wide, or pipeline-wide for a
//     Pipeline) no handler of this queue runs again: later tasks are taken
//     off the ring and counted as handled, but discarded.
//
// # Waiting
//
// Every wait checks its condition, yields, and parks after Options.Spin
// failed checks and a time: the worker after Options.SpinFor, producers
// facing a full ring and callers of Wait after waitSpinFor, checking only
// every sparseEvery yields meanwhile. The worker parks on a one-token
// channel with a "sleeping" flag; producers and callers of Wait park on a
// condition variable keyed by the handled count they need. Neither can lose a wake-up:
// see awaitTask and waitList.
//
// # Rejected designs
//
// A buffered Go channel of T is allocation-free too, but a receiver that
// finds it empty parks at once, with no yielding phase, so a stage that runs
// momentarily ahead of its producer pays a thread wake-up (about 10 µs)
// where a yield-spin pays a few hundred nanoseconds; a channel also offers
// no ticket to wait for, and closing it under concurrent senders panics
// where a queue returns ErrClosed. A mutex-guarded
// slice makes producers and the worker contend on every task. A per-slot
// "full" flag instead of a sequence number cannot tell a slot of this lap
// from one of the previous lap, so producers would need a second counter to
// detect a full ring.
//
// # Methods and owners
//
// Push, PushT, TryPush, Wait, WaitTicket, Err, Len, Stats and Close are safe
// for concurrent use by any goroutine except that the handler must not call
// Close, and must not wait for its own task or a later one (Wait,
// WaitTicket): the worker would wait for itself.
type Queue[T any] struct {
	// Read-only after New.
	name      string
	handler   func(T) error
	slots     []slot[T]
	size      uint64
	mask      uint64
	limit     uint64 // the capacity: tasks claimed and not yet handled, at most
	spin      int
	spinTime  time.Duration
	errc      *errCell      // shared by the stages of a Pipeline
	closedErr error         // ErrClosed wrapped with the name, built once
	wake      chan struct{} // capacity 1: the token that unparks the worker
	exited    chan struct{} // closed by the worker when it returns
	// next is the stage after this one in a Pipeline (nil: none): the
	// worker pushes each task it handled successfully there.
	next *Queue[T]
	// crowded: a Pipeline stage with more goroutines than processors (at
	// NewPipeline's GOMAXPROCS), which yields after a push that leaves the
	// next stage behind (yieldToNext) at the end of a LongTurn (long,
	// below).
	crowded bool

	_ cacheLinePad
	// tail is the number of positions claimed by producers, with closedBit
	// set by Close. Written by producers (CAS) and Close (Or).
	tail atomic.Uint64

	_ cacheLinePad
	// sleeping is 1 while the worker is parked or about to park. Written by
	// the worker (and cleared by the producer that wakes it); read by every
	// producer on every push, so it sits alone, away from counters the worker
	// writes per task.
	sleeping atomic.Uint32
	// closed mirrors closedBit for the worker, so that its empty-ring checks
	// read a line producers do not write. Set by Close after closedBit.
	closed atomic.Bool

	_ cacheLinePad
	// Written by the worker.
	handled     atomic.Uint64 // tasks finished (run or discarded)
	bad         atomic.Uint64 // ticket of the first task not run successfully, 0 if none
	workerParks atomic.Uint64
	// yielded: the worker yielded its processor or parked since the
	// handler's last call returned (see Yielded). Owned by the worker: a
	// plain field, written and read by it alone.
	yielded bool
	// long: the handler's task was a long turn (LongTurn); nextSeen is
	// the next stage's handled count at the previous such check. The
	// worker's, like yielded.
	long     bool
	nextSeen uint64

	_            cacheLinePad
	done         waitList      // goroutines waiting for handled to reach a target
	producerWait atomic.Uint64 // parks of producers on a full ring
	callerWait   atomic.Uint64 // parks of callers of Wait and WaitTicket
}

// New returns a queue named name (used in errors) holding at most capacity
// tasks claimed and not yet handled (DefaultCapacity if 0; the ring itself
// is the next power of two, at least 2), and starts its worker, which calls
// handler for each task. A nil handler, or a capacity outside
// [0, MaxCapacity] or whose ring the host has not the memory for, is an
// error. Nil options are ignored.
func New[T any](name string, capacity int, handler func(T) error, opts ...Option) (*Queue[T], error) {
	if handler == nil {
		return nil, fmt.Errorf("queues: New: nil handler for %s", name)
	}
	if err := checkCapacity[T](capacity, 1); err != nil {
		return nil, err
	}
	return newQueue(name, capacity, handler, nil, buildConfig(opts), new(errCell)), nil
}

// newQueue makes a queue of a checked capacity and a non-nil handler.
func newQueue[T any](name string, capacity int, handler func(T) error, next *Queue[T], cfg config, errc *errCell) *Queue[T] {
	if capacity == 0 {
		capacity = DefaultCapacity
	}
	size := ringSize(capacity)
	q := &Queue[T]{
		name:      name,
		handler:   handler,
		slots:     make([]slot[T], size),
		size:      size,
		mask:      size - 1,
		limit:     uint64(capacity),
		spin:      cfg.spin,
		spinTime:  cfg.spinFor,
		errc:      errc,
		closedErr: fmt.Errorf("queues: %s: %w", name, ErrClosed),
		wake:      make(chan struct{}, 1),
		exited:    make(chan struct{}),
		next:      next,
		crowded:   next != nil && cfg.crowded,
		yielded:   true,
	}
	for i := range q.slots {
		q.slots[i].seq.Store(uint64(i))
	}
	q.done.init()
	go q.run()
	return q
}

// Name returns the name given to New.
func (q *Queue[T]) Name() string {
	if q == nil {
		return ""
	}
	return q.name
}

// Push appends v, blocking while the ring is full (yield-spinning, then
// parked until the worker has drained half of it). It returns the first task
// error if one occurred, or an error wrapping ErrClosed after Close; v is not
// queued then.
func (q *Queue[T]) Push(v T) error {
	_, err := q.PushT(v)
	return err
}

// PushT is Push returning the task's ticket, for WaitTicket. Tickets are
// 1, 2, 3, … in the order the pushes were linearized, which is the order the
// worker handles them.
func (q *Queue[T]) PushT(v T) (ticket uint64, err error) {
	if q == nil {
		return 0, errZero
	}
	ticket, _, err = q.push(&v)
	return ticket, err
}

// PushYield is Push that also reports whether the caller yielded its
// processor or parked in it (on a full ring, or after waking the parked
// worker), so that a caller timing its own work knows whether a clock
// reading taken before the push still stands for the moment after it.
func (q *Queue[T]) PushYield(v T) (yielded bool, err error) {
	if q == nil {
		return false, errZero
	}
	_, yielded, err = q.push(&v)
	return yielded, err
}

// push is PushT reporting whether the caller yielded or parked.
func (q *Queue[T]) push(v *T) (ticket uint64, yielded bool, err error) {
	for spins := 0; ; {
		ticket, fullAt, woke, err := q.claim(v)
		if ticket != 0 || err != nil {
			return ticket, yielded || woke, err
		}
		yielded = true
		if spins < q.spin {
			spins++
			runtime.Gosched()
			continue
		}
		// The queue was full at position fullAt. Park until the worker has
		// finished all but max(1, limit/2) of the tasks before it, so that a
		// producer is woken once per half queue, not once per task. The
		// target is at most fullAt: those positions are claimed and will be
		// handled, including after Close, so the wait ends (unless a handler
		// blocks).
		spins = 0
		target := uint64(1)
		if free := max(1, q.limit/2); fullAt+free > q.limit {
			target = fullAt + free - q.limit
		}
		q.awaitHandled(target, &q.producerWait)
	}
}

// TryPush appends v if the ring has a free slot and never blocks. It reports
// false with a nil error when the ring is full, and false with the sticky
// task error or an ErrClosed error like Push.
func (q *Queue[T]) TryPush(v T) (bool, error) {
	if q == nil {
		return false, errZero
	}
	ticket, _, _, err := q.claim(&v)
	return ticket != 0, err
}

// claim makes one attempt to push *v. It returns the task's ticket on
// success, and whether it yielded after waking the parked worker; or the
// position at which it found the ring full (ticket 0, nil error); or the
// sticky or closed error. Executed by any producer.
func (q *Queue[T]) claim(v *T) (ticket, fullAt uint64, yielded bool, err error) {
	if err := q.errc.load(); err != nil {
		return 0, 0, false, err
	}
	pos := q.tail.Load() // relaxed would do: the CAS below validates it
	for {
		if pos&closedBit != 0 {
			if q.closedErr == nil { // the zero Queue, closed
				return 0, 0, false, errZero
			}
			return 0, 0, false, q.closedErr
		}
		// load-acquire: pairs with the worker's store-release of handled.
		// A stale handled only makes the queue look fuller than it is; a
		// stale pos (other producers claimed past it, and the worker
		// handled them) is below handled: reload it, or pos-handled wraps
		// around and the queue looks full for ever.
		h := q.handled.Load()
		if pos < h {
			pos = q.tail.Load()
			continue
		}
		if pos-h >= q.limit {
			if q.limit == 0 {
				return 0, 0, false, errZero
			}
			return 0, pos, false, nil // limit tasks in flight: full
		}
		s := &q.slots[pos&q.mask]
		// load-acquire: pairs with the worker's store-release of seq = pos,
		// so the worker's read of the previous lap's value happens before our
		// write of val.
		seq := s.seq.Load()
		switch d := int64(seq - pos); {
		case d == 0:
			// CAS: atomicity is all it needs (relaxed); the data hand-off is
			// ordered by seq. It fails if another producer claimed pos or if
			// Close set closedBit.
			if q.tail.CompareAndSwap(pos, pos+1) {
				s.val = *v
				// store-release: publishes val to the worker's load-acquire.
				s.seq.Store(pos + 1)
				return pos + 1, 0, q.wakeWorker(), nil
			}
			pos = q.tail.Load()
		case d < 0:
			return 0, pos, false, nil // slot still holds position pos−size: full
		default:
			pos = q.tail.Load() // pos was claimed by another producer
		}
	}
}

// wakeWorker unparks the worker if it is parked or about to park. Executed by
// producers after publishing a task and by Close after setting closed.
//
// The load of sleeping must be ordered after the caller's store (seq or
// closed): a store-load pair, which needs sequential consistency, not just
// acquire/release. Go's atomics are sequentially consistent.
//
// After waking a parked worker the producer yields its processor. The Go
// scheduler puts a goroutine readied by a channel send in the sender's P's
// runnext slot, which idle Ps do not steal from while the sender keeps
// running; a producer that then spins on its own work (a runner burning its
// prepare cost) would keep the worker off every core until it blocked, and
// the stages would run one after the other on one core. Yielding runs the
// worker on this P at once and sends the producer to the global run queue,
// where an idle P picks it up: both proceed in parallel. Wake-ups are rare
// while tasks flow (the worker only parks when its queue stays empty), so
// the yield costs little. It reports whether it yielded.
func (q *Queue[T]) wakeWorker() bool {
	if q.sleeping.Load() != 0 && q.sleeping.CompareAndSwap(1, 0) {
		select {
		case q.wake <- struct{}{}:
			runtime.Gosched()
			return true
		default: // a token is already there; the worker will see our task
		}
	}
	return false
}

// run is the worker. Executed only by the worker goroutine, which owns head.
func (q *Queue[T]) run() { q.work(0) }

// work is the worker's loop from task head on. A handler that calls
// runtime.Goexit (user code, as testing's FailNow does) ends the worker's
// goroutine: its task fails as if the handler had panicked, and a new
// goroutine goes on with the next task, so that no waiter hangs.
func (q *Queue[T]) work(head uint64) {
	finished := false
	defer func() {
		if finished {
			close(q.exited)
			return
		}
		q.fail(head, fmt.Errorf("%w: runtime.Goexit in the handler", ErrPanic))
		go q.work(head)
	}()
	var zero T
	for {
		s := &q.slots[head&q.mask]
		// load-acquire: pairs with the producer's store-release of
		// seq = head+1, so val is the value it wrote.
		if s.seq.Load() != head+1 {
			q.yielded = true // awaitTask yields at least once
			if !q.awaitTask(s, head) {
				finished = true
				return
			}
			continue
		}
		v := s.val
		s.val = zero // drop references held by the task
		// store-release: our read of val happens before the producer of
		// head+size overwrites it.
		s.seq.Store(head + q.size)
		head++
		q.handle(head, v)
	}
}

// handle runs the handler for the task with the given ticket unless an error
// was recorded, then counts it handled. Executed only by the worker.
func (q *Queue[T]) handle(ticket uint64, v T) {
	if q.bad.Load() == 0 { // only the worker writes bad
		if q.errc.load() != nil {
			q.bad.Store(ticket) // another stage failed: discard from here on
		} else if err := q.call(v); err != nil {
			q.fail(ticket, err)
			return
		}
	}
	q.finish(ticket)
}

// fail records the error of the task with the given ticket, unless one is
// recorded, and counts it handled. Executed only by the worker.
func (q *Queue[T]) fail(ticket uint64, err error) {
	if q.bad.Load() == 0 {
		q.errc.set(fmt.Errorf("queues: %s: task %d: %w", q.name, ticket, err))
		q.bad.Store(ticket)
	}
	q.finish(ticket)
}

// finish counts the task with the given ticket handled. Executed only by
// the worker.
func (q *Queue[T]) finish(ticket uint64) {
	// store-release: the handler's effects and bad happen before anything a
	// waiter does after its load-acquire of handled >= ticket.
	q.handled.Store(ticket)
	if q.done.wake(ticket) {
		q.yielded = true
	}
}

// call runs the handler and, if it succeeds, pushes the task into the next
// stage of a Pipeline (a blocking push), turning a panic into an error
// wrapping ErrPanic so that the worker goes on and waiters learn of it.
// Executed only by the worker.
func (q *Queue[T]) call(v T) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	err = q.handler(v)
	q.yielded = false
	if err == nil && q.next != nil {
		_, q.yielded, err = q.next.push(&v)
		if q.long && err == nil {
			q.yieldToNext()
		}
	}
	q.long = false
	return err
}

// LongTurn tells the worker, from the handler, that the task it is handling
// ends a long stretch of work without a yield: after pushing it into the
// next stage of a Pipeline with more stage goroutines than processors, the
// worker yields its processor if the next stage made no progress since the
// previous long task's push and has two tasks or more waiting. The next worker may then
// be waiting, runnable, for a processor, which Go's scheduler does not take
// from a goroutine that never blocks. Short tasks never ask: a yield costs
// more than they do, and a worker running them waits often enough.
func (q *Queue[T]) LongTurn() {
	if q != nil {
		q.long = q.crowded
	}
}

// yieldToNext yields the processor when the next stage made no progress
// since the previous check and has two tasks or more waiting (see
// LongTurn). Executed only by the worker.
func (q *Queue[T]) yieldToNext() {
	h := q.next.handled.Load()
	stalled := h == q.nextSeen
	q.nextSeen = h
	if q.yielded || !stalled || q.next.tail.Load()&^closedBit < h+2 {
		return
	}
	runtime.Gosched()
	q.yielded = true
}

// Yielded reports, to the handler and only from it (it reads a field the
// worker owns), whether the worker yielded its processor or parked since
// the handler's previous call returned: awaiting the current task, pushing
// the previous one into the next stage of a Pipeline, or waking a waiter.
// It is true for the worker's first task. A handler that times its work
// can take the clock reading that ended its previous call as the start of
// this one when it reports false: nothing but the queue's own work came
// between.
func (q *Queue[T]) Yielded() bool { return q == nil || q.yielded }

// awaitTask waits until the task at position head is published (true) or the
// queue is closed and every claimed position was handled (false). Executed
// only by the worker.
//
// Why no wake-up is lost: the worker stores sleeping = 1 and then re-checks
// s.seq and closed; a producer stores s.seq (Close stores closed) and then
// loads sleeping. With sequentially consistent atomics one of the two loads
// sees the other side's store. If the worker's re-check sees the task it
// does not park. Otherwise the producer sees sleeping == 1, and the one
// producer whose CAS 1 → 0 succeeds puts a token in the one-slot channel,
// where the worker's receive finds it even if the send came first. A stale
// token (sent after the worker's re-check had already succeeded) only causes
// one spurious wake-up, after which the worker checks again.
func (q *Queue[T]) awaitTask(s *slot[T], head uint64) bool {
	ready := func() bool { return s.seq.Load() == head+1 }
	for {
		var start time.Time
		for i := 0; ; i++ {
			runtime.Gosched()
			if ready() {
				return true
			}
			if q.drained(head) {
				return false
			}
			if i+1 >= q.spin {
				if i+1 == q.spin {
					start = time.Now()
				} else if i&15 == 0 && time.Since(start) >= q.spinTime {
					break
				}
			}
		}
		q.sleeping.Store(1)
		if ready() || q.drained(head) {
			q.sleeping.Store(0)
			return ready()
		}
		q.workerParks.Add(1)
		<-q.wake
		q.sleeping.Store(0)
		if ready() {
			return true
		}
	}
}

// drained reports whether the queue is closed and head has reached the last
// claimed position. Executed only by the worker.
func (q *Queue[T]) drained(head uint64) bool {
	// Close stores closed after setting closedBit, so once closed is seen
	// tail is final.
	return q.closed.Load() && q.tail.Load()&^closedBit == head
}

// Wait blocks until every task pushed before the call has been handled and
// returns the first task error, if any. It does not stop the queue. After an
// error the remaining tasks are discarded, not run, so Wait still returns.
func (q *Queue[T]) Wait() error {
	if q == nil {
		return nil
	}
	q.waitHandled(q.tail.Load() &^ closedBit)
	return q.Err()
}

// WaitTicket blocks until the task with ticket t (from PushT) has been
// handled. It returns nil if that task ran and succeeded, and the first task
// error if the task failed or was discarded because an earlier one failed.
// Ticket 0 is always done; a ticket not yet issued returns an error wrapping
// ErrTicket rather than block.
func (q *Queue[T]) WaitTicket(t uint64) error {
	if q == nil {
		q = new(Queue[T]) // the zero Queue's answer: ticket 0 done, others not issued
	}
	if issued := q.tail.Load() &^ closedBit; t > issued {
		return fmt.Errorf("queues: %s: wait for ticket %d: %w (last issued %d)", q.name, t, ErrTicket, issued)
	}
	q.waitHandled(t)
	// bad was stored before handled (see handle), and waitHandled observed
	// handled >= t with a load-acquire, so bad is final for tickets <= t.
	if b := q.bad.Load(); b != 0 && t >= b {
		return q.errc.load()
	}
	return nil
}

// waitHandled yield-spins, then parks, until handled >= target.
func (q *Queue[T]) waitHandled(target uint64) {
	// load-acquire: pairs with the worker's store-release in handle.
	for i := 0; q.handled.Load() < target; i++ {
		if i < q.spin {
			runtime.Gosched()
			continue
		}
		q.awaitHandled(target, &q.callerWait)
		return
	}
}

// waitSpinFor is how long a producer facing a full ring, or a caller of
// Wait, yield-spins before it parks: waking it costs the worker a kernel
// wake-up, which on a virtual machine whose idle processor halts took
// about 36 µs, and it ran about 36 µs after (2 cores). See sync/ready's
// spinFor, measured with it.
const waitSpinFor = time.Millisecond

// sparseEvery is how many yields a spinning producer or caller makes
// between two reads of handled, which the worker writes at every task:
// reading it on every yield would pull the line from the worker each time.
const sparseEvery = 8

// awaitHandled waits until handled >= target: it yield-spins, reading
// handled every sparseEvery yields, for up to waitSpinFor, then parks,
// counting the park in parks. Waiting for target, not for any free slot,
// keeps a producer's wake-ups (and pushes) to one per half ring.
func (q *Queue[T]) awaitHandled(target uint64, parks *atomic.Uint64) {
	start := time.Now()
	for i := 1; ; i++ {
		runtime.Gosched()
		if i%sparseEvery != 0 {
			continue
		}
		if q.handled.Load() >= target { // load-acquire: pairs with handle's store-release
			return
		}
		if i%(8*sparseEvery) == 0 && time.Since(start) >= waitSpinFor {
			break
		}
	}
	parks.Add(1)
	q.done.wait(&q.handled, target)
}

// Err returns the first task error, or nil. For a stage of a Pipeline it is
// the first error of any stage.
func (q *Queue[T]) Err() error {
	if q == nil {
		return nil
	}
	return q.errc.load()
}

// Len returns the number of tasks pushed and not yet handled, including the
// one being handled. It is a snapshot for counters, stale on return.
func (q *Queue[T]) Len() int {
	if q == nil {
		return 0
	}
	h := q.handled.Load() // first: tail only grows, so the difference is >= 0
	return int(q.tail.Load()&^closedBit - h)
}

// Close stops accepting pushes, waits until the worker has handled (or, after
// an error, discarded) every task pushed before, and returns once the worker
// goroutine has exited. It returns the first task error. Close is idempotent
// and safe to call concurrently; producers blocked on a full ring return an
// ErrClosed error. The handler must not call Close.
func (q *Queue[T]) Close() error {
	if q == nil {
		return nil
	}
	q.tail.Or(closedBit) // no claim succeeds after this
	if q.exited == nil { // the zero Queue: no worker to stop
		return nil
	}
	q.closed.Store(true) // store: must precede wakeWorker's load (see awaitTask)
	_ = q.wakeWorker()
	<-q.exited
	return q.Err()
}

// Stats are a queue's counters, read with relaxed consistency.
type Stats struct {
	Pushed      uint64 // tickets issued
	Handled     uint64 // tasks finished: run, failed or discarded
	Failed      uint64 // handled tasks that failed or were discarded
	WorkerParks uint64 // times the worker parked on an empty ring
	PushParks   uint64 // times a producer parked on a full ring
	WaitParks   uint64 // times a caller of Wait or WaitTicket parked
}

// Stats returns a snapshot of the queue's counters.
func (q *Queue[T]) Stats() Stats {
	if q == nil {
		return Stats{}
	}
	s := Stats{
		Handled:     q.handled.Load(),
		WorkerParks: q.workerParks.Load(),
		PushParks:   q.producerWait.Load(),
		WaitParks:   q.callerWait.Load(),
	}
	s.Pushed = q.tail.Load() &^ closedBit
	if b := q.bad.Load(); b != 0 && s.Handled >= b {
		s.Failed = s.Handled - b + 1
	}
	return s
}

// errCell holds the first error of a queue or of all stages of a pipeline.
type errCell struct {
	p atomic.Pointer[error]
}

// load returns the first error or nil. load-acquire: pairs with set's CAS.
func (c *errCell) load() error {
	if c == nil { // the zero Queue's
		return nil
	}
	if p := c.p.Load(); p != nil {
		return *p
	}
	return nil
}

// set records err unless an error was recorded before (first error wins).
func (c *errCell) set(err error) {
	c.p.CompareAndSwap(nil, &err) // release: publishes *p
}
