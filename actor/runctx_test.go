package actor

import (
	"context"
	"errors"
	"testing"
)

// TestRunCtx: a run's context ends with its parent or its own cancel,
// each run starts afresh, and a parent of an earlier run cannot end a
// later one.
func TestRunCtx(t *testing.T) {
	var c runCtx
	parent, cancel := context.WithCancel(context.Background())
	c.begin(parent)
	if c.Err() != nil {
		t.Fatal("a new run is done")
	}
	done := c.Done()
	cancel()
	<-done // the parent's end reaches the run
	if !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("Err %v", c.Err())
	}
	c.end()

	c.begin(context.Background())
	if c.Err() != nil {
		t.Fatalf("the next run starts done: %v", c.Err())
	}
	c.cancel(errStopped)
	select {
	case <-c.Done():
	default:
		t.Fatal("cancel did not close Done")
	}
	c.end()

	// An earlier run's parent ending late does not end the current run.
	old, oldCancel := context.WithCancel(context.Background())
	c.begin(old)
	c.end()
	c.begin(context.Background())
	c.parentDone(old) // the old hook, running late
	oldCancel()
	if c.Err() != nil {
		t.Fatalf("a stale hook ended the run: %v", c.Err())
	}
	c.end()

	// Runs under one parent share its hook, which still ends each.
	loop, loopCancel := context.WithCancel(context.Background())
	c.begin(loop)
	c.end()
	c.begin(loop)
	if c.stop == nil || c.hooked != loop {
		t.Fatal("the hook was not kept")
	}
	done = c.Done()
	loopCancel()
	<-done
	c.end()
	c.release()
	if c.stop != nil || c.hooked != nil {
		t.Fatal("release left the hook")
	}
}
