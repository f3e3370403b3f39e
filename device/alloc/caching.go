package alloc

import (
	"fmt"
	"slices"
)

// Caching-allocator constants, as in PyTorch's CUDACachingAllocator.
const (
	cachingRound    = 512      // every request rounds up to a multiple of this
	smallRequest    = 1 << 20  // requests up to this go to the small pool
	smallSegment    = 2 << 20  // segment size of the small pool
	largeSegment    = 20 << 20 // segment size of the large pool for requests below minLargeSegment
	minLargeSegment = 10 << 20 // larger requests get a segment of their own size...
	largeRound      = 2 << 20  // ...rounded up to this
)

// Caching is the baseline device allocator in the style of PyTorch's
// CUDACachingAllocator (and TensorFlow's BFC allocator): memory is obtained
// from the device in segments, which are never given back while they can be
// reused, and carved into blocks.
//
// # Protocol
//
// A request rounds up to 512 bytes. Up to 1 MiB it is served from the small
// pool, whose segments are 2 MiB; above, from the large pool, whose segments
// are 20 MiB, or the request rounded up to 2 MiB when that is 10 MiB or more.
// Each pool keeps its free blocks in a treap ordered by (size, address), and
// a request takes the smallest free block that fits (best fit, ties to the
// lower address), in O(log n). If the block is larger than needed it is
// split when the remainder is at least 512 bytes (small pool) or more than
// 1 MiB (large pool); otherwise the request keeps the whole block. If no
// block fits, a new segment is obtained from the address space and counted
// in Segments: that is the expensive device call (cudaMalloc) the cache
// exists to avoid. If the address space is exhausted, every cached segment
// that is entirely free is given back and the segment allocation is retried
// once.
//
// Free marks the block free and merges it with free neighbours in the same
// segment (blocks of a segment form a doubly linked list in address order),
// then puts the result back in its pool's treap.
//
// # Invariants
//
//   - Blocks of a segment tile it exactly; no two adjacent blocks are free.
//   - A block is in its pool's treap iff it is free; byAddr holds every
//     block of every cached segment, live or free.
//   - Reserved is the total size of the cached segments; cachedFree the
//     total size of their free blocks.
//
// The segments themselves come from a Reference allocator over the whole
// capacity, standing in for the driver.
type Caching struct {
	capacity   int64
	space      *Reference
	blocks     []cblock
	spareIdx   []int32 // recycled entries of blocks
	byAddr     map[uint64]int32
	pools      [2]int32 // treap roots: small, large
	segs       []cseg   // cached segments, sorted by base
	segAllocs  int
	cachedFree int64
	rng        uint64
	stats      Stats
}

type cblock struct {
	addr        uint64
	size        int64
	req         int64 // requested size while live
	prev, next  int32 // neighbours in the segment, -1 at its ends
	left, right int32 // treap children while free
	prio        uint32
	pool        uint8
	free        bool
}

type cseg struct {
	base  uint64
	size  int64
	first int32 // block at base
}

// NewCaching returns a Caching allocator over capacity bytes. A capacity
// of zero or less gives one without any: every Alloc fails with
// ErrOutOfMemory, as it does on the zero Caching.
func NewCaching(capacity int64) *Caching {
	capacity = max(capacity, 0)
	return &Caching{
		capacity: capacity,
		space:    NewReference(capacity),
		byAddr:   make(map[uint64]int32),
		pools:    [2]int32{-1, -1},
		rng:      0x9e3779b97f4a7c15,
		stats:    Stats{Capacity: capacity},
	}
}

// Segments returns the number of segments obtained from the address space
// so far: the device allocations the cache could not avoid.
func (c *Caching) Segments() int {
	if c == nil {
		return 0
	}
	return c.segAllocs
}

// Alloc implements Allocator.
func (c *Caching) Alloc(size int64) (uint64, error) {
	if c == nil {
		c = new(Caching) // the zero Caching's answer: no memory
	}
	if size <= 0 {
		return 0, fmt.Errorf("%w: %d", ErrBadSize, size)
	}
	if size > c.capacity {
		return 0, fmt.Errorf("%w: %d bytes requested, capacity %d", ErrOutOfMemory, size, c.capacity)
	}
	rs, ok := roundUp(size, cachingRound)
	if !ok {
		return 0, fmt.Errorf("%w: %d bytes requested, capacity %d", ErrOutOfMemory, size, c.capacity)
	}
	pool := uint8(0)
	if rs > smallRequest {
		pool = 1
	}
	b := c.lowerBound(c.pools[pool], rs)
	if b < 0 {
		var err error
		if b, err = c.grow(rs, pool); err != nil {
			return 0, fmt.Errorf("%w: %d bytes requested", err, size)
		}
	}
	c.pools[pool] = c.remove(c.pools[pool], b)
	c.cachedFree -= c.blocks[b].size
	if rem := c.blocks[b].size - rs; (pool == 0 && rem >= cachingRound) || (pool == 1 && rem > smallRequest) {
		r := c.newBlock() // may move c.blocks
		blk := &c.blocks[b]
		c.blocks[r] = cblock{
			addr: blk.addr + uint64(rs), size: rem, prev: b, next: blk.next,
			left: -1, right: -1, prio: c.blocks[r].prio, pool: pool, free: true,
		}
		if blk.next >= 0 {
			c.blocks[blk.next].prev = r
		}
		blk.next = r
		blk.size = rs
		c.byAddr[c.blocks[r].addr] = r
		c.pools[pool] = c.insert(c.pools[pool], r)
		c.cachedFree += rem
	}
	blk := &c.blocks[b]
	blk.free = false
	blk.req = size
	c.stats.Allocs++
	c.stats.InUse += size
	c.stats.Peak = max(c.stats.Peak, c.stats.InUse)
	return blk.addr, nil
}

// Free implements Allocator.
func (c *Caching) Free(addr uint64) error {
	if c == nil {
		c = new(Caching)
	}
	b, ok := c.byAddr[addr]
	if !ok {
		return c.notABlock(addr)
	}
	blk := &c.blocks[b]
	if blk.free {
		return fmt.Errorf("%w: %#x", ErrDoubleFree, addr)
	}
	c.stats.Frees++
	c.stats.InUse -= blk.req
	blk.free, blk.req = true, 0
	pool := blk.pool
	if n := blk.next; n >= 0 && c.blocks[n].free {
		nb := &c.blocks[n]
		c.pools[pool] = c.remove(c.pools[pool], n)
		c.cachedFree -= nb.size
		blk.size += nb.size
		blk.next = nb.next
		if nb.next >= 0 {
			c.blocks[nb.next].prev = b
		}
		delete(c.byAddr, nb.addr)
		c.spareIdx = append(c.spareIdx, n)
	}
	if p := blk.prev; p >= 0 && c.blocks[p].free {
		pb := &c.blocks[p]
		c.pools[pool] = c.remove(c.pools[pool], p)
		c.cachedFree -= pb.size
		pb.size += blk.size
		pb.next = blk.next
		if blk.next >= 0 {
			c.blocks[blk.next].prev = p
		}
		delete(c.byAddr, blk.addr)
		c.spareIdx = append(c.spareIdx, b)
		b = p
	}
	c.pools[pool] = c.insert(c.pools[pool], b)
	c.cachedFree += c.blocks[b].size
	return nil
}

// notABlock explains why addr, which starts no block, cannot be freed.
func (c *Caching) notABlock(addr uint64) error {
	i, _ := slices.BinarySearchFunc(c.segs, addr, func(s cseg, a uint64) int {
		switch {
		case s.base+uint64(s.size) <= a:
			return -1
		case s.base > a:
			return 1
		}
		return 0
	})
	if i < len(c.segs) && c.segs[i].base <= addr && addr < c.segs[i].base+uint64(c.segs[i].size) {
		for b := c.segs[i].first; b >= 0; b = c.blocks[b].next {
			if blk := &c.blocks[b]; addr < blk.addr+uint64(blk.size) {
				if blk.free {
					return fmt.Errorf("%w: %#x is in a free block", ErrDoubleFree, addr)
				}
				break
			}
		}
		return fmt.Errorf("%w: %#x is inside a block", ErrForeign, addr)
	}
	return fmt.Errorf("%w: %#x is in no cached segment", ErrForeign, addr)
}

// Stats implements Allocator. Free space is the free blocks of the cached
// segments plus the address space not reserved; its largest piece is the
// largest free block or the largest unreserved range.
func (c *Caching) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	if c.space == nil { // the zero Caching: nothing ever held
		return c.stats
	}
	st := c.stats
	free := c.capacity - (c.stats.Reserved - c.cachedFree)
	var largest int64
	for _, root := range c.pools {
		if b := c.maxBlock(root); b >= 0 {
			largest = max(largest, c.blocks[b].size)
		}
	}
	for _, s := range c.space.free {
		largest = max(largest, s.size)
	}
	if free > 0 {
		st.Fragmentation = 1 - float64(largest)/float64(free)
	}
	return st
}

// grow obtains a segment for a request of rs bytes in pool and returns its
// single free block, already in the pool's treap.
func (c *Caching) grow(rs int64, pool uint8) (int32, error) {
	size := int64(smallSegment)
	switch {
	case pool == 0:
	case rs < minLargeSegment:
		size = largeSegment
	default:
		var ok bool
		if size, ok = roundUp(rs, largeRound); !ok {
			return -1, fmt.Errorf("%w: a segment for %d bytes, capacity %d", ErrOutOfMemory, rs, c.capacity)
		}
	}
	base, err := c.space.Alloc(size)
	if err != nil && c.releaseCached() {
		base, err = c.space.Alloc(size)
	}
	if err != nil {
		// The cached segments were released and the allocation retried
		// (PyTorch's empty_cache on OOM): what is left is in use.
		return -1, fmt.Errorf("%w: %d bytes requested (a segment of %d): %d in use, %d cached, %d free of %d",
			ErrOutOfMemory, rs, size, c.stats.InUse, c.cachedFree, c.capacity-c.stats.Reserved, c.capacity)
	}
	b := c.newBlock()
	c.blocks[b] = cblock{addr: base, size: size, prev: -1, next: -1, left: -1, right: -1,
		prio: c.blocks[b].prio, pool: pool, free: true}
	c.byAddr[base] = b
	c.pools[pool] = c.insert(c.pools[pool], b)
	c.cachedFree += size
	i, _ := slices.BinarySearchFunc(c.segs, base, func(s cseg, a uint64) int {
		if s.base < a {
			return -1
		}
		return 1
	})
	c.segs = slices.Insert(c.segs, i, cseg{base: base, size: size, first: b})
	c.segAllocs++
	c.stats.Reserved += size
	c.stats.PeakReserved = max(c.stats.PeakReserved, c.stats.Reserved)
	return b, nil
}

// releaseCached gives every entirely free segment back to the address space
// and reports whether there was one.
func (c *Caching) releaseCached() bool {
	kept := c.segs[:0]
	for _, s := range c.segs {
		blk := &c.blocks[s.first]
		if !blk.free || blk.size != s.size {
			kept = append(kept, s)
			continue
		}
		c.pools[blk.pool] = c.remove(c.pools[blk.pool], s.first)
		c.cachedFree -= s.size
		delete(c.byAddr, s.base)
		c.spareIdx = append(c.spareIdx, s.first)
		if err := c.space.Free(s.base); err != nil {
			panic("alloc: caching: segment unknown to the address space: " + err.Error())
		}
		c.stats.Reserved -= s.size
	}
	released := len(kept) < len(c.segs)
	clear(c.segs[len(kept):])
	c.segs = kept
	return released
}

// newBlock returns an unused entry of c.blocks with a fresh treap priority.
func (c *Caching) newBlock() int32 {
	var b int32
	if n := len(c.spareIdx); n > 0 {
		b = c.spareIdx[n-1]
		c.spareIdx = c.spareIdx[:n-1]
	} else {
		b = int32(len(c.blocks))
		c.blocks = append(c.blocks, cblock{})
	}
	c.rng ^= c.rng << 13 // xorshift64
	c.rng ^= c.rng >> 7
	c.rng ^= c.rng << 17
	c.blocks[b] = cblock{prio: uint32(c.rng >> 32)}
	return b
}

// The treap of a pool: a binary search tree on (size, addr) that is a heap
// on prio, so its expected depth is O(log n). The nodes are the free blocks
// themselves.

func (c *Caching) less(a, b int32) bool {
	x, y := &c.blocks[a], &c.blocks[b]
	if x.size != y.size {
		return x.size < y.size
	}
	return x.addr < y.addr
}

func (c *Caching) insert(root, x int32) int32 {
	if root < 0 {
		c.blocks[x].left, c.blocks[x].right = -1, -1
		return x
	}
	r := &c.blocks[root]
	if c.less(x, root) {
		r.left = c.insert(r.left, x)
		if c.blocks[r.left].prio > r.prio {
			l := r.left
			r.left = c.blocks[l].right
			c.blocks[l].right = root
			return l
		}
	} else {
		r.right = c.insert(r.right, x)
		if c.blocks[r.right].prio > r.prio {
			rr := r.right
			r.right = c.blocks[rr].left
			c.blocks[rr].left = root
			return rr
		}
	}
	return root
}

func (c *Caching) remove(root, x int32) int32 {
	if root < 0 {
		panic("alloc: caching: free block missing from its pool")
	}
	if root == x {
		return c.merge(c.blocks[x].left, c.blocks[x].right)
	}
	r := &c.blocks[root]
	if c.less(x, root) {
		r.left = c.remove(r.left, x)
	} else {
		r.right = c.remove(r.right, x)
	}
	return root
}

// merge joins two treaps whose keys are all smaller in a than in b.
func (c *Caching) merge(a, b int32) int32 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	case c.blocks[a].prio > c.blocks[b].prio:
		c.blocks[a].right = c.merge(c.blocks[a].right, b)
		return a
	default:
		c.blocks[b].left = c.merge(a, c.blocks[b].left)
		return b
	}
}

// lowerBound returns the smallest block of at least size bytes, or -1.
func (c *Caching) lowerBound(root int32, size int64) int32 {
	best := int32(-1)
	for x := root; x >= 0; {
		if c.blocks[x].size >= size {
			best, x = x, c.blocks[x].left
		} else {
			x = c.blocks[x].right
		}
	}
	return best
}

func (c *Caching) maxBlock(root int32) int32 {
	if root < 0 {
		return -1
	}
	for c.blocks[root].right >= 0 {
		root = c.blocks[root].right
	}
	return root
}
