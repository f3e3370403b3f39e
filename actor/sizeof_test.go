package actor

import (
	"testing"
	"unsafe"
)

// TestSizeof keeps the per-kernel records small: a long graph holds one
// node a kernel and one slot a value (64-bit platforms).
func TestSizeof(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit platforms")
	}
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"node", unsafe.Sizeof(node{}), 88},
		{"slotInfo", unsafe.Sizeof(slotInfo{}), 32},
	} {
		if c.got > c.want {
			t.Errorf("%s is %d bytes, want at most %d", c.name, c.got, c.want)
		}
	}
}
