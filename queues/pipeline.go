package queues

import (
	"fmt"
	"runtime"
)

// Stage names a stage of a Pipeline by its position, 1 for the first. The
// zero Stage is invalid. Infer, Resize and Launch name the stages of the
// classic three-stage pipeline.
type Stage int

// The stages of a three-stage pipeline, in the order a task passes them.
const (
	Infer  Stage = iota + 1 // shape inference
	Resize                  // tiling and workspace sizing
	Launch                  // allocation and launch on the device
)

var stageNames = [...]string{"infer", "resize", "launch"}

// String returns the stage's default queue name.
func (s Stage) String() string {
	if s >= 1 && int(s) <= len(stageNames) {
		return stageNames[s-1]
	}
	return fmt.Sprintf("stage %d", int(s))
}

// Pipeline chains n queues (three for Infer → Resize → Launch), each served
// by its own worker, so that while one task is being launched the next is
// being resized and the one after it inferred.
//
// # Stages
//
//  1. Push (the caller) appends a task to the first queue.
//  2. The first worker runs its handler; if it returns nil, the worker
//     pushes the same task value into the second queue (a blocking push).
//  3. Each later worker does the same into the queue after it.
//  4. The last worker runs its handler, the end of the task.
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
//     queue only while the worker below it makes progress, and the last
//     worker never pushes anywhere; by induction from the last stage every
//     blocked push completes (unless a handler itself blocks). There is no
//     cycle: no stage pushes upstream.
//  4. Errors are sticky across stages: the queues share one error
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
// NewPipeline; the zero Pipeline has no stage and runs nothing (pushes
// fail with an error matching ErrClosed). A nil *Pipeline (NewPipeline's
// on an error) behaves as the zero Pipeline.
type Pipeline[T any] struct {
	stages []*Queue[T]
	errc   errCell
}

// NewPipeline returns a running pipeline of len(handlers) stages: stage s is
// served by handlers[s-1] through a queue of the given capacity named
// names[s-1] (the stage's String if names is short or the name empty). No
// stage, a nil handler or a capacity outside [0, MaxCapacity] or whose
// rings the host has not the memory for is an error. Nil options are
// ignored.
func NewPipeline[T any](names []string, handlers []func(T) error, capacity int, opts ...Option) (*Pipeline[T], error) {
	if len(handlers) == 0 {
		return nil, fmt.Errorf("queues: NewPipeline: no stages")
	}
	if err := checkCapacity[T](capacity, len(handlers)); err != nil {
		return nil, err
	}
	cfg := buildConfig(opts)
	n := len(handlers)
	p := &Pipeline[T]{stages: make([]*Queue[T], n)}
	for i := range handlers {
		if handlers[i] == nil {
			return nil, fmt.Errorf("queues: NewPipeline: nil handler for %v", Stage(i+1))
		}
	}
	// Build from the last stage so each handler can capture its successor.
	cfg.crowded = n+1 > runtime.GOMAXPROCS(0) // the stages and their producer
	for i := n - 1; i >= 0; i-- {
		name := ""
		if i < len(names) {
			name = names[i]
		}
		if name == "" {
			name = Stage(i + 1).String()
		}
		var next *Queue[T]
		if i < n-1 {
			next = p.stages[i+1]
		}
		p.stages[i] = newQueue(name, capacity, handlers[i], next, cfg, &p.errc)
	}
	return p, nil
}

// Stages is the number of stages.
func (p *Pipeline[T]) Stages() int {
	if p == nil {
		return 0
	}
	return len(p.stages)
}

func (p *Pipeline[T]) valid(s Stage) bool { return s >= 1 && int(s) <= p.Stages() }

// first is the first stage's queue; the zero Pipeline's is the zero
// Queue, whose pushes fail as a closed queue's.
func (p *Pipeline[T]) first() *Queue[T] {
	if p == nil || len(p.stages) == 0 {
		return nil // a nil Queue: the zero Queue's answers
	}
	return p.stages[0]
}

// Push appends v to the first stage, blocking while its queue is full. It
// returns the first error of any stage, or an ErrClosed error after Close.
func (p *Pipeline[T]) Push(v T) error { return p.first().Push(v) }

// PushT is Push returning the task's ticket, valid in every stage (see
// WaitTicket).
func (p *Pipeline[T]) PushT(v T) (uint64, error) { return p.first().PushT(v) }

// PushYield is Push that also reports whether the caller yielded its
// processor or parked in it (see Queue.PushYield).
func (p *Pipeline[T]) PushYield(v T) (yielded bool, err error) { return p.first().PushYield(v) }

// TryPush is Push that never blocks; it reports false with a nil error when
// the first queue is full.
func (p *Pipeline[T]) TryPush(v T) (bool, error) { return p.first().TryPush(v) }

// Wait blocks until every task pushed before the call has passed every
// stage (or been discarded after an error) and returns the first error.
func (p *Pipeline[T]) Wait() error {
	if p == nil {
		return nil
	}
	for _, q := range p.stages {
		q.waitHandled(q.tail.Load() &^ closedBit)
	}
	return p.errc.load()
}

// WaitStage blocks until every task pushed before the call has passed stage
// s and the stages before it, and returns the first error of any stage.
func (p *Pipeline[T]) WaitStage(s Stage) error {
	if !p.valid(s) {
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
	if !p.valid(s) {
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
func (p *Pipeline[T]) Err() error {
	if p == nil {
		return nil
	}
	return p.errc.load()
}

// Len returns the approximate number of tasks queued or running in stage s,
// 0 for an invalid stage.
func (p *Pipeline[T]) Len(s Stage) int {
	if !p.valid(s) {
		return 0
	}
	return p.stages[s-1].Len()
}

// Stats returns the counters of the stages, the first first.
func (p *Pipeline[T]) Stats() []Stats {
	if p == nil {
		return nil
	}
	out := make([]Stats, len(p.stages))
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
	if p == nil {
		return nil
	}
	for _, q := range p.stages {
		q.Close()
	}
	return p.errc.load()
}
