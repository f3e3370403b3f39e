package graphtest

import (
	"context"
	"sync"
	"time"
)

// Deadline is a run's context whose deadline passes when the test calls
// Pass rather than at a time on the clock. A test whose run must be inside
// a given kernel when its deadline passes (a kernel that blocks, or loops,
// until its run ends) calls Pass from that kernel: with a timer, a host
// descheduled on the way to the kernel would see the deadline pass before
// the kernel began, and the run would end elsewhere.
//
// Once passed, Done is closed and Err is context.DeadlineExceeded. It has
// no deadline time and no values. The zero Deadline is valid; Pass may be
// called any number of times, from any goroutine.
type Deadline struct {
	once sync.Once
	done chan struct{}
	pass sync.Once
}

// Pass makes the deadline pass, if it has not.
func (d *Deadline) Pass() { d.pass.Do(func() { close(d.ch()) }) }

// ch returns the channel Pass closes, made on first use.
func (d *Deadline) ch() chan struct{} {
	d.once.Do(func() { d.done = make(chan struct{}) })
	return d.done
}

// Deadline reports no time: the deadline passes when Pass is called.
func (d *Deadline) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done is closed once the deadline passed.
func (d *Deadline) Done() <-chan struct{} { return d.ch() }

// Err is context.DeadlineExceeded once the deadline passed, nil before.
func (d *Deadline) Err() error {
	select {
	case <-d.ch():
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// Value is nil: a Deadline carries no values.
func (d *Deadline) Value(any) any { return nil }
