package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/internal/clock"
)

// simMeter measures the simulator's own cost: the host time spent inside
// the accelerator's calls, summed over goroutines. A metered device reads
// the clock twice per call. Excluded:
//
//   - the calls that wait for modeled device time (Stream.Synchronize and
//     CopyD2H, events' Synchronize): waiting is the device's time, not the
//     simulator's;
//   - the modeled host costs the device spends as CPU work: a launch's
//     (the card's O_cpu + O_cmd-tran, subtracted from each Launch) and an
//     allocation's cache misses (sdaaMalloc, subtracted per period through
//     swai.Device.CacheMisses);
//   - kernels' Compute, which the runtime calls before it launches.
//
// A launch held up by a full command ring counts its wait: the rings of
// the built-in profiles hold 1024 commands.
type simMeter struct {
	ns atomic.Int64
	// launchSpin is the modeled host cost of one launch.
	launchSpin int64
	// missed is the modeled host cost of the device's allocations so far
	// (nil: none).
	missed func() time.Duration
}

// meter wraps dev so that its calls are measured: the device, and the
// meter to read.
func meter(dev device.Device) (device.Device, *simMeter) {
	m := &simMeter{}
	if sw, ok := dev.(*swai.Device); ok {
		l := sw.Config().Launch
		m.launchSpin = int64(l.CPU + l.CmdTransfer)
		m.missed = func() time.Duration { _, t := sw.CacheMisses(); return t }
	}
	var out device.Device = &meteredDevice{Device: dev, m: m}
	if mp, ok := dev.(host.Mapper); ok {
		out = &meteredMapped{meteredDevice: out.(*meteredDevice), mp: mp}
	}
	if pl := platformOf(dev); pl != nil {
		platforms.Store(out, pl)
	}
	return out, m
}

// load is the simulator's cost so far, nanoseconds.
func (m *simMeter) load() int64 {
	if m == nil {
		return 0
	}
	n := m.ns.Load()
	if m.missed != nil {
		n -= int64(m.missed())
	}
	return n
}

func (m *simMeter) add(t0 int64, spent int64) {
	if d := clock.Now() - t0 - spent; d > 0 {
		m.ns.Add(d)
	}
}

type meteredDevice struct {
	device.Device
	m *simMeter
}

func (d *meteredDevice) Alloc(size int64, materialize bool) (device.Buffer, error) {
	t0 := clock.Now()
	b, err := d.Device.Alloc(size, materialize)
	d.m.add(t0, 0)
	return b, err
}

// MallocHost forwards device.HostAllocator; its modeled duration is not
// the simulator's cost.
func (d *meteredDevice) MallocHost(size int64) ([]byte, time.Duration, error) {
	ha, ok := d.Device.(device.HostAllocator)
	if !ok {
		return nil, 0, fmt.Errorf("pipebench: device %s: pinned host memory: %w", d.Name(), errors.ErrUnsupported)
	}
	t0 := clock.Now()
	b, t, err := ha.MallocHost(size)
	d.m.add(t0, int64(t))
	return b, t, err
}

// FreeHost forwards device.HostAllocator.
func (d *meteredDevice) FreeHost(b []byte) error {
	ha, ok := d.Device.(device.HostAllocator)
	if !ok {
		return fmt.Errorf("pipebench: device %s: pinned host memory: %w", d.Name(), errors.ErrUnsupported)
	}
	t0 := clock.Now()
	err := ha.FreeHost(b)
	d.m.add(t0, 0)
	return err
}

func (d *meteredDevice) Free(b device.Buffer) error {
	t0 := clock.Now()
	err := d.Device.Free(b)
	d.m.add(t0, 0)
	return err
}

func (d *meteredDevice) NewEvent() device.Event {
	t0 := clock.Now()
	e := d.Device.NewEvent()
	d.m.add(t0, 0)
	return e
}

func (d *meteredDevice) Stats() device.Stats {
	t0 := clock.Now()
	s := d.Device.Stats()
	d.m.add(t0, 0)
	return s
}

// NewStream returns a metered stream that keeps the optional interfaces
// of the device's own (device.Replayer, host.Mapper).
func (d *meteredDevice) NewStream() device.Stream {
	s := d.Device.NewStream()
	ms := &meteredStream{Stream: s, m: d.m}
	rp, isR := s.(device.Replayer)
	mp, isM := s.(host.Mapper)
	switch {
	case isR && isM:
		return &meteredReplayMapped{meteredReplay: &meteredReplay{meteredStream: ms, rp: rp}, mp: mp}
	case isR:
		return &meteredReplay{meteredStream: ms, rp: rp}
	case isM:
		return &meteredMappedStream{meteredStream: ms, mp: mp}
	}
	return ms
}

type meteredMapped struct {
	*meteredDevice
	mp host.Mapper
}

func (d *meteredMapped) HostMapped(b device.Buffer) bool { return d.mp.HostMapped(b) }

// meteredStream times the stream's calls but those that wait for the
// device (Synchronize, CopyD2H).
type meteredStream struct {
	device.Stream
	m *simMeter
}

func (s *meteredStream) Launch(k device.Kernel) error {
	t0 := clock.Now()
	err := s.Stream.Launch(k)
	s.m.add(t0, s.m.launchSpin)
	return err
}

func (s *meteredStream) CopyH2D(dst device.Buffer, src []byte) error {
	t0 := clock.Now()
	err := s.Stream.CopyH2D(dst, src)
	s.m.add(t0, 0)
	return err
}

func (s *meteredStream) CopyD2D(dst, src device.Buffer) error {
	t0 := clock.Now()
	err := s.Stream.CopyD2D(dst, src)
	s.m.add(t0, 0)
	return err
}

func (s *meteredStream) Record(e device.Event) {
	t0 := clock.Now()
	s.Stream.Record(e)
	s.m.add(t0, 0)
}

func (s *meteredStream) WaitEvent(e device.Event) {
	t0 := clock.Now()
	s.Stream.WaitEvent(e)
	s.m.add(t0, 0)
}

func (s *meteredStream) Query() bool {
	t0 := clock.Now()
	q := s.Stream.Query()
	s.m.add(t0, 0)
	return q
}

func (s *meteredStream) Stats() device.StreamStats {
	t0 := clock.Now()
	st := s.Stream.Stats()
	s.m.add(t0, 0)
	return st
}

type meteredReplay struct {
	*meteredStream
	rp device.Replayer
}

func (s *meteredReplay) Replay(ks []device.Kernel) error {
	t0 := clock.Now()
	err := s.rp.Replay(ks)
	s.m.add(t0, 0)
	return err
}

type meteredMappedStream struct {
	*meteredStream
	mp host.Mapper
}

func (s *meteredMappedStream) HostMapped(b device.Buffer) bool { return s.mp.HostMapped(b) }

type meteredReplayMapped struct {
	*meteredReplay
	mp host.Mapper
}

func (s *meteredReplayMapped) HostMapped(b device.Buffer) bool { return s.mp.HostMapped(b) }

// simFraction is the median over repetitions of the simulator's cost
// over makespan × procs.
func simFraction(runs []sample, procs int) *float64 {
	f := medFloat(runs, func(s sample) float64 {
		if s.Makespan <= 0 {
			return 0
		}
		return float64(s.simNs) / (float64(s.Makespan) * float64(procs))
	})
	return &f
}

// writeSimCost is the line on the simulator's own cost (-sim-cost): its
// median over the rows, and its largest.
func writeSimCost(w io.Writer, rep *report) {
	var f []float64
	worst := -1
	for i, r := range rep.Results {
		if r.SimCPUFraction == nil {
			continue
		}
		f = append(f, *r.SimCPUFraction)
		if worst < 0 || *r.SimCPUFraction > *rep.Results[worst].SimCPUFraction {
			worst = i
		}
	}
	if worst < 0 {
		return
	}
	r := rep.Results[worst]
	slices.Sort(f)
	fmt.Fprintf(w, "simulator's own cost (time inside the accelerator's calls, without waits and modeled host costs, over makespan × GOMAXPROCS): median %.2f%% of %d rows, largest %.2f%% (%s %s)\n",
		100*f[len(f)/2], len(f), 100**r.SimCPUFraction, r.Scenario, variantName(r))
}
