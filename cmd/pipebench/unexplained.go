package main

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/pipert/pipert/trace/analysis"
)

// The terms a run's prediction may leave unexplained, measured in its trace
// against what the model takes (unexplainedTerms). Each is a sum over the
// run's kernels, not all of it on the critical path, so a term can exceed
// the error of the prediction: it says where the model and the run part,
// not by how much the makespan does.
const (
	// termHostGaps: time a kernel's operation on a worker was ready (its
	// operation on the worker before it, the worker's operation of the
	// kernel before it and its barrier there had ended) but had not
	// begun, plus time between the stages of one operation outside any
	// slice: descheduling, wake-ups, garbage collection, the runtime's
	// own steps. The model counts the runner's calibrated step per kernel
	// (Prediction.Steps), its workers' wake-ups (Prediction.Wake) and the
	// waits for a core of its shared simulation (Prediction.HostGap).
	termHostGaps = iota
	// termDeviceStarts: the device start of each kernel not replayed
	// minus the model's earliest, max(launch end + launch latency (no
	// earlier than the launch began), end of the kernel before + device
	// gap): the spread of the launch path around the medians the model
	// takes. Signed.
	termDeviceStarts
	// termBarriers: the barriers' slices (waits for values and for the
	// queues to drain) minus the model's barrier waits and costs.
	termBarriers
	numTerms
)

var termNames = [numTerms]string{"host gaps", "device starts", "barriers"}

// terms are a run's, or the median of an actor's runs', unexplained terms
// in ns, by term.
type terms [numTerms]int64

// largest returns the term of the largest magnitude and its value; ok is
// false when every term is zero.
func (t terms) largest() (name string, v int64, ok bool) {
	best := -1
	for i, x := range t {
		if x != 0 && (best < 0 || abs64(x) > abs64(t[best])) {
			best = i
		}
	}
	if best < 0 {
		return "", 0, false
	}
	return termNames[best], t[best], true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// workersOf numbers the workers of mode m in stage order: each stage's
// worker, and how many there are.
func workersOf(m analysis.Mode) (mach [analysis.NumStages]int, n int) {
	for s := range analysis.NumStages {
		if s == 0 || m.Worker[s] != m.Worker[s-1] {
			n++
		}
		mach[s] = n - 1
	}
	return mach, n
}

// operation is a kernel's operation on one worker: the extent of its
// stages' slices there (seen: any), their work and the track of the first.
type operation struct {
	start, end, covered int64
	track               *sTrack
	seen                bool
}

// operations returns k's operation on each worker, mach giving each
// stage's (workersOf).
func (k *sKernel) operations(mach [analysis.NumStages]int) [analysis.NumStages]operation {
	var ops [analysis.NumStages]operation
	cost := [analysis.NumStages]int64{k.cost.Prepare, k.cost.Infer, k.cost.Resize, k.cost.Launch}
	for s := range analysis.NumStages {
		sp := k.spans[s]
		if !sp.ok {
			continue
		}
		o := &ops[mach[s]]
		if !o.seen || sp.start < o.start {
			o.start, o.track = sp.start, k.tracks[s]
		}
		if !o.seen || sp.end > o.end {
			o.end = sp.end
		}
		o.covered += cost[s]
		o.seen = true
	}
	return ops
}

// unexplainedTerms measures a run's terms: ks are its kernels in order
// (each with the slices seen of its stages), m its mode, mc the machine
// its prediction took, pr the prediction of its mode.
func unexplainedTerms(ks []*sKernel, m analysis.Mode, mc analysis.Machine, pr analysis.Prediction) terms {
	var t terms
	mach, nm := workersOf(m)
	prevEnd := make([]int64, nm) // the end of each worker's operation of the kernel before
	hasPrev := make([]bool, nm)
	var prevDev int64
	hasPrevDev := false
	for i, k := range ks {
		if k.hasBar {
			t[termBarriers] += k.barEnd - k.barStart
		}
		if k.replayed() {
			if k.hasDev {
				prevDev, hasPrevDev = k.devEnd, true
			}
			clear(hasPrev) // a submission takes the workers' turn
			continue
		}
		ops := k.operations(mach)
		before := -1 // the kernel's worker before w with slices
		for w := range nm {
			o := ops[w]
			if !o.seen {
				continue
			}
			t[termHostGaps] += max(o.end-o.start-o.covered, 0)
			ready, known := int64(0), false
			at := func(v int64) { // no max with the zero value: times may be negative
				if !known || v > ready {
					ready, known = v, true
				}
			}
			if before >= 0 {
				at(ops[before].end)
			}
			if hasPrev[w] {
				at(prevEnd[w])
			}
			if k.hasBar && mach[k.barAt-1] == w {
				at(k.barEnd)
			}
			if known && (i > 0 || before >= 0) {
				t[termHostGaps] += max(o.start-ready, 0)
			}
			prevEnd[w], hasPrev[w] = o.end, true
			before = w
		}
		if k.hasDev && k.hasLaunch {
			earliest := k.launched + max(mc.LaunchLatency, -k.cost.Launch)
			if hasPrevDev {
				earliest = max(earliest, prevDev+mc.DeviceGap)
			}
			t[termDeviceStarts] += k.devStart - earliest
		}
		if k.hasDev {
			prevDev, hasPrevDev = k.devEnd, true
		}
	}
	t[termHostGaps] -= pr.HostGap + pr.Steps + pr.Wake
	t[termBarriers] -= pr.BarrierWait + pr.BarrierCost
	return t
}

// unexplainedTerm is a row's largest unexplained term (JSON
// "unexplained"): its name and its value in ns a repetition.
type unexplainedTerm struct {
	Term string `json:"term"`
	Ns   int64  `json:"ns"`
}

func (u unexplainedTerm) String() string {
	sign, v := "+", u.Ns
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s %s%v", u.Term, sign, us(v))
}

// wakeSamples measures the wake-up time of a run's workers
// (analysis.Machine.Wake): for each kernel not replayed, ks in order, and
// each of its operations handed over from the worker just before, which
// was idle then (its operation of the kernel before, or of the replay's
// submission before, had ended), the time from the end of the operation
// before to this one's start, given to emit. (A kernel with no slice on a
// worker between two crosses several boundaries at once: its time is no
// single wake-up's.) Only hand-offs while a core was free count: fewer than cores of the actor's
// other host tracks were busy at any time in between (with every core
// taken, the wait is the shared flow shop's, Prediction.HostGap). An
// operation its kernel's barrier held, which started when the barrier
// ended, says nothing of the wake-up and is left out. host are the actor's
// host tracks, busy their busy intervals in the run.
func wakeSamples(ks []*sKernel, m analysis.Mode, host []*sTrack, busy map[*sTrack][]analysis.Interval, cores int, emit func(int64)) {
	mach, nm := workersOf(m)
	if nm < 2 {
		return
	}
	hosts := make([]hostReach, len(host))
	for i, t := range host {
		hosts[i] = newHostReach(t, busy[t])
	}
	prevEnd := make([]int64, nm)
	hasPrev := make([]bool, nm)
	for _, k := range ks {
		ops := k.operations(mach)
		if k.replayed() {
			// A submission: its launch holds the last worker, no hand-off.
			for w, o := range ops[:nm] {
				if o.seen && (!hasPrev[w] || o.end > prevEnd[w]) {
					prevEnd[w], hasPrev[w] = o.end, true
				}
			}
			continue
		}
		before := -1
		for w := range nm {
			o := ops[w]
			if !o.seen {
				continue
			}
			held := k.hasBar && mach[k.barAt-1] == w
			if w > 0 && before == w-1 && !held && o.track != ops[before].track && (!hasPrev[w] || prevEnd[w] < ops[before].end) {
				if h := ops[before].end; o.start >= h && othersBusy(hosts, o.track, h, o.start) < cores {
					emit(o.start - h)
				}
			}
			prevEnd[w], hasPrev[w] = o.end, true
			before = w
		}
	}
}

// hostReach is a host track's busy intervals in a run, by start, with
// the latest end of each and all before it.
type hostReach struct {
	t      *sTrack
	start  []int64
	maxEnd []int64
}

func newHostReach(t *sTrack, ivs []analysis.Interval) hostReach {
	v := slices.Clone(ivs)
	slices.SortFunc(v, func(a, b analysis.Interval) int { return cmp.Compare(a.Start, b.Start) })
	h := hostReach{t: t, start: make([]int64, len(v)), maxEnd: make([]int64, len(v))}
	for i, iv := range v {
		h.start[i], h.maxEnd[i] = iv.Start, iv.End
		if i > 0 {
			h.maxEnd[i] = max(iv.End, h.maxEnd[i-1])
		}
	}
	return h
}

// othersBusy counts the host tracks but skip that were busy at some time
// in (from, to).
func othersBusy(hosts []hostReach, skip *sTrack, from, to int64) int {
	n := 0
	for _, h := range hosts {
		if h.t == skip {
			continue
		}
		if i, _ := slices.BinarySearch(h.start, to); i > 0 && h.maxEnd[i-1] > from {
			n++
		}
	}
	return n
}
