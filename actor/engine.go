package actor

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	uatomic "go.uber.org/atomic"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/queues"
	"github.com/pipert/pipert/sync/ready"
	"github.com/pipert/pipert/trace"
)

// maxWorkers bounds the goroutines of a stage plan: one per stage.
const maxWorkers = int(kernel.StageLaunch)

// engine is the goroutine shell around a KernelRunner: it runs each
// kernel's steps on the goroutines the stage plan names, performs the waits
// the runner's Needs report, and accounts the host work.
//
// # Protocol
//
// Tasks are node positions (int32 values: the rings allocate nothing per
// task). Goroutine 0, the caller of Run, runs its steps of each node in
// execution order and pushes the node to the pipeline of the other
// goroutines (worker w ≥ 1 serves stage w of a queues.Pipeline). Each
// goroutine runs, for every node, the steps the plan gives it, in stage
// order. The barrier of a node (its Needs) is waited for by the goroutine
// running its InferShape, just before it; under the Drain policy
// goroutine 0 also drains every queue and the stream after pushing a
// compute-dependent node, then resolves its shapes.
//
// # Invariants
//
//  1. Every step kind runs in execution order on one goroutine (FIFO
//     queues, one worker each), as the KernelRunner's protocol requires.
//  2. After launched reaches base+p+1, node p's outputs are allocated, its
//     results computed and its event (if watched) recorded: the launching
//     goroutine advances the counter after all of it.
//  3. Handlers never return an error to the queues: the first error of a
//     run is kept in the run's sticky error, halts the run (later tasks
//     are skipped) and cancels its waits, so the queues stay usable for the
//     next run. A panic outside kernel code (a bug of the engine) poisons
//     the queues; the engine is then rebuilt.
//  4. Measured intervals contain no wait and no yield: a goroutine's
//     interval closes before it blocks on a barrier or a full queue and
//     before it yields, and the clock is read once per stage boundary
//     (but for a Prepare with no cost followed by Infer on the same
//     goroutine: its few instructions count in Infer).
//     The reading that ends a goroutine's work on one kernel also starts
//     its work on the next (last) unless the goroutine waited or yielded
//     in between (queues.Queue.Yielded, PushYield, AdvanceYield), so the
//     queues' own hand-off counts as host work, as the engine's
//     bookkeeping does, and back-to-back intervals merge into one span.
//
// # Rejected designs
//
// Resolving compute-dependent shapes on the launching goroutine (sync right
// after the launch) would stall every later launch behind the device; the
// consumer resolves instead, when it first needs the shape.
type engine struct {
	a       *SuperKernelActor
	r       *KernelRunner
	plan    plan.Plan
	workers int
	steps   [maxWorkers][]kernel.Stage // by goroutine, in stage order
	inferW  int                        // the goroutine running InferShape
	launchW int
	// fusePrepare: goroutine 0 runs Infer too, so a Prepare with no cost
	// to pay (its few instructions) is timed with the Infer after it
	// rather than between two clock readings of its own.
	fusePrepare bool
	pipe        *queues.Pipeline[int32] // goroutines 1…; nil when there are none
	copy        device.Stream           // value copies of the barriers, owned by inferW
	cur         *runState               // the current run; set before its first push
	rs          runState                // reused run after run: nothing outlives a run
	rctx        runCtx                  // rs's context in runs with several goroutines
	rcancel     func()                  // cancels rctx (made once: a run allocates none)

	// wk is what each goroutine writes as it works, kept across runs so
	// a run allocates nothing per kernel. lists are the goroutines' spans, as
	// Spans returns them, set by account. queue is, by goroutine w ≥ 1,
	// the queue it serves.
	wk    [maxWorkers]worker
	lists [maxWorkers][]plan.Span
	queue [maxWorkers]*queues.Queue[int32]

	// A fed run (Feed): its feed; the outputs each node publishes, built
	// for the feed outputs pubFor lists, and how many nodes publish
	// (pubNodes); the run's outputs published so far. pubCh is, during a
	// fed run, the channel of launched nodes to the publishing goroutine
	// (nil otherwise). That goroutine lives as long as the engine (made at
	// the first fed run, and again when a feed has more publishing nodes
	// than its queue has room for): it takes nodes from pubQueue, room for
	// every publishing node and an end mark, and publishes their outputs
	// for run pubRun; the end mark (a negative node) is answered on
	// pubDone; pubExited is closed when it returns (engine close, or a
	// runtime.Goexit of user code, after which the engine is replaced).
	feed      *Feed
	seq       uint64 // the run's number (Feed.Seq; 0: the runner counts)
	pubOuts   [][]int
	pubFor    []int
	pubNodes  int
	published []*kernel.Tensor
	pubCh     chan int
	pubQueue  chan int
	pubDone   chan struct{}
	pubExited chan struct{}
	pubRun    *runState
	pubS      device.Stream
	labeled   [maxWorkers]atomic.Bool
	labels    [maxWorkers]context.Context
	// opLabels, with Config.ProfileOps, are each worker's labels with the
	// op of the node at each position added (pipert.op); nil otherwise.
	opLabels [maxWorkers][]context.Context
	// last is recorded after a fed run's last launch (Feed.Launched).
	last device.Event
	// broken: the device's code panicked on the calling goroutine; the
	// actor replaces the engine after the run.
	broken bool

	// Written with every kernel, each by one goroutine, on lines of their
	// own: the fields above are read by every goroutine with every
	// kernel, and a line one of them wrote would move to its core each
	// time. launched counts launches over the actor's life (the
	// launching goroutine's); needs is the barrier scratch of the
	// goroutine running Infer.
	_        linePad
	launched ready.Counter
	_        linePad
	needs    []Need
	_        linePad
}

// runState is the state of one run. It is reset when a run begins: no
// callback or goroutine of an earlier run touches it after that run
// returned (the run waits for its queues to drain, and the caller's
// context is polled, never watched).
type runState struct {
	ctx    context.Context
	cancel context.CancelFunc
	err    uatomic.Error // first error of any goroutine: sticky
	halt   atomic.Bool   // set on the first error
	base   uint64        // launched at the start of the run
}

// worker is what one goroutine of the stage plan writes as it works,
// alone on its cache lines: the goroutines write it at every kernel, and
// a line they shared would move between their cores every time. Written
// by its goroutine alone during a run; reset by goroutine 0 before the
// run's first push and read by it once the run drained.
type worker struct {
	_ [64]byte
	// carried is the clock reading that ended the goroutine's last work
	// interval while it has neither waited nor yielded since (0: none).
	carried int64
	// busy is the host work of each stage the goroutine runs, wait its
	// time blocked on barriers, spans its host work intervals.
	busy  [kernel.StageLaunch + 1]time.Duration
	wait  time.Duration
	spans []plan.Span
	// pos and stage are the node and step the goroutine runs (for the
	// error of user code that ends the goroutine: runtime.Goexit); stage
	// 0 when it runs none (a run's start and end on goroutine 0).
	pos   int
	stage kernel.Stage
	_     [64]byte
}

// reset starts a run: the goroutine parked since the last one.
func (k *worker) reset() {
	k.carried, k.busy, k.wait, k.spans = 0, [kernel.StageLaunch + 1]time.Duration{}, 0, k.spans[:0]
	k.stage = 0 // no step yet (see goexited)
}

func newEngine(a *SuperKernelActor) (*engine, error) {
	e := &engine{a: a, r: a.r, plan: a.plan, workers: a.plan.Workers(), copy: newStream(a.dev)}
	for s := kernel.StagePrepare; s <= kernel.StageLaunch; s++ {
		w := int(e.plan.Worker[s])
		e.steps[w] = append(e.steps[w], s)
	}
	e.inferW, e.launchW = int(e.plan.Worker[kernel.StageInfer]), int(e.plan.Worker[kernel.StageLaunch])
	e.fusePrepare = e.inferW == 0
	for w := 0; w < e.workers; w++ {
		names := make([]string, len(e.steps[w]))
		for i, s := range e.steps[w] {
			names[i] = s.String()
		}
		e.labels[w] = pprof.WithLabels(a.labels, pprof.Labels("pipert.stage", strings.Join(names, "+")))
		if a.cfg.ProfileOps {
			byOp := map[string]context.Context{}
			e.opLabels[w] = make([]context.Context, len(a.prog.nodes))
			for pos, n := range a.prog.nodes {
				if byOp[n.op()] == nil {
					byOp[n.op()] = pprof.WithLabels(e.labels[w], pprof.Labels("pipert.op", n.op()))
				}
				e.opLabels[w][pos] = byOp[n.op()]
			}
		}
	}
	if e.workers > 1 {
		names := make([]string, e.workers-1)
		hs := make([]func(int32) error, e.workers-1)
		for w := 1; w < e.workers; w++ {
			names[w-1] = strings.Join(stageNames(e.steps[w]), "+")
			hs[w-1] = e.handler(w)
		}
		p, err := queues.NewPipeline(names, hs, ringCapacity(a.cfg.QueueCapacity, len(a.prog.nodes)))
		if err != nil {
			return nil, fmt.Errorf("actor: %w", err)
		}
		e.pipe = p
		for w := 1; w < e.workers; w++ {
			e.queue[w] = p.Queue(queues.Stage(w))
		}
	}
	return e, nil
}

// ringCapacity is the capacity the stage queues of a program of n nodes
// are made with for a configured capacity c: c, but no more than the
// tasks a queue can ever hold, two a node (its Prepare and its execute
// phase, see step) and two to spare, so that a queue of a large capacity
// does not allocate a ring for more tasks than a run has. A queue that
// never fills behaves the same whatever its capacity.
func ringCapacity(c, n int) int {
	return min(c, 2*n+2)
}

func stageNames(ss []kernel.Stage) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	return out
}

// close stops the workers and releases the caller's context.
func (e *engine) close() {
	if e.pipe != nil {
		e.pipe.Close()
	}
	e.stopPublisher()
	e.rctx.release()
	device.ReleaseStreams(e.a.dev, e.copy, e.pubS)
}

// errStopped is a step's error once the run has failed or was cancelled; it
// is never the error a run returns.
var errStopped = errors.New("actor: run stopped")

// fail records err if it is the run's first error and cancels the run's
// waits.
func (rs *runState) fail(err error) {
	if err != nil && !errors.Is(err, errStopped) && rs.err.CompareAndSwap(nil, err) {
		rs.halt.Store(true)
		rs.cancel()
	}
}

// stopped reports whether the run failed or its context ended.
func (rs *runState) stopped() bool { return rs.halt.Load() || rs.ctx.Err() != nil }

func noCancel() {}

// longTurn is how long a stage goroutine works without a yield before it
// offers its processor to a next stage that has fallen behind
// (queues.Queue.LongTurn): about a typical stage cost.
const longTurn = 2 * time.Microsecond

// handler returns the task handler of goroutine w ≥ 1. A panic of the
// device's code fails the run at once, so that no goroutine waits for what
// the stage did not do, and poisons the queue: the engine is replaced
// after the run. So does a runtime.Goexit of user code, which ends the
// goroutine (its queue hands its tasks to a new one).
func (e *engine) handler(w int) func(int32) error {
	return func(pos int32) (err error) {
		returned := false
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("actor: device: %w", &PanicError{Value: p, Stack: debug.Stack()})
				e.cur.fail(err)
			} else if !returned {
				e.labeled[w].Store(false) // the new goroutine labels itself
				e.cur.fail(e.goexited(w))
			}
		}()
		if !e.labeled[w].Load() {
			pprof.SetGoroutineLabels(e.labels[w])
			e.labeled[w].Store(true)
		}
		rs, k := e.cur, &e.wk[w]
		if rs.stopped() {
			k.carried = 0
			returned = true
			return nil
		}
		t := k.carried
		if t == 0 || e.queue[w].Yielded() {
			t = clock.Now()
		}
		if e.a.tr.depthDue(w, t) {
			e.a.tr.depth(w, e.pipe.Len(queues.Stage(w)), t)
		}
		ph := phaseAll
		if pos < 0 {
			pos, ph = ^pos, phaseExecute
		} else if e.r.tiling.how == plan.Whole {
			ph = phaseSetup
		}
		first, last := int(pos), int(pos)
		if pos&segmentBit != 0 {
			first = int(pos &^ segmentBit)
			last = e.r.segmentLast(first)
		}
		var end int64
		for p := first; p <= last && err == nil; p++ {
			if end, err = e.run1(w, p, ph, rs, t); end != 0 {
				t = end
			} else {
				t = clock.Now()
			}
		}
		k.carried = end
		if n := len(k.spans); end != 0 && n > 0 && end-k.spans[n-1].Start >= int64(longTurn) {
			e.queue[w].LongTurn()
		}
		rs.fail(err)
		returned = true
		return nil
	}
}

// goexited is the error of a runtime.Goexit of user code on goroutine w:
// it names the node and step the goroutine ran.
func (e *engine) goexited(w int) error {
	k := &e.wk[w]
	if k.stage == 0 {
		// The caller's device, uploading the inputs or fetching the
		// outputs: no kernel's step was running.
		return fmt.Errorf("actor: outside a kernel's step: %w (%w)", kernel.ErrGoexit, kernel.ErrPanic)
	}
	return e.r.stageErr(k.pos, k.stage, fmt.Errorf("%w (%w)", kernel.ErrGoexit, kernel.ErrPanic))
}

// work records [start, end) as host work of goroutine w, merged into the
// previous interval when that one ended at start (a carried reading).
func (e *engine) work(w int, start, end int64) {
	k := &e.wk[w]
	if n := len(k.spans); n > 0 && k.spans[n-1].End == start {
		k.spans[n-1].End = end
		return
	}
	k.spans = append(k.spans, plan.Span{Start: start, End: end})
}

// run1 runs goroutine w's steps of node pos in phase ph, from t, a clock
// reading taken at their start or carried from the end of the goroutine's
// previous work (see invariant 4). It returns the reading that ended the
// work, or 0 when the goroutine waited or yielded after it (or failed).
func (e *engine) run1(w, pos, ph int, rs *runState, t int64) (int64, error) {
	if ol := e.opLabels[w]; pos < len(ol) {
		pprof.SetGoroutineLabels(ol[pos])
	}
	r, tr, k := e.r, e.a.tr, &e.wk[w]
	open := t // start of the current work interval
	launches := false
	// fused: the node's Prepare had nothing to time and wrote no slice:
	// its kernel's flow begins at the Infer slice.
	fused := false
	// direct: the stage slices go straight to their tracks (outside a
	// replay's capture, whose slices are its own).
	direct := tr != nil && r.capture == nil && tr.on()
	for _, s := range e.steps[w] {
		if ph == phaseSetup && s == kernel.StageLaunch || ph == phaseExecute && s != kernel.StageLaunch {
			continue
		}
		launches = launches || s == kernel.StageLaunch
		k.pos, k.stage = pos, s
		var err error
		switch s {
		case kernel.StagePrepare:
			r.Prepare(pos)
			if e.fusePrepare && r.prog.nodes[pos].costs.Prepare <= 0 {
				// Nothing to time: its few instructions count in Infer,
				// traced or not, and a trace begins the kernel's flow
				// at its Infer slice (in a replay, at an instant slice).
				if r.capture != nil {
					e.traceStage(s, pos, t, t)
				} else {
					fused = true
				}
				continue
			}
		case kernel.StageInfer:
			e.needs = r.Needs(pos, e.needs[:0])
			if len(e.needs) > 0 {
				e.work(w, open, t)
				err = e.barrier(pos, rs)
				t1 := clock.Now()
				k.wait += time.Duration(t1 - t)
				tr.barrierSlice(w, t, t1)
				t, open = t1, t1
				if err != nil {
					return 0, err
				}
			}
			err = r.Infer(pos)
		case kernel.StageResize:
			err = r.Resize(pos)
			if err == nil && r.tiling.how == plan.MultiStream {
				// The copy is host work unless the ring is full: then it
				// is a wait, outside the work intervals.
				stalls := r.tiling.atResize.Stalls
				t1 := clock.Now()
				k.busy[s] += time.Duration(t1 - t)
				e.traceStage(s, pos, t, t1)
				err = r.copyTiling(rs.ctx, pos, func(ctx context.Context, p int) error {
					return e.launched.WaitAtLeast(ctx, rs.base+uint64(p)+1)
				})
				t2 := clock.Now()
				if r.tiling.atResize.Stalls > stalls {
					e.work(w, open, t1)
					k.wait += time.Duration(t2 - t1)
					tr.barrierSlice(w, t1, t2)
					open = t2
				} else {
					k.busy[s] += time.Duration(t2 - t1)
				}
				t = t2
				if err != nil {
					e.work(w, open, t)
					return 0, err
				}
				continue
			}
		case kernel.StageLaunch:
			err = r.Launch(pos)
		}
		t1 := clock.Now()
		k.busy[s] += time.Duration(t1 - t)
		switch {
		case direct:
			// tracer.stageOn's slice, written out here: through the
			// call (not inlined) a traced kernel costs 65 more
			// instructions.
			kind, flow := trace.EvFlowStep, r.flowOf(pos)
			if s == kernel.StagePrepare || fused && s == kernel.StageInfer {
				fused, kind = false, trace.EvFlowBegin
				tr.open[pos] = flow
			}
			tr.track[s].SliceFlow(t, t1-t, tr.names[s][pos], kind, flow)
		case fused && s == kernel.StageInfer:
			fused = false
			e.traceFlowBegin(s, pos, t, t1)
		default:
			e.traceStage(s, pos, t, t1)
		}
		if s == kernel.StageLaunch && tr != nil {
			tr.memory(e.a.dev, t1)
		}
		t = t1
		if err != nil {
			e.work(w, open, t)
			return 0, err
		}
	}
	e.work(w, open, t)
	if w == e.launchW && launches {
		if e.pubCh != nil && len(e.pubOuts[pos]) > 0 {
			e.pubCh <- pos // never blocks: room for every publishing node
		}
		if _, yielded := e.launched.AdvanceYield(1); yielded {
			t = 0
		}
		if e.plan.YieldAfterLaunch {
			runtime.Gosched()
			t = 0
		}
	}
	return t, nil
}

// barrier waits for what node pos's InferShape needs (e.needs) and makes
// it available: compute-dependent producers resolved, value-dependency
// inputs staged to the host.
func (e *engine) barrier(pos int, rs *runState) error {
	r := e.r
	for _, n := range e.needs {
		if n.Input < 0 {
			if r.Resolved(n.Producer) {
				continue
			}
			if err := e.awaitLaunch(rs, n.Producer); err != nil {
				return err
			}
			if err := e.resolve(e.inferW, n.Producer); err != nil {
				return err
			}
			continue
		}
		if e.plan.Barrier == plan.Drain {
			if err := e.drainBelow(e.inferW); err != nil {
				return err
			}
			if err := r.stream.Synchronize(rs.ctx); err != nil {
				return err
			}
		} else if n.Producer >= 0 {
			if err := e.launched.WaitAtLeast(rs.ctx, rs.base+uint64(n.Producer)+1); err != nil {
				return err
			}
			e.copy.WaitEvent(r.Event(n.Producer))
		}
		if err := r.Stage(rs.ctx, pos, n.Input, e.copy); err != nil {
			return err
		}
	}
	return nil
}

// drainBelow waits until the queues of the goroutines after w are empty.
func (e *engine) drainBelow(w int) error {
	for v := w + 1; v < e.workers; v++ {
		if err := e.pipe.Queue(queues.Stage(v)).Wait(); err != nil {
			return err
		}
	}
	return nil
}

// awaitLaunch waits until node pos of the current run has been launched and
// has completed on the device.
func (e *engine) awaitLaunch(rs *runState, pos int) error {
	if err := e.launched.WaitAtLeast(rs.ctx, rs.base+uint64(pos)+1); err != nil {
		return err
	}
	if err := e.r.Event(pos).Synchronize(rs.ctx); err != nil {
		if rs.ctx.Err() != nil {
			return err
		}
		nd := &e.a.prog.nodes[pos]
		return fmt.Errorf("actor: node %q (op %s) on the device: %w", nd.name, nd.op(), err)
	}
	return nil
}

// flowSeq hands out trace flow ids: each run of each actor takes one id per
// kernel, so ids never repeat within a process.
var flowSeq atomic.Uint64

// run executes one run from goroutine 0 and fills st's host figures.
func (e *engine) run(ctx context.Context, inputs, into []*kernel.Tensor, start int64, st *plan.Stats) ([]*kernel.Tensor, error) {
	r := e.r
	rs := &e.rs
	if rs.err.Load() != nil {
		rs.err.Store(nil)
	}
	rs.halt.Store(false)
	rs.base = e.launched.Load()
	if e.workers > 1 {
		// A failure cancels the other goroutines' waits.
		e.rctx.begin(ctx)
		if e.rcancel == nil {
			e.rcancel = func() { e.rctx.cancel(context.Canceled) }
		}
		rs.ctx, rs.cancel = &e.rctx, e.rcancel
		defer e.rctx.end()
	} else {
		rs.ctx, rs.cancel = ctx, noCancel
	}
	defer rs.cancel()
	defer func() { r.runCtx = nil }() // a later Infer outside a run has none
	e.cur = rs
	for w := range e.wk {
		e.wk[w].reset()
	}
	var flow uint64
	if e.a.tr.on() {
		n := uint64(len(e.a.prog.nodes))
		flow = flowSeq.Add(n) - n + 1
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		// The calling goroutine leaves without returning: user code called
		// runtime.Goexit on it (or a panic is on its way to the actor's
		// recover). The run fails, the stages drain what they were given,
		// its state is released and the engine closed: the next run starts
		// afresh.
		gerr := e.goexited(0)
		rs.fail(gerr)
		e.a.goexit.Store(&gerr)
		if e.pipe != nil {
			_ = e.pipe.Wait()
		}
		e.endPublishing()
		// The actor's run never ends it: its flows and run slice end here.
		e.a.tr.runEnd(clock.Now(), plan.CacheStats{})
		_ = e.end()
		e.close()
		e.a.eng = nil
	}()
	var published []*kernel.Tensor // the run's published outputs (fed runs only)
	if e.feed != nil {
		e.startPublishing(rs)
		published = e.published
	}
	r.tiling.begin()
	r.done = ctx.Done() // the caller's: rs.ctx would make a channel a run
	e.start(rs, inputs, flow)
	e.wk[0].stage = 0 // what follows runs no kernel's step but through resolve
	var qerr error
	if e.pipe != nil {
		qerr = e.pipe.Wait()
	}
	if e.feed != nil && e.feed.Await != nil && !rs.stopped() {
		// Inputs passed through to outputs, which no node awaited.
		rs.fail(r.AcquireRest(rs.ctx, e.feed.Await))
	}
	e.endPublishing()
	err := rs.err.Load()
	if cerr := ctx.Err(); cerr != nil {
		if err == nil {
			err = cerr
		} else if !errors.Is(err, cerr) {
			err = fmt.Errorf("%w (run cancelled: %w)", err, cerr)
		}
	}
	if err == nil && qerr != nil {
		err = qerr
	}
	if errors.Is(err, queues.ErrPanic) && !errors.Is(err, kernel.ErrPanic) {
		// Not kernel code (that is recovered in its step): the device's,
		// called from a stage.
		err = fmt.Errorf("actor: %w (%w)", err, kernel.ErrPanic)
	}
	if err == nil {
		// Graph outputs of compute-dependent nodes nobody consumed.
		for pos := range e.a.prog.nodes {
			if r.Compute(pos) && !r.Resolved(pos) {
				if err = e.awaitLaunch(rs, pos); err != nil {
					break
				}
				if err = e.resolve(0, pos); err != nil {
					break
				}
			}
		}
	}
	if e.feed != nil && e.feed.Launched != nil {
		if e.last == nil {
			e.last = newEvent(e.a.dev)
		}
		r.stream.Record(e.last)
		e.feed.Launched(e.last)
	}
	var outs []*kernel.Tensor
	if err == nil {
		outs, err = e.collect(ctx, into, published)
	}
	if err == nil && e.feed != nil {
		// What could not be published early: outputs of compute-dependent
		// nodes, and inputs or constants passed through.
		for _, o := range e.feed.Outputs {
			if published[o] == nil {
				e.feed.Publish(o, outs[o])
			}
		}
	}
	if err == nil && r.capture != nil {
		err = r.record()
	}
	if ferr := e.end(); err == nil {
		err = ferr
	}
	if err == nil {
		err = r.replan()
	}
	if qerr != nil || e.broken {
		// A panic outside kernel code poisoned the queues or left the
		// calling goroutine's state half way: start afresh.
		e.close()
		e.a.eng = nil
	}
	e.account(rs, st)
	returned = true
	return outs, err
}

// start uploads the run's inputs and feeds its kernels to the stages (or
// replays them whole). A panic of the device's code on the calling
// goroutine fails the run, as an error does.
func (e *engine) start(rs *runState, inputs []*kernel.Tensor, flow uint64) {
	defer e.recovered(rs, nil)
	r := e.r
	if e.seq != 0 {
		r.runSeed = e.seq - 1 // Begin counts it
	}
	r.runCtx = rs.ctx
	if err := r.Begin(inputs, flow); err != nil {
		rs.fail(err)
		return
	}
	if e.feed != nil && e.feed.After != nil {
		r.stream.WaitEvent(e.feed.After)
	}
	if c := r.capture; c != nil {
		c.beginRun()
		if c.whole() {
			replayed, err := e.replayAll(rs)
			rs.fail(err)
			if replayed {
				return
			}
		}
	}
	if r.tiling.how == plan.Whole {
		e.feedWhole(rs)
	} else {
		e.feedNodes(rs)
	}
}

// collect copies the run's outputs to the host (into the caller's tensors
// when into is not nil) and waits for the stream to finish. A panic of the
// device's code is its error.
func (e *engine) collect(ctx context.Context, into, published []*kernel.Tensor) (outs []*kernel.Tensor, err error) {
	defer e.recovered(nil, &err)
	r := e.r
	if into != nil {
		outs, err = into, r.OutputsInto(ctx, into)
	} else {
		outs, err = r.Outputs(ctx, published)
	}
	if err == nil {
		if err = r.stream.Synchronize(ctx); err != nil && ctx.Err() == nil {
			err = fmt.Errorf("actor: end of run: %w", err)
		}
	}
	return outs, err
}

// end is KernelRunner.End, a panic of the device's code its error.
func (e *engine) end() (err error) {
	defer e.recovered(nil, &err)
	return e.r.End()
}

// recovered turns a panic of the device's code on the calling goroutine
// into the error *err, or, with a nil err, the failure of run rs; the
// engine is then replaced after the run. Use as `defer e.recovered(rs, &err)`.
func (e *engine) recovered(rs *runState, err *error) {
	if p := recover(); p != nil {
		perr := fmt.Errorf("actor: device: %w", &PanicError{Value: p, Stack: debug.Stack()})
		e.broken = true
		if err != nil {
			*err = perr
		} else {
			rs.fail(perr)
		}
	}
}

// devicePanic turns a panic of the device's code (a device.Device of the
// caller's) into the error *err; use as `defer devicePanic(&err)`.
func devicePanic(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("actor: device: %w", &PanicError{Value: p, Stack: debug.Stack()})
	}
}

// issue is goroutine 0's part of node pos in phase ph: the awaited
// inputs it reads (acquire, nil when the run awaits none), the replay
// prediction, then step.
func (e *engine) issue(pos, ph int, acquire func(pos int) error, rs *runState) error {
	if acquire != nil {
		if err := e.waited0(rs, func() error { return acquire(pos) }); err != nil {
			return err
		}
	}
	if e.r.capture != nil {
		e.wk[0].carried = 0 // predict may wait for awaited inputs
		if err := e.r.predict(pos, acquire); err != nil {
			return err
		}
	}
	return e.step(pos, ph, rs)
}

// step runs goroutine 0's steps of node pos in phase ph and hands the node
// on to the other goroutines.
func (e *engine) step(pos, ph int, rs *runState) error {
	if err := e.run0(pos, ph, rs); err != nil {
		return err
	}
	if e.pipe != nil {
		return e.push(pos, ph)
	}
	return nil
}

// run0 runs goroutine 0's steps of node pos in phase ph.
func (e *engine) run0(pos, ph int, rs *runState) error {
	if len(e.steps[0]) == 0 {
		return nil
	}
	t := e.wk[0].carried
	if t == 0 {
		t = clock.Now()
	}
	end, err := e.run1(0, pos, ph, rs, t)
	e.wk[0].carried = end
	return err
}

// prepare0 is goroutine 0's part of node pos of a segment predicted to
// replay, after its first: the replay prediction, then run0; the node is
// handed on with the rest of its segment.
func (e *engine) prepare0(pos int, rs *runState) error {
	if err := e.r.predict(pos, nil); err != nil {
		return err
	}
	return e.run0(pos, phaseAll, rs)
}

// push hands task (a position, or a segmentTask) on to the other
// goroutines; an execute-phase task is the bitwise complement of the
// position.
func (e *engine) push(task, ph int) error {
	t := int32(task)
	if ph == phaseExecute {
		t = ^t
	}
	yielded, err := e.pipe.PushYield(t)
	if yielded {
		e.wk[0].carried = 0
	}
	return err
}

// feedNodes is goroutine 0: it runs its steps of each node and pushes the
// node on.
func (e *engine) feedNodes(rs *runState) {
	r := e.r
	var acquire func(pos int) error // a replayed segment's awaited inputs
	if e.feed != nil {
		acquire = func(pos int) error { return r.Acquire(rs.ctx, pos, e.feed.Await) }
	}
	n := len(e.a.prog.nodes)
	// The rest of a segment predicted to replay goes on as one task
	// (segmentTask): its kernels are passed by or, if the replay falls
	// back, run one after another on each goroutine. Not with the tiling
	// ring (MultiStream): a fallback's Resize would wait for launches of
	// kernels of its own task.
	segTasks := r.capture != nil && e.pipe != nil && n < segmentBit && r.tiling.how != plan.MultiStream
	for pos := 0; pos < n; pos++ {
		if rs.stopped() {
			return
		}
		if err := e.issue(pos, phaseAll, acquire, rs); err != nil {
			rs.fail(err)
			return
		}
		if err := e.drainResolve(rs, pos); err != nil {
			rs.fail(err)
			return
		}
		if !segTasks {
			continue
		}
		if last, ok := r.predictedRest(pos); ok {
			for p := pos + 1; p <= last; p++ {
				if rs.stopped() {
					return
				}
				if err := e.prepare0(p, rs); err != nil {
					rs.fail(err)
					return
				}
			}
			if err := e.push(segmentTask(pos+1), phaseAll); err != nil {
				rs.fail(err)
				return
			}
			pos = last
		}
	}
}

// segmentBit marks a task that stands for a run of kernels: from its
// position to the last of that position's segment (KernelRunner
// predictedRest). A graph of as many nodes hands every node on alone.
const segmentBit = 1 << 30

// segmentTask is the task of the kernels from pos to the end of its
// segment.
func segmentTask(pos int) int { return pos | segmentBit }

// drainResolve is the faithful baseline after node pos was handed on, if
// it is compute-dependent and the policy Drain: drain everything, then
// resolve its shapes.
func (e *engine) drainResolve(rs *runState, pos int) error {
	if !e.r.Compute(pos) || e.plan.Barrier != plan.Drain {
		return nil
	}
	return e.waited0(rs, func() error {
		if err := e.drainBelow(0); err != nil {
			return err
		}
		if err := e.r.stream.Synchronize(rs.ctx); err != nil {
			return err
		}
		return e.resolve(0, pos)
	})
}

// resolve is Resolve(pos) on goroutine w, which names pos's Launch as the
// step it runs meanwhile: a runtime.Goexit in the kernel's OutputShapes is
// blamed on pos, not on the step that waited for it.
func (e *engine) resolve(w, pos int) error {
	k := &e.wk[w]
	p, s := k.pos, k.stage
	k.pos, k.stage = pos, kernel.StageLaunch
	err := e.r.Resolve(pos)
	k.pos, k.stage = p, s
	return err
}

// traceStage records stage s of node pos. It inlines to one check when
// the actor is not traced.
func (e *engine) traceStage(s kernel.Stage, pos int, t0, t1 int64) {
	if e.a.tr != nil {
		e.traceStageOn(s, pos, t0, t1)
	}
}

// traceFlowBegin records stage s of node pos as the slice its kernel's
// flow begins at (its Prepare wrote none).
func (e *engine) traceFlowBegin(s kernel.Stage, pos int, t0, t1 int64) {
	if tr := e.a.tr; tr != nil {
		tr.stageAs(flowBegin, s, pos, e.r.flowOf(pos), t0, t1)
	}
}

func (e *engine) traceStageOn(s kernel.Stage, pos int, t0, t1 int64) {
	tr := e.a.tr
	if !tr.rec.Enabled() {
		return
	}
	if e.r.capture == nil {
		tr.stageOn(s, pos, e.r.flowOf(pos), t0, t1)
	} else {
		e.traceReplay(s, pos, t0, t1)
	}
}

// waited0 runs wait on goroutine 0, accounting its time as barrier wait.
func (e *engine) waited0(rs *runState, wait func() error) error {
	t := clock.Now()
	err := wait()
	t1 := clock.Now()
	e.wk[0].wait += time.Duration(t1 - t)
	e.a.tr.barrierSlice(0, t, t1)
	e.wk[0].carried = 0
	return err
}

// startPublishing begins run rs's publishing of fed outputs: the
// publishing goroutine, made at the first fed run, takes the run's
// launched nodes from then on.
func (e *engine) startPublishing(rs *runState) {
	if e.pubQueue == nil || cap(e.pubQueue) < e.pubNodes+1 {
		e.stopPublisher()
		e.pubQueue = make(chan int, e.pubNodes+1)
		e.pubDone = make(chan struct{}, 1)
		e.pubExited = make(chan struct{})
		go e.publisher()
	}
	if e.published == nil {
		e.published = make([]*kernel.Tensor, len(e.a.prog.outputs))
	}
	clear(e.published)
	e.pubRun = rs
	e.pubCh = e.pubQueue
}

// endPublishing ends the run's publishing, once no launch is left to send
// a node: it returns when the publishing goroutine has published what it
// was sent (or has ended).
func (e *engine) endPublishing() {
	if e.pubCh == nil {
		return
	}
	e.pubCh <- -1
	select {
	case <-e.pubDone:
	case <-e.pubExited:
	}
	e.pubCh = nil
}

// stopPublisher ends the publishing goroutine, if any, between runs.
func (e *engine) stopPublisher() {
	if e.pubQueue != nil {
		close(e.pubQueue)
		<-e.pubExited
		e.pubQueue = nil
	}
}

// publisher is the publishing goroutine: it publishes the outputs of the
// nodes it is sent, for run pubRun, until pubQueue is closed.
func (e *engine) publisher() {
	defer close(e.pubExited)
	for pos := range e.pubQueue {
		if pos < 0 {
			e.pubDone <- struct{}{}
			continue
		}
		if rs := e.pubRun; !rs.stopped() {
			e.publish(rs, pos, e.published)
		}
	}
}

// publish waits for node pos's completion and publishes its fed outputs.
// A panic of the device's code (the event's wait, the copy) fails the run
// and the engine is replaced after it, as on the calling goroutine; a
// runtime.Goexit in it fails the run too (the goroutine ends, and the
// outputs not yet published are published at the end of the run).
func (e *engine) publish(rs *runState, pos int, published []*kernel.Tensor) {
	returned := false
	defer func() {
		if p := recover(); p != nil {
			e.broken = true
			rs.fail(fmt.Errorf("actor: device: %w", &PanicError{Value: p, Stack: debug.Stack()}))
		} else if !returned {
			e.broken = true
			rs.fail(fmt.Errorf("actor: device: %w (%w)", kernel.ErrGoexit, kernel.ErrPanic))
		}
	}()
	if err := e.r.Event(pos).Synchronize(rs.ctx); err != nil {
		rs.fail(err)
		returned = true
		return
	}
	for _, o := range e.pubOuts[pos] {
		t, err := e.r.published(rs.ctx, o, e.pubS)
		if err != nil {
			rs.fail(err)
			break
		}
		published[o] = t
		e.feed.Publish(o, t)
	}
	returned = true
}

// setFeed prepares the engine and runner for runs fed by f (nil: plain
// runs).
func (e *engine) setFeed(f *Feed) {
	e.feed = f
	if f == nil {
		return
	}
	r := e.r
	r.feedable()
	if e.pubS == nil {
		e.pubS = newStream(e.a.dev)
	}
	if e.pubOuts != nil && slices.Equal(e.pubFor, f.Outputs) {
		return // the tables of the previous run's feed
	}
	e.pubFor = append(e.pubFor[:0], f.Outputs...)
	e.pubOuts = make([][]int, len(e.a.prog.nodes))
	e.pubNodes = 0
	clear(r.publish)
	for _, o := range f.Outputs {
		pr := e.a.prog.slots[e.a.prog.outputs[o]].producer
		if pr < 0 || r.Compute(int(pr)) {
			continue // published at the end of the run
		}
		if len(e.pubOuts[pr]) == 0 {
			e.pubNodes++
		}
		e.pubOuts[pr] = append(e.pubOuts[pr], o)
		r.publish[pr] = true
		if r.Event(int(pr)) == nil {
			r.addEvent(int(pr), newEvent(e.a.dev))
		}
	}
}

// account fills st's host figures from the run's intervals.
func (e *engine) account(rs *runState, st *plan.Stats) {
	var busy [kernel.StageLaunch + 1]time.Duration
	lists := e.lists[:e.workers]
	for w := 0; w < e.workers; w++ {
		k := &e.wk[w]
		for s, d := range k.busy {
			busy[s] += d
		}
		lists[w] = k.spans
		st.Wait += k.wait
		var b int64
		for _, s := range lists[w] {
			b += s.End - s.Start
		}
		st.Busiest = max(st.Busiest, time.Duration(b))
	}
	st.Prepare, st.Infer = busy[kernel.StagePrepare], busy[kernel.StageInfer]
	st.Resize, st.Launch = busy[kernel.StageResize], busy[kernel.StageLaunch]
	st.HostWork = plan.HostWork(st.Procs, lists...)
	for _, c := range e.r.cs {
		st.Cache.Add(c.CacheStats)
		st.Synthetic += c.burnt
		st.Compute += c.computed
	}
	if p := e.r.plan; p != nil {
		st.Plan = p.stats
	}
	st.Plan.Fallbacks = e.r.fallbacks
	if c := e.r.capture; c != nil {
		st.Replay = c.stats
	}
	st.Tiling = e.r.tiling.stats()
}

// spans returns each goroutine's host work intervals of the last run, for
// an executable that combines several actors' work (package heterog). The
// slices are the engine's: read them before the next run.
func (a *SuperKernelActor) Spans() [][]plan.Span {
	if a == nil || a.eng == nil {
		return nil
	}
	return a.eng.lists[:a.eng.workers]
}
