package actor

import (
	"strings"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/trace"
)

// tracer records an actor's host stages. Each track has one writer: the
// goroutine of the stage plan whose steps it holds.
type tracer struct {
	rec                *trace.Recorder
	worker             [maxWorkers]*trace.Track             // by goroutine
	track              [kernel.StageLaunch + 1]*trace.Track // by stage: its goroutine's track
	qdepth             [maxWorkers]*trace.Track             // queue depth counters, goroutines 1…
	mem                *trace.Track                         // device memory in use
	util               *trace.Track                         // device utilisation so far in the run
	start              int64                                // when the current run began
	busy0              int64                                // device busy time then
	names              [kernel.StageLaunch + 1][]trace.Name
	barrier, run, plan trace.Name
	// open holds, by node position, the flow of a kernel whose flow began
	// in this run (0: none), sent whether the device took the kernel: a
	// run that fails ends the flows of kernels begun and not sent at its
	// end, on an "abandoned" slice, so that no flow of the trace dangles.
	// open is written by the goroutine that begins the kernel's flow and
	// sent by the launching goroutine, never the other's (in a pipeline
	// they work on nearby positions: a line both wrote would move between
	// their cores with every kernel); runEnd reads both after the run.
	open      []uint64
	sent      []bool
	abandoned trace.Name
	// last sample of each counter, by its writer: counters are sampled at
	// most every counterEvery (deviceEvery for the device's) so that they
	// do not cost more than the slices. Each on a cache line of its own,
	// apart from the fields every goroutine reads.
	lastDepth [maxWorkers]sampled
	lastMem   sampled
	// caches: the hit and miss counters of the host caches, by
	// cacheCounters' order (nil when the caches are off).
	caches []*trace.Track
}

// sampled is when a counter was last sampled, padded to a cache line.
type sampled struct {
	_  [64 - 8]byte
	at int64
}

// cacheCounters name the host-cache counters, sampled at the end of each
// run: that run's hits and misses.
var cacheCounters = []struct {
	name string
	of   func(plan.CacheStats) int
}{
	{"tiling local hits", func(c plan.CacheStats) int { return c.LocalHits }},
	{"tiling local misses", func(c plan.CacheStats) int { return c.LocalMisses }},
	{"tiling global hits", func(c plan.CacheStats) int { return c.GlobalHits }},
	{"tiling global misses", func(c plan.CacheStats) int { return c.GlobalMisses }},
	{"infer reuse hits", func(c plan.CacheStats) int { return c.InferHits }},
	{"infer reuse misses", func(c plan.CacheStats) int { return c.InferMisses }},
	{"setup reuse hits", func(c plan.CacheStats) int { return c.SetupHits }},
	{"setup reuse misses", func(c plan.CacheStats) int { return c.SetupMisses }},
}

// counterEvery is the shortest interval between two samples of a queue's
// depth, deviceEvery between two samples of the device counters (memory
// and utilisation), whose sample reads the device's statistics: sampled
// every 25 µs, on smallops (a kernel every 12 to 23 µs) they cost 30 to
// 65 ns a kernel, a third of the slices' cost.
const (
	counterEvery = 25_000  // ns
	deviceEvery  = 100_000 // ns
)

// Trace layout, which analyses of a trace rely on. For an actor named N
// with stage plan P:
//
//   - track "N runner" (goroutine 0) holds a "run" slice around each Run,
//     opened by an instant "plan P" (e.g. "plan pipeline/per-tensor
//     0123": the mode, the barrier policy, and the goroutine of prepare,
//     infer, resize and launch), enclosing the stages goroutine 0 runs;
//   - goroutine w ≥ 1 has a track "N <stages>" named after the stages it
//     runs, joined by "+" ("N infer", "N resize", "N launch" in Pipeline;
//     "N launch" in Async);
//   - a stage slice is named after the op ("MatMul"), followed by the
//     stage ("MatMul infer") on a track that holds several stages; the
//     prepare slice always names its stage; "barrier" slices are time
//     blocked on value and compute dependencies;
//   - each kernel's flow begins on its prepare slice, steps through its
//     other stages and ends on its device slice (track "N stream 0" when
//     the device is observed by devtrace with prefix N); the flow of a
//     kernel that a failed run never launched ends on an "abandoned"
//     slice of no duration at the end of the run, on the runner track;
//   - counters "N <stages> queue depth", sampled at most every 25 µs, and
//     "N device memory" and "N device utilisation" (device busy time /
//     time since the run began), sampled at most every 100 µs;
//   - when host caches are on, counters "N tiling local hits", "N tiling
//     local misses", "N tiling global hits", "N tiling global misses", "N
//     infer reuse hits", "N infer reuse misses", "N setup reuse hits" and
//     "N setup reuse misses": each run's counts, sampled when it ends.
func newTracer(rec *trace.Recorder, name string, p plan.Plan, prog *program, caches plan.CacheKinds) *tracer {
	if rec == nil {
		return nil
	}
	t := &tracer{rec: rec, barrier: rec.Intern("barrier"), run: rec.Intern("run"), plan: rec.Intern("plan " + p.String()),
		open: make([]uint64, len(prog.nodes)), sent: make([]bool, len(prog.nodes)), abandoned: rec.Intern("abandoned")}
	var per [maxWorkers][]string
	for s := kernel.StagePrepare; s <= kernel.StageLaunch; s++ {
		w := p.Worker[s]
		per[w] = append(per[w], s.String())
	}
	for w := 0; w < p.Workers(); w++ {
		if w == 0 {
			t.worker[w] = rec.Track(name+" runner", trace.SliceTrack, trace.Host)
			continue
		}
		label := strings.Join(per[w], "+")
		t.worker[w] = rec.Track(name+" "+label, trace.SliceTrack, trace.Host)
		t.qdepth[w] = rec.Track(name+" "+label+" queue depth", trace.CounterTrack, trace.Host)
	}
	if caches.Any() {
		for _, c := range cacheCounters {
			t.caches = append(t.caches, rec.Track(name+" "+c.name, trace.CounterTrack, trace.Host))
		}
	}
	t.mem = rec.Track(name+" device memory", trace.CounterTrack, trace.Device)
	t.util = rec.Track(name+" device utilisation", trace.CounterTrack, trace.Device)
	for s := kernel.StagePrepare; s <= kernel.StageLaunch; s++ {
		w := p.Worker[s]
		t.track[s] = t.worker[w]
		t.names[s] = make([]trace.Name, len(prog.nodes))
		for pos := range prog.nodes {
			n := prog.nodes[pos].op()
			if len(per[w]) > 1 || s == kernel.StagePrepare {
				n += " " + s.String()
			}
			t.names[s][pos] = rec.Intern(n)
		}
	}
	return t
}

func (t *tracer) on() bool { return t != nil && t.rec.Enabled() }

// hold holds the recorder for a run (trace.Recorder.Hold), so that the
// recorder may be closed while it goes on; release ends the hold.
func (t *tracer) hold() bool { return t != nil && t.rec.Hold() }

func (t *tracer) release() { t.rec.Release() }

// close closes every track when the actor closes: a closed actor holds
// none of the recorder's memory (an executable compiled and closed in a
// loop would hold a chunk per track each). A closed recorder has taken
// them already.
func (t *tracer) close() {
	if !t.hold() {
		return
	}
	defer t.release()
	for _, tr := range t.worker {
		tr.Close()
	}
	for _, tr := range t.qdepth {
		tr.Close()
	}
	for _, tr := range t.caches {
		tr.Close()
	}
	t.mem.Close()
	t.util.Close()
}

// stage records stage s of node pos from t0 to t1, joined to the kernel's
// flow.
func (t *tracer) stage(s kernel.Stage, pos int, flow uint64, t0, t1 int64) {
	t.stageAs(flowAsUsual, s, pos, flow, t0, t1)
}

// stageOn is stage for a caller that found t on.
func (t *tracer) stageOn(s kernel.Stage, pos int, flow uint64, t0, t1 int64) {
	kind := trace.EvFlowStep
	if s == kernel.StagePrepare {
		kind = trace.EvFlowBegin
		t.open[pos] = flow
	}
	t.track[s].SliceFlow(t0, t1-t0, t.names[s][pos], kind, flow)
}

// How a stage slice carries its kernel's flow.
const (
	flowAsUsual = iota // begins at prepare, steps through the others
	flowNone           // no flow event: the kernel's flow is elsewhere
	flowBegin          // begins here (a replay predicted at prepare fell back)
)

func (t *tracer) stageAs(how int, s kernel.Stage, pos int, flow uint64, t0, t1 int64) {
	if !t.on() {
		return
	}
	tr := t.track[s]
	switch {
	case how == flowNone:
		tr.Slice(t0, t1-t0, t.names[s][pos])
	case how == flowBegin || s == kernel.StagePrepare:
		tr.SliceFlow(t0, t1-t0, t.names[s][pos], trace.EvFlowBegin, flow)
		t.open[pos] = flow
	default:
		tr.SliceFlow(t0, t1-t0, t.names[s][pos], trace.EvFlowStep, flow)
	}
}

// replayed begins, at the launch slice just recorded, the flows of the n
// kernels a replay submitted, from node first on (flowOf gives a node's
// flow): each ends at its kernel on the device.
func (t *tracer) replayed(first, n int, flowOf func(pos int) uint64) {
	if !t.on() {
		return
	}
	for pos := first; pos < first+n; pos++ {
		t.track[kernel.StageLaunch].FlowBegin(flowOf(pos))
		if !t.sent[pos] { // a submission that failed
			t.open[pos] = flowOf(pos)
		}
	}
}

// launched says that the launch of nodes pos to pos+n-1 succeeded: the
// device ends their flows.
func (t *tracer) launched(pos, n int) {
	if !t.on() {
		return
	}
	if n == 1 {
		t.sent[pos] = true
		return
	}
	for i := pos; i < pos+n; i++ {
		t.sent[i] = true
	}
}

// memory samples the device memory and utilisation counters, from the
// launching goroutine.
func (t *tracer) memory(dev device.Device, now int64) {
	if now-t.lastMem.at < deviceEvery || !t.on() {
		return
	}
	t.lastMem.at = now
	ds := dev.Stats()
	t.mem.Counter(now, ds.MemInUse)
	if now > t.start {
		t.util.CounterFloat(now, float64(ds.BusyNs-t.busy0)/float64(now-t.start))
	}
}

// barrierSlice records time goroutine w was blocked on a barrier.
func (t *tracer) barrierSlice(w int, t0, t1 int64) {
	if t.on() && t1 > t0 {
		t.worker[w].Slice(t0, t1-t0, t.barrier)
	}
}

// runBegin and runEnd bracket a run on the runner track.
func (t *tracer) runBegin(now int64, dev device.Stats) {
	if t.on() {
		t.start, t.busy0 = now, dev.BusyNs
		t.worker[0].Instant(now, t.plan)
		t.worker[0].Begin(now, t.run)
	}
}

func (t *tracer) runEnd(now int64, cs plan.CacheStats) {
	if !t.on() {
		return
	}
	for pos, f := range t.open {
		if f != 0 {
			if !t.sent[pos] {
				t.worker[0].SliceFlow(now, 0, t.abandoned, trace.EvFlowEnd, f)
			}
			t.open[pos] = 0
		}
	}
	clear(t.sent)
	t.worker[0].End(now)
	for i, tr := range t.caches {
		tr.Counter(now, int64(cacheCounters[i].of(cs)))
	}
}

// depthDue reports whether goroutine w's queue depth is due a sample at
// clock time now. The caller reads the queue's length only then: reading
// it takes the cache lines the queue's producers write.
func (t *tracer) depthDue(w int, now int64) bool {
	return t.on() && t.qdepth[w] != nil && now-t.lastDepth[w].at >= counterEvery
}

// depth records n, the length of goroutine w's queue at clock time now,
// from that goroutine, when depthDue said so.
func (t *tracer) depth(w, n int, now int64) {
	t.lastDepth[w].at = now
	t.qdepth[w].Counter(now, int64(n))
}
