package fabric

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pipert/pipert/sync/ready"
)

// Flags is a block of device-memory flags on one rank (the owner) that
// peers set with release semantics and the owner waits on with acquire
// semantics: a waiter that returns sees every write its setter made before
// Set. Each flag has one setter rank, named so that a wait nobody answers
// can say who should have set it. A flag carries a count (the pplx trick:
// the flag holds count + 1, so 0 means "not yet" and any count, zero
// included, rides with the signal).
//
// The flags are sync/ready Counters, the readiness the host-side per-tensor
// barrier uses: a flag is a counter that goes from 0 to count + 1 once.
//
// Set and Wait are safe for concurrent use. A Flags serves one round; make
// a new one for the next. The zero Flags, and a nil *Flags, have no flag:
// Set and Wait fail with ErrConfig.
type Flags struct {
	name     string
	owner    int
	c        []ready.Counter
	setter   []int
	watchdog time.Duration
	err      error // the setter function panicked
}

// NewFlags makes n flags named name on rank owner (none for a negative n);
// setter(i) is the rank that sets flag i (nil: unknown, -1). watchdog
// bounds a wait in wall time (0 or less: no bound).
//
// A panic of setter is recovered: the setters from that flag on are
// unknown, and every Set and Wait of the flags fails with an ErrConfig
// error carrying the panic.
func NewFlags(name string, owner, n int, setter func(i int) int, watchdog time.Duration) *Flags {
	n = max(n, 0)
	f := &Flags{name: name, owner: owner, c: make([]ready.Counter, n), setter: make([]int, n), watchdog: watchdog}
	for i := range f.setter {
		f.setter[i] = -1
	}
	if setter != nil {
		f.setters(setter)
	}
	return f
}

// setters fills f.setter from setter, recovering its panic into f.err.
func (f *Flags) setters(setter func(i int) int) {
	i := 0
	defer func() {
		if p := recover(); p != nil {
			f.err = fmt.Errorf("%w: %s on rank %d: setter(%d) panicked: %v", ErrConfig, f.name, f.owner, i, p)
		}
	}()
	for ; i < len(f.setter); i++ {
		f.setter[i] = setter(i)
	}
}

// Len is the number of flags.
func (f *Flags) Len() int {
	if f == nil {
		return 0
	}
	return len(f.c)
}

// Set publishes flag i with count: store-release, after the caller's
// writes. Setting a set flag again keeps the larger value. A flag i out
// of range, or a count of math.MaxUint64 (which has no stored form), is
// an ErrConfig error.
func (f *Flags) Set(i int, count uint64) error {
	if f == nil {
		f = new(Flags) // the zero Flags' answer
	}
	if f.err != nil {
		return f.err
	}
	if i < 0 || i >= len(f.c) {
		return fmt.Errorf("%w: %s[%d] set: rank %d has %d flags", ErrConfig, f.name, i, f.owner, len(f.c))
	}
	if count == math.MaxUint64 {
		return fmt.Errorf("%w: %s[%d] set to %d, beyond the largest count", ErrConfig, f.name, i, count)
	}
	f.c[i].Store(count + 1)
	return nil
}

// Wait returns flag i's count once it is set (load-acquire), ctx's error
// if ctx ends first, or an ErrWatchdog error naming the flag, the waiter
// and the rank that should have set it once the watchdog expires. A flag
// i out of range is an ErrConfig error.
func (f *Flags) Wait(ctx context.Context, i int, waiter string) (uint64, error) {
	if f == nil {
		f = new(Flags)
	}
	if f.err != nil {
		return 0, f.err
	}
	if i < 0 || i >= len(f.c) {
		return 0, fmt.Errorf("%w: %s[%d] waited on by %s: rank %d has %d flags", ErrConfig, f.name, i, waiter, f.owner, len(f.c))
	}
	if v := f.c[i].Load(); v > 0 {
		return v - 1, nil
	}
	wctx := ctx
	if f.watchdog > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, f.watchdog)
		defer cancel()
	}
	if err := f.c[i].WaitAtLeast(wctx, 1); err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("%w: %s[%d] on rank %d waited on by %s for %v; rank %d should have set it",
				ErrWatchdog, f.name, i, f.owner, waiter, f.watchdog, f.setter[i])
		}
		return 0, err
	}
	return f.c[i].Load() - 1, nil
}

// IsSet reports whether flag i is set; a flag out of range is not.
func (f *Flags) IsSet(i int) bool { return i >= 0 && i < f.Len() && f.c[i].Load() > 0 }
