package trace

import "math/rand/v2"

// workload records synthetic kernels the way the runtime traces them: a
// runner prepares each kernel, Infer, Resize and Launch stage workers follow
// in a pipeline, and the device stream runs it at a modeled time, later than
// its launch. One flow joins a kernel's five slices. The Launch worker
// samples the Launch queue's depth and the device memory in use; the device
// track samples its utilisation every 64 kernels.
type workload struct {
	stages [4]*Track // prepare (runner), infer, resize, launch
	stream *Track
	depth  *Track // int counter
	mem    *Track // int counter
	util   *Track // float counter

	stageNames [4]Name
	ops        []Name

	rng     *rand.Rand
	stageAt [4]int64 // when each stage worker is next free
	devAt   int64    // when the stream is next free
	memUse  int64
	busy    int64 // device busy time since the last utilisation sample
	since   int64 // start of the current utilisation window
	kernels uint64
}

const (
	workloadStart   = int64(1_500_000_000) // the runtime clock 1.5 s after start
	launchLatency   = 2_000
	utilisationEach = 64
)

func newWorkload(r *Recorder, seed uint64) *workload {
	w := &workload{rng: rand.New(rand.NewPCG(seed, 1))}
	for i, n := range []string{"runner", "infer", "resize", "launch"} {
		w.stages[i] = r.Track(n, SliceTrack, Host)
		w.stageNames[i] = r.Intern([]string{"prepare", "infer", "resize", "launch"}[i])
	}
	w.stream = r.Track("stream 0", SliceTrack, Device)
	w.depth = r.Track("launch queue depth", CounterTrack, Host)
	w.mem = r.Track("device memory", CounterTrack, Device)
	w.util = r.Track("device utilisation", CounterTrack, Device)
	for _, op := range []string{"MatMul", "Add", "Relu", "Softmax", "LayerNorm", "Reshape", "Gather", "Concat"} {
		w.ops = append(w.ops, r.Intern(op))
	}
	for i := range w.stageAt {
		w.stageAt[i] = workloadStart
	}
	w.devAt, w.since = workloadStart, workloadStart
	return w
}

// kernel records one more kernel.
func (w *workload) kernel() {
	w.kernels++
	id := w.kernels
	prev := int64(0) // end of the kernel's previous stage
	for s, t := range w.stages {
		start := max(w.stageAt[s], prev)
		dur := int64(500 + w.rng.IntN(4_500))
		t.Slice(start, dur, w.stageNames[s])
		if s == 0 {
			t.FlowBegin(id)
		} else {
			t.FlowStep(id)
		}
		prev = start + dur
		w.stageAt[s] = prev + int64(w.rng.IntN(200))
		if s == 3 {
			w.depth.Counter(start, int64(w.rng.IntN(64)))
			w.memUse += int64(w.rng.IntN(1<<20)) - (1 << 19)
			w.memUse = max(w.memUse, 0)
			w.mem.Counter(start, w.memUse)
		}
	}
	start := max(prev+launchLatency, w.devAt)
	dur := int64(1_000 + w.rng.IntN(19_000))
	w.stream.Slice(start, dur, w.ops[w.rng.IntN(len(w.ops))])
	w.stream.FlowEnd(id)
	w.devAt = start + dur
	w.busy += dur
	if id%utilisationEach == 0 {
		w.util.CounterFloat(w.devAt, float64(w.busy)/float64(w.devAt-w.since))
		w.busy, w.since = 0, w.devAt
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 2)) }
