// Package heterogtest provides helpers for tests of heterogeneous runs, as
// net/http/httptest does for HTTP: a Manager of fresh devices released, and
// checked for leaked memory, when the test ends.
package heterogtest

import (
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/heterog"
)

// Manager returns a manager of a new host device and a new simulated
// accelerator (host-mapped if mapped is set). When the test ends it
// releases the manager's worker groups and reports device memory still in
// use on either device as an error.
func Manager(tb testing.TB, mapped bool) *heterog.Manager {
	tb.Helper()
	cpu, err := host.New(host.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	var accel device.Device = sim
	if mapped {
		accel = host.Map(sim)
	}
	m, err := heterog.NewManager(cpu, accel)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := m.Release(); err != nil {
			tb.Error(err)
		}
		if st := sim.Stats(); st.MemInUse != 0 {
			tb.Errorf("%d bytes of accelerator memory leaked", st.MemInUse)
		}
		if st := cpu.Stats(); st.MemInUse != 0 {
			tb.Errorf("%d bytes of host memory leaked", st.MemInUse)
		}
	})
	return m
}
