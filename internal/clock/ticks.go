package clock

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// Reading the operating system's clock costs about 45 ns in a virtual
// machine (a vDSO call around the time-stamp counter) and a stage boundary
// reads it once, so the clock is read from the counter itself where the
// processor and the kernel vouch for it: a counter that runs at a constant
// rate in every power state (the "invariant TSC" of x86) and that Linux uses
// as its own clocksource (it checked the cores agree). Elsewhere Now reads
// the operating system's monotonic clock.
//
// The counter's rate is measured against the operating system's clock:
// first over the 5 ms after the package is initialised (Now reads the
// operating system's clock until then), then again over windows ten times
// longer each time. Each new rate takes over where the last one left the
// clock, so Now never jumps; the clock drifts from the operating system's
// by the error of one measurement times the window it held for, about a
// microsecond per decade of run time.

// firstWindow is how long after initialisation the counter's rate is first
// measured.
const firstWindow = 5 * time.Millisecond

// scale is the fixed-point shift of tickMap.mult.
const scale = 32

// tickMap maps counter readings to clock readings: ns + (t-tsc)·mult/2^32
// for tsc <= t < next. It is immutable once published.
type tickMap struct {
	tsc, ns int64
	mult    uint64 // nanoseconds per tick, fixed point with scale fraction bits
	next    int64  // counter reading at which the rate is measured again
}

func (m *tickMap) at(t int64) int64 {
	hi, lo := bits.Mul64(uint64(t-m.tsc), m.mult)
	return m.ns + int64(hi<<(64-scale)|lo>>scale)
}

var (
	// ticking is whether the counter may be used: set at initialisation,
	// cleared if its first measured rate is absurd.
	ticking atomic.Bool
	// anchor is the pair of readings every rate is measured from.
	anchor pair
	// current is the map Now uses; nil until the first measurement.
	current atomic.Pointer[tickMap]
	// refining serialises measurements.
	refining sync.Mutex
)

func init() {
	if counterUsable() {
		anchor = readPair()
		ticking.Store(true)
	}
}

// pair is a counter reading and an operating-system clock reading taken
// together.
type pair struct{ tsc, ns int64 }

// readPair reads the counter on both sides of the operating system's clock
// a few times and keeps the tightest bracket, so that a preemption between
// the two readings does not skew a measurement.
func readPair() pair {
	var best pair
	width := int64(-1)
	for range 8 {
		t0 := counter()
		ns := osNow()
		t1 := counter()
		if w := t1 - t0; w >= 0 && (width < 0 || w < width) {
			width, best = w, pair{tsc: t0 + w/2, ns: ns}
		}
	}
	return best
}

// osNow is the operating system's monotonic clock since epoch.
func osNow() int64 { return int64(time.Since(epoch)) }

// slowNow is Now before the first measurement, past a map's window, or for a
// reading behind the map's own (another core's counter a little behind).
func slowNow(m *tickMap, t int64) int64 {
	if m != nil && t < m.tsc {
		return m.ns
	}
	if m == nil {
		ns := osNow()
		if !ticking.Load() || ns-anchor.ns < int64(firstWindow) {
			return ns
		}
	}
	refining.Lock()
	defer refining.Unlock()
	if c := current.Load(); c != m {
		return Now() // another goroutine measured first
	}
	p := readPair()
	span := p.tsc - anchor.tsc
	rate := float64(p.ns-anchor.ns) / float64(span)
	if span <= 0 || !(rate > 1e-3 && rate < 1e3) {
		// Not a counter that can be trusted: stay on the operating
		// system's clock (before the first map) or on the last rate.
		if m == nil {
			ticking.Store(false)
			return p.ns
		}
		n := *m
		n.next = maxWindow(p.tsc, span)
		current.Store(&n)
		return m.at(p.tsc)
	}
	ns := p.ns
	if m != nil {
		ns = m.at(p.tsc) // continue where the last rate left the clock
	}
	current.Store(&tickMap{
		tsc:  p.tsc,
		ns:   ns,
		mult: uint64(rate * (1 << scale)),
		next: maxWindow(p.tsc, span),
	})
	return ns
}

// maxWindow is the counter reading at which a rate measured over span ticks
// up to t is measured again: over a span ten times longer.
func maxWindow(t, span int64) int64 {
	if span > (1<<62)/10 || t > 1<<62 {
		return 1<<63 - 1
	}
	return t + 9*span
}
