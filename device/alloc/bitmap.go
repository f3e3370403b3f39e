package alloc

import (
	"math/bits"
	"unsafe"
)

// Bitmap geometry: a cache line holds 8 words, 512 bits.
const (
	lineWords = 8
	lineShift = 9 // log2 of the bits in a line
	cacheLine = 64
)

// ones is a source of all-ones words; setBits copies from it so that ranges
// longer than a line are filled by the runtime's vectorised memmove (a
// shorter one is cheaper to fill in place than to call for).
var ones = func() (o [512]uint64) {
	for i := range o {
		o[i] = ^uint64(0)
	}
	return o
}()

// bitmap is a set of bit indices in [0, n) stored as a pyramid of bit
// arrays. levels[0] holds the bits themselves; bit i of levels[k+1] is set
// iff line i of levels[k] (8 words, one cache line) has a set bit. The top
// level is a single line. Every level is a multiple of 8 words long and
// starts on a 64-byte boundary, so a line is exactly one cache line.
//
// Searches go word at a time inside the current line (TrailingZeros forward,
// LeadingZeros backward), climb one level when the line is exhausted and
// descend through summary bits, so next and prev cost O(levels × 8 words)
// whatever the distance to the answer: three levels cover 2^27 bits.
//
// Invariant: a summary bit is set iff the line it stands for is non-zero.
// Bits at and beyond n are always zero.
type bitmap struct {
	n      int
	levels [][]uint64
}

func newBitmap(n int) bitmap {
	b := bitmap{n: n}
	for nb := max(n, 1); ; {
		words := (nb + 63) >> 6
		words = (words + lineWords - 1) &^ (lineWords - 1)
		b.levels = append(b.levels, alignedWords(words))
		if words == lineWords {
			return b
		}
		nb = words / lineWords // one summary bit per line
	}
}

// alignedWords returns n zero words starting on a cache-line boundary.
// Go never moves heap objects, so the alignment holds for the slice's life.
func alignedWords(n int) []uint64 {
	buf := make([]uint64, n+lineWords-1)
	off := 0
	if r := uintptr(unsafe.Pointer(&buf[0])) % cacheLine; r != 0 {
		off = int(cacheLine-r) / 8
	}
	return buf[off : off+n : off+n]
}

func (b *bitmap) get(i int) bool {
	return b.levels[0][i>>6]&(1<<(i&63)) != 0
}

// set sets bit i.
func (b *bitmap) set(i int) {
	for _, lv := range b.levels {
		w := i >> 6
		old := lv[w]
		lv[w] = old | 1<<(i&63)
		if old != 0 {
			return // the line was non-empty: its summary bit is already set
		}
		i >>= lineShift
	}
}

// clear clears bit i.
func (b *bitmap) clear(i int) {
	top := len(b.levels) - 1
	for k, lv := range b.levels {
		w := i >> 6
		x := lv[w] &^ (1 << (i & 63))
		lv[w] = x
		if x != 0 || k == top || !lineEmpty(lv, i>>lineShift) {
			return // the line is still non-empty, or nothing summarises it
		}
		i >>= lineShift
	}
}

// clearOnly clears bit i, which must be the only set bit: each level then
// holds one set bit, in the word on i's path, so clearing needs no
// emptiness test.
func (b *bitmap) clearOnly(i int) {
	for _, lv := range b.levels {
		lv[i>>6] = 0
		i >>= lineShift
	}
}

// move clears bit from and sets bit to (from != to, from set, to clear). A
// free run whose start moves but stays in its class takes this path, which
// touches only the leaf word when both bits share it.
func (b *bitmap) move(from, to int) {
	if lv := b.levels[0]; from>>6 == to>>6 {
		lv[from>>6] ^= 1<<(from&63) | 1<<(to&63)
		return
	}
	b.set(to) // first, so the clear stops early when both share a line
	b.clear(from)
}

// setRange sets bits [lo, hi).
func (b *bitmap) setRange(lo, hi int) {
	for _, lv := range b.levels {
		if !setBits(lv, lo, hi) {
			return // the range was already set, so are its summary bits
		}
		lo, hi = lo>>lineShift, (hi-1)>>lineShift+1
	}
}

// clearRange clears bits [lo, hi).
func (b *bitmap) clearRange(lo, hi int) {
	for k, lv := range b.levels {
		if lo >= hi {
			return
		}
		clearBits(lv, lo, hi)
		if k == len(b.levels)-1 {
			return
		}
		// Lines strictly inside [lo, hi) are now empty; the two edge lines
		// may still hold bits outside the range. The empty lines therefore
		// form one contiguous range of summary bits.
		flo, fhi := lo>>lineShift, (hi-1)>>lineShift+1
		if !lineEmpty(lv, flo) {
			flo++
		}
		if fhi > flo && !lineEmpty(lv, fhi-1) {
			fhi--
		}
		lo, hi = flo, fhi
	}
}

// next returns the smallest set index >= i, or -1 if there is none.
func (b *bitmap) next(i int) int {
	if i < 0 {
		i = 0
	}
	if i >= b.n {
		return -1
	}
	top := len(b.levels) - 1
	k := 0
	for {
		lv := b.levels[k]
		w := i >> 6
		if w >= len(lv) {
			return -1
		}
		end := len(lv)
		if k < top {
			end = (w | (lineWords - 1)) + 1
		}
		x := lv[w] & (^uint64(0) << (i & 63))
		for x == 0 {
			if w++; w == end {
				break
			}
			x = lv[w]
		}
		if x != 0 {
			i = w<<6 | bits.TrailingZeros64(x)
			break
		}
		if k == top {
			return -1
		}
		i = i>>lineShift + 1 // the next line, as a bit of the level above
		k++
	}
	for k > 0 {
		k--
		lv := b.levels[k]
		w := i * lineWords
		x := lv[w]
		for x == 0 { // the summary bit promises a set bit in this line
			w++
			x = lv[w]
		}
		i = w<<6 | bits.TrailingZeros64(x)
	}
	return i
}

// prev returns the largest set index <= i, or -1 if there is none.
func (b *bitmap) prev(i int) int {
	if i < 0 {
		return -1
	}
	if i >= b.n {
		i = b.n - 1
	}
	top := len(b.levels) - 1
	k := 0
	for {
		lv := b.levels[k]
		w := i >> 6
		start := 0
		if k < top {
			start = w &^ (lineWords - 1)
		}
		x := lv[w] & (^uint64(0) >> (63 - i&63))
		for x == 0 {
			if w == start {
				break
			}
			w--
			x = lv[w]
		}
		if x != 0 {
			i = w<<6 | (63 - bits.LeadingZeros64(x))
			break
		}
		if k == top {
			return -1
		}
		i = i>>lineShift - 1 // the previous line, as a bit of the level above
		if i < 0 {
			return -1
		}
		k++
	}
	for k > 0 {
		k--
		lv := b.levels[k]
		w := i*lineWords + lineWords - 1
		x := lv[w]
		for x == 0 {
			w--
			x = lv[w]
		}
		i = w<<6 | (63 - bits.LeadingZeros64(x))
	}
	return i
}

// count returns the number of set bits.
func (b *bitmap) count() int {
	n := 0
	for _, w := range b.levels[0] {
		n += bits.OnesCount64(w)
	}
	return n
}

// lineEmpty reports whether line l of lv has no set bit; the eight words
// are OR-ed together so the test is branch-free within the line.
func lineEmpty(lv []uint64, l int) bool {
	c := (*[lineWords]uint64)(lv[l*lineWords:])
	return c[0]|c[1]|c[2]|c[3]|c[4]|c[5]|c[6]|c[7] == 0
}

// setBits sets bits [lo, hi) of w (lo < hi) and reports whether any was
// clear; a multi-word range is reported as changed without looking.
func setBits(w []uint64, lo, hi int) bool {
	lw, hw := lo>>6, (hi-1)>>6
	lm := ^uint64(0) << (lo & 63)
	hm := ^uint64(0) >> (63 - (hi-1)&63)
	if lw == hw {
		old := w[lw]
		w[lw] = old | lm&hm
		return old&(lm&hm) != lm&hm
	}
	w[lw] |= lm
	if mid := w[lw+1 : hw]; len(mid) <= lineWords {
		for i := range mid {
			mid[i] = ^uint64(0)
		}
	} else {
		for len(mid) > 0 {
			mid = mid[copy(mid, ones[:]):]
		}
	}
	w[hw] |= hm
	return true
}

func clearBits(w []uint64, lo, hi int) {
	lw, hw := lo>>6, (hi-1)>>6
	lm := ^uint64(0) << (lo & 63)
	hm := ^uint64(0) >> (63 - (hi-1)&63)
	if lw == hw {
		w[lw] &^= lm & hm
		return
	}
	w[lw] &^= lm
	if mid := w[lw+1 : hw]; len(mid) <= lineWords {
		for i := range mid {
			mid[i] = 0
		}
	} else {
		clear(mid)
	}
	w[hw] &^= hm
}

// occupancy is the level-1 page bitmap of Multilevel: bit p is set iff page
// p is allocated. It has no summary levels: Multilevel only asks whether a
// page is allocated and marks and clears whole blocks, never searches it
// (a free run is found through its class bitmap, its neighbours through
// their boundary pages). A line of pages lying wholly inside one allocated
// range is recorded by one bit in full instead of 512 bits in part, so
// marking a range costs O(its edges + its lines / 64) words rather than
// O(its pages / 64): allocating 1 GiB of 64 KiB pages touches 32 bits of
// one word, not 256 words.
//
// Invariants: a page is allocated iff its bit in part or its line's bit in
// full is set; a line whose full bit is set has all its part bits clear;
// bits at and beyond the page count (in part) and line count (in full) are
// clear. Ranges are cleared exactly as they were set (the same lo and hi),
// which is what keeps the second invariant without clearing part under
// full lines.
type occupancy struct {
	n    int      // pages
	part []uint64 // pages, except those in full lines
	full []uint64 // lines
}

func newOccupancy(n int) occupancy {
	lines := (n + 1<<lineShift - 1) >> lineShift
	return occupancy{
		n:    n,
		part: alignedWords(lines * lineWords),
		full: make([]uint64, (lines+63)>>6),
	}
}

func (o *occupancy) get(p int) bool {
	return (o.full[p>>(lineShift+6)]>>((p>>lineShift)&63)|o.part[p>>6]>>(p&63))&1 != 0
}

// fullLines returns the lines wholly inside [lo, hi) as [fl, fh).
func fullLines(lo, hi int) (fl, fh int) {
	return (lo + 1<<lineShift - 1) >> lineShift, hi >> lineShift
}

// setRange marks pages [lo, hi), all currently clear, as allocated.
func (o *occupancy) setRange(lo, hi int) {
	fl, fh := fullLines(lo, hi)
	if fl >= fh {
		setBits(o.part, lo, hi)
		return
	}
	setBits(o.full, fl, fh)
	if lo < fl<<lineShift {
		setBits(o.part, lo, fl<<lineShift)
	}
	if fh<<lineShift < hi {
		setBits(o.part, fh<<lineShift, hi)
	}
}

// clearRange clears pages [lo, hi), which must have been set by one
// setRange(lo, hi).
func (o *occupancy) clearRange(lo, hi int) {
	fl, fh := fullLines(lo, hi)
	if fl >= fh {
		clearBits(o.part, lo, hi)
		return
	}
	clearBits(o.full, fl, fh)
	if lo < fl<<lineShift {
		clearBits(o.part, lo, fl<<lineShift)
	}
	if fh<<lineShift < hi {
		clearBits(o.part, fh<<lineShift, hi)
	}
}

// count returns the number of allocated pages.
func (o *occupancy) count() int {
	n := 0
	for _, w := range o.part {
		n += bits.OnesCount64(w)
	}
	for _, w := range o.full {
		n += bits.OnesCount64(w) << lineShift
	}
	return n
}
