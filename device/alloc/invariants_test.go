package alloc

import (
	"fmt"
	"math/bits"
)

// checkBitmap verifies the summary invariant of b.
func checkBitmap(b *bitmap) error {
	for k, lv := range b.levels {
		if len(lv)%lineWords != 0 {
			return fmt.Errorf("level %d: %d words", k, len(lv))
		}
		if k == 0 {
			for i := b.n; i < len(lv)*64; i++ {
				if lv[i>>6]&(1<<(i&63)) != 0 {
					return fmt.Errorf("bit %d beyond n=%d is set", i, b.n)
				}
			}
		}
		if k+1 == len(b.levels) {
			if len(lv) != lineWords {
				return fmt.Errorf("top level has %d words", len(lv))
			}
			break
		}
		up := b.levels[k+1]
		for l := 0; l < len(up)*64; l++ {
			has := l < len(lv)/lineWords && !lineEmpty(lv, l)
			if got := up[l>>6]&(1<<(l&63)) != 0; got != has {
				return fmt.Errorf("level %d line %d non-empty=%v but summary bit=%v", k, l, has, got)
			}
		}
	}
	return nil
}

// allocatedPages returns, by page, whether the page belongs to an
// allocated unit, read off meta and the edges as check verifies them.
func (m *Multilevel) allocatedPages() []bool {
	used := make([]bool, m.pages)
	for p := 0; p < m.pages; {
		md := m.meta[p]
		n := 1
		switch {
		case md.n < 0:
			n = m.unitPages[m.slabs[-md.n-1].kind]
		case md.n > 0:
			n = int(md.n)
		}
		for q := p; q < min(p+n, m.pages); q++ {
			used[q] = md.n < 0 || m.edge(p)
		}
		p += n
	}
	return used
}

// check verifies every invariant of m stated at Multilevel and slab.
func (m *Multilevel) check() error {
	if len(m.edges) != (m.pages+63)/64 {
		return fmt.Errorf("%d pages: %d edge words", m.pages, len(m.edges))
	}
	for i := m.pages; i < len(m.edges)*64; i++ {
		if m.edges[i>>6]&(1<<(i&63)) != 0 {
			return fmt.Errorf("edge bit %d beyond %d pages is set", i, m.pages)
		}
	}
	// checkUnit checks that the allocated unit [p, p+n) has edge bits at its
	// first and last page only and meta equal to inner on its other pages.
	checkUnit := func(p, n int, inner pageMeta) error {
		if p+n > m.pages || !m.edge(p) || !m.edge(p+n-1) {
			return fmt.Errorf("unit [%d,%d): past the end or edges not set", p, p+n)
		}
		for q := p + 1; q < p+n; q++ {
			if q < p+n-1 && m.edge(q) || m.meta[q] != inner {
				return fmt.Errorf("unit [%d,%d): page %d edge=%v meta %+v", p, p+n, q, m.edge(q), m.meta[q])
			}
		}
		return nil
	}
	edges := 0
	counts := make([]int, len(m.runs))
	nfree, inUse := 0, int64(0)
	segLive := 0
	slabSeen := map[int32]bool{}
	prevFree := false
	for p := 0; p < m.pages; {
		md := m.meta[p]
		if md.n >= 0 && !m.edge(p) {
			if prevFree {
				return fmt.Errorf("free run at page %d follows another", p)
			}
			prevFree = true
			e := p + int(md.n)
			if md.n <= 0 || e > m.pages || md.slack != 0 || md.seg != 0 {
				return fmt.Errorf("free run at page %d: start meta %+v", p, md)
			}
			if int(m.runStart[e-1]) != p {
				return fmt.Errorf("free run [%d,%d): runStart at its last page is %d", p, e, m.runStart[e-1])
			}
			for q := p; q < e; q++ {
				if m.edge(q) || q > p && m.meta[q] != (pageMeta{}) {
					return fmt.Errorf("free run [%d,%d): page %d edge=%v meta %+v", p, e, q, m.edge(q), m.meta[q])
				}
			}
			c := m.class(e - p)
			if !m.runs[c].get(e - 1) {
				return fmt.Errorf("free run [%d,%d) missing from class %d", p, e, c)
			}
			counts[c]++
			nfree += e - p
			p = e
			continue
		}
		prevFree = false
		switch {
		case md.n > 0:
			n := int(md.n)
			if p+n > m.pages || int64(md.slack) >= m.pageSize {
				return fmt.Errorf("block at page %d: meta %+v", p, md)
			}
			if err := checkUnit(p, n, pageMeta{}); err != nil {
				return fmt.Errorf("block: %w", err)
			}
			edges += min(n, 2)
			size := int64(n)<<m.pageShift - int64(md.slack)
			inUse += size
			if md.seg != 0 {
				segLive++
				if e := m.seg.entries[md.seg-1]; e.base != m.addrOf(p) || e.size != size {
					return fmt.Errorf("block at page %d: segment entry %d is %+v", p, md.seg-1, e)
				}
			}
			p += n
		case md.n < 0:
			si := -md.n - 1
			if int(si) >= len(m.slabs) || slabSeen[si] {
				return fmt.Errorf("page %d: slab %d bad or seen twice", p, si)
			}
			slabSeen[si] = true
			s := &m.slabs[si]
			unit := m.unitPages[s.kind]
			if int(s.page) != p {
				return fmt.Errorf("slab %d starts at page %d, found at %d", si, s.page, p)
			}
			if err := checkUnit(p, unit, pageMeta{n: md.n}); err != nil {
				return fmt.Errorf("slab %d: %w", si, err)
			}
			edges += min(unit, 2)
			n, sl, err := m.checkSlab(si)
			if err != nil {
				return err
			}
			inUse += n
			segLive += sl
			p += unit
		default:
			return fmt.Errorf("used page %d is neither a block start nor a slab page", p)
		}
	}
	marked := 0
	for _, w := range m.edges {
		marked += bits.OnesCount64(w)
	}
	if nfree != m.nfree || marked != edges {
		return fmt.Errorf("free pages %d, counter %d; %d edge bits set, units have %d", nfree, m.nfree, marked, edges)
	}
	if r := int64(m.pages-nfree) << m.pageShift; r != m.stats.Reserved {
		return fmt.Errorf("reserved %d, counter %d", r, m.stats.Reserved)
	}
	if inUse != m.stats.InUse {
		return fmt.Errorf("in use %d, counter %d", inUse, m.stats.InUse)
	}
	for c := range m.runs {
		if err := checkBitmap(&m.runs[c]); err != nil {
			return fmt.Errorf("class %d: %w", c, err)
		}
		if lo := m.lowest[c]; lo >= 0 && int(lo) != m.runs[c].next(0) {
			return fmt.Errorf("class %d: lowest run cached at %d, is at %d", c, lo, m.runs[c].next(0))
		}
		if counts[c] != m.runCount[c] || m.runs[c].count() != counts[c] ||
			(m.runMask&(1<<c) != 0) != (counts[c] > 0) {
			return fmt.Errorf("class %d: %d runs, counter %d, bitmap %d, mask %b",
				c, counts[c], m.runCount[c], m.runs[c].count(), m.runMask)
		}
	}
	if live := len(m.seg.entries) - len(m.seg.free); live != segLive {
		return fmt.Errorf("segment table has %d live entries, blocks hold %d", live, segLive)
	}
	// Partial lists hold exactly the live slabs with a free object.
	for _, k := range []Kind{MPE, CPE} {
		for c, head := range m.partial[k] {
			prev := int32(-1)
			for si := head; si >= 0; si = m.slabs[si].next {
				s := &m.slabs[si]
				if !slabSeen[si] || s.kind != k || int(s.class) != c || s.prev != prev || s.inUse == s.cap {
					return fmt.Errorf("partial list %v/%d: slab %d %+v", k, c, si, *s)
				}
				delete(slabSeen, si) // each slab on at most one list, once
				prev = si
			}
			if sp := m.spare[k][c]; sp >= 0 && (m.slabs[sp].inUse != 0 || m.slabs[sp].kind != k) {
				return fmt.Errorf("spare %v/%d: slab %d in use %d", k, c, sp, m.slabs[sp].inUse)
			}
		}
	}
	for si := range slabSeen {
		if s := &m.slabs[si]; s.inUse != s.cap {
			return fmt.Errorf("slab %d has a free object but is on no partial list", si)
		}
	}
	return nil
}

// checkSlab verifies one slab and returns the bytes and segment entries its
// live objects hold.
func (m *Multilevel) checkSlab(si int32) (inUse int64, segs int, err error) {
	s := &m.slabs[si]
	if s.size != m.classSize[s.class] || s.cap != uint32(int64(m.unitPages[s.kind])<<m.pageShift/int64(s.size)) {
		return 0, 0, fmt.Errorf("slab %d: size %d cap %d", si, s.size, s.cap)
	}
	live := 0
	for _, w := range s.live {
		live += bits.OnesCount64(w)
	}
	if uint32(live) != s.inUse || s.bump > s.cap {
		return 0, 0, fmt.Errorf("slab %d: %d live bits, inUse %d, bump %d", si, live, s.inUse, s.bump)
	}
	onList := 0
	for i := s.free; i != noObject; i = uint32(s.hdr[i]) {
		if i >= s.bump || s.live[i>>6]&(1<<(i&63)) != 0 || onList > int(s.cap) {
			return 0, 0, fmt.Errorf("slab %d: bad free object %d", si, i)
		}
		onList++
	}
	if onList != int(s.bump-s.inUse) {
		return 0, 0, fmt.Errorf("slab %d: %d on the free list, want %d", si, onList, s.bump-s.inUse)
	}
	for i := uint32(0); i < s.cap; i++ {
		if s.live[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		size, seg := int64(s.hdr[i]>>32), int32(uint32(s.hdr[i]))
		if size <= 0 || size > int64(s.size) || size >= m.small[s.kind] {
			return 0, 0, fmt.Errorf("slab %d object %d: size %d", si, i, size)
		}
		inUse += size
		if seg != 0 {
			segs++
			addr := m.addrOf(int(s.page)) + uint64(i)*uint64(s.size)
			if e := m.seg.entries[seg-1]; e.base != addr || e.size != size {
				return 0, 0, fmt.Errorf("slab %d object %d: segment entry %+v", si, i, e)
			}
		}
	}
	return inUse, segs, nil
}

// check verifies every invariant of c stated at Caching.
func (c *Caching) check() error {
	var reserved, cachedFree, inUse int64
	blocks := 0
	inTree := map[int32]bool{}
	for p := range c.pools {
		prev := int32(-1)
		var walk func(x int32, depth int) error
		walk = func(x int32, depth int) error {
			if x < 0 {
				return nil
			}
			if depth > 200 {
				return fmt.Errorf("treap deeper than 200")
			}
			b := &c.blocks[x]
			for _, ch := range []int32{b.left, b.right} {
				if ch >= 0 && c.blocks[ch].prio > b.prio {
					return fmt.Errorf("treap heap order broken at block %d", x)
				}
			}
			if err := walk(b.left, depth+1); err != nil {
				return err
			}
			if prev >= 0 && !c.less(prev, x) {
				return fmt.Errorf("treap order broken at block %d", x)
			}
			if !b.free || int(b.pool) != p || inTree[x] {
				return fmt.Errorf("treap of pool %d holds block %d %+v", p, x, *b)
			}
			inTree[x] = true
			prev = x
			return walk(b.right, depth+1)
		}
		if err := walk(c.pools[p], 0); err != nil {
			return err
		}
	}
	for i, s := range c.segs {
		if i > 0 && c.segs[i-1].base >= s.base {
			return fmt.Errorf("segments out of order at %d", i)
		}
		if c.space.live[s.base] != s.size {
			return fmt.Errorf("segment %#x unknown to the address space", s.base)
		}
		reserved += s.size
		addr, prev, prevFree := s.base, int32(-1), false
		for b := s.first; b >= 0; b = c.blocks[b].next {
			blk := &c.blocks[b]
			if blk.addr != addr || blk.prev != prev || blk.size <= 0 || blk.size%cachingRound != 0 {
				return fmt.Errorf("segment %#x: block %d %+v, want addr %#x prev %d", s.base, b, *blk, addr, prev)
			}
			if blk.free && prevFree {
				return fmt.Errorf("segment %#x: adjacent free blocks at %#x", s.base, addr)
			}
			if c.byAddr[addr] != b {
				return fmt.Errorf("segment %#x: block %d not indexed by address", s.base, b)
			}
			if blk.free != inTree[b] {
				return fmt.Errorf("block %d free=%v, in treap=%v", b, blk.free, inTree[b])
			}
			if blk.free {
				cachedFree += blk.size
			} else {
				if blk.req <= 0 || blk.req > blk.size {
					return fmt.Errorf("block %d: request %d of %d", b, blk.req, blk.size)
				}
				inUse += blk.req
			}
			blocks++
			addr += uint64(blk.size)
			prev, prevFree = b, blk.free
		}
		if addr != s.base+uint64(s.size) {
			return fmt.Errorf("segment %#x: blocks end at %#x", s.base, addr)
		}
	}
	if len(c.space.live) != len(c.segs) {
		return fmt.Errorf("%d segments cached, %d reserved in the space", len(c.segs), len(c.space.live))
	}
	if blocks != len(c.byAddr) {
		return fmt.Errorf("%d blocks, %d indexed", blocks, len(c.byAddr))
	}
	if reserved != c.stats.Reserved || cachedFree != c.cachedFree || inUse != c.stats.InUse {
		return fmt.Errorf("reserved %d/%d, cached free %d/%d, in use %d/%d",
			reserved, c.stats.Reserved, cachedFree, c.cachedFree, inUse, c.stats.InUse)
	}
	return nil
}
