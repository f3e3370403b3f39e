package analysis

import (
	"math/rand/v2"
	"testing"
)

func TestCriticalPathHandComputed(t *testing.T) {
	// Two kernels in the pipeline, infer dominates: the path runs through
	// kernel 0's prepare, both infers, kernel 1's resize and launch, the
	// latency and kernel 1's device time.
	ks := []Kernel{
		{Prepare: 1, Infer: 10, Resize: 2, Launch: 3, Device: 4},
		{Prepare: 1, Infer: 10, Resize: 2, Launch: 3, Device: 4},
	}
	p, err := CriticalPath(ks, Pipeline, Machine{LaunchLatency: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := Path{Stage: [NumStages]int64{1, 20, 2, 3}, Device: 4, Latency: 5}
	if p != want {
		t.Fatalf("path %+v, want %+v", p, want)
	}
	// The device takes each kernel 3 into its launch of 4: kernel 0's
	// device runs at 2–5, kernel 1's at 7–10, as its launch ends. The
	// path: both prepares, kernel 0's launch, kernel 1's launch up to the
	// device's start (1) and its device time.
	ks = []Kernel{{Prepare: 1, Launch: 4, Device: 3}, {Prepare: 1, Launch: 4, Device: 3}}
	p, _ = CriticalPath(ks, KBK, Machine{LaunchLatency: -3})
	if want := (Path{Stage: [NumStages]int64{2, 0, 0, 5}, Device: 3}); p != want {
		t.Fatalf("negative latency: path %+v, want %+v", p, want)
	}
	// A device faster than the launch: the run ends with the host's
	// launch, the path is the host's.
	ks = []Kernel{{Prepare: 1, Launch: 4, Device: 1}, {Prepare: 1, Launch: 4, Device: 1}}
	p, _ = CriticalPath(ks, KBK, Machine{LaunchLatency: -3})
	if want := (Path{Stage: [NumStages]int64{2, 0, 0, 8}}); p != want {
		t.Fatalf("negative latency, short device: path %+v, want %+v", p, want)
	}
	// Device-bound: the path is the device chain after the first launch.
	ks = []Kernel{{Prepare: 1, Launch: 1, Device: 100}, {Prepare: 1, Launch: 1, Device: 100}}
	p, _ = CriticalPath(ks, KBK, Machine{})
	if want := (Path{Stage: [NumStages]int64{1, 0, 0, 1}, Device: 200}); p != want {
		t.Fatalf("device-bound path %+v, want %+v", p, want)
	}
}

func TestCriticalPathLengthIsFlowShopMakespan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 500; trial++ {
		ks := randomKernels(rng, 1+rng.IntN(30))
		mc := Machine{LaunchLatency: rng.Int64N(20) - 10}
		if trial%2 == 1 {
			replays(rng, ks)
			mc.ReplayFirst, mc.ReplayNext = rng.Int64N(10), rng.Int64N(5)
		}
		if trial%3 == 0 {
			mc.DeviceGap = rng.Int64N(4)
		}
		for _, m := range []Mode{KBK, Async, Pipeline} {
			pathIsFlowShop(t, trial, ks, m, mc)
		}
	}
}

// randomKernels returns n kernels with random stage costs (under 20 ns)
// and device times (under 60 ns), and nothing else.
func randomKernels(rng *rand.Rand, n int) []Kernel {
	ks := make([]Kernel, n)
	for i := range ks {
		ks[i] = Kernel{Prepare: rng.Int64N(20), Infer: rng.Int64N(20), Resize: rng.Int64N(20), Launch: rng.Int64N(20), Device: rng.Int64N(60)}
	}
	return ks
}

// pathIsFlowShop checks that the critical path of ks in mode m on mc adds
// up to Predict's flow-shop makespan and has no negative part.
func pathIsFlowShop(t *testing.T, trial int, ks []Kernel, m Mode, mc Machine) {
	t.Helper()
	pr, err := Predict(ks, m, mc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := CriticalPath(ks, m, mc)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total() != pr.FlowShop {
		t.Fatalf("trial %d %s drain %v: path %d (%+v), flow shop %d", trial, m.Name, m.Drain, p.Total(), p, pr.FlowShop)
	}
	for _, v := range append(p.Stage[:], p.Device, p.Latency, p.Handoff, p.Step, p.Barrier) {
		if v < 0 {
			t.Fatalf("trial %d %s drain %v, latency %d: negative part of the path %+v", trial, m.Name, m.Drain, mc.LaunchLatency, p)
		}
	}
}

// TestCriticalPathCountsEveryTerm: with hand-offs, wake-ups, steps, the device's gap,
// barriers of both policies and replays, the path still adds up to the
// flow-shop makespan Predict gives, and no part of it is negative.
func TestCriticalPathCountsEveryTerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 2000; trial++ {
		ks := randomKernels(rng, 1+rng.IntN(30))
		mc := Machine{LaunchLatency: rng.Int64N(20) - 10, Handoff: rng.Int64N(6), Step: rng.Int64N(6), DeviceGap: rng.Int64N(4), Wake: rng.Int64N(5)}
		if trial%2 == 1 {
			replays(rng, ks)
			mc.ReplayFirst, mc.ReplayNext = rng.Int64N(10), rng.Int64N(5)
		}
		for i := 1; i < len(ks); i++ {
			if rng.IntN(3) == 0 {
				at := []Stage{0, Infer, Prepare}[rng.IntN(3)]
				ks[i].Barrier = Barrier{On: true, At: at, Producer: rng.IntN(i+1) - 1, Cost: rng.Int64N(10)}
			}
		}
		for _, m := range []Mode{KBK, Async, Pipeline, {Name: "x", Worker: [NumStages]int{0, 1, 1, 2}}} {
			for _, drain := range []bool{false, true} {
				m.Drain = drain
				pathIsFlowShop(t, trial, ks, m, mc)
			}
		}
	}
}

// TestCriticalPathThroughABarrier: a kernel whose barrier its producer's
// long device execution releases continues the path from that execution,
// and the path carries the hand-offs, the steps and the barrier's work.
func TestCriticalPathThroughABarrier(t *testing.T) {
	ks := []Kernel{
		{Prepare: 1, Infer: 1, Resize: 1, Launch: 1, Device: 100},
		{Prepare: 1, Infer: 1, Resize: 1, Launch: 1, Device: 1, Barrier: Barrier{On: true, At: Infer, Producer: 0, Cost: 5}},
	}
	mc := Machine{Handoff: 2, Step: 3}
	p, err := CriticalPath(ks, Pipeline, mc)
	if err != nil {
		t.Fatal(err)
	}
	// Kernel 0's four operations (a step, three hand-offs) and its device
	// execution, then kernel 1's barrier work and its infer, resize and
	// launch (each after a hand-off), and its device execution.
	want := Path{Stage: [NumStages]int64{1, 2, 2, 2}, Device: 101, Handoff: 12, Step: 3, Barrier: 5}
	if p != want {
		t.Errorf("path %+v, want %+v", p, want)
	}
	if pr, _ := Predict(ks, Pipeline, mc); p.Total() != pr.FlowShop {
		t.Errorf("path %d, flow shop %d", p.Total(), pr.FlowShop)
	}
}
