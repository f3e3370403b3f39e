// Package hostmem refuses host allocations that cannot succeed, before they
// are made.
//
// Go has no recoverable allocation failure: a make the operating system
// cannot map, or whose pages it cannot supply when they are written, ends
// the process ("fatal error: runtime: out of memory", or the kernel's OOM
// killer), whatever recover the caller set up. pipert allocates host memory
// whose size comes from data: a tensor whose shape a kernel computed from
// its inputs' values (ConstantOfShape, Expand, Range, Tile), the backing of
// a simulated device's buffer, an output's host copy. Those sizes pass
// through Check, so that a run asking for more than the machine has fails
// with an error, and the process stays usable.
//
// Check compares the size with the memory the host has available when it
// is called: on Linux MemAvailable of /proc/meminfo, plus the free heap the
// Go runtime holds, bounded by the cgroup's memory.max less its
// memory.current when one is set, and by what a limit on the process's
// address space (RLIMIT_AS, ulimit -v) leaves of it; and, when the Go
// runtime has a memory limit (GOMEMLIMIT, debug.SetMemoryLimit), by what
// that limit leaves of the memory the runtime has mapped, on every system.
// It reads them only for sizes of checkFrom bytes and more: smaller
// allocations are cheap to refuse by failing later, and cheap to make.
// Where the available memory cannot be read and no limit is set, nothing
// is refused.
//
// Dependency rule: hostmem imports only the standard library.
package hostmem

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// ErrTooLarge is the error of an allocation larger than the memory the
// host has available.
var ErrTooLarge = errors.New("more than the host's available memory")

// checkFrom is the smallest size Check looks at: below it the check would
// cost more than the allocation.
const checkFrom = 64 << 20

// Check returns an error wrapping ErrTooLarge if n bytes are more than the
// host has available now.
func Check(n int64) error {
	if n < checkFrom {
		return nil
	}
	avail, ok := available()
	if !ok || n <= avail {
		return nil
	}
	return fmt.Errorf("%w: %d bytes requested, %d available", ErrTooLarge, n, avail)
}

// Make returns n zeroed bytes, or an error wrapping ErrTooLarge (n negative
// included) when Check refuses them.
func Make(n int64) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("%w: %d bytes requested", ErrTooLarge, n)
	}
	if err := Check(n); err != nil {
		return nil, err
	}
	return make([]byte, n), nil
}

// available is the memory an allocation can use now: the system's
// available memory and the runtime's free heap (spans the runtime holds,
// not returned to the system, reused before it asks for more), bounded by
// what the runtime's memory limit leaves when one is set.
func available() (int64, bool) {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s)
	free, total, released := sample(s[0]), sample(s[1]), sample(s[2])
	avail, ok := systemAvailable()
	if ok {
		avail += free
	}
	// The limit counts the memory the runtime has mapped and not
	// released, free heap included: an allocation the free heap holds
	// does not add to it.
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		left := max(limit-(total-released), 0) + free
		if !ok || left < avail {
			avail, ok = left, true
		}
	}
	return avail, ok
}

// sample is a metric's value, 0 when the runtime does not have it.
func sample(s metrics.Sample) int64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s.Value.Uint64(), math.MaxInt64))
}
