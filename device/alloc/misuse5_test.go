package alloc

import (
	"errors"
	"testing"
)

// TestRecordingOfNoAllocator: a Recording of a nil allocator has no
// memory: Alloc and Free fail with the Allocator contract's sentinels
// instead of panicking, and nothing is recorded.
func TestRecordingOfNoAllocator(t *testing.T) {
	r := NewRecording(nil)
	if _, err := r.Alloc(64); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("Alloc = %v, want ErrOutOfMemory", err)
	}
	if err := r.Free(Base); !errors.Is(err, ErrForeign) {
		t.Errorf("Free = %v, want ErrForeign", err)
	}
	if s := r.Stats(); s != (Stats{}) {
		t.Errorf("Stats = %+v, want zero", s)
	}
	if len(r.Trace()) != 0 {
		t.Errorf("recorded %v", r.Trace())
	}
}
