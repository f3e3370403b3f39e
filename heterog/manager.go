package heterog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/ants/v2"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/internal/clock"
)

// Manager owns the devices of a process and the worker groups that run
// parts on them. Opening a device and creating a worker group are costly
// (MTTorch measured 1.2 ms to create a DSP thread group against 0.6 ms to
// run one), so both are done once: the devices when the Manager is made,
// each group on its first request, after which the same group serves every
// executable and every run that asks for it. With GroupCosts, handing out
// a group pays those costs in modeled time (see WithGroupCosts). Its
// methods are safe for concurrent use.
type Manager struct {
	cpu   *host.Device
	accel device.Device
	costs GroupCosts

	mu      sync.Mutex
	groups  map[groupKey]*Group
	created int64 // groups created over the manager's life
	reused  int64 // cached groups handed out again
	modeled time.Duration
}

// GroupCosts are the modeled costs of handing out a worker group, as
// MTTorch's thread-group manager pays them on the MT-3000 (section 3.2 of
// the MTTorch document): a group that must be made costs Create
// (hthreads_group_create, about 1.2 ms), a cached one Cached
// (hthreads_group_exec's fixed cost, about 0.6 ms, which a cached group
// still pays: the document's "50% of the inherent start-up overhead").
// The zero value costs nothing.
type GroupCosts struct {
	Create time.Duration
	Cached time.Duration
}

// ManagerOption configures NewManager.
type ManagerOption func(*Manager)

// WithGroupCosts makes Group wait, on the caller's goroutine, for c.Create
// when it makes a group and c.Cached when it hands out a cached one (a
// modeled wait, as for transfers); GroupStats sums them.
func WithGroupCosts(c GroupCosts) ManagerOption { return func(m *Manager) { m.costs = c } }

// GroupStats are a manager's worker-group figures over its life.
type GroupStats struct {
	Created, Reused int64
	// Modeled is the GroupCosts paid in all.
	Modeled time.Duration
}

type groupKey struct {
	dev  device.Device
	size int
}

// NewManager returns a manager of cpu and accel; nil means a new host device
// with the default profile, and a new simulated accelerator with the
// default profile. Negative group costs are an error naming the field; a
// cpu not made by host.New (the zero host.Device) is an error matching
// ErrInvalid and device.ErrNoDevice. Nil options are ignored.
func NewManager(cpu *host.Device, accel device.Device, opts ...ManagerOption) (*Manager, error) {
	m := &Manager{groups: make(map[groupKey]*Group)}
	for _, o := range opts {
		if o != nil {
			o(m)
		}
	}
	if m.costs.Create < 0 {
		return nil, fmt.Errorf("heterog: manager: GroupCosts.Create must not be negative, got %v", m.costs.Create)
	}
	if m.costs.Cached < 0 {
		return nil, fmt.Errorf("heterog: manager: GroupCosts.Cached must not be negative, got %v", m.costs.Cached)
	}
	if cpu == nil {
		var err error
		if cpu, err = host.New(host.Options{}); err != nil {
			return nil, fmt.Errorf("heterog: %w", err)
		}
	} else if cpu.Profile() == (device.Profile{}) {
		// The zero host.Device: its runs would fail at their first
		// allocation on the CPU.
		return nil, fmt.Errorf("heterog: manager: %w: the CPU device was not made by host.New (its Profile is zero): %w", ErrInvalid, device.ErrNoDevice)
	}
	if accel == nil {
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			return nil, fmt.Errorf("heterog: %w", err)
		}
		accel = sim
	}
	m.cpu, m.accel = cpu, accel
	return m, nil
}

var devices = sync.OnceValue(func() *Manager {
	m, err := NewManager(nil, nil)
	if err != nil {
		panic(err) // the default devices have valid default profiles
	}
	return m
})

// Devices returns the process-wide manager: the host CPU and the default
// simulated accelerator, created on first use and never again.
func Devices() *Manager { return devices() }

// CPU is the host CPU device (nil for a nil or zero Manager).
func (m *Manager) CPU() *host.Device {
	if m == nil {
		return nil
	}
	return m.cpu
}

// Accelerator is the accelerator device (nil for a nil or zero Manager).
func (m *Manager) Accelerator() device.Device {
	if m == nil {
		return nil
	}
	return m.accel
}

// made reports whether m was made by NewManager (or is Devices'): a nil
// or zero Manager has no devices and hands out no groups.
func (m *Manager) made() bool { return m != nil && m.accel != nil }

// Group returns the worker group of size workers for dev, creating it on the
// first request for that pair. With GroupCosts it then waits for the
// modeled cost of the creation or of the cached group.
func (m *Manager) Group(dev device.Device, size int) (*Group, error) {
	if !m.made() {
		return nil, fmt.Errorf("heterog: worker group: %w: manager not made by NewManager", ErrInvalid)
	}
	if dev == nil || size <= 0 {
		return nil, fmt.Errorf("heterog: %w: worker group of %d workers for device %v", ErrInvalid, size, dev)
	}
	g, cost, err := m.group(dev, size)
	if err != nil {
		return nil, err
	}
	if cost > 0 {
		clock.WaitUntil(context.Background(), clock.Now()+int64(cost))
	}
	return g, nil
}

// group finds or makes the group of (dev, size) and accounts its modeled
// cost, which the caller pays outside the lock.
func (m *Manager) group(dev device.Device, size int) (*Group, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := groupKey{dev, size}
	if g, ok := m.groups[k]; ok {
		m.reused++
		m.modeled += m.costs.Cached
		return g, m.costs.Cached, nil
	}
	pool, err := ants.NewPoolWithFuncGeneric(size, runActivation, ants.WithDisablePurge(true), ants.WithPanicHandler(backstop))
	if err != nil {
		return nil, 0, fmt.Errorf("heterog: worker group of %d for %s: %w", size, dev.Name(), err)
	}
	g := &Group{dev: dev, size: size, pool: pool}
	m.groups[k] = g
	m.created++
	m.modeled += m.costs.Create
	return g, m.costs.Create, nil
}

// GroupStats returns the manager's worker-group figures.
func (m *Manager) GroupStats() GroupStats {
	if m == nil {
		return GroupStats{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return GroupStats{Created: m.created, Reused: m.reused, Modeled: m.modeled}
}

// GroupsCreated is the number of worker groups created over the manager's
// life: repeated runs and compilations of same-shaped graphs add none.
func (m *Manager) GroupsCreated() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.created
}

// Release stops every cached worker group and waits for its workers to
// exit. Executables holding a released group fail their next run; groups
// requested later are created anew. A nil or zero Manager holds none.
func (m *Manager) Release() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	groups := m.groups
	m.groups = make(map[groupKey]*Group)
	m.mu.Unlock()
	var errs []error
	for _, g := range groups {
		if err := g.pool.ReleaseTimeout(10 * time.Second); err != nil {
			errs = append(errs, fmt.Errorf("heterog: release worker group of %d for %s: %w", g.size, g.dev.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// Group is a cached pool of worker goroutines bound to a device; the parts
// placed on the device run on its workers. A group blocks a submission when
// all its workers are busy, which never deadlocks an executable: a running
// part never waits for a part that has not been submitted.
type Group struct {
	dev  device.Device
	size int
	pool *ants.PoolWithFuncGeneric[*activation]
}

// Device is the device the group's workers run parts for (nil for a nil
// Group).
func (g *Group) Device() device.Device {
	if g == nil {
		return nil
	}
	return g.dev
}

// Size is the number of workers (0 for a nil Group).
func (g *Group) Size() int {
	if g == nil {
		return 0
	}
	return g.size
}

// backstop is the worker groups' panic handler. Every task recovers its
// own panics and reports them as the part's error (scheduler.exec); a
// group is shared by every executable and its handler sees no task, so it
// can only keep the worker alive and count what should never happen.
func backstop(any) { backstopPanics.Add(1) }

// backstopPanics counts panics that reached a worker group's handler.
var backstopPanics atomic.Int64
