package queues

import "fmt"

// Stage names a stage of a Pipeline. The zero Stage is invalid.
type Stage int

// The stages of a Pipeline, in the order a task passes them.
const (
	Infer  Stage = iota + 1 // shape inference
	Resize                  // tiling and workspace sizing
	Launch                  // allocation and launch on the device

	numStages = 3
)

var stageNames = [numStages]string{"infer", "resize", "launch"}

// String returns the stage's default queue name.
func (s Stage) String() string {
	if s.valid() {
		return stageNames[s-1]
	}
	return fmt.Sprintf("Stage(%d)", int(s))
}

func (s Stage) valid() bool { return s >= Infer && s <= Launch }

// Pipeline chains three queues, Infer → Resize → Launch, each served by its
// own worker, so that while one task is being launched the next is being
// resized and the one after it inferred.
//
// # Stages
//
//  1. Push (the caller) appends a task to the Infer queue.
//  2. The Infer worker runs the Infer handler; if it returns nil, the worker
//     pushes the same task value into the Resize queue (a blocking push).
//  3. The Resize worker does the same into the Launch queue.
//  4. The Launch worker runs the Launch handler, the end of the task.
//
// A stage counts a task handled only after its successor was pushed, so once
// a stage's Wait returns the successors of everything before it are in the
// next queue: Wait waits for the stages in order.
//
// # Invariants
//
//  1. Order: only the Infer worker pushes into Resize and only the Resize
//     worker into Launch, each in its own handling order, so every stage sees
//     the tasks in the order the caller pushed them.
//  2. Tickets agree: while no error has occurred every task passes every
//     stage, so the task with Infer ticket t has ticket t in every stage, and
//     WaitTicket(s, t) can wait for Infer, Resize, … up to s in turn. After
//     the first error all later tasks fail or are discarded in every stage,
//     so a ticket never refers to a different task.
//  3. No deadlock from back-pressure: a worker blocks on a full downstream
//     queue only while the worker below it makes progress, and the Launch
//     worker never pushes anywhere; by induction from the last stage every
//     blocked push completes (unless a handler itself blocks). There is no
//     cycle: no stage pushes upstream.
//  4. Errors are sticky across stages: the three queues share one error
//     cell, so the first error of any stage makes Push return it and every
//     stage discard its remaining tasks without running their handlers —
//     including tasks older than the failed one that had not yet passed a
//     later stage. WaitTicket tells, per task and stage, whether it ran.
//
// # Rejected designs
//
// One goroutine carrying each task through all three stages keeps the stages
// of consecutive tasks from overlapping unless one goroutine per task is
// started, which loses the order stages need (Launch must follow the push
// order of the stream). One queue with a stage tag per entry and a pool of
// workers needs a scheduler to keep each stage in order and lets a slow stage
// occupy every worker. Unbounded queues drop back-pressure: when the device
// falls behind, Infer would run arbitrarily far ahead and hold memory.
//
// Push, PushT, TryPush and the waits are safe for concurrent use; handlers
// must not call Close or wait for their own task. Pipelines are made by
// NewPipeline; the zero Pipeline is not usable.
type Pipeline[T any] struct {
	stages [numStages]*Queue[T]
	errc   errCell
}

// NewPipeline returns a running pipeline whose stage s is served by
// handlers[s-1] through a queue of the given capacity named names[s-1] (the
// stage's String if empty). A nil handler panics, as for New.
func NewPipeline[T any](names [3]string, handlers [3]func(T) error, capacity int, opts ...Option) *Pipeline[T] {
	cfg := buildConfig(opts)
	p := new(Pipeline[T])
	// Build from the last stage so each handler can capture its successor.
	for i := numStages - 1; i >= 0; i-- {
		name := names[i]
		if name == "" {
			name = stageNames[i]
		}
		run := handlers[i]
		if run == nil {
			panic("queues: NewPipeline: nil handler for " + name)
		}
		if i < numStages-1 {
			run = forward(run, p.stages[i+1])
		}
		p.stages[i] = newQueue(name, capacity, run, cfg, &p.errc)
	}
	return p
}

// forward runs h and, if it succeeds, pushes the task into the next stage.
func forward[T any](h func(T) error, next *Queue[T]) func(T) error {
	return func(v T) error {
		if err := h(v); err != nil {
			return err
		}
		return next.Push(v)
	}
}

// Push appends v to the Infer stage, blocking while its queue is full. It
// returns the first error of any stage, or an ErrClosed error after Close.
func (p *Pipeline[T]) Push(v T) error { return p.stages[0].Push(v) }

// PushT is Push returning the task's ticket, valid in every stage (see
// WaitTicket).
func (p *Pipeline[T]) PushT(v T) (uint64, error) { return p.stages[0].PushT(v) }

// TryPush is Push that never blocks; it reports false with a nil error when
// the Infer queue is full.
func (p *Pipeline[T]) TryPush(v T) (bool, error) { return p.stages[0].TryPush(v) }

// Wait blocks until every task pushed before the call has passed all three
// stages (or been discarded after an error) and returns the first error.
func (p *Pipeline[T]) Wait() error {
	for _, q := range p.stages {
		q.waitHandled(q.tail.Load() &^ closedBit)
	}
	return p.errc.load()
}

// WaitStage blocks until every task pushed before the call has passed stage
// s and the stages before it, and returns the first error of any stage.
func (p *Pipeline[T]) WaitStage(s Stage) error {
	if !s.valid() {
		return fmt.Errorf("queues: pipeline: wait for stage: invalid %v", s)
	}
	for _, q := range p.stages[:s] {
		q.waitHandled(q.tail.Load() &^ closedBit)
	}
	return p.errc.load()
}

// WaitTicket blocks until the task with ticket t (from PushT) has passed
// stage s. It returns nil if every stage up to s ran it successfully, and the
// first error if the task failed or was discarded on the way; it never waits
// for a stage the task will not reach.
func (p *Pipeline[T]) WaitTicket(s Stage, t uint64) error {
	if !s.valid() {
		return fmt.Errorf("queues: pipeline: wait for ticket %d: invalid %v", t, s)
	}
	for _, q := range p.stages[:s] {
		// Invariant 2: a nil return means the task reached the next stage
		// under the same ticket.
		if err := q.WaitTicket(t); err != nil {
			return err
		}
	}
	return nil
}

// Err returns the first error of any stage, or nil.
func (p *Pipeline[T]) Err() error { return p.errc.load() }

// Len returns the approximate number of tasks queued or running in stage s,
// 0 for an invalid stage.
func (p *Pipeline[T]) Len(s Stage) int {
	if !s.valid() {
		return 0
	}
	return p.stages[s-1].Len()
}

// Stats returns the counters of the three stages, Infer first.
func (p *Pipeline[T]) Stats() [3]Stats {
	var out [numStages]Stats
	for i, q := range p.stages {
		out[i] = q.Stats()
	}
	return out
}

// Close closes the stages in order, each after the one above it has drained
// into it, so every task pushed before Close passes (or, after an error, is
// discarded by) all stages; then no worker is left. It returns the first
// error and is idempotent. Handlers must not call it.
func (p *Pipeline[T]) Close() error {
	for _, q := range p.stages {
		q.Close()
	}
	return p.errc.load()
}
