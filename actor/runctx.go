package actor

import (
	"context"
	"sync"
	"time"
)

// runCtx is the context of a run whose goroutines must stop at its first
// failure: context.WithCancel, reused run after run so that a run
// allocates no context. It is done when the run is cancelled or its parent
// is; Done's channel is made on first use in a run (only a goroutine that
// parks needs one).
//
// Protocol: begin at the start of a run on goroutine 0, cancel from any
// goroutine, end after the run's goroutines are idle; no goroutine uses
// the context of an earlier run.
type runCtx struct {
	parent context.Context
	mu     sync.Mutex
	done   chan struct{}
	err    error
	stop   func() bool // the parent's AfterFunc, nil when it cannot end
	gen    uint64      // runs begun
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// begin resets c for a run under parent.
func (c *runCtx) begin(parent context.Context) {
	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.parent, c.done, c.err, c.stop = parent, nil, nil, nil
	c.mu.Unlock()
	if parent.Done() != nil {
		// The hook may still run after its run ended: gen keeps it from
		// cancelling a later run.
		c.stop = context.AfterFunc(parent, func() { c.cancelGen(gen, parent.Err()) })
	}
}

// end releases the parent's hook.
func (c *runCtx) end() {
	if c.stop != nil {
		c.stop()
	}
	c.cancel(context.Canceled)
}

// cancel makes c done with err, if it is not yet.
func (c *runCtx) cancel(err error) {
	c.mu.Lock()
	c.cancelLocked(err)
	c.mu.Unlock()
}

// cancelGen is cancel if c still serves run gen.
func (c *runCtx) cancelGen(gen uint64, err error) {
	c.mu.Lock()
	if c.gen == gen {
		c.cancelLocked(err)
	}
	c.mu.Unlock()
}

func (c *runCtx) cancelLocked(err error) {
	if c.err == nil {
		c.err = err
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
	c.mu.Lock()
	err, parent := c.err, c.parent
	c.mu.Unlock()
	if err == nil {
		err = parent.Err() // cancelled, the hook not run yet
	}
	return err
}
