package actor

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	uatomic "go.uber.org/atomic"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/queues"
)

// queued runs one graph in the Async or Pipeline mode.
//
// # Protocol
//
// Tasks are node positions (int32 values: the rings allocate nothing per
// task). The runner (the goroutine calling Run) prepares each node in
// execution order and pushes it:
//
//   - Async: the runner also runs the barrier, InferShape and Resize, then
//     pushes the node to the Launch queue.
//   - Pipeline: the runner pushes the node to the Infer queue; the Infer
//     worker runs the barrier and InferShape and forwards it to Resize, the
//     Resize worker forwards it to Launch.
//
// The Launch goroutine allocates outputs and workspace, launches, records
// the node's event when somebody waits on it, frees what dies there, and
// then advances the launched counter. Allocation and free happen on that
// goroutine alone and in execution order, so memory reuse and peak memory
// are those of KBK.
//
// # Invariants
//
//  1. Every stage handles nodes in execution order (FIFO queues, one
//     worker each), so a node's InferShape sees the output shapes its
//     producers' InferShape wrote: the stage is the same goroutine or a
//     queue hand-off orders them.
//  2. After launched reaches base+p+1, node p's outputs are allocated, its
//     kernel has run its computation and its event (if watched) is
//     recorded: the Launch goroutine advances the counter after all of it
//     (release), and waiters load it (acquire).
//  3. Only the goroutine that runs barriers (the Infer worker, or the runner
//     in Async) stages value copies and resolves compute-dependent shapes,
//     and it owns the copy stream.
//  4. The first error cancels the run context, so no barrier waits forever
//     for a launch that the failed pipeline will never run.
//
// # Rejected designs
//
// Resolving compute-dependent shapes on the Launch goroutine (sync right
// after the launch) would stall every later launch behind the device; the
// consumer resolves instead, when it first needs the shape.
type queued struct {
	a    *SuperKernelActor
	copy device.Stream
	pipe *queues.Pipeline[int32] // Pipeline mode
	lq   *queues.Queue[int32]    // Async mode
	r    *queuedRun              // the current run; set by the runner before its first push
}

// queuedRun is the state of one run. The workers persist across runs (they
// park between them); each run gets a fresh queuedRun, so that nothing a late
// cancellation callback of an earlier run does can reach a later one.
type queuedRun struct {
	ctx    context.Context
	cancel context.CancelFunc
	err    uatomic.Error // first error of any goroutine: sticky
	halt   atomic.Bool   // set on the first error or when the caller's ctx ends
	base   uint64        // a.launched at the start of the run
	// busy is each stage's host work, written only by the goroutine that
	// runs the stage, read after the queues drained.
	busy [kernel.StageLaunch + 1]time.Duration
	wait time.Duration // runner and Infer worker time blocked on barriers
}

// errStopped makes a stage skip its task once the run has failed or was
// cancelled; it is never the error a run returns.
var errStopped = errors.New("actor: run stopped")

// fail records err if it is the run's first error and cancels the run's
// waits. It returns err.
func (q *queued) fail(err error) error {
	if err != nil && !errors.Is(err, errStopped) && q.r.err.CompareAndSwap(nil, err) {
		q.r.halt.Store(true)
		q.r.cancel()
	}
	return err
}

// stop is the cheap check every task makes first.
func (q *queued) stop() error {
	if q.r.halt.Load() {
		return errStopped
	}
	return nil
}

// runQueued runs the nodes in the Async or Pipeline mode. The queues and
// their workers are made on the first run and kept; a run that failed or was
// cancelled leaves them poisoned (their error is sticky), so they are closed
// and the next run makes new ones.
func (a *SuperKernelActor) runQueued(ctx context.Context, st *Stats) error {
	if a.q == nil {
		a.q = newQueued(a)
	}
	q := a.q
	r := &queuedRun{base: a.launched.Load()}
	r.ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	stopWatch := context.AfterFunc(ctx, func() { r.halt.Store(true) })
	defer stopWatch()
	q.r = r
	q.fail(q.feed())
	var qerr error
	if q.pipe != nil {
		qerr = q.pipe.Wait()
	} else {
		qerr = q.lq.Wait()
	}
	if qerr != nil {
		q.close()
		a.q = nil
	}
	err := r.err.Load()
	if cerr := ctx.Err(); cerr != nil {
		err = cerr
	}
	if err == nil && qerr != nil {
		err = qerr // cannot happen: every stage error goes through fail
	}
	if err == nil {
		// Graph outputs of compute-dependent nodes nobody consumed.
		for pos := range a.p.nodes {
			if a.p.nodes[pos].compute && !a.resolved[pos] {
				if err = a.awaitLaunch(ctx, r.base, pos, q.copy); err != nil {
					break
				}
				if err = a.resolve(pos); err != nil {
					break
				}
			}
		}
	}
	for s := range r.busy {
		st.Stage[s] += r.busy[s]
	}
	st.Wait += r.wait
	return err
}

func newQueued(a *SuperKernelActor) *queued {
	q := &queued{a: a, copy: a.copyStream}
	capacity := a.opt.QueueCapacity
	switch a.opt.Mode {
	case Async:
		q.lq = queues.New("launch", capacity, q.launchTask)
	case Pipeline:
		q.pipe = queues.NewPipeline([3]string{"infer", "resize", "launch"},
			[3]func(int32) error{q.inferTask, q.resizeTask, q.launchTask}, capacity)
	}
	return q
}

// close stops the workers.
func (q *queued) close() {
	if q.pipe != nil {
		q.pipe.Close()
	} else {
		q.lq.Close()
	}
}

// feed is the runner: it prepares each node and pushes it.
func (q *queued) feed() error {
	a := q.a
	for pos := range a.p.nodes {
		if err := q.stop(); err != nil {
			return err
		}
		nd := &a.p.nodes[pos]
		t := device.Now()
		a.prepare(pos)
		a.account(&q.r.busy[kernel.StagePrepare], kernel.StagePrepare, pos, t)
		if a.opt.Mode == Async {
			if err := q.fail(q.barrier(pos)); err != nil {
				return err
			}
			t := device.Now()
			if err := a.infer(pos); err != nil {
				return q.fail(err)
			}
			t = a.account(&q.r.busy[kernel.StageInfer], kernel.StageInfer, pos, t)
			if err := a.resize(pos); err != nil {
				return q.fail(err)
			}
			a.account(&q.r.busy[kernel.StageResize], kernel.StageResize, pos, t)
			if err := q.lq.Push(int32(pos)); err != nil {
				return err
			}
		} else if err := q.pipe.Push(int32(pos)); err != nil {
			return err
		}
		if nd.compute && a.opt.Policy == Drain {
			// The faithful baseline: drain everything, then resolve.
			t := device.Now()
			if err := q.drainAll(); err != nil {
				return err
			}
			if err := a.stream.Synchronize(q.r.ctx); err != nil {
				return q.fail(err)
			}
			if err := q.fail(a.resolve(pos)); err != nil {
				return err
			}
			a.waited(&q.r.wait, kernel.StagePrepare, t)
		}
	}
	return nil
}

func (q *queued) drainAll() error {
	if q.pipe != nil {
		return q.pipe.Wait()
	}
	return q.lq.Wait()
}

// drainBelow waits for the queues below the Infer stage (Resize and Launch)
// to drain; called from the goroutine running barriers.
func (q *queued) drainBelow() error {
	if q.pipe != nil {
		if err := q.pipe.Queue(queues.Resize).Wait(); err != nil {
			return err
		}
		return q.pipe.Queue(queues.Launch).Wait()
	}
	return q.lq.Wait()
}

// barrier makes node pos's dependencies available before its InferShape:
// compute-dependent producers resolved, value-dependency inputs on the host.
func (q *queued) barrier(pos int) error {
	a := q.a
	nd := &a.p.nodes[pos]
	t := device.Now()
	waited := false
	for _, s := range nd.in {
		pr := a.p.slots[s].producer
		if pr < 0 || !a.p.nodes[pr].compute || a.resolved[pr] {
			continue
		}
		waited = true
		if err := a.awaitLaunch(q.r.ctx, q.r.base, pr, q.copy); err != nil {
			return err
		}
		if err := a.resolve(pr); err != nil {
			return err
		}
	}
	for _, j := range nd.valueDeps {
		if j >= len(nd.in) || a.args[pos].In[j].Host != nil {
			continue
		}
		waited = true
		pr := a.p.slots[nd.in[j]].producer
		if a.opt.Policy == Drain {
			if err := q.drainBelow(); err != nil {
				return err
			}
			if err := a.stream.Synchronize(q.r.ctx); err != nil {
				return err
			}
		} else if pr >= 0 {
			if err := a.launched.WaitAtLeast(q.r.ctx, q.r.base+uint64(pr)+1); err != nil {
				return err
			}
			q.copy.WaitEvent(a.events[pr])
		}
		if err := a.stageValue(q.r.ctx, q.copy, pos, j); err != nil {
			return err
		}
	}
	if waited {
		a.waited(&q.r.wait, kernel.StageInfer, t)
	}
	return nil
}

func (q *queued) inferTask(pos32 int32) error {
	if err := q.stop(); err != nil {
		return err
	}
	pos := int(pos32)
	q.a.depth(kernel.StageInfer, q.pipe.Len(queues.Infer))
	if err := q.fail(q.barrier(pos)); err != nil {
		return err
	}
	t := device.Now()
	err := q.a.infer(pos)
	q.a.account(&q.r.busy[kernel.StageInfer], kernel.StageInfer, pos, t)
	return q.fail(err)
}

func (q *queued) resizeTask(pos32 int32) error {
	if err := q.stop(); err != nil {
		return err
	}
	q.a.depth(kernel.StageResize, q.pipe.Len(queues.Resize))
	t := device.Now()
	err := q.a.resize(int(pos32))
	q.a.account(&q.r.busy[kernel.StageResize], kernel.StageResize, int(pos32), t)
	return q.fail(err)
}

func (q *queued) launchTask(pos32 int32) error {
	if err := q.stop(); err != nil {
		return err
	}
	if q.pipe != nil {
		q.a.depth(kernel.StageLaunch, q.pipe.Len(queues.Launch))
	} else {
		q.a.depth(kernel.StageLaunch, q.lq.Len())
	}
	t := device.Now()
	err := q.a.launch(int(pos32))
	q.a.account(&q.r.busy[kernel.StageLaunch], kernel.StageLaunch, int(pos32), t)
	if err != nil {
		return q.fail(err)
	}
	q.a.launched.Advance(1)
	return nil
}

// awaitLaunch waits until node pos of the current run has been launched and
// has completed on the device; s is a stream owned by the caller, used to
// wait for the node's event.
func (a *SuperKernelActor) awaitLaunch(ctx context.Context, base uint64, pos int, s device.Stream) error {
	if err := a.launched.WaitAtLeast(ctx, base+uint64(pos)+1); err != nil {
		return err
	}
	return a.events[pos].Synchronize(ctx)
}
