package alloc

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func TestRecordingReplaysToTheSameState(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rec := NewRecording(NewReference(1 << 30))
	var live []uint64
	for i := 0; i < 5000; i++ {
		if len(live) > 0 && rng.IntN(3) == 0 {
			j := rng.IntN(len(live))
			if err := rec.Free(live[j]); err != nil {
				t.Fatal(err)
			}
			live = append(live[:j], live[j+1:]...)
			continue
		}
		a, err := rec.Alloc(1 + rng.Int64N(1<<20))
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, a)
	}
	if err := rec.Free(12345); err == nil {
		t.Fatal("foreign free recorded as a success")
	}
	want := rec.Stats()
	got, err := Replay(NewReference(1<<30), rec.Trace())
	if err != nil {
		t.Fatal(err)
	}
	if got.Final.InUse != want.InUse || got.Final.Allocs != want.Allocs || got.Final.Frees != want.Frees || got.PeakInUse != want.Peak {
		t.Fatalf("replay ends with %+v, the recorded run with %+v", got.Final, want)
	}
}

// TestRecordingRefusesWhatItDidNotHandOut: an address allocated on the
// wrapped allocator directly is refused by the Recording's Free (the trace
// could not name it) and stays allocated; the trace stays replayable.
func TestRecordingRefusesWhatItDidNotHandOut(t *testing.T) {
	inner := NewReference(1 << 20)
	rec := NewRecording(inner)
	if _, err := rec.Alloc(64); err != nil {
		t.Fatal(err)
	}
	direct, err := inner.Alloc(128)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Free(direct); !errors.Is(err, ErrForeign) {
		t.Fatalf("free of an address the recording did not hand out: %v, want ErrForeign", err)
	}
	if n := len(rec.Trace()); n != 1 {
		t.Errorf("the refused free was recorded: %d operations, want 1", n)
	}
	if err := inner.Free(direct); err != nil {
		t.Errorf("the refused free freed the address: %v", err)
	}
	if _, err := Replay(NewReference(1<<20), rec.Trace()); err != nil {
		t.Errorf("the trace does not replay: %v", err)
	}
}
