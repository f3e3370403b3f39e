package fabric

import (
	"fmt"
	"sync"
	"unsafe"
)

// HeapAlign is the alignment of every symmetric allocation.
const HeapAlign = 128

// Heap is a symmetric heap: one block of the same size on every rank, from
// which every rank carves the same objects at the same offsets, so that a
// pointer on one rank translates to its peer's by swapping the base
// (Translate). The invariant is checked: the i-th allocation of every rank
// must have the name and size of the first rank's i-th, or Alloc fails
// naming both ranks.
//
// Alloc is safe for concurrent use by the ranks; the bytes are the ranks'
// to synchronize (with Flags). NewHeap makes one: the zero Heap has no
// rank (its Alloc and Translate fail with ErrConfig), and a nil *Heap
// (NewHeap's on an error) answers as the zero Heap.
type Heap struct {
	ranks int
	size  int64
	mem   [][]byte // per rank; nil when the heap is virtual

	mu     sync.Mutex
	objs   []object // the agreed allocations, in order
	owners []int    // rank that made each agreed allocation
	next   []int    // per rank, index of its next allocation
	top    int64
}

type object struct {
	name string
	off  int64
	size int64
}

// maxMaterialized bounds the host memory of a materialized heap, over all
// its ranks.
const maxMaterialized = 16 << 30

// Ptr is a symmetric object as one rank sees it.
type Ptr struct {
	Rank int
	Off  int64
	Size int64
}

// NewHeap makes a heap of size bytes on each of ranks ranks; materialize
// gives it contents (zeroed), at most maxMaterialized bytes over all ranks
// (16 GiB): a larger one is an ErrConfig error, as are a rank count out of
// [1, MaxRanks] and a negative size.
func NewHeap(ranks int, size int64, materialize bool) (*Heap, error) {
	if ranks < 1 || ranks > MaxRanks {
		return nil, fmt.Errorf("%w: heap of %d ranks, want 1 to %d", ErrConfig, ranks, MaxRanks)
	}
	if size < 0 {
		return nil, fmt.Errorf("%w: heap size %d", ErrConfig, size)
	}
	if materialize && size > maxMaterialized/int64(ranks) {
		return nil, fmt.Errorf("%w: materialized heap of %d ranks × %d bytes, more than %d in all", ErrConfig, ranks, size, int64(maxMaterialized))
	}
	h := &Heap{ranks: ranks, size: size, next: make([]int, ranks)}
	if materialize {
		h.mem = make([][]byte, ranks)
		for r := range h.mem {
			h.mem[r] = make([]byte, size)
		}
	}
	return h, nil
}

// Ranks is the number of ranks.
func (h *Heap) Ranks() int {
	if h == nil {
		return 0
	}
	return h.ranks
}

// Alloc carves rank's next object, name of size bytes. The first rank to
// make its i-th allocation fixes its offset; every other rank's i-th must
// agree, or the error (ErrAsymmetric) names both ranks.
func (h *Heap) Alloc(rank int, name string, size int64) (Ptr, error) {
	if h == nil {
		h = new(Heap) // the zero Heap's answer
	}
	if rank < 0 || rank >= h.ranks {
		return Ptr{}, fmt.Errorf("%w: heap alloc %q on rank %d of %d", ErrConfig, name, rank, h.ranks)
	}
	if size < 0 {
		return Ptr{}, fmt.Errorf("%w: heap alloc %q of %d bytes on rank %d", ErrConfig, name, size, rank)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	i := h.next[rank]
	if i < len(h.objs) {
		o := h.objs[i]
		if o.name != name || o.size != size {
			return Ptr{}, fmt.Errorf("%w: allocation %d is %q (%d B) on rank %d but %q (%d B) on rank %d",
				ErrAsymmetric, i, o.name, o.size, h.owners[i], name, size, rank)
		}
		h.next[rank]++
		return Ptr{Rank: rank, Off: o.off, Size: size}, nil
	}
	off := h.top // aligned up, unless that passes the heap's end
	if r := off % HeapAlign; r != 0 && off <= h.size-(HeapAlign-r) {
		off += HeapAlign - r
	}
	if off%HeapAlign != 0 || size > h.size-off {
		return Ptr{}, fmt.Errorf("%w: %q needs %d B at offset %d of %d on rank %d", ErrHeapFull, name, size, off, h.size, rank)
	}
	h.objs = append(h.objs, object{name: name, off: off, size: size})
	h.owners = append(h.owners, rank)
	h.top = off + size
	h.next[rank]++
	return Ptr{Rank: rank, Off: off, Size: size}, nil
}

// Translate returns p as rank sees it: the same offset in rank's block.
// A rank outside [0, Ranks()) is an ErrConfig error naming the rank and
// the range.
func (h *Heap) Translate(p Ptr, rank int) (Ptr, error) {
	if h == nil {
		h = new(Heap) // the zero Heap's answer
	}
	if rank < 0 || rank >= h.ranks {
		return Ptr{}, fmt.Errorf("%w: heap translate to rank %d, want 0 to %d", ErrConfig, rank, h.ranks-1)
	}
	return Ptr{Rank: rank, Off: p.Off, Size: p.Size}, nil
}

// Bytes returns p's contents (nil on a virtual heap, and for a Ptr
// outside the heap).
func (h *Heap) Bytes(p Ptr) []byte {
	if h == nil || h.mem == nil || p.Rank < 0 || p.Rank >= len(h.mem) || p.Off < 0 || p.Size < 0 || p.Off > int64(len(h.mem[p.Rank]))-p.Size {
		return nil
	}
	return h.mem[p.Rank][p.Off : p.Off+p.Size : p.Off+p.Size]
}

// Float32s returns p's contents as float32 elements (nil on a virtual
// heap). Offsets are HeapAlign-aligned, so the view is aligned.
func (h *Heap) Float32s(p Ptr) []float32 {
	b := h.Bytes(p)
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// Int32s returns p's contents as int32 elements (nil on a virtual heap).
func (h *Heap) Int32s(p Ptr) []int32 {
	b := h.Bytes(p)
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// Used is the bytes carved so far (the same on every rank).
func (h *Heap) Used() int64 {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.top
}
