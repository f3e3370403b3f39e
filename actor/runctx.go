package actor

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// runCtx is the context of a run whose goroutines must stop at its first
// failure: context.WithCancel, reused run after run so that a run
// allocates no context. It is done when the run is cancelled or its parent
// is; Done's channel is made on first use in a run (only a goroutine that
// parks needs one).
//
// The parent's end reaches the run through a hook (context.AfterFunc) that
// stays registered after the run, so that runs under the same parent — a
// loop of runs under one context — register it once; a run under another
// parent moves it, and release removes it (the actor's Close).
//
// Protocol: begin at the start of a run on goroutine 0, cancel from any
// goroutine, end after the run's goroutines are idle; no goroutine uses
// the context of an earlier run. Err, which every stage of every kernel
// polls, takes no lock while the run goes on: it loads ended, and reads
// parent, which only begin writes, before the run's first hand-off.
type runCtx struct {
	parent context.Context
	mu     sync.Mutex
	done   chan struct{}
	err    error
	active bool // between begin and end
	// ended is set, after err, when the run is cancelled (store-release,
	// under mu; Err's load-acquire then reads err under mu).
	ended atomic.Bool

	hooked context.Context // the parent the hook is on
	stop   func() bool
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// begin resets c for a run under parent.
func (c *runCtx) begin(parent context.Context) {
	c.mu.Lock()
	c.parent, c.done, c.err, c.active = parent, nil, nil, true
	c.ended.Store(false)
	c.mu.Unlock()
	if parent.Done() != nil && !sameCtx(parent, c.hooked) {
		c.release()
		c.hooked = parent
		c.stop = context.AfterFunc(parent, func() { c.parentDone(parent) })
	}
}

// sameCtx reports whether a and b are the same context (false when they
// cannot be compared).
func sameCtx(a, b context.Context) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// end marks the run over.
func (c *runCtx) end() {
	c.mu.Lock()
	c.cancelLocked(context.Canceled)
	c.active = false
	c.mu.Unlock()
}

// release removes the hook from the parent it is on.
func (c *runCtx) release() {
	if c.stop != nil {
		c.stop()
	}
	c.stop, c.hooked = nil, nil
}

// cancel makes c done with err, if it is not yet.
func (c *runCtx) cancel(err error) {
	c.mu.Lock()
	c.cancelLocked(err)
	c.mu.Unlock()
}

// parentDone is the hook: parent ended, which ends the run under it, if
// one is going on.
func (c *runCtx) parentDone(parent context.Context) {
	c.mu.Lock()
	if c.active && sameCtx(c.parent, parent) {
		c.cancelLocked(parent.Err())
	}
	c.mu.Unlock()
}

func (c *runCtx) cancelLocked(err error) {
	if c.err == nil {
		c.err = err
		c.ended.Store(true)
		if c.done == nil {
			c.done = closedChan
		} else {
			close(c.done)
		}
	}
}

func (c *runCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *runCtx) Value(key any) any           { return c.parent.Value(key) }

func (c *runCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
	}
	return c.done
}

func (c *runCtx) Err() error {
	if !c.ended.Load() {
		return c.parent.Err() // cancelled, the hook not run yet
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
