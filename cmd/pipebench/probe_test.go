package main

import (
	"runtime"
	"testing"
	"time"
)

// TestRoundTrip: with two processors the probe measures a positive round
// trip; with one it reports none (its two sides could not spin at once)
// and returns at once rather than waiting for preemption.
func TestRoundTrip(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: the probe's two sides cannot spin at once")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	ns, ok := roundTrip(time.Millisecond, 3)
	if !ok || ns <= 0 {
		t.Fatalf("roundTrip on 2 processors: %v ns, ok %v", ns, ok)
	}
	t.Logf("round trip %.0f ns", ns)
	runtime.GOMAXPROCS(1)
	if ns, ok := roundTrip(time.Millisecond, 3); ok || ns != 0 {
		t.Fatalf("roundTrip on 1 processor: %v ns, ok %v; want none", ns, ok)
	}
	var m machine
	m.probe(false)
	if m.RoundTrip != 0 || m.roundTrips() != "" {
		t.Fatalf("machine on 1 processor: %+v, %q", m, m.roundTrips())
	}
}
