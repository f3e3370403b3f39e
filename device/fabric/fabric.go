// Package fabric models N accelerators in one process joined by a
// peer-to-peer interconnect: the links between them, a symmetric heap every
// rank allocates in lockstep, device-memory flags one rank sets and another
// waits on, and a deterministic discrete-event model of the ranks' device
// work on that interconnect.
//
// Two clocks meet here. Real data at small sizes moves through a Heap and
// Flags on goroutines, one per rank, so results can be checked bit for bit.
// Modeled time at full size comes from Model, a discrete-event run of the
// same work's modeled costs: it never reads the wall clock and is
// reproducible bit for bit.
//
// The interconnect figures are not in pipert's sources and come from AMD's
// MI300X datasheet: eight GPUs fully connected by Infinity Fabric (xGMI),
// seven links per GPU, 64 GB/s per direction each; the PCIe Gen5 x16
// fallback moves 64 GB/s per direction through one port per device.
package fabric

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pipert/pipert/device"
)

// Errors, matchable with errors.Is.
var (
	// ErrConfig: a fabric or model setting out of range.
	ErrConfig = errors.New("fabric: bad configuration")
	// ErrAsymmetric: ranks allocated different objects at the same place of
	// a symmetric heap.
	ErrAsymmetric = errors.New("fabric: asymmetric allocation")
	// ErrHeapFull: a symmetric allocation does not fit the heap.
	ErrHeapFull = errors.New("fabric: symmetric heap full")
	// ErrWatchdog: a flag was waited on longer than the watchdog allows
	// (nobody set it, or its setter failed).
	ErrWatchdog = errors.New("fabric: flag watchdog")
)

// Topology says how the devices are joined.
type Topology int

const (
	// XGMI: every ordered pair of devices has its own link (fully
	// connected), as MI300X's Infinity Fabric.
	XGMI Topology = iota
	// PCIe: each device reaches every peer through one port: transfers
	// from a device share its port.
	PCIe
)

func (t Topology) String() string {
	switch t {
	case XGMI:
		return "xgmi"
	case PCIe:
		return "pcie"
	}
	return fmt.Sprintf("Topology(%d)", int(t))
}

// MaxRanks bounds the devices of one fabric.
const MaxRanks = 64

// Defaults. The bandwidths are AMD's MI300X datasheet figures (outside
// pipert's sources); the latency is assumed.
const (
	DefaultRanks     = 8
	DefaultBandwidth = 64e9 // bytes per second per direction, xGMI and PCIe Gen5 x16
	DefaultLatency   = time.Microsecond
	DefaultWatchdog  = 10 * time.Millisecond // modeled
)

// Config is a fabric: how many devices and how they are joined.
type Config struct {
	Ranks    int      // devices (0: DefaultRanks)
	Topology Topology // XGMI (default) or PCIe
	// Link is one link's model: per direction between a pair (XGMI) or a
	// device's port (PCIe). Zero fields take the defaults.
	Link device.Link
}

// Check fills the defaults and rejects settings out of range.
func (c *Config) Check() error {
	if c == nil {
		return fmt.Errorf("%w: a nil Config", ErrConfig)
	}
	if c.Ranks == 0 {
		c.Ranks = DefaultRanks
	}
	if c.Ranks < 1 || c.Ranks > MaxRanks {
		return fmt.Errorf("%w: %d ranks, want 1 to %d", ErrConfig, c.Ranks, MaxRanks)
	}
	if c.Topology != XGMI && c.Topology != PCIe {
		return fmt.Errorf("%w: unknown topology %d", ErrConfig, int(c.Topology))
	}
	if c.Link.Bandwidth == 0 {
		c.Link.Bandwidth = DefaultBandwidth
	}
	if c.Link.Latency == 0 {
		c.Link.Latency = DefaultLatency
	}
	if !(c.Link.Bandwidth > 0) || math.IsInf(c.Link.Bandwidth, 0) || c.Link.Latency < 0 || c.Link.Latency > maxLatency {
		return fmt.Errorf("%w: link bandwidth %g B/s must be positive and finite, latency %v within [0, %v]", ErrConfig, c.Link.Bandwidth, c.Link.Latency, maxLatency)
	}
	return nil
}

// maxLatency is the longest link latency a Config takes: a second, beyond
// any fabric's.
const maxLatency = time.Second

// Links is the number of link resources of the fabric: one per ordered
// pair under XGMI, one port per device under PCIe.
func (c Config) Links() int {
	if c.Topology == PCIe {
		return c.Ranks
	}
	return c.Ranks * c.Ranks
}

// LinkOf returns the link a transfer from src to dst occupies.
func (c Config) LinkOf(src, dst int) int {
	if c.Topology == PCIe {
		return src
	}
	return src*c.Ranks + dst
}

// LinkName names link l in traces and errors.
func (c Config) LinkName(l int) string {
	if c.Topology == PCIe {
		return fmt.Sprintf("pcie %d", l)
	}
	if c.Ranks <= 0 {
		return fmt.Sprintf("link %d", l) // a Config not checked
	}
	return fmt.Sprintf("xgmi %d→%d", l/c.Ranks, l%c.Ranks)
}

// CheckRank returns an error unless 0 ≤ r < Ranks.
func (c Config) CheckRank(r int) error {
	if r < 0 || r >= c.Ranks {
		return fmt.Errorf("%w: rank %d outside the fabric's %d", ErrConfig, r, c.Ranks)
	}
	return nil
}
