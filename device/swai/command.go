package swai

import (
	"math"
	"sync"
	"time"
)

// Ring models the command path from host launch calls to the device's
// dispatcher; it is the device.Launcher of the simulated card. It is
// modeled, not run: no goroutine consumes the buffer; Issue computes, from
// the times of earlier commands, when each new one is written, parsed and
// started.
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
//  4. the dispatcher takes commands one at a time in order: it reads the
//     ring entry (two levels only, RingFetch) and parses the command
//     (O_command), which frees the slot; then it configures and starts the
//     cores (O_init + Num × O_start), which keeps it busy. The kernel may
//     start when that is done (earliestStart).
//
// On the SW-AI card the dispatcher is the MPE running AI-Kernel (section
// 2.2), one command at a time: a traditional launch keeps it busy for
// hundreds of µs per kernel, so a burst of launches fills the buffer and the
// host waits in step 2. Completion (Num × O_query) happens after the kernel,
// on the device's timeline (Profile.Device's KernelFixed), not here.
//
// # Invariants
//
// The dispatcher is in order: command n is read no earlier than command n-1,
// so the slot of command n - Slots is the last one it needs. Times only grow:
// a caller whose now is older than an earlier caller's still queues behind
// it.
//
// Ring is safe for concurrent use (one mutex, held for a few arithmetic
// operations); Issue does not allocate.
type Ring struct {
	cpu, write      time.Duration // O_cpu, O_cmd-tran: host side
	fetch, parse    time.Duration // ring-entry read (two levels), O_command
	work            time.Duration // O_init + Num × O_start: dispatcher busy after parsing
	hostCost        bool          // whether hostReady includes O_cpu + O_cmd-tran
	mu              sync.Mutex    // guards the fields below
	slots           []int64       // release time of each command slot, indexed n mod Slots
	ptrs            []int64       // release time of each pointer-ring entry (two levels), or nil
	n               int           // commands issued
	dispatcherReady int64         // when the dispatcher can take the next command
	waits           int64         // issues that waited for a slot
}

// NewRing returns the command path of p for launches of method m, empty.
func NewRing(p Profile, m Method) *Ring {
	oinit, num := p.launchTerms(m)
	r := &Ring{
		cpu:      p.Launch.CPU,
		write:    p.Launch.CmdTransfer,
		parse:    p.Launch.Command,
		work:     oinit + time.Duration(num)*p.Launch.Start,
		hostCost: true,
		slots:    released(max(p.Queue.Slots, 1)),
		// Times may have any origin: nothing is busy before the first
		// command.
		dispatcherReady: math.MinInt64,
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
// can start at the earliest (earliestStart).
func (r *Ring) Issue(now int64) (hostReady, earliestStart int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
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
	taken := max(written, r.dispatcherReady)
	fetched := taken + int64(r.fetch)
	parsed := fetched + int64(r.parse)
	if r.ptrs != nil {
		r.ptrs[ptr] = fetched
	}
	r.slots[slot] = parsed
	r.dispatcherReady = parsed + int64(r.work)
	r.n++
	hostReady = written
	if !r.hostCost {
		hostReady = max(now, free)
	}
	return hostReady, r.dispatcherReady
}

// Waits reports how many launches so far had to wait for a free slot.
func (r *Ring) Waits() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waits
}
