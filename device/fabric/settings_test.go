package fabric

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
)

// TestNonsenseSettingsAreErrors checks the settings and calls a fabric refuses with
// ErrConfig, rather than computing nonsense or panicking: a link bandwidth
// that is NaN, infinite or not positive, an absurd latency, a negative
// host time or launch latency, and a flag out of range.
func TestNonsenseSettingsAreErrors(t *testing.T) {
	for _, l := range []device.Link{
		{Bandwidth: math.NaN()}, {Bandwidth: math.Inf(1)}, {Bandwidth: -1},
		{Bandwidth: 1e9, Latency: -time.Second}, {Bandwidth: 1e9, Latency: time.Hour},
	} {
		c := Config{Ranks: 2, Link: l}
		if err := c.Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("link %+v: Check = %v, want ErrConfig", l, err)
		}
		if _, err := NewModel(Config{Ranks: 2, Link: l}); !errors.Is(err, ErrConfig) {
			t.Errorf("link %+v: NewModel = %v, want ErrConfig", l, err)
		}
	}
	m, err := NewModel(Config{Ranks: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(0, Kernel{Name: "k", Host: -time.Microsecond}); !errors.Is(err, ErrConfig) {
		t.Errorf("Add of a negative host time: %v, want ErrConfig", err)
	}
	m.LaunchLatency = -time.Microsecond
	if _, err := m.Run(); !errors.Is(err, ErrConfig) {
		t.Errorf("Run with a negative launch latency: %v, want ErrConfig", err)
	}
	f := NewFlags("f", 0, 2, nil, 0)
	for _, i := range []int{-1, 2, math.MaxInt} {
		if f.IsSet(i) {
			t.Errorf("IsSet(%d) of 2 flags: true", i)
		}
	}
}
