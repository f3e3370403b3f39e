package main

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestHeteroPrediction: a heterogeneous run is predicted from its first
// part's start to the latest predicted end of its parts, the cores
// shared, by hand on two parts: apart on two cores, sharing one.
func TestHeteroPrediction(t *testing.T) {
	part := func(name string, runs ...partRun) actorSummary {
		return actorSummary{name: name, shared: true, parts: runs}
	}
	sums := []actorSummary{
		part("sc hetero/per-tensor sc/0.cpu", partRun{start: 1000, alone: 100, cpu: 100}, partRun{start: 2000, alone: 100, cpu: 100}),
		part("sc hetero/per-tensor sc/1.device", partRun{start: 1050, alone: 100, cpu: 100}, partRun{start: 2050, alone: 100, cpu: 100}),
		part("other exe part", partRun{start: 0, alone: 1e6, cpu: 1e6}),
	}
	if got := heteroPrediction(sums, "sc hetero/per-tensor", 2); got != 150 {
		t.Errorf("two cores: %d, want 150 (the second part ends 100 after its start at 50)", got)
	}
	// One core: the first part runs alone 50, then both at half speed
	// until it ends at 150; the second, 50 done, runs alone to 200.
	if got := heteroPrediction(sums, "sc hetero/per-tensor", 1); got != 200 {
		t.Errorf("one core: %d, want 200", got)
	}
	if got := heteroPrediction(sums, "no such exe", 2); got != 0 {
		t.Errorf("no parts: %d, want 0", got)
	}
}

// TestOverlapPrediction: submitted steps, composed by hand. Each step
// alone takes 50 from its start, its host 30 of them, its device 20. The
// trace shows each next Submit 1 after the step before launched its last
// kernel (the hand-back): the second starts at 31 and ends at 81; the
// third at 62 and ends at 112. With 45 of device work a step, the device
// is the limit: the steps end at 50, 95 and 140, and the third starts
// only at 50, once the first ended.
func TestOverlapPrediction(t *testing.T) {
	steps := func(name string, start int64, n int, r stepRun) actorSummary {
		s := actorSummary{name: name}
		for i := range n {
			r.start = start + int64(i)*1000
			r.launched, r.end = r.start+r.host, r.start+r.alone
			s.steps = append(s.steps, r)
		}
		return s
	}
	host := stepRun{alone: 50, host: 30, dev: 20}
	// Two repetitions of three steps; lane 2 runs the second step of
	// each, its start measured after the first's.
	sums := []actorSummary{
		steps("sc pipeline/per-tensor+overlap", 0, 2, host),
		steps("sc pipeline/per-tensor+overlap (lane 2)", 31, 2, host),
		steps("sc pipeline/per-tensor+overlap", 62, 2, host),
		steps("sc pipeline/per-tensor", 0, 6, stepRun{alone: 1e6}),
	}
	if got := overlapPrediction(sums, "sc pipeline/per-tensor+overlap", 3); got != 112 {
		t.Errorf("host-bound: %d, want 112", got)
	}
	// Runs with no launch give no hand-back.
	noLaunch := slices.Clone(sums[:3])
	for i := range noLaunch {
		noLaunch[i].steps = slices.Clone(noLaunch[i].steps)
		for j := range noLaunch[i].steps {
			noLaunch[i].steps[j].launched = math.MinInt64
		}
	}
	if got := overlapPrediction(noLaunch, "sc pipeline/per-tensor+overlap", 3); got != 110 {
		t.Errorf("host-bound, no launches: %d, want 110", got)
	}
	dev := stepRun{alone: 50, host: 10, dev: 45}
	if got := composeSteps([]stepRun{dev, dev, dev}, 0); got != 140 {
		t.Errorf("device-bound: %d, want 140", got)
	}
	// The same steps with 5 of outputs to download after their kernels
	// (in alone, not in the device span): a step's download overlaps the
	// next step's kernels, so the kernels end at 50, 95 and 140 as before
	// and the steps at 55, 100 and 145 (the third starts at 55).
	dev.alone, dev.after = 55, 5
	if got := composeSteps([]stepRun{dev, dev, dev}, 0); got != 145 {
		t.Errorf("device-bound with downloads: %d, want 145", got)
	}
	if got := overlapPrediction(sums, "sc pipeline/per-tensor+overlap", 4); got != 0 {
		t.Errorf("runs that make no whole repetitions: %d, want 0", got)
	}
	if got := overlapPrediction(sums, "no such exe", 3); got != 0 {
		t.Errorf("no runs: %d, want 0", got)
	}
}

// TestLaneLatencies: the lanes of submitted steps take the latencies of
// their twin run one step after another when the trace has it, else the
// smaller of their own.
func TestLaneLatencies(t *testing.T) {
	const exe, lone = "sc replay/per-tensor+plan+overlap", "sc kbk+overlap+tiling=host"
	got := map[string]int64{
		exe: 500, exe + overlapLane: 400, "sc replay/per-tensor+plan": -4,
		exe + replayFirstKey: 800, exe + overlapLane + replayFirstKey: 900, "sc replay/per-tensor+plan" + replayFirstKey: 3,
		exe + replayNextKey: 2, // the twin has none, lane 2 none either
		lone:                70, lone + overlapLane: 60, lone + deviceGapKey: 9,
		"sc kbk+overlapped": 5, // not a lane of submitted steps
	}
	laneLatencies(got)
	want := map[string]int64{
		exe: -4, exe + overlapLane: -4, "sc replay/per-tensor+plan": -4,
		exe + replayFirstKey: 3, exe + overlapLane + replayFirstKey: 3, "sc replay/per-tensor+plan" + replayFirstKey: 3,
		exe + replayNextKey: 2, exe + overlapLane + replayNextKey: 2,
		lone: 60, lone + overlapLane: 60, lone + deviceGapKey: 9, lone + overlapLane + deviceGapKey: 9,
		"sc kbk+overlapped": 5,
	}
	if !maps.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	for in, out := range map[string]string{
		"sc kbk+overlap": "sc kbk", "sc kbk+overlap+tiling=host": "sc kbk+tiling=host",
		"sc kbk+overlapped+overlap": "sc kbk+overlapped", "sc kbk": "sc kbk",
	} {
		if got := overlapTwin(in); got != out {
			t.Errorf("overlapTwin(%q) = %q, want %q", in, got, out)
		}
	}
}

// TestAnalysisMarksLanes: the second lane of submitted steps shares the
// device but is no part of a heterogeneous run: its own mark and note.
func TestAnalysisMarksLanes(t *testing.T) {
	sums := []actorSummary{
		{name: "sc kbk+overlap", mode: "kbk", predicted: map[string]int64{}},
		{name: "sc kbk+overlap" + overlapLane, mode: "kbk", shared: true, predicted: map[string]int64{}},
		{name: "sc hetero/per-tensor sc/0.cpu", mode: "kbk", shared: true, sharedPred: 5, predicted: map[string]int64{}},
	}
	var b strings.Builder
	writeAnalysis(&b, sums)
	out := b.String()
	for _, want := range []string{"sc kbk+overlap (lane 2) +", "sc/0.cpu *", "\n+ the second lane of submitted steps", "\n* shares its devices"} {
		if !strings.Contains(out, want) {
			t.Errorf("analysis lacks %q:\n%s", want, out)
		}
	}
}
