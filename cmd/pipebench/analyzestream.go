package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/trace"
	"github.com/pipert/pipert/trace/analysis"
)

// The streaming analysis of a trace (see analyzeFile). A trace's tracks are
// written chunk by chunk, so the file holds each track in time order but
// the tracks interleaved in large blocks: a kernel's prepare slice may come
// tens of thousands of events before its device slice. The analysis keeps
// what it needs of a kernel until its run is complete and releases it then;
// a run is complete once every track of its actor has moved past the run's
// end (its horizon: the latest time seen on the track, or the start of its
// oldest slice not yet complete, whichever is earlier) or the trace ended.
// So memory follows the kernels in flight between the tracks' blocks, not
// the length of the trace.
//
// The launch latency of an actor's model is the median over all its
// kernels that did not wait on the device for the kernel before them
// (whose start was their launch plus the latency, not the device's
// backlog), which a single pass cannot know before the first run ends. It
// is found exactly, in bounded memory, by passes that count latencies in
// ever narrower buckets around the median (medianSelect); the last pass
// analyses the runs with it.

// streamPass says what one pass computes.
type streamPass struct {
	cores   int
	meta    *traceMeta               // the machine the trace records, filled by the first pass
	latency map[string]int64         // by actor; nil in a latency pass
	sel     map[string]*medianSelect // the latency pass's selectors, by actor
	// async holds the devices (by deviceName) that ran a kernel past the
	// end of its launch (an asynchronous device), shared by the passes:
	// complete once the first has read the trace.
	async map[string]bool
}

// machineTrack is the track on which pipebench records the machine a trace
// was taken on, as instants: "gomaxprocs N", "calibration handoff=H
// spin=S trace=T step=P" (ns; see calibrate; older traces lack trace=T
// and step=P), "calibration trace async=A pipeline=Q" (tracing's cost in
// those modes; older traces lack it) and "queue capacity Q" (older traces
// lack it: the queues count as unbounded).
const machineTrack = "pipebench machine"

// traceMeta is what a trace says of its machine.
type traceMeta struct {
	procs      int // GOMAXPROCS; 0: unknown
	calibrated bool
	handoff    int64
	spin       int64
	trace      int64 // tracing's cost per kernel in its measured host stages
	step       int64 // the runner's host time per kernel outside the stages
	queueCap   int   // the stage queues' capacity; 0: unknown
	// traceAsync and tracePipeline are trace in modes async and
	// pipeline; 0: as in KBK (older traces).
	traceAsync, tracePipeline int64
}

// maxTraceProcs bounds the GOMAXPROCS a trace's metadata may give.
const maxTraceProcs = 1 << 16

// instant reads one instant of the machine track.
func (m *traceMeta) instant(name string) {
	var p int
	var h, sp, tr int64
	// Values no machine or configuration has are not taken (the trace's
	// other figures are, with this machine's cores or no queue bound).
	if n, _ := fmt.Sscanf(name, "gomaxprocs %d", &p); n == 1 && p > 0 && p <= maxTraceProcs {
		m.procs = p
	}
	if n, _ := fmt.Sscanf(name, "queue capacity %d", &p); n == 1 && p > 0 && p <= plan.MaxQueueCapacity {
		m.queueCap = p
	}
	var ta, tp int64
	if n, _ := fmt.Sscanf(name, "calibration trace async=%d pipeline=%d", &ta, &tp); n == 2 && ta >= 0 && tp >= 0 {
		m.traceAsync, m.tracePipeline = ta, tp
	}
	var st int64
	if n, _ := fmt.Sscanf(name, "calibration handoff=%d spin=%d trace=%d step=%d", &h, &sp, &tr, &st); n >= 2 && h >= 0 && sp >= 0 && tr >= 0 && st >= 0 {
		m.calibrated, m.handoff, m.spin = true, h, sp
		if n >= 3 {
			m.trace = tr
		}
		if n == 4 {
			m.step = st
		}
	}
}

// traceOf is tracing's cost per kernel in the measured host stages of a
// run in mode md: async's and pipeline's own when the trace has them,
// KBK's otherwise. A nil m has none.
func (m *traceMeta) traceOf(md analysis.Mode) int64 {
	switch {
	case m == nil:
		return 0
	case md.Name == analysis.Async.Name && m.traceAsync > 0:
		return m.traceAsync
	case md.Name == analysis.Pipeline.Name && m.tracePipeline > 0:
		return m.tracePipeline
	}
	return m.trace
}

// sTrack is the analysis's state of one track.
type sTrack struct {
	name    string
	role    string // "runner", "infer", "resize", "launch", "device" or ""
	owner   *sActor
	dev     bool // any "<prefix> stream N" track
	events  bool // an event seen
	last    int64
	open    []sSlice // begun, not ended, innermost last
	lastIdx int      // index in open of the slice flows attach to, or -1
	pend    sSlice   // a complete slice flows may still attach to
	hasPend bool
	bar     sSlice // the last barrier, until the stage after it
	hasBar  bool
}

// sSlice is a slice being reconstructed.
type sSlice struct {
	name       string
	start, end int64
	flow       uint64   // its kernel's flow, the first attached
	more       []uint64 // the flows after the first: a replay's launch submits many kernels
}

// addFlow attaches flow f to the slice (0, no flow, is ignored).
func (s *sSlice) addFlow(f uint64) {
	switch {
	case f == 0:
	case s.flow == 0:
		s.flow = f
	case f != s.flow && !slices.Contains(s.more, f):
		s.more = append(s.more, f)
	}
}

// horizon is the time up to which everything on the track is known.
func (t *sTrack) horizon() int64 {
	if !t.events {
		return math.MinInt64
	}
	h := t.last
	if len(t.open) > 0 {
		h = min(h, t.open[0].start)
	}
	if t.hasPend {
		h = min(h, t.pend.start)
	}
	return h
}

type sActor struct {
	name      string
	mode      analysis.Mode
	stream    *sTrack
	host      []*sTrack
	runner    *sTrack
	kernels   map[uint64]*sKernel
	loose     []*sKernel // kernels created since the last sweep, some without a run
	runs      []*sRun    // not yet analysed, by start; the last may be open
	waiting   map[*sTrack][]analysis.Interval
	summary   actorSummary
	acc       actorAcc
	devByFlow bool // a kernel found its device slice by flow
	planned   bool // the mode is the one its runner track records
	// lastDevEnd is the device end of the last kernel of a run released
	// (they are released in run and flow order): a kernel that started on
	// the device no later than it was queued behind it, and its start
	// says nothing of the launch latency.
	lastDevEnd int64
	lastRun    lastReleased // the last kernel of a run released
	err        error        // the first error of its analysis
}

// lastReleased is what the release of a replayed kernel needs of the kernel
// released before it.
type lastReleased struct {
	replayed bool
	sub      int
	subStart int64
	devStart int64
}

// actorAcc accumulates an actor's runs until the medians are taken.
type actorAcc struct {
	runs      int
	measured  []int64
	terms     [numTerms][]int64 // by run, of its own mode's prediction
	pred      map[string][]int64
	predBound map[string][]int64
	devBusy   int64
	span      int64
	// idle and bubbles are each run's device idle time and bubbles, for
	// their medians.
	idle, bubbles []int64
	empty         int // runs none of whose slices is tied to a kernel
}

type sRun struct {
	start, end int64
	closed     bool
	kernels    []*sKernel
	busy       map[*sTrack][]analysis.Interval // by track; the shared device under nil
}

// span is the extent of the slices of one host stage of a kernel.
type span struct {
	start, end int64
	ok         bool
}

type sKernel struct {
	flow      uint64
	cost      analysis.Kernel
	begin     int64 // start of its first host slice, if begun
	begun     bool
	prepared  bool // its prepare slice seen (a replayed kernel has none)
	staged    bool // a prepare, InferShape or Resize slice seen
	launched  int64
	hasLaunch bool
	sub       int   // replayed: its index in its submission
	subStart  int64 // replayed: the start of its submission's launch slice
	devStart  int64
	devEnd    int64
	hasDev    bool
	barStart  int64 // the barrier before its InferShape, or its Prepare, if hasBar
	barEnd    int64
	hasBar    bool
	barAt     analysis.Stage // Infer or Prepare
	dev       string         // the device of its device slice (deviceName)
	// spans are its host stages' first start and last end, by stage,
	// and tracks the tracks they were seen on.
	spans  [analysis.NumStages]span
	tracks [analysis.NumStages]*sTrack
	run    *sRun
	actor  *sActor
}

// streamAnalyzer is a trace.Handler that analyses a trace as it is read.
type streamAnalyzer struct {
	pass    streamPass
	tracks  []*sTrack
	actors  map[string]*sActor
	exes    map[string]bool       // heterogeneous executables, by their part tracks
	shared  map[uint64]*sKernel   // kernels of actors without a stream of their own, by flow
	devSeen map[uint64]seenDevice // device slices of shared devices not yet claimed
	free    []*sKernel
	events  int
	probs   problemCounts
}

// problemCounts are the defects seen while reading, for the warning.
type problemCounts struct {
	backwards, unmatchedEnds, unterminated int
	// negative counts slices that end before they begin (a negative
	// duration, an end before its begin): each is taken as lasting 0.
	negative int
	// absurd counts events whose time is beyond ±2^62 ns (146 years) of
	// the trace's zero: an overflow or a foreign time base.
	absurd  int
	example string
}

// absurdTime is the magnitude beyond which a timestamp is absurd: 2^62 ns,
// 146 years (a timestamp past it has likely overflowed on reading).
const absurdTime = int64(1) << 62

func newStreamAnalyzer(pass streamPass) *streamAnalyzer {
	if pass.async == nil {
		pass.async = map[string]bool{}
	}
	return &streamAnalyzer{pass: pass, actors: map[string]*sActor{}, exes: map[string]bool{}, shared: map[uint64]*sKernel{}, devSeen: map[uint64]seenDevice{}}
}

func (z *streamAnalyzer) actor(name string) *sActor {
	a := z.actors[name]
	if a == nil {
		a = &sActor{name: name, mode: analysis.KBK, kernels: map[uint64]*sKernel{}, waiting: map[*sTrack][]analysis.Interval{},
			lastDevEnd: math.MinInt64} // before any time, negative ones included
		a.acc.pred, a.acc.predBound = map[string][]int64{}, map[string][]int64{}
		a.summary = actorSummary{predicted: map[string]int64{}, predictedBound: map[string]int64{}, idleBy: map[string]int64{}}
		z.actors[name] = a
	}
	return a
}

// Track classifies a track by its name, as long as it has no events.
func (z *streamAnalyzer) Track(i int, info trace.TrackInfo) {
	for len(z.tracks) <= i {
		z.tracks = append(z.tracks, &sTrack{lastIdx: -1})
	}
	t := z.tracks[i]
	if t.events || t.name == info.Name && t.role != "" || info.Kind != trace.SliceTrack {
		return
	}
	t.name = info.Name
	if info.Name == machineTrack {
		t.role = "machine"
		return
	}
	if exe, ok := partTrack(info.Name); ok {
		z.exes[exe] = true
		return
	}
	name, last, ok := cut(info.Name)
	if !ok {
		return
	}
	if strings.HasSuffix(name, " stream") && last != "" && strings.Trim(last, "0123456789") == "" {
		t.dev = true
	}
	switch {
	case last == "runner" || last == "infer" || last == "resize" || last == "launch":
		a := z.actor(name)
		t.role, t.owner = last, a
		a.host = append(a.host, t)
		switch {
		case last == "runner":
			a.runner = t
		case a.planned:
		case last == "infer":
			a.mode = analysis.Pipeline
		case last == "launch" && a.mode.Name != "pipeline":
			a.mode = analysis.Async
		}
	case strings.HasPrefix(last, "0") && strings.HasSuffix(name, " stream"):
		a := z.actor(strings.TrimSuffix(name, " stream"))
		if a.stream == nil {
			t.role, t.owner, a.stream = "device", a, t
		}
	}
}

// Event takes one event in file order.
func (z *streamAnalyzer) Event(ev *trace.Event) {
	if ev.Track >= len(z.tracks) {
		return
	}
	t := z.tracks[ev.Track]
	if ev.TS >= absurdTime || ev.TS <= -absurdTime || ev.Dur >= absurdTime || ev.Dur <= -absurdTime {
		z.problem(&z.probs.absurd, fmt.Sprintf("%v on track %q at %d ns", ev.Kind, t.name, ev.TS))
		if ev.Dur >= absurdTime || ev.Dur <= -absurdTime {
			ev.Dur = 0 // its end would overflow the sums of stage costs
		}
	}
	if t.events && ev.TS < t.last {
		z.problem(&z.probs.backwards, fmt.Sprintf("%v on track %q at %d ns after an event at %d", ev.Kind, t.name, ev.TS, t.last))
	}
	if !t.events || ev.TS > t.last {
		t.last = ev.TS
	}
	t.events = true
	switch ev.Kind {
	case trace.EvInstant:
		if t.role == "machine" && z.pass.meta != nil {
			z.pass.meta.instant(ev.Name)
		}
		if t.role == "runner" && strings.HasPrefix(ev.Name, "plan ") {
			if m, ok := planMode(strings.TrimPrefix(ev.Name, "plan ")); ok {
				t.owner.mode, t.owner.planned = m, true
			}
		}
	case trace.EvBegin, trace.EvSlice:
		z.flushPend(t)
		if ev.Dur < 0 {
			z.problem(&z.probs.negative, fmt.Sprintf("slice %q on track %q at %d ns lasts %d ns", ev.Name, t.name, ev.TS, ev.Dur))
			ev.Dur = 0
		}
		s := sSlice{name: ev.Name, start: ev.TS, end: ev.TS + ev.Dur}
		if t.role == "runner" && ev.Name == "run" {
			// A run is known from its start, for the kernels prepared in it.
			a := t.owner
			a.runs = append(a.runs, &sRun{start: s.start, end: s.end, closed: ev.Kind == trace.EvSlice, busy: map[*sTrack][]analysis.Interval{}})
		}
		if ev.Kind == trace.EvSlice {
			t.pend, t.hasPend, t.lastIdx = s, true, -1
		} else {
			t.open = append(t.open, s)
			t.lastIdx = len(t.open) - 1
		}
	case trace.EvEnd:
		i := len(t.open) - 1
		if ev.Name != "" {
			for i >= 0 && t.open[i].name != ev.Name {
				i--
			}
		}
		if i < 0 {
			z.problem(&z.probs.unmatchedEnds, fmt.Sprintf("end %q on track %q at %d ns closes no open slice", ev.Name, t.name, ev.TS))
			break
		}
		s := t.open[i]
		s.end = ev.TS
		if s.end < s.start {
			z.problem(&z.probs.negative, fmt.Sprintf("slice %q on track %q ends at %d ns, before its begin at %d", s.name, t.name, s.end, s.start))
			s.end = s.start
		}
		t.open = append(t.open[:i], t.open[i+1:]...)
		switch {
		case i == t.lastIdx: // flows may still attach to it
			z.flushPend(t)
			t.pend, t.hasPend, t.lastIdx = s, true, -1
		default:
			if i < t.lastIdx {
				t.lastIdx--
			}
			z.slice(t, s)
		}
	case trace.EvFlowBegin, trace.EvFlowStep, trace.EvFlowEnd:
		switch {
		case t.lastIdx >= 0:
			t.open[t.lastIdx].addFlow(ev.Flow)
		case t.hasPend:
			t.pend.addFlow(ev.Flow)
		}
	}
	if z.events++; z.events%4096 == 0 {
		z.settle(false)
	}
}

func (z *streamAnalyzer) problem(n *int, example string) {
	if *n == 0 && z.probs.example == "" {
		z.probs.example = example
	}
	*n++
}

func (z *streamAnalyzer) flushPend(t *sTrack) {
	if t.hasPend {
		t.hasPend = false
		z.slice(t, t.pend)
	}
}

// slice takes one complete slice with its flow.
func (z *streamAnalyzer) slice(t *sTrack, s sSlice) {
	if t.dev && s.flow != 0 {
		z.sharedDevice(t, s)
	}
	a := t.owner
	if a == nil {
		return
	}
	if t.role == "runner" && s.name == "run" {
		for _, r := range a.runs {
			if !r.closed && r.start == s.start {
				r.end, r.closed = s.end, true
				break
			}
		}
		return
	}
	if s.name != "run" && s.name != "barrier" && (t.role != "device" || len(a.host) > 0) {
		z.busy(a, t, analysis.Interval{Start: s.start, End: s.end})
	}
	if s.name == "barrier" && t.role != "device" {
		t.bar, t.hasBar = s, true
	}
	if s.flow == 0 || t.role == "device" && len(a.host) == 0 {
		return // barriers, slices without a kernel, devices no actor runs on
	}
	st, ok := stageOf[t.role]
	if i := strings.LastIndexByte(s.name, ' '); i >= 0 {
		if x, found := stageOf[s.name[i+1:]]; found {
			st, ok = x, true
		}
	}
	if t.role != "device" && !ok {
		return
	}
	z.kernelSlice(a, t, s, z.kernel(a, s.flow), st, s.end-s.start, 0)
	// A replay's launch submits a segment of kernels at once: each begins
	// its flow there; the first carries the submission's cost.
	for i, f := range s.more {
		z.kernelSlice(a, t, s, z.kernel(a, f), st, 0, i+1)
	}
}

// kernelSlice gives k its slice s on track t of actor a: its device
// execution, or host stage st taking d; sub is k's index among the flows of
// the slice (its place in a replay's submission).
func (z *streamAnalyzer) kernelSlice(a *sActor, t *sTrack, s sSlice, k *sKernel, st analysis.Stage, d int64, sub int) {
	if t.role == "device" {
		k.setDevice(analysis.Interval{Start: s.start, End: s.end}, deviceName(t.name))
		return
	}
	if t.hasBar {
		// A barrier belongs to the InferShape after it (a value the kernel
		// needs) or the Prepare after it (the runner waiting for the
		// shapes of a compute-dependent kernel it issued); the InferShape's
		// wins when a kernel has both. One before another stage (a
		// tiling-ring stall) is a wait the model does not take.
		if st == analysis.Infer || st == analysis.Prepare && (!k.hasBar || k.barAt == analysis.Prepare) {
			k.barStart, k.barEnd, k.hasBar, k.barAt = t.bar.start, t.bar.end, true, st
		}
		t.hasBar = false
	}
	if !k.begun || s.start < k.begin {
		k.begin, k.begun = s.start, true
		if !k.prepared {
			// A replay's kernel, or one whose replay fell back after its
			// prepare (its flow begins at InferShape): its first host
			// slice places it until a prepare slice does.
			z.placeKnown(a, k, s.start)
		}
	}
	if sub == 0 {
		sp := &k.spans[st-1]
		if !sp.ok || s.start < sp.start {
			sp.start = s.start
		}
		if !sp.ok || s.end > sp.end { // not max with the zero value: times may be negative
			sp.end = s.end
		}
		sp.ok = true
		k.tracks[st-1] = t
	}
	switch st {
	case analysis.Prepare:
		k.cost.Prepare += d
		k.prepared, k.staged = true, true
		z.place(a, k, s.start)
	case analysis.Infer:
		k.cost.Infer += d
		k.staged = true
	case analysis.Resize:
		k.cost.Resize += d
		k.staged = true
	case analysis.Launch:
		k.cost.Launch += d
		k.launched, k.hasLaunch = s.end, true
		k.sub, k.subStart = sub, s.start
	}
}

// replayed reports whether a replay submitted k: launched with no host
// stage of its own before.
func (k *sKernel) replayed() bool { return k.hasLaunch && !k.staged }

// placeKnown is place for a slice on another track than the runner's:
// it places k only once the runner track has moved past at, when the runs
// are known that far (an open run may yet end before at), and otherwise
// leaves k to a later sweep.
func (z *streamAnalyzer) placeKnown(a *sActor, k *sKernel, at int64) bool {
	if a.runner == nil || a.runner.horizon() <= at {
		k.run = nil
		return false
	}
	return z.place(a, k, at)
}

// place files k under the run of a that holds time at, and reports
// whether there is one.
func (z *streamAnalyzer) place(a *sActor, k *sKernel, at int64) bool {
	old := k.run
	k.run = nil
	for _, r := range a.runs {
		if at >= r.start && (!r.closed || at <= r.end) {
			k.run = r
			break
		}
	}
	if k.run != nil && k.run != old {
		k.run.kernels = append(k.run.kernels, k)
	}
	return k.run != nil
}

// setDevice gives k its device slice iv on device dev (deviceName).
func (k *sKernel) setDevice(iv analysis.Interval, dev string) {
	k.cost.Device, k.devStart, k.devEnd, k.hasDev, k.dev = iv.Len(), iv.Start, iv.End, true, dev
}

// seenDevice is a device slice waiting for its kernel: its interval and
// its device.
type seenDevice struct {
	iv  analysis.Interval
	dev string
}

// deviceName is the device of a device track "<device> stream N" (the
// track's name when it has no such suffix).
func deviceName(track string) string {
	if i := strings.LastIndex(track, " stream "); i >= 0 {
		return track[:i]
	}
	return track
}

// sharedDevice gives a device slice to the kernel of its flow in an actor
// that has no stream of its own, now or when that kernel appears.
func (z *streamAnalyzer) sharedDevice(t *sTrack, s sSlice) {
	if k, ok := z.shared[s.flow]; ok {
		if !k.hasDev {
			k.setDevice(analysis.Interval{Start: s.start, End: s.end}, deviceName(t.name))
			k.actor.devByFlow = true
			z.busy(k.actor, nil, analysis.Interval{Start: s.start, End: s.end})
		}
		return
	}
	if t.owner == nil || len(t.owner.host) == 0 {
		if _, seen := z.devSeen[s.flow]; !seen {
			z.devSeen[s.flow] = seenDevice{analysis.Interval{Start: s.start, End: s.end}, deviceName(t.name)}
		}
	}
}

// kernel returns the actor's kernel of a flow, new if need be.
func (z *streamAnalyzer) kernel(a *sActor, flow uint64) *sKernel {
	if k, ok := a.kernels[flow]; ok {
		return k
	}
	var k *sKernel
	if n := len(z.free); n > 0 {
		k, z.free = z.free[n-1], z.free[:n-1]
		*k = sKernel{}
	} else {
		k = &sKernel{}
	}
	k.flow, k.actor = flow, a
	a.kernels[flow] = k
	a.loose = append(a.loose, k)
	if a.stream == nil {
		z.shared[flow] = k
		if sd, ok := z.devSeen[flow]; ok {
			delete(z.devSeen, flow)
			k.setDevice(sd.iv, sd.dev)
			a.devByFlow = true
			z.busy(a, nil, sd.iv)
		}
	}
	return k
}

// busy files a busy interval of a track of the actor (nil: its kernels on
// shared devices) under the run it starts in, once the runs are known that
// far.
func (z *streamAnalyzer) busy(a *sActor, t *sTrack, iv analysis.Interval) {
	if a.runner == nil {
		return // no runs
	}
	if a.runner.horizon() <= iv.Start {
		a.waiting[t] = append(a.waiting[t], iv)
		return
	}
	a.file(t, iv)
}

func (a *sActor) file(t *sTrack, iv analysis.Interval) {
	for _, r := range a.runs {
		if iv.Start >= r.start && (!r.closed || iv.Start < r.end) {
			r.busy[t] = append(r.busy[t], iv)
			return
		}
	}
}

// settle files the waiting intervals the runner track has moved past and
// analyses the runs that are complete; at the end of the trace (eof),
// everything.
func (z *streamAnalyzer) settle(eof bool) {
	for _, a := range z.actors {
		if a.runner == nil { // no runs: nothing to keep
			z.sweep(a, true)
			continue
		}
		h := a.runner.horizon()
		for t, ivs := range a.waiting {
			n := 0
			for n < len(ivs) && (eof || ivs[n].Start < h) {
				a.file(t, ivs[n])
				n++
			}
			if n == len(ivs) {
				delete(a.waiting, t)
			} else if n > 0 {
				a.waiting[t] = append(ivs[:0], ivs[n:]...)
			}
		}
		// Place the kernels a host slice began before their run was known,
		// before the runs they belong to are finished.
		for _, k := range a.loose {
			if k.run == nil && k.begun && !k.prepared {
				z.placeKnown(a, k, k.begin)
			}
		}
		for len(a.runs) > 0 && a.runs[0].closed && (eof || z.complete(a, a.runs[0].end)) {
			z.finish(a, a.runs[0])
			a.runs[0] = nil
			a.runs = a.runs[1:]
		}
		z.sweep(a, eof)
	}
}

// complete reports whether every track the actor's runs read has moved
// past end.
func (z *streamAnalyzer) complete(a *sActor, end int64) bool {
	for _, t := range a.host {
		if t.horizon() <= end {
			return false
		}
	}
	if a.stream != nil {
		return a.stream.horizon() > end
	}
	if !a.devByFlow {
		return false // its device track may yet be described, or its kernels found on a shared one
	}
	for _, t := range z.tracks {
		if t.dev && t.horizon() <= end {
			return false
		}
	}
	return true
}

// sweep releases the kernels that no run will take: those whose prepare
// slice never came although every host track has moved past their device
// execution (replayed kernels, whose flow begins at their launch).
func (z *streamAnalyzer) sweep(a *sActor, eof bool) {
	h := int64(math.MaxInt64)
	for _, t := range a.host {
		h = min(h, t.horizon())
	}
	n := 0
	for _, k := range a.loose {
		switch {
		case k.run != nil:
		case eof || k.hasDev && k.devStart < h:
			z.release(a, k, false)
		default:
			a.loose[n] = k
			n++
		}
	}
	clear(a.loose[n:])
	a.loose = a.loose[:n]
}

// release counts a kernel's latency and device slice and forgets it. inRun:
// the kernel belongs to a run (released with its run, in flow order).
func (z *streamAnalyzer) release(a *sActor, k *sKernel, inRun bool) {
	// busy: the device was still running an earlier kernel of the run when
	// k was handed to it (its launch ended, or its replay's submission
	// began), so k's start says nothing of the launch latency; behind:
	// k started on the device no later than the kernel before it ended.
	busy, behind := false, false
	replayed := k.replayed()
	prev := a.lastRun
	gap := int64(0) // from the end of the kernel before to k's start
	if inRun && k.hasDev {
		handed := k.launched
		if replayed {
			handed = k.subStart
		}
		busy, behind = handed < a.lastDevEnd, k.devStart <= a.lastDevEnd
		if busy {
			gap = k.devStart - a.lastDevEnd
		}
		a.lastDevEnd = max(a.lastDevEnd, k.devEnd)
		a.lastRun = lastReleased{replayed: replayed, sub: k.sub, subStart: k.subStart, devStart: k.devStart}
	}
	switch {
	case !k.hasDev:
		a.summary.unmatched++
	case !k.hasLaunch:
		// Never launched on a host track of the actor: no latency to read.
	case replayed:
		// The device took it at its submission's rate: the first kernel
		// after the submission began, the others one after another.
		switch {
		case !inRun:
		case k.sub == 0:
			if !busy {
				z.sample(a.name+replayFirstKey, k.devStart-k.subStart)
			}
		case !behind && prev.replayed && prev.subStart == k.subStart && prev.sub == k.sub-1:
			z.sample(a.name+replayNextKey, k.devStart-prev.devStart)
		}
	default:
		if k.devEnd > k.launched {
			z.pass.async[k.dev] = true
		} else if z.pass.latency != nil && !z.pass.async[k.dev] {
			// A synchronous device (the host CPU) ran the kernel inside
			// the launch call: the launch stage already holds its time.
			// An asynchronous device may end a short kernel before the
			// launch call returns too; it is one when any kernel ran past
			// its launch on it (known after the first pass).
			k.cost.Device = 0
		}
		z.latencySample(a, k, busy, behind, gap)
	}
	delete(a.kernels, k.flow)
	if a.stream == nil {
		delete(z.shared, k.flow)
	}
	z.free = append(z.free, k)
}

// latencySample samples a kernel launched on its own: the device's gap
// when it was handed to a busy device, its latency when to an idle one.
func (z *streamAnalyzer) latencySample(a *sActor, k *sKernel, busy, behind bool, gap int64) {
	switch {
	case busy:
		// It waited for the kernel before it on the device: the device's
		// gap between the two, unless another stream ran it alongside.
		if gap >= 0 {
			z.sample(a.name+deviceGapKey, gap)
		}
	case behind:
	default:
		z.sample(a.name, k.devStart-k.launched)
	}
}

// The keys, after an actor's name, of the medians of its replays' device
// rate (analysis.Machine's ReplayFirst and ReplayNext) among the latencies.
const (
	replayFirstKey = "\x00replay-first"
	replayNextKey  = "\x00replay-next"
	deviceGapKey   = "\x00device-gap"
	// wakeKey: its workers' wake-up time (analysis.Machine.Wake, see
	// wakeSamples).
	wakeKey = "\x00wake"
)

// latencyKeys are the keys, after an actor's name, of all its medians
// among the latencies: its launch latency first, then the device's rates,
// then its workers' wake-up.
var latencyKeys = [...]string{"", replayFirstKey, replayNextKey, deviceGapKey, wakeKey}

// sample adds v to the median selected under key, in a latency pass.
func (z *streamAnalyzer) sample(key string, v int64) {
	if z.pass.latency != nil {
		return
	}
	s := z.pass.sel[key]
	if s == nil {
		s = newMedianSelect()
		z.pass.sel[key] = s
	}
	s.add(v)
}

// untrace takes the tracing's cost per kernel, tr, out of k's measured host
// stages, spread evenly over those that took any time (the reading that
// ends one stage's slice starts the next, so a stage carries the recording
// of the slice before it), none below zero.
func untrace(k *analysis.Kernel, tr int64) {
	stages := []*int64{&k.Prepare, &k.Infer, &k.Resize, &k.Launch}
	n := int64(0)
	for _, c := range stages {
		if *c > 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	for _, c := range stages {
		if *c > 0 {
			*c = max(*c-tr/n, 0)
		}
	}
}

// cores is the number of cores the runs had: the trace's GOMAXPROCS, or
// the pass's when the trace does not record it.
func (z *streamAnalyzer) cores() int {
	if m := z.pass.meta; m != nil && m.procs > 0 {
		return m.procs
	}
	return z.pass.cores
}

// finish analyses a complete run and releases its kernels.
func (z *streamAnalyzer) finish(a *sActor, r *sRun) {
	a.acc.runs++
	ks := r.kernels[:0]
	for _, k := range r.kernels {
		if k.run == r {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(x, y *sKernel) int { return int(x.flow - y.flow) })
	if z.pass.latency == nil {
		wakeSamples(ks, a.mode, a.host, r.busy, z.cores(), func(v int64) { z.sample(a.name+wakeKey, v) })
	}
	for _, k := range ks {
		z.release(a, k, true)
	}
	if z.pass.latency == nil {
		return
	}
	if len(ks) == 0 {
		// No slice of the run is tied to a kernel (no flow events, or
		// none of the actor's): its makespan is known, nothing else. A
		// run with no slice at all ran a graph of no kernels: nothing is
		// missing.
		a.acc.measured = append(a.acc.measured, r.end-r.start)
		for _, iv := range r.busy {
			if len(iv) > 0 {
				a.acc.empty++
				break
			}
		}
		return
	}
	sm := &a.summary
	cores := z.cores()
	mc := analysis.Machine{LaunchLatency: z.pass.latency[a.name], Cores: cores,
		ReplayFirst: z.pass.latency[a.name+replayFirstKey], ReplayNext: z.pass.latency[a.name+replayNextKey],
		DeviceGap: z.pass.latency[a.name+deviceGapKey], Wake: z.pass.latency[a.name+wakeKey]}
	if m := z.pass.meta; m != nil {
		mc.Handoff, mc.Spin, mc.Step, mc.QueueCapacity = m.handoff, m.spin, m.step, m.queueCap
	}
	a.acc.measured = append(a.acc.measured, r.end-r.start)
	cost := make([]analysis.Kernel, len(ks))
	first, last := ks[0].begin, int64(math.MinInt64) // times may be negative: no zero floor
	launched := int64(math.MinInt64)                 // the last launch's end
	for i, k := range ks {
		cost[i] = k.cost
		if cost[i].Replayed = k.replayed(); cost[i].Replayed && i > 0 && cost[i-1].Replayed {
			cost[i].Submission = k.sub // 0 unless it follows its submission's kernel before it
		}
		if tr := z.pass.meta.traceOf(a.mode); tr > 0 {
			untrace(&cost[i], tr)
		}
		cost[i].Barrier = barrierOf(ks, i)
		first = min(first, k.begin)
		if k.hasBar {
			first = min(first, k.barStart) // the model holds the barrier
		}
		if k.hasDev {
			last = max(last, k.devEnd)
		}
		if k.hasLaunch {
			last = max(last, k.launched)
			launched = max(launched, k.launched)
		}
	}
	if last == math.MinInt64 { // no kernel reached the device nor launched
		last = r.end
	}
	// The model covers the kernel stream; the run also uploads inputs
	// before it and downloads outputs after it: add those as measured.
	fixed := max(first-r.start, 0) + max(r.end-last, 0)
	sm.kernels = len(cost)
	for _, m := range predictedModes(a.mode) {
		m.Drain = a.mode.Drain
		pr, err := analysis.Predict(cost, m, mc)
		if err != nil {
			z.fail(a, err)
			return
		}
		a.acc.pred[m.Name] = append(a.acc.pred[m.Name], pr.Makespan+fixed)
		hostBound := pr.HostWork
		if cores > 0 {
			hostBound = (pr.HostWork + int64(cores) - 1) / int64(cores)
		}
		a.acc.predBound[m.Name] = append(a.acc.predBound[m.Name], max(pr.DeviceBusy, pr.Busiest, hostBound)+fixed)
		if m.Name == a.mode.Name && a.stream == nil {
			sm.parts = append(sm.parts, partRun{start: r.start, alone: pr.Makespan + fixed, cpu: pr.HostWork - pr.BarrierCost})
		}
		if m.Name == a.mode.Name {
			for i, v := range unexplainedTerms(ks, m, mc, pr) {
				a.acc.terms[i] = append(a.acc.terms[i], v)
			}
			before, after := max(first-r.start, 0), max(r.end-last, 0)
			sm.steps = append(sm.steps, stepRun{start: r.start, end: r.end, launched: launched, alone: pr.Makespan + fixed, host: before + pr.HostEnd, dev: pr.DeviceSpan, after: after})
		}
	}
	cp, err := analysis.CriticalPath(cost, a.mode, mc)
	if err != nil {
		z.fail(a, err)
		return
	}
	addPath(&sm.path, cp)
	dev := r.busy[a.stream]
	if a.stream == nil {
		dev = r.busy[nil]
	}
	var stages []analysis.Busy
	for _, h := range a.host {
		stages = append(stages, analysis.Busy{Name: h.name, Intervals: r.busy[h]})
	}
	for _, iv := range dev {
		a.acc.devBusy += iv.Len()
	}
	a.acc.span += r.end - r.start
	var idle, bubbles int64
	for _, b := range analysis.Bubbles(dev, stages) {
		bubbles++
		idle += b.Len()
		who := b.Bottleneck
		if who == "" {
			who = "(no host stage busy)"
		} else {
			_, who, _ = cut(who)
		}
		sm.idleBy[who] += b.Len() // summed over the runs: the shares
	}
	a.acc.idle, a.acc.bubbles = append(a.acc.idle, idle), append(a.acc.bubbles, bubbles)
}

// predictedModes are the modes a run of an actor in mode own is predicted
// in: kbk, async and pipeline, and its own if it is none of them (replay,
// whose replayed kernels' host stages are the submission alone).
func predictedModes(own analysis.Mode) []analysis.Mode {
	ms := []analysis.Mode{analysis.KBK, analysis.Async, analysis.Pipeline}
	if !slices.ContainsFunc(ms, func(m analysis.Mode) bool { return m.Name == own.Name }) {
		ms = append(ms, own)
	}
	return ms
}

// addPath adds every part of path p to sum.
func addPath(sum *analysis.Path, p analysis.Path) {
	for i := range p.Stage {
		sum.Stage[i] += p.Stage[i]
	}
	sum.Device += p.Device
	sum.Latency += p.Latency
	sum.Handoff += p.Handoff
	sum.Step += p.Step
	sum.Barrier += p.Barrier
}

// barrierOf returns the barrier of kernel i of a run's kernels, in kernel
// order: its producer is the kernel whose device completion released it,
// the last to end on the device while the barrier waited; its cost is the
// barrier's time after that completion (staging the value). A barrier in
// which no device execution ended waited for none: all of it is cost.
func barrierOf(ks []*sKernel, i int) analysis.Barrier {
	k := ks[i]
	if !k.hasBar {
		return analysis.Barrier{}
	}
	b := analysis.Barrier{On: true, At: k.barAt, Producer: -1, Cost: k.barEnd - k.barStart}
	for j := i - 1; j >= 0; j-- {
		p := ks[j]
		if !p.hasDev || p.devEnd > k.barEnd {
			continue
		}
		if p.devEnd > k.barStart {
			b.Producer, b.Cost = j, k.barEnd-p.devEnd
		}
		break
	}
	return b
}

// fail records the first error of an actor's analysis.
func (z *streamAnalyzer) fail(a *sActor, err error) {
	if a.err == nil {
		a.err = fmt.Errorf("actor %q: %w", a.name, err)
	}
}

// end finishes the pass: the last slices, the open ones dropped, every
// run analysed.
func (z *streamAnalyzer) end() {
	for _, t := range z.tracks {
		z.flushPend(t)
		if n := len(t.open); n > 0 {
			z.problem(&z.probs.unterminated, fmt.Sprintf("slice %q on track %q at %d ns never ends", t.open[0].name, t.name, t.open[0].start))
			z.probs.unterminated += n - 1
		}
	}
	for _, a := range z.actors {
		// A run never ended (a truncated trace) is no run.
		a.runs = slices.DeleteFunc(a.runs, func(r *sRun) bool {
			if !r.closed {
				for _, k := range r.kernels {
					if k.run == r {
						k.run = nil
					}
				}
			}
			return !r.closed
		})
	}
	z.settle(true)
}

// summaries returns the actors' analyses, by name, of those with runs.
func (z *streamAnalyzer) summaries() ([]actorSummary, error) {
	names := make([]string, 0, len(z.actors))
	for n := range z.actors {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []actorSummary
	for _, n := range names {
		a := z.actors[n]
		if a.acc.runs == 0 {
			continue
		}
		sm := a.summary
		if a.err != nil {
			return nil, a.err
		}
		sm.name, sm.mode, sm.runs = a.name, a.mode.Name, a.acc.runs
		sm.shared = a.stream == nil && a.devByFlow
		sm.latency, sm.wake = z.pass.latency[a.name], z.pass.latency[a.name+wakeKey]
		sm.measured = median(a.acc.measured)
		// Each run's idle time lies within its span; their median is one
		// run's, as the measured makespan is (a mean would let one long
		// run push it past the median makespan).
		sm.idle, sm.bubbles = median(a.acc.idle), int(median(a.acc.bubbles))
		for m, v := range a.acc.pred {
			sm.predicted[m] = median(v)
		}
		for i, v := range a.acc.terms {
			sm.unexplained[i] = median(v)
		}
		for m, v := range a.acc.predBound {
			sm.predictedBound[m] = median(v)
		}
		if a.acc.span > 0 {
			sm.deviceUtil = float64(a.acc.devBusy) / float64(a.acc.span)
		}
		out = append(out, sm)
	}
	cores := z.pass.cores
	if m := z.pass.meta; m != nil && m.procs > 0 {
		cores = m.procs
	}
	shareCores(out, z.exes, cores)
	return out, nil
}

// warnings describes what the trace lacks or breaks.
func (z *streamAnalyzer) warnings() []string {
	var w []string
	p := z.probs
	if n := p.backwards + p.unmatchedEnds + p.unterminated + p.absurd + p.negative; n > 0 {
		var parts []string
		for _, c := range []struct {
			n    int
			what string
		}{{p.absurd, "events at absurd times (beyond ±146 years: overflowed or not pipert's time base; the times and predictions are meaningless)"},
			{p.backwards, "timestamps going backwards"}, {p.negative, "slices ending before they begin (taken as lasting 0)"},
			{p.unmatchedEnds, "unmatched slice ends"}, {p.unterminated, "slices that never end"}} {
			if c.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
			}
		}
		msg := fmt.Sprintf("%s (first: %s)", strings.Join(parts, ", "), p.example)
		if p.backwards+p.negative > 0 {
			msg += damagedTrace // time contradicts itself on a track
		}
		w = append(w, msg)
	}
	names := make([]string, 0, len(z.actors))
	for n, a := range z.actors {
		if len(a.host) > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		a := z.actors[n]
		switch {
		case a.runner == nil:
			w = append(w, fmt.Sprintf("actor %q has no runner track (%q): its runs are unknown", n, n+" runner"))
		case a.acc.runs == 0:
			w = append(w, fmt.Sprintf("actor %q: no complete run slice on %q", n, n+" runner"))
		}
		if a.stream == nil && !a.devByFlow && a.acc.runs > 0 && a.acc.empty < a.acc.runs {
			w = append(w, fmt.Sprintf("actor %q: no device track (%q) and no kernel found on another device stream: device time unknown", n, n+" stream 0"))
		}
		if a.acc.span > 0 && float64(a.acc.devBusy) > 1.001*float64(a.acc.span) {
			w = append(w, fmt.Sprintf("actor %q: device busy %.3g times its runs' time: its device slices overlap or outlast their runs; device use and predictions are wrong%s",
				n, float64(a.acc.devBusy)/float64(a.acc.span), damagedTrace))
		}
		if e := a.acc.empty; e > 0 {
			w = append(w, fmt.Sprintf("actor %q: %d of %d runs have no slice tied to a kernel (the trace has no flow events, or none that match its slices): their kernels, predictions, device use and idle time are unknown; only their makespans are measured",
				n, e, a.acc.runs))
		}
		if u := a.summary.unmatched; u > 0 && a.acc.empty < a.acc.runs {
			w = append(w, fmt.Sprintf("actor %q: %d kernels have no device slice (no flow event on a device track matches theirs): their device time counts as 0", n, u))
		}
	}
	// Device slices with flows no actor's kernel claimed: their actor's
	// host tracks are missing or not named as pipert names them.
	if len(z.devSeen) > 0 && len(names) > 0 {
		by := map[string]int{}
		for _, sd := range z.devSeen {
			by[sd.dev]++
		}
		for _, d := range slices.Sorted(maps.Keys(by)) {
			w = append(w, fmt.Sprintf("%d device slices on %q belong to no actor's kernel: their actor's host tracks (\"<actor> runner\", and its stage tracks) are missing or unnamed, so its runs are not analysed", by[d], d))
		}
	}
	return w
}

// medianSelect finds the median of a multiset of int64 values that is
// offered again in each pass, in memory bounded by its bucket count: the
// first pass counts values in log-linear buckets (exact below 4096, 4096
// buckets per power of two above), each further pass counts the values of
// the median's bucket in 65536 narrower ones, until a bucket holds a single
// value. The median is the value of rank n/2 from 0 in ascending order, as
// median takes it; values below 4096·2^k ns take at most 1+⌈k/16⌉ passes.
type medianSelect struct {
	n      int64           // values in a pass
	lo, hi int64           // the median lies in [lo, hi]
	below  int64           // values below lo
	width  int64           // bucket width of this pass; 0 in the first
	hist   map[int64]int64 // bucket → count
	done   bool
	value  int64
}

func newMedianSelect() *medianSelect {
	return &medianSelect{lo: math.MinInt64, hi: math.MaxInt64, hist: map[int64]int64{}}
}

func (s *medianSelect) add(v int64) {
	s.n++
	if s.done {
		return
	}
	switch {
	case v < s.lo:
		s.below++
	case v > s.hi:
	case s.width == 0:
		s.hist[logBucket(v)]++
	default:
		s.hist[int64(uint64(v-s.lo)/uint64(s.width))]++
	}
}

// logBucket maps v to its first-pass bucket, monotonically.
func logBucket(v int64) int64 {
	if v < 0 {
		return -logBucket(^v) - 1 // ^v = -v-1 ≥ 0
	}
	if v < 4096 {
		return v
	}
	e := bits.Len64(uint64(v)) // 13…63
	return int64(e-12)<<12 | (v>>(e-13))&0xfff
}

// logRange is the range of values of a first-pass bucket.
func logRange(b int64) (int64, int64) {
	if b < 0 {
		lo, hi := logRange(-b - 1)
		return ^hi, ^lo
	}
	if b < 4096 {
		return b, b
	}
	k := b>>12 - 1 // e-13
	lo := (4096 | b&0xfff) << k
	return lo, lo + (1<<k - 1)
}

// next ends a pass; it reports whether the median is known.
func (s *medianSelect) next() bool {
	if s.done || s.n == 0 {
		s.done = true
		return true
	}
	keys := make([]int64, 0, len(s.hist))
	for k := range s.hist {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	rank := s.n / 2
	seen := s.below
	for _, k := range keys {
		c := s.hist[k]
		if seen+c > rank {
			var lo, hi int64
			if s.width == 0 {
				lo, hi = logRange(k)
			} else {
				lo = s.lo + k*s.width
				hi = min(lo+s.width-1, s.hi)
			}
			s.lo, s.hi = lo, hi
			break
		}
		seen += c
	}
	if s.lo == s.hi {
		s.done, s.value = true, s.lo
		return true
	}
	s.width = int64((uint64(s.hi-s.lo) + 1 + 65535) / 65536)
	s.n, s.below = 0, 0
	clear(s.hist)
	return false
}

// laneLatencies gives both lanes of an executable whose steps are
// submitted ("+overlap" in its name; the second lane's ends in overlapLane)
// the latencies, device gap and replay rates of its twin that runs the
// same steps one after another (the name without "+overlap"), when the
// trace holds it: a lane's kernel, or a replay's submission, handed to the
// device while it still runs the other lane's step waits for it, and the
// lane's own samples cannot tell that wait from the latency. Without the
// twin, each lane gets the smaller of the lanes' medians (the waits only
// add). latency is keyed as the latency passes key it (an actor's name,
// then its other medians' keys).
func laneLatencies(latency map[string]int64) {
	exes := map[string]bool{}
	for n := range latency {
		name, _, _ := strings.Cut(n, "\x00")
		if exe := strings.TrimSuffix(name, overlapLane); overlapTwin(exe) != exe {
			exes[exe] = true
		}
	}
	for exe := range exes {
		twin := overlapTwin(exe)
		for _, key := range latencyKeys {
			v, ok := latency[twin+key]
			if !ok {
				v1, ok1 := latency[exe+key]
				v2, ok2 := latency[exe+overlapLane+key]
				switch {
				case ok1 && ok2:
					v, ok = min(v1, v2), true
				case ok1:
					v, ok = v1, true
				case ok2:
					v, ok = v2, true
				}
			}
			if ok {
				latency[exe+key], latency[exe+overlapLane+key] = v, v
			}
		}
	}
}

// overlapTwin returns the name of the executable that runs the steps of
// exe one after another: exe without its "+overlap" (bench's
// variant.String); exe itself when it has none.
func overlapTwin(exe string) string {
	const tag = "+overlap"
	for i := 0; ; {
		j := strings.Index(exe[i:], tag)
		if j < 0 {
			return exe
		}
		end := i + j + len(tag)
		if end == len(exe) || exe[end] == '+' {
			return exe[:i+j] + exe[end:]
		}
		i = end
	}
}

// analyzeScan analyses a trace that scan hands to a handler, as often as
// asked: the latency passes, then the analysis. It returns the summaries,
// the warnings (what the trace lacks or breaks, and the reading error of a
// trace that could not be read to its end, after which the analysis covers
// what came before), and an error when nothing could be analysed.
func analyzeScan(scan func(trace.Handler) error, cores int) ([]actorSummary, []string, error) {
	sel := map[string]*medianSelect{}
	meta := &traceMeta{}
	var scanErr error
	pass := func(p streamPass) *streamAnalyzer {
		z := newStreamAnalyzer(p)
		if err := scan(z); err != nil && scanErr == nil {
			scanErr = err
		}
		z.end()
		return z
	}
	async := map[string]bool{}
	lat := streamPass{cores: cores, sel: sel, meta: meta, async: async}
	for {
		pass(lat)
		done := true
		for _, s := range sel {
			done = s.next() && done
		}
		if done {
			break
		}
	}
	latency := map[string]int64{}
	for n, s := range sel {
		// A launch latency may be negative (the device took the kernel
		// before the launch call returned); the device's rates and gaps
		// may not.
		latency[n] = s.value
		if strings.Contains(n, "\x00") {
			latency[n] = max(s.value, 0)
		}
	}
	laneLatencies(latency)
	z := pass(streamPass{cores: cores, latency: latency, meta: meta, async: async})
	sums, err := z.summaries()
	if err != nil {
		return nil, nil, err
	}
	warns := z.warnings()
	if len(sums) > 0 {
		if meta.procs == 0 {
			warns = append(warns, fmt.Sprintf("the trace does not record its GOMAXPROCS (instant \"gomaxprocs N\" on track %q, N from 1 to %d): the predictions assume this machine's %d cores", machineTrack, maxTraceProcs, cores))
		}
		if !meta.calibrated {
			warns = append(warns, fmt.Sprintf("the trace has no calibration of hand-offs and spinning workers (instant \"calibration handoff=H spin=S\" on track %q): the predictions charge neither, as the flow-shop model of before", machineTrack))
		}
	}
	if scanErr != nil {
		warns = append([]string{fmt.Sprintf("%v%s", scanErr, partialTrace)}, warns...)
	}
	return sums, warns, nil
}

// partialTrace ends the warning of a trace that could not be read to its
// end: the analysis covers what came before (pipebench analyze then exits
// 1 after its table).
const partialTrace = ": analysed up to there"

// damagedTrace ends the warning of a trace whose contents contradict
// themselves (device slices that overlap on a stream, time going
// backwards on a track, a slice ending before it begins): pipebench
// analyze exits 1 after its table, as for a trace read in part.
const damagedTrace = " (a damaged trace)"

// analyzeFile analyses the trace file at path; see analyzeScan. It stops
// with ctx's error once ctx ends (an interrupt).
func analyzeFile(ctx context.Context, path string, cores int) ([]actorSummary, []string, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("trace: %w", err)
	} else if fi.IsDir() {
		return nil, nil, fmt.Errorf("trace: %s is a directory: %w", path, errNotRegular)
	} else if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("trace: %s is not a regular file (a pipe or device): the analysis reads a trace more than once; save it to a file first: %w", path, errNotRegular)
	}
	sums, warns, err := analyzeScan(func(h trace.Handler) error {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		defer f.Close()
		if _, err := trace.Scan(ctxReader{ctx, f}, h); err != nil {
			return fmt.Errorf("trace: %s: %w", path, err)
		}
		return nil
	}, cores)
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("analysis of %s: %w", path, err)
	}
	return sums, warns, err
}

// ctxReader is r until ctx ends, then ctx's error: a scan stops at its
// next read.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

// errNotRegular marks a trace path analyzeFile cannot read: not a regular
// file.
var errNotRegular = errors.New("not a regular file")

// analyzeTrace analyses a trace already in memory.
func analyzeTrace(p *trace.Parsed, cores int) ([]actorSummary, error) {
	sums, _, err := analyzeScan(func(h trace.Handler) error {
		for i, t := range p.Tracks {
			h.Track(i, t)
		}
		for i := range p.Events {
			h.Event(&p.Events[i])
		}
		return nil
	}, cores)
	return sums, err
}
