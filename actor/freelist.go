package actor

import (
	"github.com/pipert/pipert/device"
)

// freeList is a run's cache of device buffers in front of the device's
// allocator: the launches of a run free their dead tensors and workspaces
// into it, and later launches of the run take a buffer of the size they
// need from it, without a call to the device (whose allocator takes a lock
// and searches). In a steady state a launch's allocations and frees touch
// neither the device nor a lock.
//
// # Invariants
//
//  1. One owner at a time, so it takes no lock: the goroutine running the
//     Launch steps during a run, goroutine 0 in End once the run drained.
//     Allocations made elsewhere (inputs, constants, arenas, the tiling
//     ring) go to the device directly.
//  2. Every buffer in it is allocated on the device and belongs to no
//     slot. Memory counts the tensors' bytes: a buffer leaves its count
//     when it goes into the list and comes back when a slot takes it, so
//     the executable's peak is the same with or without the list.
//  3. It is empty between runs: End releases every buffer to the device,
//     whatever failed. The device's own accounting (Stats().MemInUse) then
//     sees after every run exactly what it saw before the list existed,
//     and a leak is still a leak.
//  4. A buffer it hands out is one the device could have: it serves a
//     request of exactly its Size, materialized exactly when asked (its
//     contents zeroed, as a new buffer's), virtual otherwise.
//  5. It holds at most limit bytes, a sixteenth of the device's memory; a
//     free beyond goes to the device, so an executable that fits with that
//     margin never runs out of memory because of the list. (An allocation
//     that fails is not retried after releasing the list: the device's
//     answer is the run's.)
type freeList struct {
	dev   device.Device
	mem   *Memory
	limit int64
	held  int64 // bytes in the list
	// bySize holds the buffers by Size. Entries outlive the runs (emptied,
	// not deleted), so that a steady state allocates nothing, unless there
	// are more than maxFreeSizes.
	bySize map[int64]*sizeFree
}

// sizeFree are the free buffers of one size.
type sizeFree struct {
	virtual, real []device.Buffer
}

// maxFreeSizes bounds the sizes whose (empty) lists stay between runs.
const maxFreeSizes = 256

func newFreeList(dev device.Device, mem *Memory) *freeList {
	return &freeList{dev: dev, mem: mem, limit: dev.Profile().MemoryBytes / 16, bySize: map[int64]*sizeFree{}}
}

// alloc is Memory.alloc of n bytes for a launch, from the list when it
// holds a buffer of that size.
func (f *freeList) alloc(n int64, real bool) (device.Buffer, error) {
	if sf := f.bySize[n]; sf != nil {
		l := &sf.virtual
		if real {
			l = &sf.real
		}
		if k := len(*l); k > 0 {
			b := (*l)[k-1]
			*l = (*l)[:k-1]
			f.held -= b.Size
			clear(b.Data)
			f.mem.add(b.Size)
			return b, nil
		}
	}
	return f.mem.alloc(f.dev, n, real)
}

// free is Memory.free of a launch's dead buffer, into the list when there
// is room.
func (f *freeList) free(b device.Buffer) error {
	if b.IsZero() {
		return nil
	}
	if f.held+b.Size > f.limit {
		return f.mem.free(f.dev, b)
	}
	sf := f.bySize[b.Size]
	if sf == nil {
		sf = new(sizeFree)
		f.bySize[b.Size] = sf
	}
	if b.Data != nil {
		sf.real = append(sf.real, b)
	} else {
		sf.virtual = append(sf.virtual, b)
	}
	f.held += b.Size
	f.mem.add(-b.Size)
	return nil
}

// release frees every buffer of the list on the device and empties it
// (even when a free fails: the device then lost them, see End); it returns
// the first error.
func (f *freeList) release() error {
	var first error
	if f.held > 0 {
		for _, sf := range f.bySize {
			for _, l := range [...]*[]device.Buffer{&sf.virtual, &sf.real} {
				for i, b := range *l {
					if err := freeOn(f.dev, b); err != nil && first == nil {
						first = err
					}
					(*l)[i] = device.Buffer{} // keep no backing alive
				}
				*l = (*l)[:0]
			}
		}
		f.held = 0
	}
	if len(f.bySize) > maxFreeSizes {
		clear(f.bySize)
	}
	return first
}

// forget empties the list without freeing anything: its device was reset,
// which freed every buffer.
func (f *freeList) forget() {
	for _, sf := range f.bySize {
		clear(sf.virtual)
		clear(sf.real)
		sf.virtual, sf.real = sf.virtual[:0], sf.real[:0]
	}
	f.held = 0
}
