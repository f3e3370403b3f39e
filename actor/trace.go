package actor

import (
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/trace"
)

// flowSeq hands out trace flow ids: each run of each actor takes one id per
// kernel, so ids never repeat within a process.
var flowSeq atomic.Uint64

// tracer records an actor's host stages. Each track has one writer: the
// goroutine that runs the stages recorded on it (the runner, or a stage
// worker), as the mode assigns them.
type tracer struct {
	rec     *trace.Recorder
	track   [kernel.StageLaunch + 1]*trace.Track // by stage
	depth   [kernel.StageLaunch + 1]*trace.Track // queue depth counters, by stage
	mem     *trace.Track                         // device memory in use
	util    *trace.Track                         // device utilisation so far in the run
	start   int64                                // when the current run began
	names   [kernel.StageLaunch + 1][]trace.Name // by stage, by node position
	barrier trace.Name
	run     trace.Name
	// last sample of each counter, by its writer: counters are sampled at
	// most every counterEvery so that they do not cost more than the slices.
	lastDepth [kernel.StageLaunch + 1]int64
	lastMem   int64
}

// counterEvery is the shortest interval between two samples of a counter.
const counterEvery = 25_000 // ns

func newTracer(rec *trace.Recorder, name string, mode Mode, p *plan) *tracer {
	if rec == nil {
		return nil
	}
	t := &tracer{rec: rec, barrier: rec.Intern("barrier"), run: rec.Intern("run")}
	runner := rec.Track(name+" runner", trace.SliceTrack, trace.Host)
	for s := kernel.StagePrepare; s <= kernel.StageLaunch; s++ {
		t.track[s] = runner
	}
	switch mode {
	case Async:
		t.track[kernel.StageLaunch] = rec.Track(name+" launch", trace.SliceTrack, trace.Host)
		t.depth[kernel.StageLaunch] = rec.Track(name+" launch queue depth", trace.CounterTrack, trace.Host)
	case Pipeline:
		for s := kernel.StageInfer; s <= kernel.StageLaunch; s++ {
			t.track[s] = rec.Track(name+" "+s.String(), trace.SliceTrack, trace.Host)
			t.depth[s] = rec.Track(name+" "+s.String()+" queue depth", trace.CounterTrack, trace.Host)
		}
	}
	t.mem = rec.Track(name+" device memory", trace.CounterTrack, trace.Device)
	t.util = rec.Track(name+" device utilisation", trace.CounterTrack, trace.Device)
	for s := kernel.StagePrepare; s <= kernel.StageLaunch; s++ {
		t.names[s] = make([]trace.Name, len(p.nodes))
		for pos := range p.nodes {
			n := p.nodes[pos].op
			if t.track[s] == runner && mode != Pipeline || s == kernel.StagePrepare {
				n += " " + s.String()
			}
			t.names[s][pos] = rec.Intern(n)
		}
	}
	return t
}

func (t *tracer) on() bool { return t != nil && t.rec.Enabled() }

// Trace layout, which analyses of a trace rely on. For an actor named N:
//
//   - track "N runner" holds a "run" slice around each Run, enclosing the
//     stages the runner executes (all of them in KBK; prepare, InferShape
//     and Resize in Async; prepare in Pipeline);
//   - tracks "N infer", "N resize", "N launch" hold the stages of the
//     queued modes' workers (Async has only "N launch");
//   - a stage slice is named after the op ("MatMul"), followed by the
//     stage ("MatMul infer") on a track that holds several stages, and the
//     prepare slice always names its stage; "barrier" slices are time
//     blocked on value and compute dependencies;
//   - each kernel's flow begins on its prepare slice, steps through its
//     other stages and ends on its device slice (track "N stream 0" when
//     the device is observed by devtrace with prefix N);
//   - counters "N <stage> queue depth", "N device memory" and "N device
//     utilisation" (device busy time / time since the run began), sampled
//     at most every 25 µs.

// stage records stage s of node pos from t0 to t1, joined to the kernel's
// flow.
func (t *tracer) stage(s kernel.Stage, pos int, flow uint64, t0, t1 int64) {
	tr := t.track[s]
	tr.Slice(t0, t1-t0, t.names[s][pos])
	if s == kernel.StagePrepare {
		tr.FlowBegin(flow)
	} else {
		tr.FlowStep(flow)
	}
}

// account adds the time since t0 to *busy as stage s of node pos, traces it,
// and returns the current time.
func (a *SuperKernelActor) account(busy *time.Duration, s kernel.Stage, pos int, t0 int64) int64 {
	t1 := device.Now()
	*busy += time.Duration(t1 - t0)
	if a.tr.on() {
		a.tr.stage(s, pos, a.args[pos].Flow, t0, t1)
		if s == kernel.StageLaunch && t1-a.tr.lastMem >= counterEvery {
			a.tr.lastMem = t1
			ds := a.dev.Stats()
			a.tr.mem.Counter(t1, ds.MemInUse)
			if t1 > a.tr.start {
				a.tr.util.CounterFloat(t1, float64(ds.BusyNs)/float64(t1-a.tr.start))
			}
		}
	}
	return t1
}

// waited adds the time since t0 to *wait and traces it as a barrier on the
// track of stage s.
func (a *SuperKernelActor) waited(wait *time.Duration, s kernel.Stage, t0 int64) int64 {
	t1 := device.Now()
	*wait += time.Duration(t1 - t0)
	if a.tr.on() && t1 > t0 {
		a.tr.track[s].Slice(t0, t1-t0, a.tr.barrier)
	}
	return t1
}

// runBegin and runEnd bracket a run on the runner track.
func (a *SuperKernelActor) runBegin() {
	if a.tr.on() {
		a.tr.start = device.Now()
		a.tr.track[kernel.StagePrepare].Begin(a.tr.start, a.tr.run)
	}
}

func (a *SuperKernelActor) runEnd() {
	if a.tr.on() {
		a.tr.track[kernel.StagePrepare].End(device.Now())
	}
}

// depth records the length of stage s's queue, from the stage's worker.
func (a *SuperKernelActor) depth(s kernel.Stage, n int) {
	if a.tr.on() && a.tr.depth[s] != nil {
		if now := device.Now(); now-a.tr.lastDepth[s] >= counterEvery {
			a.tr.lastDepth[s] = now
			a.tr.depth[s].Counter(now, int64(n))
		}
	}
}
