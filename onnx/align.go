package onnx

import (
	"slices"
	"unsafe"
)

// alignRaw moves, inside buf, the raw data of every tensor of m whose
// element size does not divide its address back by a few bytes, so that
// Tensor.Kernel can alias it instead of copying it. It runs only on a
// buffer the reader owns (Read, ReadFile), after the whole model was
// decoded: the bytes it overwrites are field headers already parsed, never
// bytes that m still aliases (tensor data, string attributes), which it
// checks for each move. A tensor whose move would touch aliased bytes
// keeps its place (and is copied by Tensor.Kernel).
func alignRaw(m *Model, buf []byte) {
	if len(buf) == 0 || m.Graph == nil {
		return
	}
	type span struct {
		lo, hi int // offsets in buf
		t      *Tensor
		size   int
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	var spans []span
	add := func(b []byte, t *Tensor, size int) {
		if len(b) == 0 {
			return
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if p < base || p-base >= uintptr(len(buf)) {
			return // not in buf
		}
		lo := int(p - base)
		spans = append(spans, span{lo: lo, hi: lo + len(b), t: t, size: size})
	}
	var tensor func(t *Tensor)
	var graph func(g *Graph)
	tensor = func(t *Tensor) {
		if t == nil {
			return
		}
		add(t.Raw, t, t.DataType.elemSize())
		for _, s := range t.Strings {
			add(s, nil, 0)
		}
	}
	graph = func(g *Graph) {
		if g == nil {
			return
		}
		for _, t := range g.Initializers {
			tensor(t)
		}
		for _, n := range g.Nodes {
			for _, a := range n.Attrs {
				add(a.S, nil, 0)
				for _, s := range a.Strings {
					add(s, nil, 0)
				}
				tensor(a.T)
				for _, t := range a.Tensors {
					tensor(t)
				}
				graph(a.G)
				for _, sg := range a.Graphs {
					graph(sg)
				}
			}
		}
	}
	graph(m.Graph)
	slices.SortFunc(spans, func(a, b span) int { return a.lo - b.lo })
	prev := 0 // end of the previous aliased span, after its move
	for i, s := range spans {
		if i > 0 && s.lo < spans[i-1].hi {
			// Overlapping aliases cannot come from one decode; leave
			// everything from here as it is.
			return
		}
		k := 0
		if s.t != nil && s.size > 1 {
			k = int((base + uintptr(s.lo)) % uintptr(s.size))
		}
		if k > 0 && s.lo-k >= prev {
			n := s.hi - s.lo
			copy(buf[s.lo-k:], buf[s.lo:s.hi])
			s.t.Raw = buf[s.lo-k : s.lo-k+n : s.lo-k+n]
			prev = s.lo - k + n
			continue
		}
		if s.t != nil {
			s.t.Raw = s.t.Raw[:len(s.t.Raw):len(s.t.Raw)]
		}
		prev = s.hi
	}
}

// elemSize is the bytes of one element of d (1 for the types pipert does
// not compute on).
func (d DataType) elemSize() int {
	switch d {
	case Float, Int32, Uint32:
		return 4
	case Int64, Uint64, Double, Complex64:
		return 8
	case Float16, BFloat16, Int16, Uint16:
		return 2
	}
	return 1
}
