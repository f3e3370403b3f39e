package ready

import (
	"context"
	"errors"
	"sync/atomic"
)

// errNilFlag is the error of Wait on a nil *Flag.
var errNilFlag = errors.New("ready: a wait on a nil Flag, which nothing sets")

// Flag is an acquire/release event: Set publishes everything its caller did
// before it to every goroutine that then sees IsSet or returns from Wait.
// The zero Flag is unset and ready to use. A Flag must not be copied after
// first use. A nil *Flag is unset for ever: Set and Reset do nothing, and
// Wait is an error at once.
//
// Set, IsSet and Wait are safe for concurrent use. Reset is for the owner
// that reuses the flag for a new round: it must not run concurrently with
// Set, and waiters of the old round must have returned (or must accept
// waiting for the next Set).
type Flag struct {
	v       atomic.Uint64 // 1 when set
	waiters waitList
}

// Set sets the flag and wakes its waiters. Setting a set flag does nothing
// more.
func (f *Flag) Set() {
	if f == nil {
		return
	}
	f.v.Store(1) // store-release: publishes the caller's prior writes
	f.waiters.wake(1)
}

// IsSet reports whether the flag is set. If it returns true, the setter's
// writes before Set are visible to the caller.
func (f *Flag) IsSet() bool {
	if f == nil {
		return false
	}
	return f.v.Load() == 1 // load-acquire: pairs with Set
}

// Wait returns nil once the flag is set, or ctx.Err() if ctx ends first.
// On a set flag it returns at once and allocates nothing; on an unset one a
// nil ctx is an error.
func (f *Flag) Wait(ctx context.Context) error {
	if f == nil {
		return errNilFlag
	}
	return f.waiters.wait(ctx, &f.v, 1)
}

// Reset clears the flag for reuse. Executed only by the owner, never
// concurrently with Set (see Flag).
func (f *Flag) Reset() {
	if f == nil {
		return
	}
	f.v.Store(0) // relaxed would do: the owner orders Reset against Set
}
