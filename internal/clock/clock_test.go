package clock

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestWaitUntilLetsOthersRun: on one processor a short wait spins with
// yield, which must let the goroutine queued behind it run.
func TestWaitUntilLetsOthersRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran atomic.Bool
	go ran.Store(true)
	// A deadline far enough ahead that the other goroutine's start is the
	// only way the loop below can see ran set.
	for !ran.Load() {
		if err := WaitUntil(context.Background(), Now()+int64(50*time.Microsecond)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWaitUntilPastAndCancelled(t *testing.T) {
	if err := WaitUntil(context.Background(), Now()-1); err != nil {
		t.Fatalf("past deadline: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WaitUntil(ctx, Now()+int64(time.Hour)); err == nil {
		t.Fatal("cancelled wait returned nil")
	}
}
