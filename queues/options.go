package queues

import (
	"fmt"
	"math"
	"math/bits"
	"time"
	"unsafe"

	"github.com/pipert/pipert/internal/hostmem"
)

const (
	// DefaultCapacity is the capacity used when New is given 0.
	DefaultCapacity = 1024
	// DefaultSpin is the number of yielding checks a waiter makes before it
	// parks, used when Options.Spin is 0.
	DefaultSpin = 100
	// DefaultSpinFor is how long an idle worker keeps yield-spinning, at
	// least, before it parks, used when Options.SpinFor is 0. A worker that
	// parks between two tasks must be woken, and on a virtual machine whose
	// idle processor sleeps, the wake-up takes tens of microseconds and
	// often ends with the worker and its producer taking turns on one
	// processor. pipebench decode on 2 cores, medians of 5 invocations:
	// async 0.99x / pipeline 0.99x of kbk with no time floor and
	// occasional flips at 50 µs, 1.50–1.57x / 1.58–1.61x at 200 µs.
	DefaultSpinFor = 200 * time.Microsecond
	// MaxCapacity is the largest capacity New accepts.
	MaxCapacity = 1 << 30
)

// Options tune a Queue or a Pipeline. The zero Options selects every default.
type Options struct {
	// Spin is how many failed checks a waiting goroutine (the worker, a
	// producer facing a full ring, a caller of Wait) makes, yielding the
	// processor between them, before it parks. Zero selects DefaultSpin; a
	// negative value parks after the first failed check, which is only useful
	// to exercise the parking paths.
	Spin int
	// SpinFor is the least time an idle worker yield-spins before it parks
	// (after Spin checks). Zero selects DefaultSpinFor; a negative value
	// disables the time floor.
	SpinFor time.Duration
}

// Option sets a field of Options.
type Option func(*Options)

// WithSpin sets Options.Spin.
func WithSpin(n int) Option { return func(o *Options) { o.Spin = n } }

// WithSpinFor sets Options.SpinFor.
func WithSpinFor(d time.Duration) Option { return func(o *Options) { o.SpinFor = d } }

// config is Options with the defaults filled in; the only place they are.
type config struct {
	spin    int
	spinFor time.Duration
	crowded bool // set by NewPipeline: more goroutines than processors
}

func buildConfig(opts []Option) config {
	var o Options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	c := config{spin: o.Spin, spinFor: o.SpinFor}
	switch {
	case o.SpinFor == 0:
		c.spinFor = DefaultSpinFor
	case o.SpinFor < 0:
		c.spinFor = 0
	}
	switch {
	case o.Spin == 0:
		c.spin = DefaultSpin
	case o.Spin < 0:
		c.spin = 0
	}
	return c
}

// checkCapacity reports a capacity outside [0, MaxCapacity], or rings
// of that capacity for rings queues of T that the host has not the memory
// for (hostmem.Check): Go ends the process on an allocation it cannot
// make, so a ring of a large capacity of a large T is refused before it is
// made.
func checkCapacity[T any](capacity, rings int) error {
	if capacity < 0 || capacity > MaxCapacity {
		return fmt.Errorf("%w: %d outside [0, %d]", ErrCapacity, capacity, MaxCapacity)
	}
	if capacity == 0 {
		capacity = DefaultCapacity
	}
	hi, bytes := bits.Mul64(ringSize(capacity)*uint64(rings), uint64(unsafe.Sizeof(slot[T]{})))
	if hi != 0 || bytes > math.MaxInt64 {
		return fmt.Errorf("%w: %d: rings of more than 2^63 bytes: %w", ErrCapacity, capacity, hostmem.ErrTooLarge)
	}
	if err := hostmem.Check(int64(bytes)); err != nil {
		return fmt.Errorf("%w: %d: rings of %d bytes: %w", ErrCapacity, capacity, bytes, err)
	}
	return nil
}

// ringSize returns a checked positive capacity rounded up to a power of two
// of at least 2.
//
// A ring of one slot is impossible with sequence numbers: a slot's "ready at
// p" value p+1 would equal its "free for p+1" value p+size.
func ringSize(capacity int) uint64 {
	n := uint64(2)
	for n < uint64(capacity) {
		n <<= 1
	}
	return n
}
