package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPredictByHand(t *testing.T) {
	two := []Kernel{
		{Prepare: 1, Infer: 2, Resize: 3, Launch: 4, Device: 5},
		{Prepare: 1, Infer: 2, Resize: 3, Launch: 4, Device: 5},
	}
	cases := []struct {
		name string
		ks   []Kernel
		mode Mode
		mc   Machine
		want Prediction
	}{
		// One worker: host ends at 10 and 20; device 11–16 and 21–26.
		// Core bound: 20/2 + 1 + 5 = 16. The host is done at 20.
		{"kbk", two, KBK, Machine{LaunchLatency: 1, Cores: 2},
			Prediction{Makespan: 26, FlowShop: 26, CoreBound: 16, HostWork: 20, DeviceBusy: 10, DeviceSpan: 10, Busiest: 20, HostEnd: 20}},
		// Worker A (6 a kernel) ends at 6, 12; B (4) at 10, 16; device
		// 11–16, 17–22.
		{"async", two, Async, Machine{LaunchLatency: 1, Cores: 2},
			Prediction{Makespan: 22, FlowShop: 22, CoreBound: 16, HostWork: 20, DeviceBusy: 10, DeviceSpan: 10, Busiest: 12, HostEnd: 16}},
		// Kernel 0 ends its stages at 1, 3, 6, 10; kernel 1 at 2, 5, 9, 14;
		// device 11–16, 16–21.
		// Four workers on two cores: with two kernels no more than two
		// operations ever run at once, so sharing the cores slows none:
		// Shared is the flow shop.
		{"pipeline", two, Pipeline, Machine{LaunchLatency: 1, Cores: 2},
			Prediction{Makespan: 21, FlowShop: 21, CoreBound: 16, Shared: 21, HostWork: 20, DeviceBusy: 10, DeviceSpan: 10, Busiest: 8, HostEnd: 14}},
		// No core count: no core bound.
		{"pipeline, cores unset", two, Pipeline, Machine{LaunchLatency: 1},
			Prediction{Makespan: 21, FlowShop: 21, HostWork: 20, DeviceBusy: 10, DeviceSpan: 10, Busiest: 8, HostEnd: 14}},
		// A long device is the bottleneck: it starts when the first launch
		// ends, at 10, and never idles: 10 + 5*10. Core bound: 50/2 + 0 + 10.
		// Shared: kernel 0's operations run at 0–1, 1–3, 3–6 and 6–10 (at
		// 3 and at 6 the later worker's operation takes the free core
		// first), so the device starts at 10 as in the flow shop. Ready
		// operations wait for a core 17 in all: prepare of kernels 3 and 4
		// (2 and 4), infer of 2, 3 and 4 (1, 3 and 2), resize of 1, 2 and
		// 3 (2, 2 and 1).
		{"device-bound", repeat(Kernel{Prepare: 1, Infer: 2, Resize: 3, Launch: 4, Device: 10}, 5), Pipeline, Machine{Cores: 2},
			Prediction{Makespan: 60, FlowShop: 60, CoreBound: 35, Shared: 60, HostWork: 50, DeviceBusy: 50, DeviceSpan: 50, Busiest: 20, HostEnd: 28, HostGap: 17}},
		// Ten kernels of 10 ns host work on four workers and two cores: the
		// launch worker ends at 10 + 4*9 = 46, the device at 47; the two
		// cores need 100/2 = 50, + 0 + 1. Shared: the event simulation's
		// 54, its operations waiting 62 for a core in all
		// (TestSharedFlowShopMatchesTimeSteps checks both against a
		// simulation in unit time steps): the launch worker falls behind
		// while the others hold the cores and ends on its own.
		{"core-bound", repeat(Kernel{Prepare: 1, Infer: 2, Resize: 3, Launch: 4, Device: 1}, 10), Pipeline, Machine{Cores: 2},
			Prediction{Makespan: 54, FlowShop: 47, CoreBound: 51, Shared: 54, HostWork: 100, DeviceBusy: 10, DeviceSpan: 10, Busiest: 40, HostEnd: 53, HostGap: 62}},
		// A custom mode: prepare+infer on worker 7, resize+launch on 3.
		// Worker 7: 3, 6; worker 3: 10, 17; device (latency 2): 12–17, 19–24.
		// Shared on one core: worker 7 runs kernel 0 at 0–3; at 3 worker
		// 3's kernel 0 and worker 7's kernel 1 are ready, and the later
		// worker's goes first (3–10), then worker 7's (10–13, after
		// waiting 7) and worker 3's kernel 1 (13–20); device 12–17, 22–27.
		{"custom", two, Mode{Name: "two-two", Worker: [NumStages]int{7, 7, 3, 3}}, Machine{LaunchLatency: 2, Cores: 1},
			Prediction{Makespan: 27, FlowShop: 24, CoreBound: 27, Shared: 27, HostWork: 20, DeviceBusy: 10, DeviceSpan: 10, Busiest: 14, HostEnd: 20, HostGap: 7}},
		{"empty", nil, Pipeline, Machine{LaunchLatency: 3, Cores: 2}, Prediction{}},
		// The device takes each kernel 3 into its launch of 4 (latency
		// -3): kernel 0's host 0–5, device 2–5; kernel 1's host 5–10,
		// device 7–10. With a latency of -10 the device takes a kernel
		// when its launch begins (1–3 and 6–8), and the run ends with the
		// host at 10.
		{"negative latency", repeat(Kernel{Prepare: 1, Launch: 4, Device: 3}, 2), KBK, Machine{LaunchLatency: -3},
			Prediction{Makespan: 10, FlowShop: 10, HostWork: 10, DeviceBusy: 6, DeviceSpan: 6, Busiest: 10, HostEnd: 10}},
		// Async, latency -3: kernel 0's launch at 1–5, its device at 2–3;
		// kernel 1's barrier needs kernel 0 completed, its launch returned
		// at 5 (not its device end at 3): kernel 1 at 5–6 and 6–7 (its
		// device no earlier than its launch began, 6–7).
		{"barrier after a launch the device outran", []Kernel{
			{Prepare: 1, Launch: 4, Device: 1},
			{Prepare: 1, Launch: 1, Device: 1, Barrier: Barrier{On: true, At: Infer, Producer: 0}},
		}, Async, Machine{LaunchLatency: -3},
			Prediction{Makespan: 7, FlowShop: 7, HostWork: 7, DeviceBusy: 2, DeviceSpan: 2, Busiest: 5, HostEnd: 7, BarrierWait: 4}},
		// Drain after a replay: kernels 0 and 1 are one submission (its
		// launch at 0–10, their devices 1–2 and 2–3); kernel 2's barrier
		// waits for kernel 1 to complete, its submission's launch returned
		// at 10 (not its device end at 3): kernel 2 at 10–11 and 11–12,
		// its device 12–13.
		{"drain after a replay", []Kernel{
			{Launch: 10, Device: 1, Replayed: true},
			{Device: 1, Replayed: true, Submission: 1},
			{Prepare: 1, Launch: 1, Device: 1, Barrier: Barrier{On: true, At: Infer, Producer: -1}},
		}, Mode{Name: "async", Worker: Async.Worker, Drain: true}, Machine{ReplayFirst: 1, ReplayNext: 1},
			Prediction{Makespan: 13, FlowShop: 13, HostWork: 12, DeviceBusy: 3, DeviceSpan: 3, Busiest: 11, HostEnd: 12, BarrierWait: 10}},
		// A step of 1 before each kernel on the first worker (KBK: its only
		// one): host 0–3 and 3–6, device 3–4 and 6–7.
		{"step", repeat(Kernel{Prepare: 1, Launch: 1, Device: 1}, 2), KBK, Machine{Step: 1},
			Prediction{Makespan: 7, FlowShop: 7, HostWork: 6, DeviceBusy: 2, DeviceSpan: 2, Busiest: 6, HostEnd: 6, Steps: 2}},
		{"latency before the launch", repeat(Kernel{Prepare: 1, Launch: 4, Device: 2}, 2), KBK, Machine{LaunchLatency: -10, Cores: 1},
			Prediction{Makespan: 10, FlowShop: 10, CoreBound: 10, HostWork: 10, DeviceBusy: 4, DeviceSpan: 4, Busiest: 10, HostEnd: 10}},
		// The device-bound case with a gap of 2 between queued kernels:
		// 10 + 5×10 + 4×2.
		{"device gap", repeat(Kernel{Prepare: 1, Infer: 2, Resize: 3, Launch: 4, Device: 10}, 5), Pipeline, Machine{DeviceGap: 2},
			Prediction{Makespan: 68, FlowShop: 68, HostWork: 50, DeviceBusy: 50, DeviceSpan: 60, Busiest: 20, HostEnd: 26}},
		// A replay submits three kernels from the launch worker at 0 (no
		// hand-offs: 5 a boundary is not charged); the device takes them
		// no earlier than 2, 6 and 10 after that, whatever the latency:
		// 2–5, 6–9, 10–11.
		{"replay", []Kernel{
			{Launch: 10, Device: 3, Replayed: true},
			{Device: 3, Replayed: true, Submission: 1},
			{Device: 1, Replayed: true, Submission: 2},
		}, Pipeline, Machine{LaunchLatency: 100, Handoff: 5, ReplayFirst: 2, ReplayNext: 4},
			Prediction{Makespan: 11, FlowShop: 11, HostWork: 10, DeviceBusy: 7, DeviceSpan: 7, Busiest: 10, HostEnd: 10}},
		// A kernel launched on its own after a submission is charged its
		// hand-offs (3 × 5): its infer and resize (5 each) overlap the
		// submission, the launch worker takes it at 10 and ends at 35,
		// the device runs it at 36–37.
		{"replay, then a kernel", []Kernel{
			{Launch: 10, Device: 3, Replayed: true},
			{Launch: 20, Device: 1},
		}, Pipeline, Machine{LaunchLatency: 1, Handoff: 5, ReplayFirst: 2},
			Prediction{Makespan: 37, FlowShop: 37, HostWork: 45, DeviceBusy: 4, DeviceSpan: 4, Busiest: 35, Handoff: 15, HostEnd: 35}},
	}
	for _, c := range cases {
		got, err := Predict(c.ks, c.mode, c.mc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: Predict = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func repeat(k Kernel, n int) []Kernel {
	ks := make([]Kernel, n)
	for i := range ks {
		ks[i] = k
	}
	return ks
}

// TestDeviceSpan: the device's time for kernels that follow other work
// on it: each launched kernel waits the device gap after the one before
// (the first after whatever ran before it), a replay's kernels none.
func TestDeviceSpan(t *testing.T) {
	ks := []Kernel{
		{Launch: 1, Device: 1},
		{Launch: 5, Device: 2, Replayed: true},
		{Device: 3, Replayed: true, Submission: 1},
		{Launch: 1, Device: 4},
	}
	for _, gap := range []int64{0, 3} {
		pr, err := Predict(ks, Pipeline, Machine{DeviceGap: gap, Cores: 2})
		if err != nil {
			t.Fatal(err)
		}
		if want := 10 + 2*gap; pr.DeviceSpan != want || pr.DeviceBusy != 10 {
			t.Errorf("gap %d: span %d and busy %d, want %d and 10", gap, pr.DeviceSpan, pr.DeviceBusy, want)
		}
	}
}

func TestPredictErrors(t *testing.T) {
	ok := []Kernel{{Prepare: 1, Device: 1}}
	for _, c := range []struct {
		name string
		ks   []Kernel
		mode Mode
		mc   Machine
	}{
		{"split worker", ok, Mode{Name: "x", Worker: [NumStages]int{0, 1, 0, 1}}, Machine{}},
		{"negative worker", ok, Mode{Name: "x", Worker: [NumStages]int{0, -1, 1, 1}}, Machine{}},
		{"negative cost", []Kernel{{Resize: -1}}, KBK, Machine{}},
		{"negative device cost", []Kernel{{Device: -1}}, KBK, Machine{}},
		{"negative cores", ok, KBK, Machine{Cores: -2}},
		{"negative step", ok, KBK, Machine{Step: -1}},
		{"negative replay rate", ok, KBK, Machine{ReplayNext: -1}},
		{"negative device gap", ok, KBK, Machine{DeviceGap: -1}},
		{"submission index after a kernel not replayed", []Kernel{{Device: 1}, {Replayed: true, Submission: 1}}, KBK, Machine{}},
		{"submission index of a kernel not replayed", []Kernel{{Replayed: true}, {Submission: 1}}, KBK, Machine{}},
		{"negative submission index", []Kernel{{Replayed: true, Submission: -1}}, KBK, Machine{}},
		// Costs whose sums would overflow int64 nanoseconds.
		{"device cost of MaxInt64", []Kernel{{Device: math.MaxInt64}}, KBK, Machine{}},
		{"stage cost of MaxInt64", []Kernel{{Prepare: math.MaxInt64}, {Prepare: 1}}, Pipeline, Machine{Cores: 2}},
		{"stages adding up past 2^63", []Kernel{{Infer: 1 << 62, Resize: 1 << 62}}, KBK, Machine{}},
		{"a step of 2^61 over four kernels", []Kernel{{}, {}, {}, {}}, Pipeline, Machine{Step: 1 << 61}},
	} {
		if _, err := Predict(c.ks, c.mode, c.mc); err == nil {
			t.Errorf("%s: Predict succeeded", c.name)
		}
	}
}

// simulate is the reference: it plays the kernels stage by stage, each stage
// starting when its worker is free and the kernel's previous stage is done.
// A replay's submission begins when its first kernel's first stage on the
// launch worker starts; the device takes kernel j of it first+j×next later.
// A kernel reaches the device lat after its launch stage ends, but not
// before that stage began; the run ends when the device and the host both
// have.
func simulate(ks []Kernel, m Mode, lat, first, next, gap int64) int64 {
	free := map[int]int64{}
	var dev, sub, hostEnd int64
	for i, k := range ks {
		var prev, launchStart int64
		began := false
		for s, c := range k.host() {
			w := m.Worker[s]
			start := max(free[w], prev)
			if w == m.Worker[Launch-1] && !began {
				began = true
				if k.Replayed && k.Submission == 0 {
					sub = start
				}
			}
			if Stage(s+1) == Launch {
				launchStart = start
			}
			free[w] = start + c
			prev = start + c
		}
		hostEnd = prev
		ready := max(prev+lat, launchStart)
		behind := dev
		if k.Replayed {
			ready = sub + first + int64(k.Submission)*next
		} else if i > 0 {
			behind += gap
		}
		dev = max(behind, ready) + k.Device
	}
	return max(dev, hostEnd)
}

// replays marks random runs of ks as replay submissions: the first kernel
// of each carries the submission's launch, the others no host work.
func replays(rng *rand.Rand, ks []Kernel) {
	for i := 0; i < len(ks); i++ {
		if rng.IntN(4) != 0 {
			continue
		}
		n := 1 + rng.IntN(6)
		for j := 0; j < n && i+j < len(ks); j++ {
			k := &ks[i+j]
			k.Replayed, k.Submission = true, j
			k.Prepare, k.Infer, k.Resize = 0, 0, 0
			if j > 0 {
				k.Launch = 0
			}
		}
		i += n
	}
}

func TestPredictMatchesSimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	modes := []Mode{KBK, Async, Pipeline,
		{Name: "a", Worker: [NumStages]int{0, 1, 1, 1}},
		{Name: "b", Worker: [NumStages]int{5, 5, 2, 9}},
	}
	for trial := range 3000 {
		ks := randomKernels(rng, rng.IntN(30))
		m := modes[rng.IntN(len(modes))]
		lat := rng.Int64N(20) - 10 // negative: the device takes a kernel before its launch call returns
		mc := Machine{LaunchLatency: lat}
		if trial%2 == 1 {
			replays(rng, ks)
			mc.ReplayFirst, mc.ReplayNext = rng.Int64N(10), rng.Int64N(5)
		}
		if trial%3 == 0 {
			mc.DeviceGap = rng.Int64N(4)
		}
		got, err := Predict(ks, m, mc)
		if err != nil {
			t.Fatal(err)
		}
		if want := simulate(ks, m, lat, mc.ReplayFirst, mc.ReplayNext, mc.DeviceGap); got.FlowShop != want || got.Makespan != want {
			t.Fatalf("trial %d, mode %s: Predict = %+v, simulation %d", trial, m.Name, got, want)
		}
		// The device runs the last kernel after the host is done with it.
		if n := len(ks); n > 0 && !ks[n-1].Replayed && got.HostEnd+lat+ks[n-1].Device > got.Makespan || got.HostEnd > got.Makespan {
			t.Fatalf("trial %d, mode %s: host done at %d, makespan %d", trial, m.Name, got.HostEnd, got.Makespan)
		}
		// Pipelining never loses to kernel-by-kernel in this model.
		kbk, _ := Predict(ks, KBK, mc)
		pipe, _ := Predict(ks, Pipeline, mc)
		if pipe.FlowShop > kbk.FlowShop {
			t.Fatalf("trial %d: pipeline %d slower than kbk %d", trial, pipe.FlowShop, kbk.FlowShop)
		}
	}
}

// TestPredictTerms checks the hand-off, spin and barrier terms on kernels
// whose answers are worked out by hand.
func TestPredictTerms(t *testing.T) {
	two := []Kernel{
		{Prepare: 1, Infer: 2, Resize: 3, Launch: 4, Device: 5},
		{Prepare: 1, Infer: 2, Resize: 3, Launch: 4, Device: 5},
	}
	chain := []Kernel{
		{Launch: 1, Device: 10},
		{Launch: 1, Device: 10},
		{Infer: 1, Device: 1, Barrier: Barrier{On: true, Producer: 0, Cost: 2}},
	}
	loose := []Kernel{
		{Launch: 1, Device: 10},
		{Infer: 1, Device: 1, Barrier: Barrier{On: true, Producer: -1, Cost: 2}},
	}
	drain := KBK
	drain.Drain = true
	pipelineDrain := Pipeline
	pipelineDrain.Drain = true
	cases := []struct {
		name string
		ks   []Kernel
		mode Mode
		mc   Machine
		want Prediction
	}{
		// Hand-off 2 on the launch worker: 6 a kernel on each worker.
		// A ends at 6, 12; B at 12, 18; device 13–18, 19–24.
		// Core bound: (20 + 4) / 2 + 1 + 5 = 18.
		{"handoff", two, Async, Machine{LaunchLatency: 1, Cores: 2, Handoff: 2},
			Prediction{Makespan: 24, FlowShop: 24, CoreBound: 18, HostWork: 24, DeviceBusy: 10, DeviceSpan: 10, Busiest: 12, Handoff: 4, HostEnd: 18}},
		// Wake 3, async, two kernels of prepare 2 and launch 2: the
		// launch worker is idle when kernel 0 reaches it at 2 and starts
		// it at 5 (to 7); kernel 1 reaches it at 4, while it is busy, and
		// starts at 7 without a wake-up (to 9).
		{"wake, busy receiver", repeat(Kernel{Prepare: 2, Launch: 2}, 2), Async, Machine{Wake: 3},
			Prediction{Makespan: 9, FlowShop: 9, HostWork: 8, Busiest: 4, Wake: 3, HostEnd: 9}},
		// Prepare 5 and launch 1, wake 2: the launch worker is idle at both
		// hand-offs (5 and 10): 7–8 and 12–13.
		{"wake, idle receiver", repeat(Kernel{Prepare: 5, Launch: 1}, 2), Async, Machine{Wake: 2},
			Prediction{Makespan: 13, FlowShop: 13, HostWork: 12, Busiest: 10, Wake: 4, HostEnd: 13}},
		// Two cores for four workers, pipeline, wake 1, two kernels of 1
		// a stage: kernel 0 runs 0–1, 2–3, 4–5, 6–7 (each worker idle at
		// its hand-off); kernel 1 runs 1–2, then 3–4, 5–6 and 7–8, each
		// worker still busy with kernel 0 when kernel 1 reached it. The
		// shared simulation gives the same: never more than two
		// operations at once.
		{"wake, pipeline", repeat(Kernel{Prepare: 1, Infer: 1, Resize: 1, Launch: 1}, 2), Pipeline, Machine{Cores: 2, Wake: 1},
			Prediction{Makespan: 8, FlowShop: 8, CoreBound: 4, Shared: 8, HostWork: 8, Busiest: 2, Wake: 3, HostEnd: 8}},
		// Spin 1 a kernel on three of four workers (all but the launch
		// worker, the busiest), two kernels: 6 more CPU. The operations
		// take 2, 3, 4 and 4; never more than two at once: kernel 0 ends
		// them at 2, 5, 9, 13, kernel 1 at 4, 8, 13, 17; device 14–19,
		// 19–24. Core bound: 26 / 2 + 1 + 5 = 19.
		{"spin", two, Pipeline, Machine{LaunchLatency: 1, Cores: 2, Spin: 1},
			Prediction{Makespan: 24, FlowShop: 21, CoreBound: 19, Shared: 24, HostWork: 20, DeviceBusy: 10, DeviceSpan: 10, Busiest: 8, Spin: 6, HostEnd: 17}},
		// Spin costs nothing when every worker has a core.
		{"spin, enough cores", two, Pipeline, Machine{LaunchLatency: 1, Cores: 4, Spin: 1},
			Prediction{Makespan: 21, FlowShop: 21, CoreBound: 11, HostWork: 20, DeviceBusy: 10, DeviceSpan: 10, Busiest: 8, HostEnd: 14}},
		// Per-tensor: kernel 2 waits for kernel 0's completion at 11 (it
		// was ready at 2), stages its value until 13, infers until 14;
		// the device is busy with kernel 1 until 21: 21–22.
		{"per-tensor barrier", chain, KBK, Machine{},
			Prediction{Makespan: 22, FlowShop: 22, HostWork: 5, DeviceBusy: 21, DeviceSpan: 21, Busiest: 5, BarrierCost: 2, BarrierWait: 9, HostEnd: 14}},
		// Drain: kernel 2 waits for the device to be idle, at 21: it
		// stages until 23, infers until 24, runs 24–25.
		{"drain barrier", chain, drain, Machine{},
			Prediction{Makespan: 25, FlowShop: 25, HostWork: 5, DeviceBusy: 21, DeviceSpan: 21, Busiest: 5, BarrierCost: 2, BarrierWait: 19, HostEnd: 24}},
		// A barrier whose producer was done costs only its staging: kernel
		// 1's infer ends at 1 + 2 + 1 = 4, the device is busy until 11.
		{"barrier without a wait", loose, KBK, Machine{},
			Prediction{Makespan: 12, FlowShop: 12, HostWork: 4, DeviceBusy: 11, DeviceSpan: 11, Busiest: 4, BarrierCost: 2, HostEnd: 4}},
		// In a pipeline the barrier holds the infer worker only: kernel 1
		// waits there for kernel 0's completion at 11, stages until 13,
		// infers until 14, is launched at 14 (hand-offs free), runs 14–15.
		{"pipeline per-tensor barrier", []Kernel{chain[0], {Infer: 1, Device: 1, Barrier: Barrier{On: true, Producer: 0, Cost: 2}}}, Pipeline, Machine{},
			Prediction{Makespan: 15, FlowShop: 15, HostWork: 4, DeviceBusy: 11, DeviceSpan: 11, Busiest: 3, BarrierCost: 2, BarrierWait: 11, HostEnd: 14}},
		// The runner's drain before a Prepare: kernel 1's prepare waits
		// for the idle device at 11, stages until 13, prepares until 14;
		// infer 14–15, launched at 15, runs 15–16. (At Infer it would have
		// prepared at 0–1 and run 14–15.)
		{"pipeline drain before prepare", []Kernel{chain[0], {Prepare: 1, Infer: 1, Device: 1, Barrier: Barrier{On: true, At: Prepare, Producer: -1, Cost: 2}}}, pipelineDrain, Machine{},
			Prediction{Makespan: 16, FlowShop: 16, HostWork: 5, DeviceBusy: 11, DeviceSpan: 11, Busiest: 3, BarrierCost: 2, BarrierWait: 11, HostEnd: 15}},
		{"pipeline drain before infer", []Kernel{chain[0], {Prepare: 1, Infer: 1, Device: 1, Barrier: Barrier{On: true, Producer: -1, Cost: 2}}}, pipelineDrain, Machine{},
			Prediction{Makespan: 15, FlowShop: 15, HostWork: 5, DeviceBusy: 11, DeviceSpan: 11, Busiest: 3, BarrierCost: 2, BarrierWait: 10, HostEnd: 14}},
	}
	for _, c := range cases {
		got, err := Predict(c.ks, c.mode, c.mc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
	if _, err := Predict([]Kernel{{Barrier: Barrier{On: true, Producer: 0}}}, KBK, Machine{}); err == nil {
		t.Errorf("a barrier on its own kernel: no error")
	}
	if _, err := Predict([]Kernel{{Barrier: Barrier{On: true, At: Resize, Producer: -1}}}, KBK, Machine{}); err == nil {
		t.Errorf("a barrier before Resize: no error")
	}
	if _, err := Predict(two, KBK, Machine{Spin: -1}); err == nil {
		t.Errorf("negative spin: no error")
	}
}
