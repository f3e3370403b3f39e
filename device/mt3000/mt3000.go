// Package mt3000 is the MT-3000 of the Tianhe supercomputer as pipert's
// devices, from the MTTorch document (seed mttorch-mt3000): four DSP
// clusters, each a simulated device.Sim whose memory the host addresses
// in place (host.Map), and the general-purpose cores as the host device.
//
// It is a profile of the existing simulated device, not a second
// simulator: a cluster is a device.Sim with the Cluster profile (fixed
// kernel time hthreads_group_exec, DDR↔DDR DMA for copies, one thread
// group at a time), whose streams hand the Sim each kernel's tiled time
// (Profile.KernelTime: DDR↔AM transfers of the cores' tiles, ping-pong
// overlapping them with compute, or not) as a cost the Sim's roofline
// turns back into that time. Thread-group creation, the other cost the
// document measures, is paid where groups are made: heterog's Manager
// (GroupCosts).
//
//	chip, err := mt3000.New(mt3000.Default(), mt3000.Options{})
//	dsp, err := chip.Cluster(0) // a host.Mapped device: virtual operators run on it
//	cpu := chip.CPU()
//
// Dependency rule: mt3000 imports device, device/host and the standard
// library only.
package mt3000

import (
	"errors"
	"fmt"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
)

// Options configure New. The zero value is valid: no observers.
type Options struct {
	// Observer sees every cluster's work (streams numbered per cluster).
	Observer device.Observer
	// CPUObserver sees the host's.
	CPUObserver device.Observer
}

// Chip is one MT-3000: its DSP clusters and its CPU.
type Chip struct {
	prof     Profile
	clusters []*host.Mapped
	cpu      *host.Device
}

// New returns a chip of profile p, after validating it.
func New(p Profile, o Options) (*Chip, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	cpu, err := host.New(host.Options{Profile: p.Host(), Observer: o.CPUObserver})
	if err != nil {
		return nil, fmt.Errorf("mt3000: %w", err)
	}
	c := &Chip{prof: p, cpu: cpu}
	for i := range p.Clusters {
		cl, err := NewCluster(p, i, o.Observer)
		if err != nil {
			return nil, err
		}
		c.clusters = append(c.clusters, host.Map(cl))
	}
	return c, nil
}

// Profile is the chip's profile.
func (c *Chip) Profile() Profile {
	if c == nil {
		return Profile{}
	}
	return c.prof
}

// Clusters is the number of DSP clusters.
func (c *Chip) Clusters() int {
	if c == nil {
		return 0
	}
	return len(c.clusters)
}

// ErrNoCluster: a cluster index outside [0, Clusters()).
var ErrNoCluster = errors.New("mt3000: no such cluster")

// Cluster returns DSP cluster i (0 ≤ i < Clusters(); another i is an
// ErrNoCluster error): its memory is host-mapped, as the MT-3000's CPU
// reads and writes every cluster's DDR (section 3.3).
func (c *Chip) Cluster(i int) (*host.Mapped, error) {
	if n := c.Clusters(); i < 0 || i >= n {
		return nil, fmt.Errorf("%w: cluster %d of %d", ErrNoCluster, i, n)
	}
	return c.clusters[i], nil
}

// CPU returns the general-purpose cores as a host device.
func (c *Chip) CPU() *host.Device {
	if c == nil {
		return nil
	}
	return c.cpu
}

// Cluster is one DSP cluster: a device.Sim of Profile.Cluster whose
// kernels take Profile.KernelTime. Its methods are safe for concurrent
// use. The zero Cluster, and a nil *Cluster (NewCluster's on an error),
// are no device: their calls answer as a nil *device.Sim's.
type Cluster struct {
	*device.Sim
	prof Profile
}

// NewCluster returns DSP cluster i of a chip of profile p (named
// "<name>-dsp<i>"), after validating p; obs may be nil. An i outside [0,
// p.Clusters) is an ErrNoCluster error.
func NewCluster(p Profile, i int, obs device.Observer) (*Cluster, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if i < 0 || i >= p.Clusters {
		return nil, fmt.Errorf("%w: cluster %d of %d", ErrNoCluster, i, p.Clusters)
	}
	dp := p.Cluster()
	dp.Name = fmt.Sprintf("%s%d", dp.Name, i)
	sim, err := device.NewSim(device.SimOptions{Profile: dp, Observer: obs})
	if err != nil {
		return nil, fmt.Errorf("mt3000: %w", err)
	}
	return &Cluster{Sim: sim, prof: p}, nil
}

// NewStream implements device.Device: a stream of the Sim whose kernels
// take the cluster's tiled time.
func (c *Cluster) NewStream() device.Stream {
	if c == nil {
		c = new(Cluster)
	}
	return &stream{Stream: c.Sim.NewStream(), c: c}
}

// sim is c's simulator, nil for a nil or zero Cluster. A nil *Cluster
// cannot reach the embedded Sim's methods through promotion, so Cluster
// declares each.
func (c *Cluster) sim() *device.Sim {
	if c == nil {
		return nil
	}
	return c.Sim
}

// Name implements device.Device.
func (c *Cluster) Name() string { return c.sim().Name() }

// Profile implements device.Device: the cluster's device profile.
func (c *Cluster) Profile() device.Profile { return c.sim().Profile() }

// Alloc implements device.Device.
func (c *Cluster) Alloc(size int64, materialize bool) (device.Buffer, error) {
	return c.sim().Alloc(size, materialize)
}

// Free implements device.Device.
func (c *Cluster) Free(b device.Buffer) error { return c.sim().Free(b) }

// Owns implements device.Owner.
func (c *Cluster) Owns(b device.Buffer) bool { return c.sim().Owns(b) }

// NewEvent implements device.Device.
func (c *Cluster) NewEvent() device.Event { return c.sim().NewEvent() }

// Stats implements device.Device.
func (c *Cluster) Stats() device.Stats { return c.sim().Stats() }

// ReleaseStream implements device.StreamReleaser: the Sim's stream under
// the cluster's is released.
func (c *Cluster) ReleaseStream(s device.Stream) {
	if cs, ok := s.(*stream); ok && c != nil && cs.c == c {
		c.Sim.ReleaseStream(cs.Stream)
	}
}

// stream is a cluster's stream; its owner is the Sim stream's.
type stream struct {
	device.Stream
	c *Cluster
}

// Launch implements device.Stream: the Sim gets a cost whose roofline on
// the cluster profile (FLOPs over PeakFLOPS, after KernelFixed =
// GroupExec) is the kernel's tiled time.
func (s *stream) Launch(k device.Kernel) error {
	if err := k.Cost.Check(); err != nil {
		return fmt.Errorf("mt3000: launch %s: %w", k.Name, err)
	}
	p := &s.c.prof
	t := p.tiles(k.Cost, p.PingPong)
	if t > 24*time.Hour {
		return fmt.Errorf("mt3000: launch %s: %w: cost of %g operations and %g bytes takes more than a day on a cluster", k.Name, device.ErrLaunchFailed, k.Cost.FLOPs, k.Cost.Bytes)
	}
	k.Cost = device.Cost{FLOPs: t.Seconds() * p.PeakFLOPS}
	return s.Stream.Launch(k)
}
