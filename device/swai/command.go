package swai

import (
	"math"
	"sync"
	"time"
)

// Ring models the command path from host launch calls to the device's
// dispatcher; it is the device.Launcher (and device.KernelLauncher) of the
// simulated card. It is modeled, not run: no goroutine consumes the buffer;
// Issue computes, from the times of earlier commands, when each new one is
// written, parsed and started.
//
// # Protocol
//
// A launch call at host time now:
//
//  1. prepares the command (O_cpu);
//  2. waits for a free command slot: the buffer holds Slots commands, and the
//     slot of command n is free once command n - Slots has been read by the
//     dispatcher (on a two-level queue it also waits for a free pointer-ring
//     entry, free once the dispatcher has read entry n - RingSlots);
//  3. writes the command (and ring entry) and rings the doorbell
//     (O_cmd-tran); the call returns here (hostReady);
//  4. the dispatcher reads the ring entry (two levels only, RingFetch),
//     parses the command (O_command), which frees the slot, and configures
//     and starts the cores (O_init + Num × O_start). The kernel may start
//     when that is done (earliestStart).
//
// Step 4 differs by dispatcher (LaunchParams.Serial, section 3.3):
//
//   - serial, the SW-AI card: the dispatcher is the MPE running AI-Kernel,
//     software that handles one command at a time from parse to completion:
//     it starts the cores, then polls core 0 (O_query) until the kernel has
//     ended, and only then takes the next command. Each kernel holds it for
//     O_command + O_init + Num × O_start + T_exec + Num × O_query.
//   - pipelined, the GPU: the command engine is hardware whose ring fetch,
//     parse and start are separate stages working on successive commands at
//     once, and the kernel's completion is a hardware write that does not
//     hold the front end. Each stage is held only for its own term.
//
// This is what orders figure 13: a synchronous launch pays every term once
// on both, and the SW-AI's single-level buffer and core-array signalling
// make its sum smaller (2.3 µs); back-to-back asynchronous launches pay the
// slowest stage per launch, which on the card is the MPE's whole serial
// O_device and on the GPU only the host's O_cpu + O_cmd-tran, so there CUDA
// is faster.
//
// # Invariants
//
// Each stage is in order: command n enters it no earlier than command n-1,
// so the slot of command n - Slots is the last one a writer needs. Times
// only grow: a caller whose now is older than an earlier caller's still
// queues behind it.
//
// Ring is safe for concurrent use (one mutex, held for a few arithmetic
// operations); Issue does not allocate. The zero Ring is a command path
// of one slot that costs nothing (NewRing makes a profile's); a nil *Ring
// answers as a fresh zero Ring.
type Ring struct {
	cpu, write   time.Duration // O_cpu, O_cmd-tran: host side
	fetch, parse time.Duration // ring-entry read (two levels), O_command
	work         time.Duration // O_init + Num × O_start: starting the cores
	empty        time.Duration // Num × O_query: an empty kernel's device time
	serial       bool          // the dispatcher stays with a kernel until it ends
	hostCost     bool          // whether hostReady includes O_cpu + O_cmd-tran
	mu           sync.Mutex    // guards the fields below
	slots        []int64       // release time of each command slot, indexed n mod Slots
	ptrs         []int64       // release time of each pointer-ring entry (two levels), or nil
	n            int           // commands issued
	// fetchFree, parseFree and startFree are when each stage can take the
	// next command; a serial dispatcher uses only startFree, for the whole
	// dispatcher.
	fetchFree, parseFree, startFree int64
	waits                           int64 // issues that waited for a slot
}

// NewRing returns the command path of p for launches of method m, empty.
func NewRing(p Profile, m Method) *Ring {
	oinit, num := p.launchTerms(m)
	r := &Ring{
		cpu:      p.Launch.CPU,
		write:    p.Launch.CmdTransfer,
		parse:    p.Launch.Command,
		work:     oinit + time.Duration(num)*p.Launch.Start,
		empty:    time.Duration(num) * p.Launch.Query,
		serial:   p.Launch.Serial,
		hostCost: true,
		slots:    released(max(p.Queue.Slots, 1)),
		// Times may have any origin: nothing is busy before the first
		// command.
		fetchFree: math.MinInt64, parseFree: math.MinInt64, startFree: math.MinInt64,
	}
	if p.Queue.Levels == 2 {
		r.fetch = p.Queue.RingFetch
		r.ptrs = released(max(p.Queue.RingSlots, 1))
	}
	return r
}

// released returns n slots free since forever.
func released(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = math.MinInt64
	}
	return s
}

// Issue implements device.Launcher: it is told the host time of a launch
// call and returns when the call returns (hostReady) and when the kernel
// can start at the earliest (earliestStart). A serial dispatcher is held
// as for an empty kernel started then (IssueKernel tells it the kernel).
func (r *Ring) Issue(now int64) (hostReady, earliestStart int64) {
	if r == nil {
		r = new(Ring) // the zero Ring's answer
	}
	return r.IssueKernel(now, math.MinInt64, 0, r.empty)
}

// IssueKernel implements device.KernelLauncher: Issue for a kernel of
// modeled duration dur (completion included) whose stream is free from
// notBefore and whose arguments take args to cross with the command. It
// returns when the call returns and when the kernel starts; a serial
// dispatcher is held until the kernel's end.
func (r *Ring) IssueKernel(now, notBefore int64, args, dur time.Duration) (hostReady, start int64) {
	if r == nil {
		r = new(Ring) // the zero Ring's answer
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.slots == nil { // the zero Ring
		r.slots = released(1)
	}
	slot := r.n % len(r.slots)
	free := r.slots[slot]
	ptr := 0
	if r.ptrs != nil {
		ptr = r.n % len(r.ptrs)
		free = max(free, r.ptrs[ptr])
	}
	prepared := now + int64(r.cpu)
	if free > prepared {
		r.waits++
	}
	written := max(prepared, free) + int64(r.write)
	var fetched, parsed, started int64
	if r.serial {
		fetched = max(written, r.startFree) + int64(r.fetch)
		parsed = fetched + int64(r.parse)
		started = parsed + int64(r.work)
	} else {
		fetched = max(written, r.fetchFree) + int64(r.fetch)
		parsed = max(fetched, r.parseFree) + int64(r.parse)
		started = max(parsed, r.startFree) + int64(r.work)
		r.fetchFree, r.parseFree = fetched, parsed
	}
	start = max(started+int64(args), notBefore)
	if r.serial {
		r.startFree = start + int64(dur)
	} else {
		r.startFree = started
	}
	if r.ptrs != nil {
		r.ptrs[ptr] = fetched
	}
	r.slots[slot] = parsed
	r.n++
	hostReady = written
	if !r.hostCost {
		hostReady = max(now, free)
	}
	return hostReady, start
}

// Waits reports how many launches so far had to wait for a free slot.
func (r *Ring) Waits() int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waits
}
