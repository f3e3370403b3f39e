package heterog

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/ants/v2"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
)

// Manager owns the devices of a process and the worker groups that run
// parts on them. Opening a device and creating a worker group are costly
// (MTTorch measured 1.2 ms to create a DSP thread group against 0.6 ms to
// run one), so both are done once: the devices when the Manager is made,
// each group on its first request, after which the same group serves every
// executable and every run that asks for it. Its methods are safe for
// concurrent use.
type Manager struct {
	cpu   *host.Device
	accel device.Device

	mu      sync.Mutex
	groups  map[groupKey]*Group
	created int64 // groups created over the manager's life
}

type groupKey struct {
	dev  device.Device
	size int
}

// NewManager returns a manager of cpu and accel; nil means a new host device
// with the default profile, and a new simulated accelerator with the
// default profile.
func NewManager(cpu *host.Device, accel device.Device) (*Manager, error) {
	if cpu == nil {
		var err error
		if cpu, err = host.New(host.Options{}); err != nil {
			return nil, fmt.Errorf("heterog: %w", err)
		}
	}
	if accel == nil {
		sim, err := device.NewSim(device.SimOptions{})
		if err != nil {
			return nil, fmt.Errorf("heterog: %w", err)
		}
		accel = sim
	}
	return &Manager{cpu: cpu, accel: accel, groups: make(map[groupKey]*Group)}, nil
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

// CPU is the host CPU device.
func (m *Manager) CPU() *host.Device { return m.cpu }

// Accelerator is the accelerator device.
func (m *Manager) Accelerator() device.Device { return m.accel }

// Group returns the worker group of size workers for dev, creating it on the
// first request for that pair.
func (m *Manager) Group(dev device.Device, size int) (*Group, error) {
	if dev == nil || size <= 0 {
		return nil, fmt.Errorf("heterog: worker group of %d workers for device %v", size, dev)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := groupKey{dev, size}
	if g, ok := m.groups[k]; ok {
		return g, nil
	}
	pool, err := ants.NewPoolWithFuncGeneric(size, runActivation, ants.WithDisablePurge(true), ants.WithPanicHandler(backstop))
	if err != nil {
		return nil, fmt.Errorf("heterog: worker group of %d for %s: %w", size, dev.Name(), err)
	}
	g := &Group{dev: dev, size: size, pool: pool}
	m.groups[k] = g
	m.created++
	return g, nil
}

// GroupsCreated is the number of worker groups created over the manager's
// life: repeated runs and compilations of same-shaped graphs add none.
func (m *Manager) GroupsCreated() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.created
}

// Release stops every cached worker group and waits for its workers to
// exit. Executables holding a released group fail their next run; groups
// requested later are created anew.
func (m *Manager) Release() error {
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

// Device is the device the group's workers run parts for.
func (g *Group) Device() device.Device { return g.dev }

// Size is the number of workers.
func (g *Group) Size() int { return g.size }

// backstop is the worker groups' panic handler. Every task recovers its
// own panics and reports them as the part's error (scheduler.exec); a
// group is shared by every executable and its handler sees no task, so it
// can only keep the worker alive and count what should never happen.
func backstop(any) { backstopPanics.Add(1) }

// backstopPanics counts panics that reached a worker group's handler.
var backstopPanics atomic.Int64
