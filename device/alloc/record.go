package alloc

import "fmt"

// Recording wraps an Allocator and records every successful Alloc and Free
// as an allocation trace for Replay, with dense IDs reused after free. It
// is how a real workload's allocation pattern is captured: run the workload
// on a device whose allocator is a Recording, then replay Trace on the
// allocators to compare. Like the allocators, it is not safe for concurrent
// use.
type Recording struct {
	a    Allocator
	ops  []Op
	live map[uint64]int // addr -> ID
	free []int          // IDs available for reuse
	next int
}

// NewRecording records the calls made to a. A Recording of a nil a is an
// allocator of no memory: its Alloc fails with ErrOutOfMemory, its Free
// with ErrForeign, and its Stats are zero.
func NewRecording(a Allocator) *Recording {
	return &Recording{a: a, live: make(map[uint64]int)}
}

// Alloc implements Allocator.
func (r *Recording) Alloc(size int64) (uint64, error) {
	if r == nil || r.a == nil {
		return 0, fmt.Errorf("alloc: recording of no allocator: %d bytes: %w", size, ErrOutOfMemory)
	}
	addr, err := r.a.Alloc(size)
	if err != nil {
		return 0, err
	}
	id := r.next
	if n := len(r.free); n > 0 {
		id, r.free = r.free[n-1], r.free[:n-1]
	} else {
		r.next++
	}
	r.live[addr] = id
	r.ops = append(r.ops, Op{Alloc: true, Size: size, ID: id})
	return addr, nil
}

// Free implements Allocator. An address the Recording did not hand out
// (one allocated on the wrapped allocator directly, or not at all) is
// refused with ErrForeign and left allocated: the trace could not name it.
func (r *Recording) Free(addr uint64) error {
	if r == nil || r.a == nil {
		return fmt.Errorf("alloc: recording of no allocator: free %#x: %w", addr, ErrForeign)
	}
	id, ok := r.live[addr]
	if !ok {
		return fmt.Errorf("alloc: recording: free %#x: not allocated through the recording: %w", addr, ErrForeign)
	}
	if err := r.a.Free(addr); err != nil {
		return err
	}
	delete(r.live, addr)
	r.free = append(r.free, id)
	r.ops = append(r.ops, Op{ID: id})
	return nil
}

// Stats implements Allocator.
func (r *Recording) Stats() Stats {
	if r == nil || r.a == nil {
		return Stats{}
	}
	return r.a.Stats()
}

// Trace returns the operations recorded so far.
func (r *Recording) Trace() []Op {
	if r == nil {
		return nil
	}
	return r.ops
}
