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
