package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSharedFlowShopByHand: async on one core, two kernels of 2 ns on each
// worker: kernel 0's first operation runs at 0–2; at 2 kernel 1's first
// and kernel 0's launch are ready, and the later worker's goes first
// (2–4), then kernel 1's first (4–6) and its launch (6–8).
func TestSharedFlowShopByHand(t *testing.T) {
	ks := repeat(Kernel{Prepare: 2, Launch: 2}, 2)
	mach, nm, err := Async.machines()
	if err != nil {
		t.Fatal(err)
	}
	got := sharedFlowShop(ks, Async, mach, nm, Machine{Cores: 1}, 1)
	if got.makespan != 8 {
		t.Errorf("makespan %g, want 8", got.makespan)
	}
	p, err := Predict(ks, Async, Machine{Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Shared != 8 || p.Makespan != 8 {
		t.Errorf("Predict %+v, want Shared and Makespan 8", p)
	}
}

// TestSharedFlowShopWithEveryCore: with a core for every worker and
// unbounded queues, the simulation is the flow-shop recurrence, barriers,
// hand-offs, replays and the device's gap included.
func TestSharedFlowShopWithEveryCore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	modes := []Mode{KBK, Async, Pipeline, {Name: "b", Worker: [NumStages]int{5, 5, 2, 9}}}
	for trial := range 2000 {
		ks := make([]Kernel, 1+rng.IntN(25))
		for i := range ks {
			ks[i] = Kernel{Prepare: rng.Int64N(20), Infer: rng.Int64N(20), Resize: rng.Int64N(20), Launch: rng.Int64N(20), Device: rng.Int64N(60)}
			if i > 0 && rng.IntN(4) == 0 {
				ks[i].Barrier = Barrier{On: true, At: []Stage{Infer, Prepare}[rng.IntN(2)], Producer: rng.IntN(i+1) - 1, Cost: rng.Int64N(10)}
			}
		}
		if trial%2 == 1 {
			replays(rng, ks)
		}
		m := modes[rng.IntN(len(modes))]
		m.Drain = rng.IntN(2) == 0
		mc := Machine{LaunchLatency: rng.Int64N(20) - 10, Handoff: rng.Int64N(3), Step: rng.Int64N(3), Spin: rng.Int64N(3), Wake: rng.Int64N(4), ReplayFirst: rng.Int64N(5), ReplayNext: rng.Int64N(3), DeviceGap: rng.Int64N(3)}
		mach, nm, err := m.machines()
		if err != nil {
			t.Fatal(err)
		}
		mc.Cores = nm
		want := flowShop(ks, m, mach, nm, mc, 1)
		got := sharedFlowShop(ks, m, mach, nm, mc, 0)
		if math.Abs(got.makespan-want.makespan) > 1e-6*max(1, want.makespan) {
			t.Fatalf("trial %d, %s drain=%v: simulation %g, recurrence %g", trial, m.Name, m.Drain, got.makespan, want.makespan)
		}
	}
}

// TestSharedFlowShopBounds: on fewer cores, with or without bounded
// queues, the simulation never beats the recurrence (each worker on a core
// of its own) nor the host work over the cores.
func TestSharedFlowShopBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 1000 {
		ks := make([]Kernel, 1+rng.IntN(40))
		var host int64
		for i := range ks {
			ks[i] = Kernel{Prepare: rng.Int64N(20), Infer: rng.Int64N(20), Resize: rng.Int64N(20), Launch: rng.Int64N(20), Device: rng.Int64N(30)}
			host += ks[i].Prepare + ks[i].Infer + ks[i].Resize + ks[i].Launch
		}
		mach, nm, _ := Pipeline.machines()
		mc := Machine{Cores: 1 + rng.IntN(3), QueueCapacity: rng.IntN(4)}
		fs := flowShop(ks, Pipeline, mach, nm, mc, 1)
		sh := sharedFlowShop(ks, Pipeline, mach, nm, mc, 0)
		if sh.makespan < fs.makespan-1e-6 || sh.makespan < float64(host)/float64(mc.Cores)-1e-6 {
			t.Fatalf("trial %d, %d cores, capacity %d: simulation %g below the recurrence %g or the host work %d over the cores",
				trial, mc.Cores, mc.QueueCapacity, sh.makespan, fs.makespan, host)
		}
	}
}

// steppedShare is the reference of sharedFlowShop for kernels without
// barriers or replays and whole-number costs: it advances time a unit at a
// time, gives each core's operation a unit of work, and between units
// starts the operations that can start (the worker before done with the
// kernel, and Machine.Wake past that if the worker was idle then; room in
// the next queue) and hands the free cores to the ready
// operations, the one ready the longest first, the later worker's on a tie.
func steppedShare(ks []Kernel, mach [NumStages]int, nm int, mc Machine) (makespan, gap int64) {
	n := len(ks)
	next := make([]int, nm)
	rem := make([]int64, nm)
	ready := make([]bool, nm)
	since := make([]int64, nm)
	onCore := make([]bool, nm)
	var dev, t int64
	launched := 0
	ended := make([][]int64, n) // by kernel, when each worker ended it
	for i := range ended {
		ended[i] = make([]int64, nm)
	}
	lastEnd := make([]int64, nm)
	done := func(w int) {
		i := next[w]
		ended[i][w], lastEnd[w] = t, t
		next[w]++
		if w == nm-1 {
			dev = max(dev, t+mc.LaunchLatency) + ks[i].Device
			launched++
		}
	}
	for launched < n {
		for changed := true; changed; {
			changed = false
			for w := range nm {
				i := next[w]
				if ready[w] || i >= n || w > 0 && next[w-1] <= i {
					continue
				}
				if w > 0 && mc.Wake > 0 {
					if h := ended[i][w-1]; (next[w] == 0 || lastEnd[w] < h) && t < h+mc.Wake {
						continue
					}
				}
				if c := mc.QueueCapacity; c > 0 && w < nm-1 {
					taken := next[w+1]
					if ready[w+1] {
						taken++
					}
					if i+1-c > taken {
						continue
					}
				}
				var p int64
				for s, c := range ks[i].host() {
					if mach[s] == w {
						p += c
					}
				}
				changed = true
				if p == 0 {
					done(w)
					continue
				}
				ready[w], rem[w], since[w] = true, p, t
			}
		}
		cores := 0
		for w := range nm {
			if onCore[w] {
				cores++
			}
		}
		for cores < mc.Cores {
			pick := -1
			for w := nm - 1; w >= 0; w-- {
				if ready[w] && !onCore[w] && (pick < 0 || since[w] < since[pick]) {
					pick = w
				}
			}
			if pick < 0 {
				break
			}
			onCore[pick] = true
			gap += t - since[pick]
			cores++
		}
		t++
		for w := range nm {
			if onCore[w] {
				if rem[w]--; rem[w] == 0 {
					ready[w], onCore[w] = false, false
					done(w)
				}
			}
		}
	}
	return dev, gap
}

// TestSharedFlowShopMatchesTimeSteps compares the event simulation with
// the time-stepped one on random kernels, on one to three cores, with and
// without bounded queues.
func TestSharedFlowShopMatchesTimeSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	mach, nm, _ := Pipeline.machines()
	for trial := range 2000 {
		ks := make([]Kernel, 1+rng.IntN(12))
		for i := range ks {
			ks[i] = Kernel{Prepare: rng.Int64N(6), Infer: rng.Int64N(6), Resize: rng.Int64N(6), Launch: rng.Int64N(6), Device: rng.Int64N(8)}
		}
		mc := Machine{Cores: 1 + rng.IntN(3), LaunchLatency: rng.Int64N(3), QueueCapacity: rng.IntN(3), Wake: rng.Int64N(3)}
		got := sharedFlowShop(ks, Pipeline, mach, nm, mc, 0)
		if want, gap := steppedShare(ks, mach, nm, mc); got.makespan != float64(want) || got.gap != float64(gap) {
			t.Fatalf("trial %d, %+v: event simulation %g (gaps %g), time steps %d (gaps %d)", trial, mc, got.makespan, got.gap, want, gap)
		}
	}
	ks := repeat(Kernel{Prepare: 1, Infer: 2, Resize: 3, Launch: 4, Device: 1}, 10)
	got := sharedFlowShop(ks, Pipeline, mach, nm, Machine{Cores: 2}, 0)
	if want, gap := steppedShare(ks, mach, nm, Machine{Cores: 2}); got.makespan != float64(want) || want != 54 || got.gap != float64(gap) || gap != 62 {
		t.Errorf("the core-bound case of TestPredictByHand: event simulation %g (gaps %g), time steps %d (gaps %d), want 54 (gaps 62)", got.makespan, got.gap, want, gap)
	}
}
