package alloc

import (
	"errors"
	"math"
	"testing"
)

// TestBadSizes checks every allocator's answer to sizes that are not
// positive or cannot fit, including sizes whose rounding would overflow.
func TestBadSizes(t *testing.T) {
	const capacity = 64 << 20
	for _, al := range allocators(t, capacity) {
		for _, tc := range []struct {
			size int64
			want error
		}{
			{0, ErrBadSize},
			{-1, ErrBadSize},
			{math.MinInt64, ErrBadSize},
			{capacity + 1, ErrOutOfMemory},
			{math.MaxInt64, ErrOutOfMemory},
			{math.MaxInt64 - 100, ErrOutOfMemory},
		} {
			before := al.a.Stats()
			if addr, err := al.a.Alloc(tc.size); !errors.Is(err, tc.want) {
				t.Errorf("%s: Alloc(%d) = %#x, %v; want %v", al.name, tc.size, addr, err, tc.want)
			}
			if after := al.a.Stats(); after != before {
				t.Errorf("%s: Alloc(%d) changed stats %+v -> %+v", al.name, tc.size, before, after)
			}
		}
		// The space is still whole.
		addr, err := al.a.Alloc(capacity)
		if err != nil || addr != Base {
			t.Fatalf("%s: full allocation = %#x, %v", al.name, addr, err)
		}
		if err := al.a.Free(addr); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSizesRoundingPastTheLargestCapacity: with a capacity of
// math.MaxInt64, a size below it whose rounding up to the allocator's
// granularity passes it is out of memory, changes nothing, and leaves the
// space whole (it wrapped to a small or negative size and gave a block
// that the next one overlapped).
func TestSizesRoundingPastTheLargestCapacity(t *testing.T) {
	for _, c := range []struct {
		name  string
		a     Allocator
		grain int64 // the largest rounding of a request
	}{
		{"reference", NewReference(math.MaxInt64), Align},
		{"caching", NewCaching(math.MaxInt64), largeRound},
	} {
		name, a := c.name, c.a
		for _, size := range []int64{math.MaxInt64 - 10, math.MaxInt64 - c.grain + 2} {
			before := a.Stats()
			if addr, err := a.Alloc(size); !errors.Is(err, ErrOutOfMemory) {
				t.Errorf("%s: Alloc(%d) = %#x, %v; want ErrOutOfMemory", name, size, addr, err)
			}
			if after := a.Stats(); after != before {
				t.Errorf("%s: Alloc(%d) changed stats %+v -> %+v", name, size, before, after)
			}
		}
		addr, err := a.Alloc(1 << 20)
		if err != nil || addr != Base {
			t.Fatalf("%s: first block after the refusals = %#x, %v; want %#x", name, addr, err, uint64(Base))
		}
		if err := a.Free(addr); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoCapacity: a Reference or Caching allocator made with a capacity of
// zero or less has no bytes: every Alloc fails with ErrOutOfMemory (a bad
// size still with ErrBadSize), nothing panics; NewMultilevel refuses such
// a capacity.
func TestNoCapacity(t *testing.T) {
	for _, c := range []int64{0, -1, math.MinInt64} {
		for name, a := range map[string]Allocator{"reference": NewReference(c), "caching": NewCaching(c)} {
			for _, size := range []int64{1, Align, 1 << 20} {
				if addr, err := a.Alloc(size); !errors.Is(err, ErrOutOfMemory) {
					t.Errorf("%s of capacity %d: Alloc(%d) = %#x, %v; want ErrOutOfMemory", name, c, size, addr, err)
				}
			}
			if _, err := a.Alloc(0); !errors.Is(err, ErrBadSize) {
				t.Errorf("%s of capacity %d: Alloc(0): %v, want ErrBadSize", name, c, err)
			}
			if s := a.Stats(); s.Capacity != 0 || s.InUse != 0 {
				t.Errorf("%s of capacity %d: stats %+v", name, c, s)
			}
		}
		if _, err := NewMultilevel(c); err == nil {
			t.Errorf("NewMultilevel(%d) accepted", c)
		}
	}
}
