package alloc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// harness drives an Allocator and checks it against an interval model: the
// live blocks as the caller sees them. It checks that blocks never overlap
// and lie inside the address space, that the accounting matches, that bad
// frees fail with the right error and change nothing, and, when the
// allocator has one, its internal invariants.
type harness struct {
	t        testing.TB
	name     string
	a        Allocator
	capacity int64
	stats    func() Stats // a.Stats, or a cheaper equivalent
	check    func() error // internal invariants; nil if none
	everyN   int          // run check every everyN ops

	live          []span   // sorted by addr; size is the requested size
	freed         []uint64 // recently freed addresses, a ring
	freedAt       int
	inUse         int64
	allocs, frees int64
	ops           int
	fails         int // failed allocations
	maxLive       int
	last          Stats // after the last op
}

func newHarness(t testing.TB, name string, a Allocator, capacity int64) *harness {
	h := &harness{t: t, name: name, a: a, capacity: capacity, everyN: 1, freed: make([]uint64, 0, 64)}
	h.stats = a.Stats
	switch x := a.(type) {
	case *Multilevel:
		h.check = x.check
	case *Caching:
		h.check = x.check
	case *Reference:
		// Reference.Stats walks the free list, which under the race
		// detector dominates a long run; check it only every everyN ops.
		h.stats = func() Stats { return x.stats }
		h.check = func() error {
			if f := x.Stats().Fragmentation; f < 0 || f >= 1 {
				return fmt.Errorf("fragmentation %v", f)
			}
			return nil
		}
	}
	h.last = h.stats()
	return h
}

func (h *harness) fatalf(format string, args ...any) {
	h.t.Helper()
	h.t.Fatalf("%s, op %d: %s", h.name, h.ops, fmt.Sprintf(format, args...))
}

// step runs the accounting and invariant checks after an operation.
func (h *harness) step() {
	h.t.Helper()
	h.ops++
	st := h.stats()
	h.last = st
	if st.InUse != h.inUse || st.Allocs != h.allocs || st.Frees != h.frees {
		h.fatalf("stats %+v; model in use %d, allocs %d, frees %d", st, h.inUse, h.allocs, h.frees)
	}
	if st.Peak < st.InUse || st.Reserved < st.InUse || st.Reserved > h.capacity ||
		st.PeakReserved < st.Reserved || st.Capacity != h.capacity ||
		st.Fragmentation < 0 || st.Fragmentation >= 1 {
		h.fatalf("inconsistent stats %+v", st)
	}
	if h.check != nil && h.ops%h.everyN == 0 {
		if err := h.check(); err != nil {
			h.fatalf("invariant: %v", err)
		}
	}
}

// find returns the index of the first live block with addr >= a.
func (h *harness) find(a uint64) int {
	i, _ := slices.BinarySearchFunc(h.live, a, func(s span, a uint64) int {
		switch {
		case s.addr < a:
			return -1
		case s.addr > a:
			return 1
		}
		return 0
	})
	return i
}

func (h *harness) alloc(size int64, kind Kind) {
	h.t.Helper()
	before := h.last
	var addr uint64
	var err error
	if k, ok := h.a.(interface {
		AllocKind(int64, Kind) (uint64, error)
	}); ok {
		addr, err = k.AllocKind(size, kind)
	} else {
		addr, err = h.a.Alloc(size)
	}
	if err != nil {
		if !errors.Is(err, ErrOutOfMemory) {
			h.fatalf("alloc %d: %v", size, err)
		}
		after := h.stats()
		if after.InUse != before.InUse || after.Allocs != before.Allocs || after.Frees != before.Frees ||
			after.Reserved > before.Reserved {
			h.fatalf("failed alloc %d changed stats %+v -> %+v", size, before, after)
		}
		h.fails++
		h.step()
		return
	}
	if addr < Base || addr+uint64(size) > Base+uint64(h.capacity) || addr+uint64(size) < addr {
		h.fatalf("alloc %d = %#x outside [%#x, %#x)", size, addr, Base, Base+uint64(h.capacity))
	}
	i := h.find(addr)
	if i < len(h.live) && h.live[i].addr < addr+uint64(size) {
		h.fatalf("alloc %d = %#x overlaps live [%#x, +%d)", size, addr, h.live[i].addr, h.live[i].size)
	}
	if i > 0 && h.live[i-1].addr+uint64(h.live[i-1].size) > addr {
		h.fatalf("alloc %d = %#x overlaps live [%#x, +%d)", size, addr, h.live[i-1].addr, h.live[i-1].size)
	}
	h.live = slices.Insert(h.live, i, span{addr, size})
	h.maxLive = max(h.maxLive, len(h.live))
	h.inUse += size
	h.allocs++
	h.step()
}

// free frees live block i and then, with probability, frees it again.
func (h *harness) free(i int, again bool) {
	h.t.Helper()
	b := h.live[i]
	if err := h.a.Free(b.addr); err != nil {
		h.fatalf("free live %#x (+%d): %v", b.addr, b.size, err)
	}
	h.live = slices.Delete(h.live, i, i+1)
	h.inUse -= b.size
	h.frees++
	if len(h.freed) < cap(h.freed) {
		h.freed = append(h.freed, b.addr)
	} else {
		h.freed[h.freedAt] = b.addr
		h.freedAt = (h.freedAt + 1) % len(h.freed)
	}
	h.step()
	if again {
		h.badFree(b.addr, ErrDoubleFree)
	}
}

// badFree frees an address that starts no live block and expects want, or
// either ErrDoubleFree or ErrForeign if want is nil.
func (h *harness) badFree(addr uint64, want error) {
	h.t.Helper()
	before := h.last
	err := h.a.Free(addr)
	switch {
	case err == nil:
		h.fatalf("free of %#x (not live) succeeded", addr)
	case want != nil && !errors.Is(err, want):
		h.fatalf("free of %#x: %v, want %v", addr, err, want)
	case want == nil && !errors.Is(err, ErrDoubleFree) && !errors.Is(err, ErrForeign):
		h.fatalf("free of %#x: %v", addr, err)
	}
	if after := h.stats(); after != before {
		h.fatalf("failed free of %#x changed stats %+v -> %+v", addr, before, after)
	}
	h.step()
}

// badFreeKind picks one of the bad frees by sel.
func (h *harness) badFreeKind(sel, pick uint64) {
	h.t.Helper()
	switch sel % 4 {
	case 0: // a recently freed address, unless it is live again
		if len(h.freed) == 0 {
			return
		}
		a := h.freed[pick%uint64(len(h.freed))]
		if i := h.find(a); i < len(h.live) && h.live[i].addr == a {
			return
		}
		h.badFree(a, nil)
	case 1: // inside a live block
		if len(h.live) == 0 {
			return
		}
		b := h.live[pick%uint64(len(h.live))]
		if b.size < 2 {
			return
		}
		h.badFree(b.addr+1+pick%uint64(b.size-1), ErrForeign)
	case 2: // outside the address space
		out := []uint64{0, 1, Base - 1, Base + uint64(h.capacity), Base + uint64(h.capacity) + 4096, ^uint64(0)}
		h.badFree(out[pick%uint64(len(out))], ErrForeign)
	case 3: // an aligned address that is not live
		a := Base + (pick%uint64(h.capacity))&^255
		if i := h.find(a); i < len(h.live) && h.live[i].addr == a {
			return
		}
		h.badFree(a, nil)
	}
}

// drain frees everything, then checks the space is whole again: a block of
// the full capacity can be allocated and freed.
func (h *harness) drain(r *rand.Rand) {
	h.t.Helper()
	for len(h.live) > 0 {
		h.free(r.IntN(len(h.live)), false)
	}
	if st := h.a.Stats(); st.InUse != 0 || st.Allocs != st.Frees {
		h.fatalf("after freeing everything: %+v", st)
	}
	addr, err := h.a.Alloc(h.capacity)
	if err != nil {
		h.fatalf("full-capacity alloc after freeing everything: %v", err)
	}
	if addr != Base {
		h.fatalf("full-capacity alloc at %#x", addr)
	}
	h.live = append(h.live, span{addr, h.capacity})
	h.inUse += h.capacity
	h.allocs++
	h.step()
	h.free(0, true)
	if h.check != nil {
		if err := h.check(); err != nil {
			h.fatalf("invariant after drain: %v", err)
		}
	}
}

// randSize draws from a mix of tiny, small, page-sized, multi-MiB and
// occasionally huge requests, with boundary sizes mixed in.
func randSize(r *rand.Rand, capacity int64) int64 {
	edges := [...]int64{1, 255, 256, 257, 1023, 1024, 1025, 32<<10 - 1, 32 << 10, 64<<10 - 1,
		64 << 10, 64<<10 + 1, 512<<10 - 1, 512 << 10, 1 << 20, 1<<20 + 1, 10<<20 - 1, 10 << 20, 20 << 20}
	switch x := r.IntN(1000); {
	case x < 100:
		return edges[r.IntN(len(edges))]
	case x < 400:
		return 1 + r.Int64N(256)
	case x < 650:
		return 1 + r.Int64N(32<<10)
	case x < 830:
		return 32<<10 + r.Int64N(1<<20)
	case x < 980:
		return 1<<20 + r.Int64N(16<<20)
	case x < 997:
		return 16<<20 + r.Int64N(128<<20)
	default:
		return 128<<20 + r.Int64N(capacity/4)
	}
}

// run drives h with n random operations in phases that alternately grow
// and shrink the live set.
func (h *harness) run(r *rand.Rand, n int) {
	h.t.Helper()
	for h.ops < n {
		growing := (h.ops/3000)%2 == 0
		pAlloc := 35
		if growing {
			pAlloc = 70
		}
		switch x := r.IntN(100); {
		case x < pAlloc || len(h.live) == 0:
			kind := MPE
			if r.IntN(4) == 0 {
				kind = CPE
			}
			h.alloc(randSize(r, h.capacity), kind)
		case x < 96:
			h.free(r.IntN(len(h.live)), r.IntN(20) == 0)
		default:
			h.badFreeKind(r.Uint64(), r.Uint64())
		}
	}
}

func (h *harness) report() {
	st := h.a.Stats()
	h.t.Logf("%s: %d ops, %d allocs, %d failed, up to %d live; peak in use %d MiB, peak reserved %d MiB, fragmentation now %.3f",
		h.name, h.ops, h.allocs, h.fails, h.maxLive, st.Peak>>20, st.PeakReserved>>20, st.Fragmentation)
}

// allocators returns fresh instances of the three allocators.
func allocators(t testing.TB, capacity int64, opts ...MultilevelOption) []struct {
	name string
	a    Allocator
} {
	m, err := NewMultilevel(capacity, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name string
		a    Allocator
	}{
		{"multilevel", m},
		{"caching", NewCaching(capacity)},
		{"reference", NewReference(capacity)},
	}
}

// TestProperty runs 100 000 random operations through each allocator
// against the interval model, with the internal invariants checked along
// the way, and then checks that nothing leaked.
func TestProperty(t *testing.T) {
	const capacity = 4 << 30
	ops := 100_000
	for i, al := range allocators(t, capacity, WithSegmentEntries(256)) {
		t.Run(al.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(i), 42))
			h := newHarness(t, al.name, al.a, capacity)
			h.everyN = 5000
			h.run(r, ops)
			h.report()
			h.drain(r)
		})
	}
}

// TestPropertySmallPages repeats the property run with 4 KiB pages and
// 64 KiB segments, where many more requests are level-1 runs, and checks
// invariants after every operation.
func TestPropertySmallPages(t *testing.T) {
	const capacity = 256 << 20
	m, err := NewMultilevel(capacity, WithPageSize(4<<10), WithSegmentSize(64<<10), WithSegmentEntries(64))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	h := newHarness(t, "multilevel/4KiB", m, capacity)
	h.everyN = 50
	n := 20_000
	if testing.Short() {
		n = 5_000
	}
	h.run(r, n)
	h.report()
	h.drain(r)
}

// FuzzAllocators decodes bytes into an operation sequence and runs every
// allocator through it with the model checks after each operation.
func FuzzAllocators(f *testing.F) {
	f.Add([]byte{0, 10, 10, 0, 200, 3, 170, 0, 0, 250, 1, 1})
	f.Add([]byte{1, 0xff, 0xff, 1, 0xe0, 0x10, 1, 0xc0, 0, 160, 0, 0, 225, 1, 2, 235, 3, 4, 245, 5, 6})
	f.Add([]byte{3, 0x20, 0x00, 3, 0x40, 0x01, 3, 0x60, 0x02, 3, 0x80, 0x03, 161, 1, 0, 161, 0, 0})
	seq := make([]byte, 0, 300)
	for i := range 100 {
		seq = append(seq, byte(i*37), byte(i*91), byte(i*13))
	}
	f.Add(seq)
	f.Fuzz(func(t *testing.T, data []byte) {
		const capacity = 64 << 20
		if len(data) > 3*maxFuzzOps {
			data = data[:3*maxFuzzOps] // every op runs the invariant checks
		}
		for _, al := range allocators(t, capacity, WithSegmentEntries(16)) {
			h := newHarness(t, al.name, al.a, capacity)
			for i := 0; i+3 <= len(data); i += 3 {
				op, b1, b2 := data[i], uint64(data[i+1]), uint64(data[i+2])
				switch {
				case op < 160:
					kind := MPE
					if op&1 == 1 {
						kind = CPE
					}
					h.alloc(fuzzSize(b1, b2, capacity), kind)
				case op < 220:
					if len(h.live) > 0 {
						h.free(int(b1<<8|b2)%len(h.live), op >= 215)
					}
				default:
					h.badFreeKind(uint64(op), b1<<8|b2)
				}
			}
			h.drain(rand.New(rand.NewPCG(uint64(len(data)), 1)))
		}
	})
}

// maxFuzzOps bounds one fuzz input's operations.
const maxFuzzOps = 1000

// fuzzSize maps two bytes to a size: the top three bits of hi pick a
// magnitude, the rest pick a value within it.
func fuzzSize(hi, lo uint64, capacity int64) int64 {
	v := int64((hi&0x1f)<<8 | lo) // 0..8191
	switch hi >> 5 {
	case 0:
		return 1 + v%512
	case 1:
		return 1 + v*4 // to 32 KiB
	case 2:
		return 16<<10 + v*16 // to 144 KiB
	case 3:
		return 64 << 10 * (1 + v%32) // whole pages
	case 4:
		return 1<<20 + v*1024 // to 9 MiB
	case 5:
		return 8<<20 + v*4096 // to 40 MiB
	case 6:
		return capacity / (1 + v%8)
	default:
		return capacity + v - 4096 // near and above capacity
	}
}
