package plan

import (
	"errors"
	"fmt"
)

// TilingCopy is how a kernel's tiling data (what Resize computes) reaches
// the device: ATB's three strategies. The zero value is invalid; Config's
// default is WithKernel, ATB's.
type TilingCopy uint8

// Tiling-copy strategies.
const (
	// WithKernel sends each kernel's tiling with its launch: the launch
	// command carries the bytes (device.Kernel.Args), so the device starts
	// the kernel once they crossed the host-to-device link; nothing else
	// is copied.
	WithKernel TilingCopy = iota + 1
	// MultiStream copies each kernel's tiling, as soon as it is computed,
	// on a copy stream of its own into the next block of a device ring
	// (Config.TilingBlocks blocks of TilingBlockBytes), and records an
	// event the kernel's launch waits for on the device. A block is reused
	// once the kernel that read it completed: until then the copy stalls
	// (Stats.Tiling.Stalls). On a device with pinned host memory
	// (device.HostAllocator) the copies, as Whole's, come from a host
	// block there (ATB's host ring), so they take the pinned path.
	MultiStream
	// Whole keeps the tilings in host memory until every kernel of a batch
	// has its own, then copies them to the device at once, before the
	// batch's first launch. A batch ends before a kernel that waits for an
	// earlier kernel's results (a value or compute dependency), so each
	// batch is inferred and tiled, copied, then launched.
	Whole

	lastTilingCopy = Whole
)

// TilingBlockBytes is the size of a block of the tiling ring: ATB's 3 MB,
// which it does not let a user change.
const TilingBlockBytes = 3 << 20

// ErrTilingSpace is the cause of a run's failure when tiling data does not
// fit the device's tiling ring: a kernel's beyond a block (MultiStream), or
// a batch's beyond the ring (Whole: more TilingBlocks, or another
// TilingCopy, make room).
var ErrTilingSpace = errors.New("tiling data does not fit the tiling ring")

// DefaultTilingBlocks is the number of blocks of the tiling ring: ATB's
// device memory pool of 32 blocks.
const DefaultTilingBlocks = 32

var tilingCopyNames = [...]string{WithKernel: "with-kernel", MultiStream: "multi-stream", Whole: "whole"}

func (t TilingCopy) String() string {
	if t.Valid() {
		return tilingCopyNames[t]
	}
	return fmt.Sprintf("TilingCopy(%d)", uint8(t))
}

// Valid reports whether t is one of the strategies.
func (t TilingCopy) Valid() bool { return t >= WithKernel && t <= lastTilingCopy }

// ParseTilingCopy returns the strategy named s ("with-kernel",
// "multi-stream", "whole"); another name is an error wrapping ErrConfig.
func ParseTilingCopy(s string) (TilingCopy, error) {
	for t := WithKernel; t <= lastTilingCopy; t++ {
		if tilingCopyNames[t] == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("plan: %w: unknown tiling copy %q (have with-kernel, multi-stream, whole)", ErrConfig, s)
}

// TilingStats count a run's tiling data on its way to the device: the
// bytes, the transfers (one per kernel, or per batch with Whole), and the
// copies that waited for a block of the ring (MultiStream).
type TilingStats struct {
	Bytes          int64
	Copies, Stalls int
}

// Add adds o to s.
func (s *TilingStats) Add(o TilingStats) {
	if s == nil {
		return
	}
	s.Bytes += o.Bytes
	s.Copies += o.Copies
	s.Stalls += o.Stalls
}
