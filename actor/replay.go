package actor

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
)

// capture is mode Replay's record of the graph's static kernel sequences
// (segments): what each kernel launched, on which shapes, at which
// planned addresses (the memory plan's offsets, valid while the plan is).
//
// A segment is a maximal run, in execution order, of kernels that neither
// read values at run time, nor have data-dependent output shapes, nor are
// control flow, nor launch their own device work. The others, the dynamic
// kernels, always run through the pipeline's stages.
//
// # Protocol
//
//  1. Capture. At the end of a successful run in which every tensor and
//     workspace fitted the memory plan (not the first run, which sizes
//     the plan), goroutine 0 captures every segment the run did not
//     replay: the dtypes and shapes of the tensors it reads from outside
//     (its key), of those it produces, its workspaces and its kernels'
//     device work. A new plan (replan, UseWorkspace) invalidates every
//     capture.
//  2. Prediction. Goroutine 0, at a segment's first kernel, notes whether
//     the segment has a valid capture (predicted) and, if so, skips the
//     prepare cost of its kernels and acquires every awaited input the
//     segment reads. It then hands the rest of a predicted segment on to
//     the stage goroutines as one task (engine.segmentTask), unless the
//     tiling goes through the ring (MultiStream): a task a kernel is a
//     hand-over at every stage boundary, about a microsecond each on 2
//     cores, which held the host to the device's replay rate.
//  3. Decision. The goroutine running InferShape, at a predicted
//     segment's first kernel (every kernel before it inferred), compares
//     the key with the shapes of this run. Equal: the segment is replayed
//     — its tensors take the captured dtypes and shapes at once, and
//     InferShape and Resize of its kernels are skipped (the nodes keep the
//     tilings of the captured run). Different: the capture is dropped and
//     the segment runs through the stages, paying the prepare cost it
//     skipped.
//  4. Replay. The launching goroutine, at a replayed segment's first
//     kernel, submits the whole segment to the device at once
//     (device.Replayer), then gives every tensor of the segment its
//     planned buffer and runs each kernel's Compute on real data; the
//     segment's other kernels are then passed by (the stages of a
//     segment task run each of its kernels in turn: passed by, or, when
//     the decision fell back, in full). A segment the plan
//     cannot hold (real data after a capture on virtual data) launches
//     kernel by kernel instead, exactly as the pipeline would: its nodes
//     keep the shapes and tilings of the captured run, which are this
//     run's.
//
// A graph that is a single segment is replayed by goroutine 0 alone
// (engine.replayAll), with no task through the queues.
type capture struct {
	seg  []int32 // by node position: its segment, -1 for a dynamic kernel
	segs []segment
	// dtypes and shapes of the slots the segments produce, ws the
	// workspace bytes and ks the device work of their kernels, as
	// captured (by slot and by node position).
	dtypes []kernel.DType
	shapes []kernel.Shape
	ws     []int64
	ks     []device.Kernel
	// dynamic counts the dynamic kernels; why says what makes the first
	// one dynamic.
	dynamic int
	why     string
	prof    device.Profile
	// noPrep marks, by node position, the kernels whose prepare cost
	// goroutine 0 skipped in this run (their segment was predicted).
	noPrep []bool
	// stats are this run's counts: the replay decisions are the InferShape
	// goroutine's, the captures goroutine 0's after the run drained.
	stats plan.ReplayStats
}

// segment is one static kernel sequence of a capture.
type segment struct {
	first, last int   // node positions, inclusive
	ext         []int // slots read from outside the segment, constants aside
	// keyT and keyS are the dtypes and shapes of ext when captured.
	keyT  []kernel.DType
	keyS  []kernel.Shape
	valid bool // captured, and still valid
	// span is the captured kernels' modeled time from their submission on
	// an idle device: the launch path node by node, each kernel starting
	// once dispatched and once the one before ended.
	span time.Duration
	// predicted is goroutine 0's note of valid at the segment's first
	// kernel in this run; decided and replayed the decision for this run.
	predicted, decided, replayed bool
}

// Replay fallback reasons.
const (
	whyFirst  = "not captured yet"
	whyShapes = "input dtypes or shapes differ from the capture's"
)

// dynamicWhy says what makes node pos dynamic, "" if it is static.
func dynamicWhy(nd *node) string {
	_, launches := nd.k.(Launcher)
	switch {
	case len(nd.valueDeps()) > 0:
		return fmt.Sprintf("node %q (%s) reads values at run time", nd.name, nd.op())
	case nd.compute:
		return fmt.Sprintf("node %q (%s) has data-dependent output shapes", nd.name, nd.op())
	case nd.volatile || nd.guard.tok() >= 0:
		return fmt.Sprintf("node %q (%s) is control flow", nd.name, nd.op())
	case launches:
		return fmt.Sprintf("node %q (%s) launches its own device work", nd.name, nd.op())
	}
	return ""
}

// enableReplay turns on mode Replay: the segments of the program, and
// the memory plan replay needs.
func (r *KernelRunner) enableReplay() {
	p := r.prog
	if !r.planOn {
		r.planOn = true
		r.seen, r.seenWS, r.inArena = make([]int64, len(p.slots)), make([]int64, len(p.nodes)), make([]bool, len(p.slots))
	}
	c := &capture{prof: r.dev.Profile(), seg: make([]int32, len(p.nodes)), noPrep: make([]bool, len(p.nodes)), dtypes: make([]kernel.DType, len(p.slots)),
		shapes: make([]kernel.Shape, len(p.slots)), ws: make([]int64, len(p.nodes)), ks: make([]device.Kernel, len(p.nodes))}
	for pos := range p.nodes {
		nd := &p.nodes[pos]
		if why := dynamicWhy(nd); why != "" {
			c.seg[pos] = -1
			c.dynamic++
			if c.why == "" {
				c.why = why
			}
			continue
		}
		// A kernel reading a compute-dependent kernel's output starts a
		// segment: the shapes a segment's key compares must be resolved
		// when its first kernel is inferred, and this kernel resolves
		// them just before its InferShape.
		if pos == 0 || c.seg[pos-1] < 0 || readsComputed(p, nd) {
			c.segs = append(c.segs, segment{first: pos})
		}
		s := len(c.segs) - 1
		c.seg[pos] = int32(s)
		sg := &c.segs[s]
		sg.last = pos
		for _, in := range nd.in() {
			pr := p.slots[in].producer
			if p.slots[in].isConst || int(pr) >= sg.first || slices.Contains(sg.ext, int(in)) {
				continue
			}
			sg.ext = append(sg.ext, int(in))
		}
	}
	for s := range c.segs {
		sg := &c.segs[s]
		sg.keyT, sg.keyS = make([]kernel.DType, len(sg.ext)), make([]kernel.Shape, len(sg.ext))
	}
	r.capture = c
}

// readsComputed reports whether nd reads an output of a compute-dependent
// kernel.
func readsComputed(p *program, nd *node) bool {
	for _, in := range nd.in() {
		if pr := p.slots[in].producer; pr >= 0 && p.nodes[pr].compute {
			return true
		}
	}
	return false
}

// whole reports whether the graph is one segment.
func (c *capture) whole() bool { return len(c.segs) == 1 && c.dynamic == 0 }

// beginRun resets the run's counts; goroutine 0, before the first push.
func (c *capture) beginRun() {
	c.stats = plan.ReplayStats{Dynamic: c.dynamic}
	for s := range c.segs {
		sg := &c.segs[s]
		sg.predicted, sg.decided, sg.replayed = false, false, false
	}
	clear(c.noPrep)
}

// invalidate drops every capture (the plan changed).
func (c *capture) invalidate() {
	for s := range c.segs {
		c.segs[s].valid = false
	}
}

// predict is goroutine 0's step 2 at node pos, before its Prepare: it
// notes in noPrep whether the node's prepare cost is skipped.
func (r *KernelRunner) predict(pos int, acquire func(pos int) error) error {
	c := r.capture
	s := c.seg[pos]
	if s < 0 {
		return nil
	}
	sg := &c.segs[s]
	if pos == sg.first && !sg.decided {
		sg.predicted = sg.valid
		if sg.predicted && acquire != nil {
			for p := sg.first; p <= sg.last; p++ {
				if err := acquire(p); err != nil {
					return err
				}
			}
		}
	}
	c.noPrep[pos] = sg.predicted
	return nil
}

// decide is step 3, on the goroutine running InferShape, at node pos. It
// reports whether the node is replayed (its InferShape and Resize are
// skipped).
func (r *KernelRunner) decide(pos int) bool {
	c := r.capture
	s := c.seg[pos]
	if s < 0 {
		return false
	}
	sg := &c.segs[s]
	if pos != sg.first || sg.decided {
		return sg.replayed
	}
	sg.decided = true
	if !sg.predicted {
		c.fallback(whyFirst)
		return false
	}
	for i, slot := range sg.ext {
		t := &r.tensors[slot]
		if t.DType != sg.keyT[i] || !t.Shape.Equal(sg.keyS[i]) {
			sg.valid = false // the nodes' tilings will be this run's
			c.fallback(whyShapes)
			return false
		}
	}
	sg.replayed = true
	c.stats.Replays++
	c.stats.Kernels += sg.last - sg.first + 1
	c.stats.Launch = max(c.stats.Launch, sg.span)
	if !c.whole() {
		// Later kernels' InferShape reads them; a whole-graph replay
		// restores them after its submission (replay1).
		for p := sg.first; p <= sg.last; p++ {
			r.restore(p)
		}
	}
	return true
}

// restore gives node pos's outputs their captured dtypes and shapes.
func (r *KernelRunner) restore(pos int) {
	c := r.capture
	for _, slot := range r.prog.nodes[pos].out() {
		t := &r.tensors[slot]
		t.DType, t.Shape = c.dtypes[slot], append(t.Shape[:0], c.shapes[slot]...)
	}
}

func (c *capture) fallback(why string) {
	c.stats.Fallbacks++
	c.stats.Reason = why
}

// predictedRest returns the last position of node pos's segment when pos
// is the first of a segment of two or more kernels that goroutine 0
// predicted to replay in this run (step 2); the engine then hands the
// rest of the segment on as one task.
func (r *KernelRunner) predictedRest(pos int) (last int, ok bool) {
	c := r.capture
	if c == nil || c.seg[pos] < 0 {
		return 0, false
	}
	sg := &c.segs[c.seg[pos]]
	return sg.last, pos == sg.first && sg.predicted && sg.last > pos
}

// segmentLast returns the last position of node pos's segment.
func (r *KernelRunner) segmentLast(pos int) int {
	return r.capture.segs[r.capture.seg[pos]].last
}

// replaying reports whether node pos belongs to a segment replayed in
// this run; for the stages after InferShape.
func (r *KernelRunner) replaying(pos int) bool {
	c := r.capture
	return c != nil && c.seg[pos] >= 0 && c.segs[c.seg[pos]].replayed
}

// record is step 1, on goroutine 0 after a successful run, before End.
// It fails when a kernel's Cost breaks its contract (see cost).
func (r *KernelRunner) record() error {
	c := r.capture
	if r.plan == nil || r.fallbacks > 0 {
		return nil
	}
	for s := range c.segs {
		sg := &c.segs[s]
		if sg.replayed || r.skip[sg.first] {
			continue
		}
		for i, slot := range sg.ext {
			t := &r.tensors[slot]
			sg.keyT[i], sg.keyS[i] = t.DType, append(sg.keyS[i][:0], t.Shape...)
		}
		for pos := sg.first; pos <= sg.last; pos++ {
			nd := &r.prog.nodes[pos]
			for _, slot := range nd.out() {
				t := &r.tensors[slot]
				c.dtypes[slot], c.shapes[slot] = t.DType, append(c.shapes[slot][:0], t.Shape...)
			}
			c.ws[pos] = r.tilingOf(pos).Workspace
			cost, err := r.cost(pos)
			if err == nil {
				// Checked here, where the node is known, as a launch's
				// cost is: a replay's error would name only the segment.
				err = cost.Check()
			}
			if err != nil {
				return r.stageErr(pos, kernel.StageLaunch, err)
			}
			c.ks[pos] = device.Kernel{Name: nd.op(), Cost: cost}
		}
		sg.span = c.span(c.ks[sg.first : sg.last+1])
		sg.valid = true
		c.stats.Captures++
	}
	return nil
}

// fits reports whether the plan holds segment sg on data as real as this
// run's: the segment's inputs are launched (step 4 runs on the launching
// goroutine). Its sizes fit: the plan has not changed since the capture,
// in which every tensor and workspace was in it.
func (r *KernelRunner) fits(sg *segment) bool {
	c, mp := r.capture, r.plan
	if mp == nil {
		return false
	}
	if mp.real {
		return true
	}
	// Would any kernel compute real results (kernel.OutputsReal)? Up to
	// the first that would, the segment's own tensors are virtual.
	for pos := sg.first; pos <= sg.last; pos++ {
		nd := &r.prog.nodes[pos]
		real := nd.shapeOnly
		if !real {
			real = true
			for _, s := range nd.in() {
				if int(r.prog.slots[s].producer) >= sg.first {
					real = real && c.shapes[s].NumElements() == 0
				} else {
					t := &r.tensors[s]
					real = real && (t.NumElements() == 0 || t.Data() != nil)
				}
			}
		}
		if real {
			return false
		}
	}
	return true
}

// span is the modeled time of submitting ks (as device.Sim replays
// them) on an idle device.
func (c *capture) span(ks []device.Kernel) time.Duration {
	p := &c.prof
	t, end := p.ReplayFixed, time.Duration(0)
	for i := range ks {
		t += p.ReplayNode
		end = max(t, end) + p.KernelTime(ks[i].Cost)
	}
	return end
}

// replay1 gives node pos's outputs and workspace their planned buffers
// and, on real data, runs its Compute; the device has its work already.
func (r *KernelRunner) replay1(pos int) (err error) {
	defer r.recovered(pos, kernel.StageLaunch, &err)
	nd := &r.prog.nodes[pos]
	in := r.in(pos)
	if r.capture.whole() {
		r.restore(pos)
	}
	if nd.checked {
		// Its inputs' views get this run's buffers, as a launch gives
		// them, and the graph inputs' contents (shapes and dtypes are the
		// captured ones).
		r.viewBuffers(pos)
		for j, s := range nd.in() {
			if r.prog.slots[s].producer < 0 {
				in[j].Host = r.tensors[s].Host
			}
		}
	}
	real := nd.outputsReal(in)
	for _, s := range nd.out() {
		t := &r.tensors[s]
		t.Buf, _ = r.planned(int(s), t.Bytes(), real)
		r.live[s], r.inArena[s] = true, true
	}
	var ws device.Buffer
	if n := r.capture.ws[pos]; n > 0 {
		ws, _ = r.plannedWS(pos, n, real)
	}
	if real {
		t0 := clock.Now()
		if err := r.compute(pos, ws); err != nil {
			return r.stageErr(pos, kernel.StageLaunch, err)
		}
		r.cs[kernel.StageLaunch].computed += time.Duration(clock.Now() - t0)
	}
	return r.freeDead(pos)
}

// replaySegment is step 4 for the segment starting at node pos. The
// device gets the segment's work first, as one submission, so that it
// starts at once; the runtime then computes the kernels' real results in
// order, before anything else reaches the stream, as a launch does. A
// segment the plan cannot hold launches kernel by kernel.
func (r *KernelRunner) replaySegment(pos int) error {
	c := r.capture
	sg := &c.segs[c.seg[pos]]
	if !r.fits(sg) {
		for p := sg.first; p <= sg.last; p++ {
			if c.whole() {
				r.restore(p)
			}
			if err := r.launch(p); err != nil {
				return err
			}
		}
		return nil
	}
	if r.uploaded != nil {
		for p := sg.first; p <= sg.last; p++ {
			if ev := r.uploaded[p]; ev != nil {
				r.stream.WaitEvent(ev)
			}
		}
	}
	ks := c.ks[sg.first : sg.last+1]
	for i := range ks {
		ks[i].Flow = r.flowOf(sg.first + i)
	}
	if err := r.submit(ks); err != nil {
		at := sg.first // the segment's, unless the error names a kernel
		var re *device.ReplayError
		if errors.As(err, &re) && re.Kernel >= 0 && re.Kernel < len(ks) {
			at += re.Kernel
		}
		return r.stageErr(at, kernel.StageLaunch, fmt.Errorf("replay: %w", err))
	}
	if r.launched != nil {
		r.launched(sg.first, len(ks))
	}
	for p := sg.first; p <= sg.last; p++ {
		if r.prog.nodes[p].watched || r.publish != nil && r.publish[p] {
			r.stream.Record(r.Event(p))
		}
	}
	for p := sg.first; p <= sg.last; p++ {
		if err := r.replay1(p); err != nil {
			return err
		}
	}
	return nil
}

// submit sends kernels to the device as one submission.
func (r *KernelRunner) submit(ks []device.Kernel) error {
	if rp, ok := r.stream.(device.Replayer); ok {
		return rp.Replay(ks)
	}
	for i := range ks {
		if err := r.stream.Launch(ks[i]); err != nil {
			return &device.ReplayError{Kernel: i, Err: err}
		}
	}
	return nil
}

// replayAll replays a graph that is one segment from goroutine 0, with
// no task through the queues. It reports false, having done nothing,
// when the run cannot be replayed.
func (e *engine) replayAll(rs *runState) (bool, error) {
	r := e.r
	c := r.capture
	sg := &c.segs[0]
	sg.predicted = sg.valid
	if sg.predicted && e.feed != nil {
		for pos := range e.a.prog.nodes {
			if err := r.Acquire(rs.ctx, pos, e.feed.Await); err != nil {
				return true, err
			}
		}
	}
	if !r.decide(0) {
		return false, nil
	}
	t := clock.Now() // the decision is not host work of a kernel: it compares shapes
	defer func() {
		t1 := clock.Now()
		e.wk[0].busy[kernel.StageLaunch] += time.Duration(t1 - t)
		e.work(0, t, t1)
		e.a.tr.stageAs(flowNone, kernel.StageLaunch, 0, 0, t, t1)
		e.a.tr.replayed(0, len(e.a.prog.nodes), r.flowOf)
	}()
	if err := r.replaySegment(0); err != nil {
		return true, err
	}
	for pos := range e.a.prog.nodes {
		if e.pubCh != nil && len(e.pubOuts[pos]) > 0 {
			e.pubCh <- pos
		}
	}
	e.launched.Advance(uint64(len(e.a.prog.nodes)))
	return true, nil
}

// traceReplay records stage s of node pos in mode Replay: a replayed
// kernel's flow begins at the launch slice that submitted it, a kernel
// whose replay was predicted begins its flow at InferShape.
func (e *engine) traceReplay(s kernel.Stage, pos int, t0, t1 int64) {
	r, c, tr := e.r, e.r.capture, e.a.tr
	if !tr.on() {
		return
	}
	flow := r.flowOf(pos)
	switch {
	case s == kernel.StagePrepare:
		// Goroutine 0 does not know the decision yet.
		how := flowAsUsual
		if c.noPrep[pos] {
			how = flowNone
		}
		tr.stageAs(how, s, pos, flow, t0, t1)
	case r.replaying(pos):
		tr.stageAs(flowNone, s, pos, flow, t0, t1)
		if sg := &c.segs[c.seg[pos]]; s == kernel.StageLaunch && pos == sg.first {
			tr.replayed(sg.first, sg.last-sg.first+1, r.flowOf)
		}
	case c.noPrep[pos] && s == kernel.StageInfer:
		tr.stageAs(flowBegin, s, pos, flow, t0, t1)
	default:
		tr.stage(s, pos, flow, t0, t1)
	}
}
