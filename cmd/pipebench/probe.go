package main

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

// roundTrip measures how long a cache line takes to go from one core to
// another and back: two goroutines, each locked to an OS thread, pass a
// counter back and forth by spinning on it, and the median over passes
// of about d each of the time a round trip took is returned, in ns. A
// performance engineer reads it beside the makespans: hand-offs between
// stage goroutines cost a few of these, so it tells a machine (or a
// virtual machine's moment) whose cores talk slowly from a slower
// pipert. It is about 200–300 ns between two vCPUs of a virtual machine,
// 50–100 ns between the cores of one socket, and varies by a third from
// one measurement to the next on a busy virtual machine.
//
// The two sides keep their threads for every pass, and a first pass of
// 4d is not counted: it gives the operating system time to put the two
// threads on two cores (a thread new to the process starts on its
// parent's core, and while the two share one a round trip costs a time
// slice).
//
// ok is false when GOMAXPROCS is below 2 (the two goroutines could not
// spin at once) or when a counted pass took more than four times d: the
// two sides did not have two cores to themselves (a loaded machine), and
// the figure would say more about the load than about the cores. The
// probe then ends within about 12d. It is false too when the median
// passes maxRoundTrip: the operating system kept the two threads on one
// core for the whole probe, and each round trip cost a switch between
// them.
func roundTrip(d time.Duration, passes int) (ns float64, ok bool) {
	if runtime.GOMAXPROCS(0) < 2 || d <= 0 || passes <= 0 {
		return 0, false
	}
	// A collection under way would run its workers on the processors
	// the two sides spin on; the probe allocates a few small objects, so
	// none starts once this one is done.
	runtime.GC()
	p := &probe{}
	p.turn.Store(turnEchoStarting)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if !p.turn.CompareAndSwap(turnEchoStarting, 0) {
			return // the measuring side gave up waiting for it
		}
		// The echo takes its turn by compare-and-swap: the measuring
		// side may have ended the probe (turnStop) since the echo saw
		// its turn, and a store would overwrite that and spin for ever.
		for i := int64(1); p.echo(i) && p.turn.CompareAndSwap(i, i+1); i += 2 {
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() {
		p.turn.Store(turnStop)
		<-done
	}()
	p.limit, p.begin = 8*d, time.Now()
	if !p.wait(0) { // the echo's start (a new thread, perhaps) is not timed
		return 0, false
	}
	p.pass(4 * d)
	var per []float64
	for range passes {
		p.limit, p.begin = 4*d, time.Now()
		ns, ok := p.pass(d)
		if !ok {
			return 0, false
		}
		per = append(per, ns)
	}
	slices.Sort(per)
	if med := per[len(per)/2]; med <= float64(maxRoundTrip) {
		return med, true
	}
	return 0, false
}

// maxRoundTrip is the longest round trip roundTrip reports: a cache
// line's takes well under a microsecond between any two cores, even of
// two sockets or two vCPUs; tens of microseconds are two threads
// switching on one core (pipebench read 27 and 40 µs so).
const maxRoundTrip = 10 * time.Microsecond

// The values of probe.turn besides the round trips' counts.
const (
	turnEchoStarting = -1 // the echo's thread is not spinning yet
	turnStop         = -2 // the probe is over: the echo returns
)

// probe is roundTrip's state: turn is the counter the two sides pass,
// even on the measuring side's turn and odd on the echo's; next is the
// measuring side's next turn. The measuring side alone sets limit and
// begin; the echo reads neither.
type probe struct {
	turn  atomic.Int64
	next  int64
	begin time.Time
	limit time.Duration
}

// wait spins, on the measuring side, until it is turn want and reports
// whether it came. After many reads without it, it yields its processor
// (the other side may be waiting for one) and fails the pass once the
// pass has lasted its limit.
func (p *probe) wait(want int64) bool {
	for n := 1; ; n++ {
		switch v := p.turn.Load(); {
		case v == want:
			return true
		case v == turnStop:
			return false
		}
		if n%(1<<14) == 0 {
			runtime.Gosched()
			if time.Since(p.begin) > p.limit {
				return false
			}
		}
	}
}

// echo is wait on the echo's side: it spins until it is turn want, or
// the probe is over, whatever the passes' limits.
func (p *probe) echo(want int64) bool {
	for n := 1; ; n++ {
		switch p.turn.Load() {
		case want:
			return true
		case turnStop:
			return false
		}
		if n%(1<<14) == 0 {
			runtime.Gosched()
		}
	}
}

// pass passes the counter for about d, from the measuring side, and
// returns the ns a round trip took; false when the pass failed.
func (p *probe) pass(d time.Duration) (float64, bool) {
	start := time.Now()
	for rounds := int64(0); ; rounds++ {
		i := p.next
		if !p.wait(i) {
			return 0, false
		}
		if rounds%256 == 0 && rounds > 0 {
			el := time.Since(start)
			if el >= d {
				return float64(el.Nanoseconds()) / float64(rounds), true
			}
			if time.Since(p.begin) > p.limit {
				return 0, false
			}
		}
		p.next = i + 2
		p.turn.Store(i + 1)
	}
}
