package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pipert/pipert/trace"
	"github.com/pipert/pipert/trace/analysis"
)

// The in-memory analysis that the streaming one (analyze.go) replaced,
// kept as the reference the tests compare it with: it reads the whole
// trace into a trace.Parsed and works from its slices.

// An actorTrace is what a trace holds of one actor (see actor's trace
// layout): its host tracks, its device stream, its runs and kernels.
type actorTrace struct {
	name    string
	mode    analysis.Mode
	runs    []runTrace
	stream  int // device track, or -1 (see analyzeTrace)
	host    []int
	kernels map[uint64]*kernelTrace
	// devSlices are the device slices of the actor's kernels, found by
	// flow on tracks of a device it does not own (stream < 0).
	devSlices []analysis.Interval
}

type runTrace struct {
	start, end int64
	kernels    []*kernelTrace // in flow order
}

type kernelTrace struct {
	flow      uint64
	cost      analysis.Kernel
	devEnd    int64
	prepare   int64 // start of the prepare slice, if prepared
	prepared  bool
	staged    bool  // a prepare, InferShape or Resize slice
	begin     int64 // start of its first host slice, if begun
	begun     bool
	launched  int64 // end of the launch slice, if hasLaunch
	hasLaunch bool
	sub       int   // its index among the flows of its launch slice
	subStart  int64 // the start of that slice
	devStart  int64
	hasDev    bool
	barStart  int64
	barEnd    int64
	hasBar    bool
	barAt     analysis.Stage
	dev       string // its device slice's device (deviceName)
	// ops are its operations by host track: its slices there (those of
	// the submission's first kernel only, for a replay).
	ops map[int]*refOp
}

// refOp is a kernel's operation on one host track.
type refOp struct {
	start, end, covered int64
	first               analysis.Stage // its first stage
}

// analyzeTraceRef splits a parsed trace into actors by track name and explains
// each: device utilisation, bubbles and their bottleneck stage, the
// critical path by stage, and the flow-shop prediction of every mode next
// to the measured makespan (medians over runs).
//
// An actor's device track is "<actor> stream 0". Actors that share a
// device, as the parts of a heterogeneous run share the accelerator and the
// host CPU device, have no such track: their kernels' device slices are
// found by flow id on any device stream track, and their device busy time
// is that of their own kernels.
func analyzeTraceRef(p *trace.Parsed, cores int) ([]actorSummary, error) {
	actors := map[string]*actorTrace{}
	get := func(name string) *actorTrace {
		a := actors[name]
		if a == nil {
			a = &actorTrace{name: name, mode: analysis.KBK, stream: -1, kernels: map[uint64]*kernelTrace{}}
			actors[name] = a
		}
		return a
	}
	meta := &traceMeta{}
	exes := map[string]bool{} // heterogeneous executables, by their part tracks
	role := make([]string, len(p.Tracks))
	owner := make([]*actorTrace, len(p.Tracks))
	devTrack := make([]bool, len(p.Tracks)) // any "<prefix> stream N" track
	for i, t := range p.Tracks {
		if t.Kind != trace.SliceTrack {
			continue
		}
		if t.Name == machineTrack {
			role[i] = "machine"
			continue
		}
		if exe, ok := partTrack(t.Name); ok {
			exes[exe] = true
			continue
		}
		name, last, ok := cut(t.Name)
		if ok && strings.HasSuffix(name, " stream") && last != "" && strings.Trim(last, "0123456789") == "" {
			devTrack[i] = true
		}
		switch {
		case !ok:
			continue
		case last == "runner" || last == "infer" || last == "resize" || last == "launch":
			a := get(name)
			role[i], owner[i] = last, a
			a.host = append(a.host, i)
			switch {
			case last == "infer":
				a.mode = analysis.Pipeline
			case last == "launch" && a.mode.Name != "pipeline":
				a.mode = analysis.Async
			}
		case strings.HasPrefix(last, "0") && strings.HasSuffix(name, " stream"):
			a := get(strings.TrimSuffix(name, " stream"))
			if a.stream < 0 {
				role[i], owner[i], a.stream = "device", a, i
			}
		}
	}
	// The stage plan an actor records on its runner track ("plan
	// pipeline/per-tensor 0123") says its mode; traces written before the
	// plan was recorded keep the mode guessed from the track names.
	for _, e := range p.Events {
		if e.Kind == trace.EvInstant && role[e.Track] == "machine" {
			meta.instant(e.Name)
		}
		if e.Kind != trace.EvInstant || role[e.Track] != "runner" || !strings.HasPrefix(e.Name, "plan ") {
			continue
		}
		if m, ok := planMode(strings.TrimPrefix(e.Name, "plan ")); ok {
			owner[e.Track].mode = m
		}
	}
	// Flow ids attach to the slice event just before them on the track.
	// Slices that share a track, a start and a name (zero-length device
	// slices of one op, back to back) keep their own flows: each takes the
	// next of its key's, in the order of the file. (The first in-memory
	// analysis kept one flow per key, so that such kernels lost their
	// device slice.)
	type key struct {
		track int
		ts    int64
		name  string
	}
	// A slice keeps every flow attached to it, in file order: a replay's
	// launch begins the flows of all the kernels it submits.
	flowOf := map[key][][]uint64{}
	last := make([]key, len(p.Tracks))
	hasLast := make([]bool, len(p.Tracks))
	for _, e := range p.Events {
		switch e.Kind {
		case trace.EvSlice, trace.EvBegin:
			k := key{e.Track, e.TS, e.Name}
			last[e.Track], hasLast[e.Track] = k, true
			flowOf[k] = append(flowOf[k], nil)
		case trace.EvFlowBegin, trace.EvFlowStep, trace.EvFlowEnd:
			if hasLast[e.Track] {
				fs := flowOf[last[e.Track]]
				if f := &fs[len(fs)-1]; e.Flow != 0 && !slices.Contains(*f, e.Flow) {
					*f = append(*f, e.Flow)
				}
			}
		}
	}
	// The host slices of each track that a barrier can attach to: a
	// barrier belongs to the stage slice after it on its track when that
	// is an InferShape or a Prepare (the InferShape's wins).
	type hostSlice struct {
		start, end int64
		barrier    bool
		k          *kernelTrace
		stage      analysis.Stage
	}
	byTrack := map[int][]hostSlice{}
	taken := map[key]int{}
	devFlow := map[uint64]trace.Slice{} // kernel flow -> its slice on a device stream track
	for _, s := range p.Slices() {
		sk := key{s.Track, s.Start, s.Name}
		var flows []uint64
		if fs := flowOf[sk]; taken[sk] < len(fs) {
			flows = fs[taken[sk]]
			taken[sk]++
		}
		if devTrack[s.Track] {
			for _, flow := range flows {
				if _, seen := devFlow[flow]; !seen {
					devFlow[flow] = s
				}
			}
		}
		a := owner[s.Track]
		if a == nil {
			continue
		}
		if role[s.Track] == "runner" && s.Name == "run" {
			a.runs = append(a.runs, runTrace{start: s.Start, end: s.End})
			continue
		}
		if s.Name == "barrier" && role[s.Track] != "device" {
			byTrack[s.Track] = append(byTrack[s.Track], hostSlice{start: s.Start, end: s.End, barrier: true})
		}
		if len(flows) == 0 {
			continue // barriers, or slices without a kernel
		}
		st, ok := stageOf[role[s.Track]]
		if i := strings.LastIndexByte(s.Name, ' '); i >= 0 {
			if x, found := stageOf[s.Name[i+1:]]; found {
				st, ok = x, true
			}
		}
		for sub, flow := range flows {
			k := a.kernels[flow]
			if k == nil {
				k = &kernelTrace{flow: flow}
				a.kernels[flow] = k
			}
			if role[s.Track] == "device" {
				k.cost.Device, k.devStart, k.devEnd, k.hasDev = s.Dur(), s.Start, s.End, true
				k.dev = deviceName(p.Tracks[s.Track].Name)
				continue
			}
			if !ok {
				continue
			}
			d := s.Dur()
			if sub > 0 {
				d = 0 // the submission's cost is its first kernel's
			}
			if sub == 0 {
				byTrack[s.Track] = append(byTrack[s.Track], hostSlice{start: s.Start, end: s.End, k: k, stage: st})
				if k.ops == nil {
					k.ops = map[int]*refOp{}
				}
				if o := k.ops[s.Track]; o == nil {
					k.ops[s.Track] = &refOp{start: s.Start, end: s.End, covered: s.Dur(), first: st}
				} else {
					o.start, o.end, o.covered, o.first = min(o.start, s.Start), max(o.end, s.End), o.covered+s.Dur(), min(o.first, st)
				}
			}
			if !k.begun || s.Start < k.begin {
				k.begin, k.begun = s.Start, true
			}
			switch st {
			case analysis.Prepare:
				k.cost.Prepare += d
				k.prepare, k.prepared, k.staged = s.Start, true, true
			case analysis.Infer:
				k.cost.Infer += d
				k.staged = true
			case analysis.Resize:
				k.cost.Resize += d
				k.staged = true
			case analysis.Launch:
				k.cost.Launch += d
				k.launched, k.hasLaunch, k.sub, k.subStart = s.End, true, sub, s.Start
			}
		}
	}
	for _, hs := range byTrack {
		slices.SortStableFunc(hs, func(x, y hostSlice) int { return cmp.Compare(x.start, y.start) })
		var bar *hostSlice
		for i := range hs {
			switch h := &hs[i]; {
			case h.barrier:
				bar = h
			case bar != nil:
				if h.stage == analysis.Infer || h.stage == analysis.Prepare && (!h.k.hasBar || h.k.barAt == analysis.Prepare) {
					h.k.barStart, h.k.barEnd, h.k.hasBar, h.k.barAt = bar.start, bar.end, true, h.stage
				}
				bar = nil
			}
		}
	}
	for _, a := range actors {
		if a.stream >= 0 {
			continue
		}
		for _, k := range a.kernels {
			if s, ok := devFlow[k.flow]; ok {
				k.cost.Device, k.devStart, k.devEnd, k.hasDev = s.Dur(), s.Start, s.End, true
				k.dev = deviceName(p.Tracks[s.Track].Name)
				a.devSlices = append(a.devSlices, analysis.Interval{Start: s.Start, End: s.End})
			}
		}
	}
	// An asynchronous device ran some kernel past the end of its launch;
	// one that never did is taken as synchronous.
	async := map[string]bool{}
	for _, a := range actors {
		for _, k := range a.kernels {
			if k.hasDev && k.hasLaunch && k.staged && k.devEnd > k.launched {
				async[k.dev] = true
			}
		}
	}
	var out []actorSummary
	names := make([]string, 0, len(actors))
	for n := range actors {
		names = append(names, n)
	}
	sort.Strings(names)
	// The medians of each actor's latencies first, as the streaming
	// analysis's passes find them, so that the lanes of submitted steps
	// can take their twin's (laneLatencies).
	medians := map[string]int64{}
	for _, n := range names {
		if a := actors[n]; len(a.runs) > 0 {
			if _, err := summarizeActorRef(p, a, cores, meta, async, medians, false); err != nil {
				return nil, fmt.Errorf("actor %q: %w", a.name, err)
			}
		}
	}
	laneLatencies(medians)
	for _, n := range names {
		a := actors[n]
		if len(a.runs) == 0 {
			continue
		}
		sm, err := summarizeActorRef(p, a, cores, meta, async, medians, true)
		if err != nil {
			return nil, fmt.Errorf("actor %q: %w", a.name, err)
		}
		out = append(out, sm)
	}
	if meta.procs > 0 {
		cores = meta.procs
	}
	shareCores(out, exes, cores)
	return out, nil
}

// summarizeActorRef summarizes actor a. It records the medians of its
// latencies in medians (keyed as the streaming analysis keys them, only
// those it has samples of), or, with use, predicts with those found there.
func summarizeActorRef(p *trace.Parsed, a *actorTrace, cores int, meta *traceMeta, async map[string]bool, medians map[string]int64, use bool) (actorSummary, error) {
	if meta.procs > 0 {
		cores = meta.procs
	}
	sm := actorSummary{name: a.name, mode: a.mode.Name, runs: len(a.runs), predicted: map[string]int64{}, predictedBound: map[string]int64{}, idleBy: map[string]int64{},
		shared: a.stream < 0 && len(a.devSlices) > 0}
	ks := make([]*kernelTrace, 0, len(a.kernels))
	for _, k := range a.kernels {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(x, y *kernelTrace) int { return int(x.flow - y.flow) })
	inRun := map[*kernelTrace]bool{}
	for i := range a.runs {
		a.runs[i].kernels = nil // a second call finds them again
	}
	for _, k := range ks {
		// A kernel's prepare places it in a run; one without (a replay's
		// kernel, or one whose replay fell back after its prepare) its
		// first host slice.
		at, ok := k.prepare, k.prepared
		if !ok {
			at, ok = k.begin, k.begun
		}
		for i := range a.runs {
			if r := &a.runs[i]; ok && at >= r.start && at <= r.end {
				r.kernels = append(r.kernels, k)
				inRun[k] = true
				break
			}
		}
	}
	// The latency: over the kernels that did not start on the device
	// behind the run kernel before them (flow order). A replay's kernels
	// give its device rate instead: the first of a submission its start
	// after the submission began, the others theirs after the kernel
	// before.
	var lat, first, next, gaps []int64
	lastDevEnd := int64(math.MinInt64)
	var prev *kernelTrace
	for _, k := range ks {
		// busy: the device was still running an earlier kernel of the run
		// when k was handed to it; behind: it started no later than the
		// kernel before it ended.
		busy, behind := false, false
		replayed := k.hasLaunch && !k.staged
		p := prev
		gap := int64(0)
		if inRun[k] && k.hasDev {
			handed := k.launched
			if replayed {
				handed = k.subStart
			}
			busy, behind = handed < lastDevEnd, k.devStart <= lastDevEnd
			if busy {
				gap = k.devStart - lastDevEnd
			}
			lastDevEnd = max(lastDevEnd, k.devEnd)
			prev = k
		}
		switch {
		case !k.hasDev:
			sm.unmatched++
		case !k.hasLaunch:
		case replayed:
			switch {
			case !inRun[k]:
			case k.sub == 0:
				if !busy {
					first = append(first, k.devStart-k.subStart)
				}
			case !behind && p != nil && !p.staged && p.hasLaunch && p.subStart == k.subStart && p.sub == k.sub-1:
				next = append(next, k.devStart-p.devStart)
			}
		default:
			if k.devEnd <= k.launched && !async[k.dev] {
				// A synchronous device (the host CPU) ran the kernel
				// inside the launch call: the launch stage already holds
				// its time.
				k.cost.Device = 0
			}
			switch {
			case busy:
				if gap >= 0 {
					gaps = append(gaps, gap)
				}
			case behind:
			default:
				lat = append(lat, k.devStart-k.launched)
			}
		}
	}
	med := func(v []int64) int64 {
		if len(v) == 0 {
			return 0
		}
		slices.Sort(v)
		return max(v[len(v)/2], 0)
	}
	sm.latency = 0
	if len(lat) > 0 {
		slices.Sort(lat)
		sm.latency = lat[len(lat)/2] // may be negative, unlike the device's rates
	}
	wakes := wakesRef(p, a, cores)
	mc := analysis.Machine{LaunchLatency: sm.latency, Cores: cores, Handoff: meta.handoff, Spin: meta.spin, Step: meta.step, QueueCapacity: meta.queueCap,
		ReplayFirst: med(first), ReplayNext: med(next), DeviceGap: med(gaps), Wake: med(wakes)}
	fields := [len(latencyKeys)]*int64{&mc.LaunchLatency, &mc.ReplayFirst, &mc.ReplayNext, &mc.DeviceGap, &mc.Wake}
	for i, n := range [len(latencyKeys)][]int64{lat, first, next, gaps, wakes} {
		if use {
			*fields[i] = medians[a.name+latencyKeys[i]]
		} else if len(n) > 0 {
			medians[a.name+latencyKeys[i]] = *fields[i]
		}
	}
	if !use {
		return sm, nil
	}
	sm.latency, sm.wake = mc.LaunchLatency, mc.Wake
	// Device and host busy intervals, for utilisation and bubbles.
	busy := map[int][]analysis.Interval{}
	for _, s := range p.Slices() {
		if (s.Track == a.stream || slices.Contains(a.host, s.Track)) && s.Name != "run" && s.Name != "barrier" {
			busy[s.Track] = append(busy[s.Track], analysis.Interval{Start: s.Start, End: s.End})
		}
	}
	var measured []int64
	var terms [numTerms][]int64
	predBound := map[string][]int64{}
	pred := map[string][]int64{}
	var devBusy, span int64
	var idles, bubbles []int64
	for _, r := range a.runs {
		measured = append(measured, r.end-r.start)
		if len(r.kernels) == 0 {
			continue
		}
		cost := make([]analysis.Kernel, len(r.kernels))
		first, last := r.kernels[0].begin, int64(math.MinInt64)
		launched := int64(math.MinInt64)
		for i, k := range r.kernels {
			cost[i] = k.cost
			if cost[i].Replayed = k.hasLaunch && !k.staged; cost[i].Replayed && i > 0 && cost[i-1].Replayed {
				cost[i].Submission = k.sub
			}
			if tr := meta.traceOf(a.mode); tr > 0 {
				untrace(&cost[i], tr)
			}
			cost[i].Barrier = barrierRef(r.kernels, i)
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
		if last == math.MinInt64 {
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
				return sm, err
			}
			pred[m.Name] = append(pred[m.Name], pr.Makespan+fixed)
			hostBound := pr.HostWork
			if cores > 0 {
				hostBound = (pr.HostWork + int64(cores) - 1) / int64(cores)
			}
			predBound[m.Name] = append(predBound[m.Name], max(pr.DeviceBusy, pr.Busiest, hostBound)+fixed)
			if m.Name == a.mode.Name && a.stream < 0 {
				sm.parts = append(sm.parts, partRun{start: r.start, alone: pr.Makespan + fixed, cpu: pr.HostWork - pr.BarrierCost})
			}
			if m.Name == a.mode.Name {
				before, after := max(first-r.start, 0), max(r.end-last, 0)
				sm.steps = append(sm.steps, stepRun{start: r.start, end: r.end, launched: launched, alone: pr.Makespan + fixed, host: before + pr.HostEnd, dev: pr.DeviceSpan, after: after})
				for i, v := range termsRef(r.kernels, mc, pr) {
					terms[i] = append(terms[i], v)
				}
			}
		}
		cp, err := analysis.CriticalPath(cost, a.mode, mc)
		if err != nil {
			return sm, err
		}
		addPath(&sm.path, cp)
		in := func(ivs []analysis.Interval) []analysis.Interval {
			var o []analysis.Interval
			for _, iv := range ivs {
				if iv.Start >= r.start && iv.Start < r.end {
					o = append(o, iv)
				}
			}
			return o
		}
		dev := in(busy[a.stream])
		if a.stream < 0 {
			dev = in(a.devSlices)
		}
		var stages []analysis.Busy
		for _, h := range a.host {
			stages = append(stages, analysis.Busy{Name: p.Tracks[h].Name, Intervals: in(busy[h])})
		}
		for _, iv := range dev {
			devBusy += iv.Len()
		}
		span += r.end - r.start
		var runIdle, runBubbles int64
		for _, b := range analysis.Bubbles(dev, stages) {
			runBubbles++
			runIdle += b.Len()
			who := b.Bottleneck
			if who == "" {
				who = "(no host stage busy)"
			} else {
				_, who, _ = cut(who)
			}
			sm.idleBy[who] += b.Len()
		}
		idles, bubbles = append(idles, runIdle), append(bubbles, runBubbles)
	}
	sm.measured = median(measured)
	sm.idle, sm.bubbles = median(idles), int(median(bubbles))
	for m, v := range pred {
		sm.predicted[m] = median(v)
	}
	for i, v := range terms {
		sm.unexplained[i] = median(v)
	}
	for m, v := range predBound {
		sm.predictedBound[m] = median(v)
	}
	if span > 0 {
		sm.deviceUtil = float64(devBusy) / float64(span)
	}
	return sm, nil
}

// termsRef is unexplainedTerms' reference, from the kernels' operations
// track by track: an operation is ready when the kernel's operation of the
// stage before (on another track) and the track's operation of the kernel
// before ended, and the kernel's barrier if it holds a stage of it; a
// replay's submission starts the tracks afresh.
func termsRef(ks []*kernelTrace, mc analysis.Machine, pr analysis.Prediction) terms {
	var t terms
	last := map[int]int64{} // each track's last operation's end
	var prevDev int64
	devSeen := false
	for i, k := range ks {
		if k.hasBar {
			t[termBarriers] += k.barEnd - k.barStart
		}
		replayed := k.hasLaunch && !k.staged
		if !replayed {
			tracks := slices.Collect(maps.Keys(k.ops))
			slices.SortFunc(tracks, func(a, b int) int { return cmp.Compare(k.ops[a].first, k.ops[b].first) })
			for j, tr := range tracks {
				o := k.ops[tr]
				t[termHostGaps] += max(o.end-o.start-o.covered, 0)
				var ready []int64
				if j > 0 {
					ready = append(ready, k.ops[tracks[j-1]].end)
				}
				if e, ok := last[tr]; ok {
					ready = append(ready, e)
				}
				holds := j+1 < len(tracks) && k.ops[tracks[j+1]].first > k.barAt || j+1 == len(tracks)
				if k.hasBar && o.first <= k.barAt && holds {
					ready = append(ready, k.barEnd)
				}
				if len(ready) > 0 && (i > 0 || j > 0) {
					t[termHostGaps] += max(o.start-slices.Max(ready), 0)
				}
				last[tr] = o.end
			}
			if k.hasDev && k.hasLaunch {
				earliest := max(k.launched+mc.LaunchLatency, k.launched-k.cost.Launch)
				if devSeen {
					earliest = max(earliest, prevDev+mc.DeviceGap)
				}
				t[termDeviceStarts] += k.devStart - earliest
			}
		} else {
			clear(last)
		}
		if k.hasDev {
			prevDev, devSeen = k.devEnd, true
		}
	}
	t[termHostGaps] -= pr.HostGap + pr.Steps + pr.Wake
	t[termBarriers] -= pr.BarrierWait + pr.BarrierCost
	return t
}

// wakesRef is wakeSamples' reference, over the actor's runs: in each, for
// each kernel not replayed, each operation (a track's slices of the
// kernel) after the kernel's first, on the worker after the one of the
// operation before, whose track had ended its operation of
// the kernel before (or had none) by the end of the kernel's operation
// before, and that its barrier did not hold, the time between the two
// when fewer than cores of the actor's other host tracks had a slice of
// the run in between. A replay's submission holds its track until its
// launch ends.
func wakesRef(p *trace.Parsed, a *actorTrace, cores int) []int64 {
	// The worker of each stage, numbered in stage order: a track's
	// operation and the one before it cross one boundary only when their
	// first stages' workers are consecutive.
	var worker [analysis.NumStages]int
	for s := 1; s < analysis.NumStages; s++ {
		worker[s] = worker[s-1]
		if a.mode.Worker[s] != a.mode.Worker[s-1] {
			worker[s]++
		}
	}
	busy := map[int][]analysis.Interval{}
	for _, s := range p.Slices() {
		if slices.Contains(a.host, s.Track) && s.Name != "run" && s.Name != "barrier" {
			busy[s.Track] = append(busy[s.Track], analysis.Interval{Start: s.Start, End: s.End})
		}
	}
	var wakes []int64
	for _, r := range a.runs {
		inRun := map[int][]analysis.Interval{}
		for tr, ivs := range busy {
			for _, iv := range ivs {
				if iv.Start >= r.start && iv.Start < r.end {
					inRun[tr] = append(inRun[tr], iv)
				}
			}
		}
		others := func(skip int, from, to int64) int {
			n := 0
			for tr, ivs := range inRun {
				if tr == skip {
					continue
				}
				for _, iv := range ivs {
					if iv.Start < to && iv.End > from {
						n++
						break
					}
				}
			}
			return n
		}
		last := map[int]int64{}
		for _, k := range r.kernels {
			if k.hasLaunch && !k.staged {
				for tr, o := range k.ops { // the submission's launch, on its first kernel
					if e, ok := last[tr]; !ok || o.end > e {
						last[tr] = o.end
					}
				}
				continue
			}
			tracks := slices.Collect(maps.Keys(k.ops))
			slices.SortFunc(tracks, func(a, b int) int { return cmp.Compare(k.ops[a].first, k.ops[b].first) })
			for j, tr := range tracks {
				o := k.ops[tr]
				holds := j+1 < len(tracks) && k.ops[tracks[j+1]].first > k.barAt || j+1 == len(tracks)
				held := k.hasBar && o.first <= k.barAt && holds
				if j > 0 && !held && worker[o.first-1] == worker[k.ops[tracks[j-1]].first-1]+1 {
					h := k.ops[tracks[j-1]].end
					if e, ok := last[tr]; (!ok || e < h) && o.start >= h && others(tr, h, o.start) < cores {
						wakes = append(wakes, o.start-h)
					}
				}
				last[tr] = o.end
			}
		}
	}
	return wakes
}

// barrierRef is barrierOf's reference: the producer is the last kernel
// before i, in kernel order, whose device execution had ended by the end of
// the barrier, if it ended inside it; the cost is what follows that end
// (all of the barrier when no such kernel ended inside it).
func barrierRef(ks []*kernelTrace, i int) analysis.Barrier {
	k := ks[i]
	if !k.hasBar {
		return analysis.Barrier{}
	}
	done := -1
	for j := range i {
		if p := ks[j]; p.hasDev && p.devEnd <= k.barEnd {
			done = j
		}
	}
	if done >= 0 && ks[done].devEnd > k.barStart {
		return analysis.Barrier{On: true, At: k.barAt, Producer: done, Cost: k.barEnd - ks[done].devEnd}
	}
	return analysis.Barrier{On: true, At: k.barAt, Producer: -1, Cost: k.barEnd - k.barStart}
}
