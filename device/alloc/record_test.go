package alloc

import (
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
