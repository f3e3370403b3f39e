package mt3000_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devicetest"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/device/mt3000"
)

func TestConformance(t *testing.T) {
	open := func(t *testing.T) *mt3000.Chip {
		c, err := mt3000.New(mt3000.Default(), mt3000.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	t.Run("cluster", func(t *testing.T) {
		devicetest.Run(t, func(t *testing.T) device.Device {
			c, err := mt3000.NewCluster(mt3000.Default(), 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			return c
		})
	})
	t.Run("mapped", func(t *testing.T) {
		devicetest.Run(t, func(t *testing.T) device.Device {
			d, err := open(t).Cluster(3)
			if err != nil {
				t.Fatal(err)
			}
			return d
		})
	})
	t.Run("cpu", func(t *testing.T) {
		devicetest.Run(t, func(t *testing.T) device.Device { return open(t).CPU() })
	})
	t.Run("no ping-pong", func(t *testing.T) {
		p := mt3000.Default()
		p.PingPong = false
		devicetest.Run(t, func(t *testing.T) device.Device {
			c, err := mt3000.NewCluster(p, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			return c
		})
	})
}

func TestChip(t *testing.T) {
	c, err := mt3000.New(mt3000.Default(), mt3000.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Clusters() != 4 {
		t.Fatalf("%d clusters", c.Clusters())
	}
	seen := map[string]bool{}
	for i := range c.Clusters() {
		d, err := c.Cluster(i)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := device.Device(d).(host.Mapper); !ok {
			t.Fatalf("cluster %d not host-mapped", i)
		}
		seen[d.Name()] = true
	}
	for _, i := range []int{-1, c.Clusters()} {
		if d, err := c.Cluster(i); !errors.Is(err, mt3000.ErrNoCluster) || d != nil {
			t.Errorf("Cluster(%d): %v, %v; want ErrNoCluster", i, d, err)
		}
	}
	if len(seen) != 4 {
		t.Fatalf("cluster names %v", seen)
	}
	if p := c.CPU().Profile(); p.PeakFLOPS != mt3000.Default().CPUFLOPS {
		t.Fatalf("cpu profile %+v", p)
	}
}

// TestKernelTakesItsTiledTime: the Sim's timeline holds each kernel for
// Profile.KernelTime of its cost (to the nanosecond of float rounding).
func TestKernelTakesItsTiledTime(t *testing.T) {
	for _, pp := range []bool{true, false} {
		p := mt3000.Default()
		p.PingPong = pp
		c, err := mt3000.NewCluster(p, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := c.NewStream()
		costs := []device.Cost{{}, {FLOPs: 1e6, Bytes: 4e3}, {FLOPs: 5 << 22, Bytes: 8 << 22}, {FLOPs: 1e12, Bytes: 1e6}}
		var want time.Duration
		for _, k := range costs {
			if err := s.Launch(device.Kernel{Name: "k", Cost: k}); err != nil {
				t.Fatal(err)
			}
			want += p.KernelTime(k)
		}
		got := time.Duration(c.Stats().KernelNs)
		if d := got - want; d < -4 || d > 4 {
			t.Errorf("ping-pong %v: kernels took %v, want %v", pp, got, want)
		}
	}
}

// TestKernelOfMoreThanADay: a cost whose tiled time passes a day (or
// int64 nanoseconds) fails the launch naming the cost asked for, and
// KernelTime saturates instead of wrapping.
func TestKernelOfMoreThanADay(t *testing.T) {
	p := mt3000.Default()
	c, err := mt3000.NewCluster(p, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.NewStream()
	for _, k := range []device.Cost{{FLOPs: 1e300}, {Bytes: 1e300}, {FLOPs: p.PeakFLOPS * 2 * 86400}} {
		err := s.Launch(device.Kernel{Name: "k", Cost: k})
		if !errors.Is(err, device.ErrLaunchFailed) || !strings.Contains(err.Error(), fmt.Sprintf("%g operations", k.FLOPs)) {
			t.Errorf("cost %+v: %v, want ErrLaunchFailed naming the cost", k, err)
		}
		if d := p.KernelTime(k); d < 24*time.Hour {
			t.Errorf("cost %+v: KernelTime %v", k, d)
		}
	}
	if n := c.Stats().Kernels; n != 0 {
		t.Errorf("%d kernels ran", n)
	}
}

// TestPingPong: a kernel of one round of tiles gains nothing; a large one
// gains, bounded by 2 (compute and transfer overlap at best).
func TestPingPong(t *testing.T) {
	p := mt3000.Default()
	round := float64(p.TileBytes) * float64(p.CoresPerCluster)
	small := device.Cost{FLOPs: round, Bytes: round}
	if g := p.PingPongGain(small); g != 1 {
		t.Errorf("one round: gain %v", g)
	}
	n := 64 * round
	// Balanced: transfer time equals compute time.
	big := device.Cost{Bytes: n, FLOPs: n / p.DDRAMBandwidth * p.PeakFLOPS}
	if g := p.PingPongGain(big); g <= 1.5 || g > 2 {
		t.Errorf("64 balanced rounds: gain %v", g)
	}
	if p.KernelTime(big) >= p.KernelTime(device.Cost{Bytes: n, FLOPs: big.FLOPs})+1 {
		t.Error("not deterministic")
	}
	p.PingPong = false
	if p.KernelTime(big) <= mt3000.Default().KernelTime(big) {
		t.Error("kernel without ping-pong not slower")
	}
}

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*mt3000.Profile)
	}{
		{"Clusters", func(p *mt3000.Profile) { p.Clusters = 0 }},
		{"DDRBandwidth", func(p *mt3000.Profile) { p.DDRBandwidth = -1 }},
		{"DDRAMBandwidth", func(p *mt3000.Profile) { p.DDRAMBandwidth = -42.62e9 }},
		{"GroupExec", func(p *mt3000.Profile) { p.GroupExec = -1 }},
		{"TileBytes", func(p *mt3000.Profile) { p.TileBytes = p.AMBytes }},
		{"PeakFLOPS: must be in [1e+06, +Inf), got 1e-09", func(p *mt3000.Profile) { p.PeakFLOPS = 1e-9 }},
		{"CPUBandwidth: must be in [1e+06, +Inf), got 1000", func(p *mt3000.Profile) { p.CPUBandwidth = 1000 }},
		{"AMBandwidth: must be in [1e+06, +Inf), got 1", func(p *mt3000.Profile) { p.AMBandwidth = 1 }},
	} {
		p := mt3000.Default()
		tc.edit(&p)
		_, err := mt3000.New(p, mt3000.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %v", tc.field, err)
		}
		if _, err := mt3000.NewCluster(p, 0, nil); err == nil {
			t.Errorf("%s: NewCluster accepted it", tc.field)
		}
	}
	if err := mt3000.Default().Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestValidateRefusesWhatNewRefuses: a profile whose clusters or host New
// cannot make (a latency beyond the simulated device's bound, more memory
// than it models) is refused by Validate too, naming the field, not only
// by New in the words of the device profile it derives.
func TestValidateRefusesWhatNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*mt3000.Profile)
	}{
		{"GroupExec", func(p *mt3000.Profile) { p.GroupExec = time.Hour }},
		{"LaunchLatency", func(p *mt3000.Profile) { p.LaunchLatency = time.Minute }},
		{"DMALatency", func(p *mt3000.Profile) { p.DMALatency = 11 * time.Second }},
		{"DDRBytes", func(p *mt3000.Profile) { p.DDRBytes = 1 << 42 }},       // 4 × 4 TiB: more than the 8 TiB a device models
		{"DDRBytes", func(p *mt3000.Profile) { p.DDRBytes = math.MaxInt64 }}, // its product wraps
	} {
		p := mt3000.Default()
		tc.edit(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: Validate = %v", tc.field, err)
		}
		if _, err := mt3000.New(p, mt3000.Options{}); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: New = %v", tc.field, err)
		}
	}
}

// TestNewClusterOfNoCluster: NewCluster refuses an index outside the
// profile's clusters, as Chip.Cluster does.
func TestNewClusterOfNoCluster(t *testing.T) {
	p := mt3000.Default()
	for _, i := range []int{-1, p.Clusters, 1 << 30} {
		if c, err := mt3000.NewCluster(p, i, nil); !errors.Is(err, mt3000.ErrNoCluster) || c != nil {
			t.Errorf("NewCluster(%d): %v, %v; want ErrNoCluster", i, c, err)
		}
	}
	if _, err := mt3000.NewCluster(p, p.Clusters-1, nil); err != nil {
		t.Errorf("the last cluster: %v", err)
	}
}
