package alloc

import (
	"errors"
	"fmt"
	"testing"
)

func TestCachingSegments(t *testing.T) {
	c := NewCaching(1 << 30)
	for _, tc := range []struct {
		size     int64
		segments int
		reserved int64
	}{
		{1000, 1, 2 << 20},       // small pool: a 2 MiB segment
		{1 << 20, 1, 2 << 20},    // still fits the small segment
		{1<<20 + 1, 2, 22 << 20}, // large pool: 20 MiB
		{5 << 20, 2, 22 << 20},   // fits the rest of it
		{15 << 20, 3, 38 << 20},  // 10 MiB and more: its own size rounded to 2 MiB
		{13 << 20, 3, 38 << 20},  // best fit: the 20 MiB segment's rest, not split again
		{1 << 20, 4, 40 << 20},   // the small segment is full
	} {
		if _, err := c.Alloc(tc.size); err != nil {
			t.Fatal(err)
		}
		if c.Segments() != tc.segments || c.Stats().Reserved != tc.reserved {
			t.Errorf("after %d bytes: %d segments, reserved %d; want %d, %d",
				tc.size, c.Segments(), c.Stats().Reserved, tc.segments, tc.reserved)
		}
	}
	// Repeated alloc/free is served from the cache.
	for range 100 {
		a, err := c.Alloc(300 << 10)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	if c.Segments() != 4 { // served by the second small segment
		t.Errorf("%d segments after 100 alloc/free pairs", c.Segments())
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
}

// TestCachingBestFit checks the choice of block, the split rules and
// coalescing.
func TestCachingBestFit(t *testing.T) {
	c := NewCaching(1 << 30)
	var a [6]uint64
	for i, size := range []int64{512, 4096, 512, 1024, 512, 8192} {
		var err error
		if a[i], err = c.Alloc(size); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < len(a); i++ { // a fresh segment is carved from the front
		if a[i] <= a[i-1] {
			t.Fatalf("blocks not in address order: %#x", a)
		}
	}
	// Free the 4 KiB and the 1 KiB block: a 700-byte request (1 KiB
	// rounded) takes the 1 KiB hole, the best fit, not the 4 KiB one or
	// the big rest of the segment.
	for _, i := range []int{1, 3} {
		if err := c.Free(a[i]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Alloc(700)
	if err != nil || got != a[3] {
		t.Fatalf("700 bytes at %#x (%v), want the 1 KiB hole at %#x", got, err, a[3])
	}
	// 3000 bytes (3072 rounded) split the 4 KiB hole, leaving 1 KiB.
	got, err = c.Alloc(3000)
	if err != nil || got != a[1] {
		t.Fatalf("3000 bytes at %#x (%v), want the 4 KiB hole at %#x", got, err, a[1])
	}
	rest, err := c.Alloc(1024)
	if err != nil || rest != a[1]+3072 {
		t.Fatalf("1 KiB at %#x (%v), want the split remainder at %#x", rest, err, a[1]+3072)
	}
	// Free everything: the segment coalesces into one free block.
	for _, x := range []uint64{a[0], a[2], a[3], a[4], a[5], a[1], rest} {
		if err := c.Free(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if len(c.segs) != 1 || c.blocks[c.segs[0].first].size != 2<<20 || c.blocks[c.segs[0].first].next != -1 {
		t.Errorf("segment did not coalesce into one block")
	}

	// Large pool: a remainder of 1 MiB or less is not split off.
	big, err := c.Alloc(19<<20 + 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Segments(); n != 2 {
		t.Fatalf("%d segments", n)
	}
	if _, err := c.Alloc(2 << 20); err != nil {
		t.Fatal(err)
	}
	if n := c.Segments(); n != 3 {
		t.Errorf("the 20 MiB block was split for a 1 MiB rest: %d segments", n)
	}
	if err := c.Free(big); err != nil {
		t.Fatal(err)
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
}

// TestCachingReleaseOnOOM checks that cached empty segments are given back
// when the address space runs out, and the segment allocation retried.
func TestCachingReleaseOnOOM(t *testing.T) {
	c := NewCaching(40 << 20)
	a, err := c.Alloc(5 << 20) // a 20 MiB segment
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Free(a); err != nil {
		t.Fatal(err)
	}
	b, err := c.Alloc(30 << 20) // needs 30 MiB: only after giving back the 20
	if err != nil {
		t.Fatal(err)
	}
	if c.Segments() != 2 || c.Stats().Reserved != 30<<20 {
		t.Errorf("%d segments, reserved %d", c.Segments(), c.Stats().Reserved)
	}
	before := c.Stats()
	if _, err := c.Alloc(12 << 20); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("12 MiB more: %v", err)
	}
	if c.Stats() != before {
		t.Errorf("failed alloc changed stats")
	}
	if err := c.Free(b); err != nil {
		t.Fatal(err)
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
}

func TestCachingErrors(t *testing.T) {
	c := NewCaching(64 << 20)
	a, _ := c.Alloc(1000)
	b, _ := c.Alloc(1000)
	if err := c.Free(a); err != nil {
		t.Fatal(err)
	}
	before := c.Stats()
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"zero size", func() error { _, err := c.Alloc(0); return err }, ErrBadSize},
		{"over capacity", func() error { _, err := c.Alloc(64<<20 + 1); return err }, ErrOutOfMemory},
		{"double free", func() error { return c.Free(a) }, ErrDoubleFree},
		{"inside a free block", func() error { return c.Free(a + 512) }, ErrDoubleFree},
		{"inside a live block", func() error { return c.Free(b + 512) }, ErrForeign},
		{"no segment", func() error { return c.Free(Base + 32<<20) }, ErrForeign},
		{"zero", func() error { return c.Free(0) }, ErrForeign},
	} {
		if err := tc.call(); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if c.Stats() != before {
			t.Errorf("%s changed stats", tc.name)
		}
	}
}

func ExampleCaching() {
	c := NewCaching(1 << 30)
	for range 1000 { // a training loop's activations
		a, _ := c.Alloc(3 << 20)
		b, _ := c.Alloc(100 << 10)
		_ = c.Free(a)
		_ = c.Free(b)
	}
	st := c.Stats()
	fmt.Printf("%d segment allocations, %d MiB reserved, %d in use\n", c.Segments(), st.Reserved>>20, st.InUse)
	// Output: 2 segment allocations, 22 MiB reserved, 0 in use
}
