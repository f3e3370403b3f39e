package alloc

import "fmt"

// slab is level 2 of Multilevel: one unit of pages (a page for MPE, a
// segment for CPE) cut into cap objects of one size class.
//
// Object i is free iff its live bit is clear. Free objects below bump are
// chained through their headers starting at free; objects at and above bump
// were never handed out. A slab is on its (kind, class) partial list iff
// inUse < cap.
type slab struct {
	page       int32 // first page
	kind       Kind
	class      uint8
	size       uint32 // object size
	cap        uint32 // objects
	inUse      uint32
	bump       uint32
	free       uint32   // first free object below bump, or noObject
	prev, next int32    // partial-list neighbours, -1 at the ends
	hdr        []uint64 // per object: free: next free object; live: size<<32 | segment entry+1
	live       []uint64 // bit i set iff object i is live
}

const noObject = ^uint32(0)

// allocSmall serves a level-2 request from the first slab of its class's
// partial list, making a new slab if the list is empty.
func (m *Multilevel) allocSmall(size int64, kind Kind, seg int32) (uint64, bool) {
	c := int(m.classOf[(size-1)/granule])
	si := m.partial[kind][c]
	if si < 0 {
		if si = m.newSlab(kind, c); si < 0 {
			return 0, false
		}
	}
	if m.spare[kind][c] == si {
		m.spare[kind][c] = -1
	}
	s := &m.slabs[si]
	i := s.free
	if i != noObject {
		s.free = uint32(s.hdr[i])
	} else {
		i = s.bump
		s.bump++
	}
	s.hdr[i] = uint64(size)<<32 | uint64(uint32(seg))
	s.live[i>>6] |= 1 << (i & 63)
	if s.inUse++; s.inUse == s.cap {
		m.unlinkPartial(si)
	}
	return m.addrOf(int(s.page)) + uint64(i)*uint64(s.size), true
}

// freeSmall frees the object at addr in slab si and returns its request
// size and segment entry + 1.
func (m *Multilevel) freeSmall(si int32, addr uint64) (size int64, seg int32, err error) {
	s := &m.slabs[si]
	rel := addr - m.addrOf(int(s.page))
	i := uint32(rel) / s.size
	if uint64(i)*uint64(s.size) != rel || i >= s.bump {
		return 0, 0, fmt.Errorf("%w: %#x is not the start of a %d-byte object", ErrForeign, addr, s.size)
	}
	if s.live[i>>6]&(1<<(i&63)) == 0 {
		return 0, 0, fmt.Errorf("%w: %#x (a free %d-byte object)", ErrDoubleFree, addr, s.size)
	}
	h := s.hdr[i]
	size, seg = int64(h>>32), int32(uint32(h))
	s.live[i>>6] &^= 1 << (i & 63)
	s.hdr[i] = uint64(s.free)
	s.free = i
	if s.inUse == s.cap {
		m.pushPartial(si)
	}
	if s.inUse--; s.inUse == 0 {
		k, c := s.kind, s.class
		if m.partial[k][c] == si && s.next < 0 {
			m.spare[k][c] = si
		} else {
			m.releaseSlab(si)
		}
	}
	return size, seg, nil
}

// newSlab takes a unit of pages for a slab of the given kind and class,
// puts it on the partial list and returns its index, or -1.
func (m *Multilevel) newSlab(kind Kind, c int) int32 {
	unit := m.unitPages[kind]
	p := m.takePages(unit, true)
	if p < 0 {
		return -1
	}
	var si int32
	if n := len(m.freeSlabs[kind]); n > 0 {
		si = m.freeSlabs[kind][n-1]
		m.freeSlabs[kind] = m.freeSlabs[kind][:n-1]
	} else {
		si = int32(len(m.slabs))
		m.slabs = append(m.slabs, slab{})
	}
	s := &m.slabs[si]
	size := m.classSize[c]
	n := uint32(int64(unit) << m.pageShift / int64(size))
	words := int(n+63) / 64
	// Size the header and live arrays for the largest object count a unit
	// of this kind can have; descriptors are recycled within their kind, so
	// they never grow again.
	if maxObj := int(int64(unit) << m.pageShift / granule); cap(s.hdr) < maxObj {
		s.hdr = make([]uint64, maxObj)
		s.live = make([]uint64, (maxObj+63)/64)
	}
	clear(s.live[:words])
	*s = slab{
		page: int32(p), kind: kind, class: uint8(c),
		size: size, cap: n, free: noObject,
		hdr: s.hdr[:n], live: s.live[:words],
	}
	for q := p; q < p+unit; q++ {
		m.meta[q] = pageMeta{n: -(si + 1)}
	}
	m.pushPartial(si)
	return si
}

// releaseSlab returns an empty slab's pages to level 1.
func (m *Multilevel) releaseSlab(si int32) {
	s := &m.slabs[si]
	m.unlinkPartial(si)
	if m.spare[s.kind][s.class] == si {
		m.spare[s.kind][s.class] = -1
	}
	p, unit := int(s.page), m.unitPages[s.kind]
	clear(m.meta[p : p+unit])
	m.releasePages(p, unit)
	m.freeSlabs[s.kind] = append(m.freeSlabs[s.kind], si)
}

// releaseSpares releases every spare slab and reports whether there was one.
func (m *Multilevel) releaseSpares() bool {
	released := false
	for _, k := range [...]Kind{MPE, CPE} {
		for _, si := range m.spare[k] {
			if si >= 0 {
				m.releaseSlab(si)
				released = true
			}
		}
	}
	return released
}

func (m *Multilevel) pushPartial(si int32) {
	s := &m.slabs[si]
	head := &m.partial[s.kind][s.class]
	s.prev, s.next = -1, *head
	if *head >= 0 {
		m.slabs[*head].prev = si
	}
	*head = si
}

func (m *Multilevel) unlinkPartial(si int32) {
	s := &m.slabs[si]
	if s.prev >= 0 {
		m.slabs[s.prev].next = s.next
	} else {
		m.partial[s.kind][s.class] = s.next
	}
	if s.next >= 0 {
		m.slabs[s.next].prev = s.prev
	}
	s.prev, s.next = -1, -1
}
