package main

import "testing"

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
