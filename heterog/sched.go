package heterog

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/pipert/pipert/internal/minheap"
	"github.com/pipert/pipert/kernel"
)

// scheduler runs a DAG of tasks, numbered in a topological order, on worker
// groups: each task as soon as every task it depends on has finished and
// its group has a free worker, lowest number first.
//
// # Protocol
//
// The goroutine calling run is the only one that decides: it queues the
// tasks with no predecessors, then receives finished tasks from done,
// queues each successor whose last predecessor that was, and hands queued
// tasks to their groups while they have free workers. A worker runs its
// task, stores the task's error in errs[i] and sends i on done; the channel
// hand-off orders the worker's writes (the task's outputs, errs[i]) before
// the decider's reads, and the pool's hand-off orders the decider's writes
// (and the predecessors' outputs it saw) before the next task's reads.
//
// # Invariants
//
//  1. A task is started at most once per run, and only after every
//     predecessor finished without error.
//  2. At most limit tasks of a group run at once, and a queued task starts
//     before any higher-numbered task of its group: the earliest work (in
//     the graph's order, which is the order the critical joins need) goes
//     first when workers are scarce.
//  3. done has room for every task, so a worker never blocks on it; the
//     decider hands a group no more tasks than it has free workers, so it
//     never blocks on a pool this run fills. A running task waits for
//     nothing that is not running: no deadlock.
//  4. The first error cancels the run's context (the other tasks see it and
//     stop early); no task starts after it, and run returns only when every
//     started task has finished, so no work outlives a run.
//
// # Rejected designs
//
// Workers that submit their own successors deadlock a full pool: every
// worker blocks in Invoke waiting for a worker. Handing every ready task to
// the pool at once lets the Go scheduler pick among them: it favours the
// most recently woken goroutine and preempts a computing one only after
// 10 ms, so one chain of CPU parts runs ahead while the part a device join
// waits for sits ready and starved. Draining all tasks of a level before
// the next (a barrier per level) makes every edge wait for the slowest task
// of the level.
type scheduler struct {
	succ  [][]int
	indeg []int
	group []int        // by task: index into groups
	acts  []activation // by task: what the pool is handed
	task  func(ctx context.Context, i int) error
	// goexited, when set, is what ended task i when it ended by
	// runtime.Goexit (nil: nothing more than that is known).
	goexited func(i int) error

	groups []groupSlot

	// Per run; see the protocol.
	ctx     context.Context
	pending []int
	errs    []error
	done    chan int
	ran     int // tasks run to completion or failure in the last run
	parent  context.Context
	// orphans are tasks a run whose caller gave up left running.
	orphans int
	// early releases a task's successors when it starts rather than when
	// it finishes: the per-tensor hand-over between parts.
	early bool
}

// groupSlot is a worker group as one scheduler uses it.
type groupSlot struct {
	g       *Group
	limit   int                // tasks of this scheduler running at once, at most
	running int                // decider only
	ready   minheap.Heap[task] // decider only: queued task numbers
}

// activation is one task handed to a worker group. A nil activation is
// never submitted.
type activation struct {
	s *scheduler
	i int
}

// runActivation is the function of every worker group.
func runActivation(a *activation) { a.s.exec(a.i) }

// newScheduler returns a scheduler of the tasks with successors succ; task
// i runs on groups[group[i]].g, at most groups[..].limit at a time.
func newScheduler(succ [][]int, group []int, groups []groupSlot, task func(ctx context.Context, i int) error) *scheduler {
	n := len(succ)
	s := &scheduler{
		succ: succ, indeg: make([]int, n), group: group, acts: make([]activation, n), task: task, groups: groups,
		pending: make([]int, n), errs: make([]error, n), done: make(chan int, n),
	}
	for i := range succ {
		s.acts[i] = activation{s: s, i: i}
		for _, j := range succ[i] {
			s.indeg[j]++
		}
	}
	return s
}

// exec runs task i on a worker and always reports it done: a panic of the
// task (user code: a kernel, a factory) becomes its error, and so does a
// runtime.Goexit, which ends the worker's goroutine (the pool starts
// another).
func (s *scheduler) exec(i int) {
	returned := false
	defer func() { s.done <- i }()
	defer func() {
		// The caller of run names the failed task (a part, by name and
		// placement): the error does not.
		if p := recover(); p != nil {
			s.errs[i] = fmt.Errorf("heterog: %w: %v\n\n%s", kernel.ErrPanic, p, debug.Stack())
		} else if !returned && s.errs[i] == nil {
			s.errs[i] = fmt.Errorf("heterog: %w (%w)", kernel.ErrGoexit, kernel.ErrPanic)
			if s.goexited != nil {
				if err := s.goexited(i); err != nil {
					s.errs[i] = err
				}
			}
		}
	}()
	s.errs[i] = s.task(s.ctx, i)
	returned = true
}

// run runs every task once. It returns the task that failed first (-1 if
// none) and its error. Runs must not overlap.
func (s *scheduler) run(ctx context.Context) (int, error) {
	s.parent = ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	copy(s.pending, s.indeg)
	clear(s.errs)
	s.ran = 0
	var first error
	failed := -1
	// The first error is kept, except that a part's own failure replaces
	// an error that only reports the run's cancellation: a part waiting on
	// a failing part may return first, but the failure names the node.
	fail := func(err error, i int) {
		if first == nil {
			first, failed = err, i
			cancel()
		} else if cancelled(first) && !cancelled(err) {
			first, failed = err, i
		}
	}
	inflight := 0
	// release queues the successors of task i whose last predecessor
	// that was: when i finished, or, in early mode, when i started (a
	// successor then awaits i's outputs tensor by tensor).
	release := func(i int) {
		for _, j := range s.succ[i] {
			if s.pending[j]--; s.pending[j] == 0 {
				s.groups[s.group[j]].ready.Push(task(j))
			}
		}
	}
	dispatch := func(gi int) bool {
		gs := &s.groups[gi]
		started := false
		for first == nil && gs.running < gs.limit && len(gs.ready) > 0 {
			i := int(gs.ready.Pop())
			if err := gs.g.pool.Invoke(&s.acts[i]); err != nil {
				fail(fmt.Errorf("heterog: start on the worker group of %s: %w", gs.g.dev.Name(), err), i)
				return started
			}
			gs.running++
			inflight++
			started = true
			if s.early {
				release(i)
			}
		}
		return started
	}
	dispatchAll := func() {
		for more := true; more; {
			more = false
			for gi := range s.groups {
				if dispatch(gi) && s.early {
					more = true
				}
			}
		}
	}
	for i, d := range s.indeg {
		if d == 0 {
			s.groups[s.group[i]].ready.Push(task(i))
		}
	}
	dispatchAll()
	// When the caller gives up, running tasks get a grace period to return
	// their own errors (they name the node) before the decider stops
	// waiting for tasks that ignore the context.
	parentDone := s.parent.Done()
	var grace <-chan time.Time
	for inflight > 0 {
		var i int
		select {
		case i = <-s.done:
		case <-parentDone:
			parentDone = nil
			grace = time.After(abandonGrace)
			continue
		case <-grace:
			fail(s.parent.Err(), -1)
			s.orphans = inflight
			inflight = 0
			continue
		}
		inflight--
		s.ran++
		s.groups[s.group[i]].running--
		if err := s.errs[i]; err != nil {
			fail(err, i)
			continue
		}
		if first != nil {
			continue
		}
		if !s.early {
			release(i)
		}
		dispatchAll()
	}
	for gi := range s.groups {
		s.groups[gi].ready = s.groups[gi].ready[:0]
		s.groups[gi].running = 0
	}
	return failed, first
}

// cancelled reports whether err only says that a context ended.
func cancelled(err error) bool {
	var ke *kernel.Error
	return (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) && !errors.As(err, &ke)
}

// abandonGrace is how long a run whose caller gave up waits for its
// running tasks before it returns without them.
const abandonGrace = 100 * time.Millisecond

// collect waits for the tasks a cancelled run left running, so that no two
// runs' tasks overlap.
func (s *scheduler) collect(ctx context.Context) error {
	for s.orphans > 0 {
		select {
		case <-s.done:
			s.orphans--
		case <-ctx.Done():
			return fmt.Errorf("heterog: %d parts of a cancelled run still running: %w", s.orphans, ctx.Err())
		}
	}
	return nil
}

// task is a task number; the ready queues pop the lowest first.
type task int

func (a task) Less(b task) bool { return a < b }
