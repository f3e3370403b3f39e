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
