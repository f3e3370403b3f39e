package main

import (
	"testing"

	"github.com/pipert/pipert/trace/analysis"
)

// termKernel is a kernel whose host stages (prepare, infer, resize,
// launch) ran over the given intervals ({0, 0}: no slice), with its device
// execution over dev ({0, 0}: none).
func termKernel(stages [analysis.NumStages][2]int64, dev [2]int64) *sKernel {
	k := &sKernel{}
	for s, iv := range stages {
		if iv == [2]int64{} {
			continue
		}
		k.spans[s] = span{start: iv[0], end: iv[1], ok: true}
		d := iv[1] - iv[0]
		switch analysis.Stage(s + 1) {
		case analysis.Prepare:
			k.cost.Prepare, k.staged = d, true
		case analysis.Infer:
			k.cost.Infer, k.staged = d, true
		case analysis.Resize:
			k.cost.Resize, k.staged = d, true
		case analysis.Launch:
			k.cost.Launch, k.launched, k.hasLaunch = d, iv[1], true
		}
	}
	if dev != [2]int64{} {
		k.devStart, k.devEnd, k.hasDev = dev[0], dev[1], true
	}
	return k
}

// TestUnexplainedTermsKBK, worked by hand (launch latency 2, device gap 1):
//
//   - kernel 0 runs its stages at 0–6 and the device at 8–10, the
//     earliest (6 + 2);
//   - kernel 1 begins at 9, 3 after kernel 0's launch ended, and leaves 1
//     between its infer (10–12) and resize (13–14): host gaps 4; its
//     device starts at 16, 1 before the earliest (15 + 2);
//   - kernel 2 waits at a barrier before its prepare (15–18), then runs
//     at 18–22 with no gap; its device starts at 26, 2 after the earliest
//     (22 + 2).
//
// Terms: host gaps 4, device starts −1 + 2 = 1, barriers 3; less the
// model's 1 of host gaps and 2 + 0 of barriers: 3, 1, 1.
func TestUnexplainedTermsKBK(t *testing.T) {
	k0 := termKernel([4][2]int64{{0, 1}, {1, 3}, {3, 4}, {4, 6}}, [2]int64{8, 10})
	k1 := termKernel([4][2]int64{{9, 10}, {10, 12}, {13, 14}, {14, 15}}, [2]int64{16, 20})
	k2 := termKernel([4][2]int64{{18, 19}, {19, 20}, {20, 21}, {21, 22}}, [2]int64{26, 27})
	k2.hasBar, k2.barStart, k2.barEnd, k2.barAt = true, 15, 18, analysis.Prepare
	ks := []*sKernel{k0, k1, k2}
	mc := analysis.Machine{LaunchLatency: 2, DeviceGap: 1}
	if got, want := unexplainedTerms(ks, analysis.KBK, mc, analysis.Prediction{}), (terms{4, 1, 3}); got != want {
		t.Errorf("terms %v, want %v", got, want)
	}
	pr := analysis.Prediction{HostGap: 1, BarrierWait: 2}
	got := unexplainedTerms(ks, analysis.KBK, mc, pr)
	if want := (terms{3, 1, 1}); got != want {
		t.Errorf("terms less the model's %v, want %v", got, want)
	}
	if name, v, ok := got.largest(); !ok || name != "host gaps" || v != 3 {
		t.Errorf("largest %q %d %v, want host gaps 3", name, v, ok)
	}
}

// TestUnexplainedTermsAsync, worked by hand: the first goroutine runs
// prepare, infer and resize, the second launch.
//
//   - kernel 0: 0–3 on the first, launch at 5–6: ready at 3, gap 2;
//   - kernel 1: 3–6 on the first (ready at 3), launch at 7–8: ready at 6
//     (both its resize and kernel 0's launch ended), gap 1;
//   - a replayed kernel (a launch slice only) takes the goroutines' turn;
//   - kernel 3: 20–23 on the first, whose turn the replay ended (no gap
//     counted), launch at 23–24, at once.
//
// No device slices: device starts 0. Host gaps 3.
func TestUnexplainedTermsAsync(t *testing.T) {
	ks := []*sKernel{
		termKernel([4][2]int64{{0, 1}, {1, 2}, {2, 3}, {5, 6}}, [2]int64{}),
		termKernel([4][2]int64{{3, 4}, {4, 5}, {5, 6}, {7, 8}}, [2]int64{}),
		termKernel([4][2]int64{{}, {}, {}, {8, 9}}, [2]int64{}),
		termKernel([4][2]int64{{20, 21}, {21, 22}, {22, 23}, {23, 24}}, [2]int64{}),
	}
	if got, want := unexplainedTerms(ks, analysis.Async, analysis.Machine{}, analysis.Prediction{}), (terms{3, 0, 0}); got != want {
		t.Errorf("terms %v, want %v", got, want)
	}
}

func TestUnexplainedTermLargest(t *testing.T) {
	if _, _, ok := (terms{}).largest(); ok {
		t.Error("no terms: a largest one")
	}
	name, v, ok := terms{5, -7, 6}.largest()
	if !ok || name != "device starts" || v != -7 {
		t.Errorf("largest %q %d, want device starts -7", name, v)
	}
	if s := (unexplainedTerm{Term: "barriers", Ns: -1500}).String(); s != "barriers -2µs" {
		t.Errorf("String %q", s)
	}
}
