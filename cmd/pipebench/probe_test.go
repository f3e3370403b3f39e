package main

import (
	"runtime"
	"testing"
	"time"
)

// TestRoundTrip: with two processors the probe gives a positive round
// trip, or none when the machine is too loaded for its two sides to spin
// at once; with one it gives none, at once. Probes cut short at every
// point of their protocol (passes of 20 µs, limits that a loaded machine
// passes often) all end: the echo never outlives its probe.
func TestRoundTrip(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: the probe's two sides cannot spin at once")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	ns, ok := roundTrip(time.Millisecond, 3)
	if ok != (ns > 0) {
		t.Fatalf("roundTrip on 2 processors: %v ns, ok %v", ns, ok)
	}
	t.Logf("round trip %.0f ns (ok %v)", ns, ok)
	for range 300 {
		if ns, ok := roundTrip(20*time.Microsecond, 2); ok != (ns > 0) {
			t.Fatalf("short roundTrip: %v ns, ok %v", ns, ok)
		}
	}
	runtime.GOMAXPROCS(1)
	if ns, ok := roundTrip(time.Millisecond, 3); ok || ns != 0 {
		t.Fatalf("roundTrip on 1 processor: %v ns, ok %v; want none", ns, ok)
	}
	var m machine
	m.probe(false)
	if m.RoundTrip != 0 || m.RoundTrips() != "" {
		t.Fatalf("machine on 1 processor: %+v, %q", m, m.RoundTrips())
	}
}

// TestRoundTripsText: the footer says whichever round trips were
// measured, the one after the runs alone included, and nothing when
// neither was.
func TestRoundTripsText(t *testing.T) {
	for _, c := range []struct {
		m    machine
		want string
	}{
		{machine{}, ""},
		{machine{RoundTrip: 251}, "; a cache line between two cores and back 251 ns"},
		{machine{RoundTrip: 251, RoundTripEnd: 240}, "; a cache line between two cores and back 251 ns (after the runs 240)"},
		{machine{RoundTripEnd: 240}, "; a cache line between two cores and back 240 ns after the runs"},
	} {
		if got := c.m.RoundTrips(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.m, got, c.want)
		}
	}
}
