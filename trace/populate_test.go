package trace

import "testing"

// TestPopulateChangesNothing: populate leaves every byte as it was, for
// slices aligned or not, shorter than a page or empty.
func TestPopulateChangesNothing(t *testing.T) {
	buf := make([]byte, 3<<20)
	for i := range buf {
		buf[i] = byte(i*7 + 3)
	}
	for _, r := range [][2]int{{0, len(buf)}, {1, len(buf) - 5}, {4093, 4100}, {10, 10}, {100, 9000}} {
		populate(buf[r[0]:r[1]])
	}
	populate(nil)
	for i := range buf {
		if buf[i] != byte(i*7+3) {
			t.Fatalf("byte %d changed", i)
		}
	}
	c := newChunk(1<<12, true)
	for i := range c.recs {
		if c.recs[i] != (record{}) {
			t.Fatalf("record %d of a new chunk is not zero", i)
		}
	}
}
