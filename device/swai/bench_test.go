package swai

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
)

var benchProfiles = []struct {
	name string
	p    Profile
	m    Method
}{
	{"fast", Default(), FastLaunch},
	{"traditional", Default(), TraditionalLaunch},
	{"gpu", GPU(), FastLaunch},
}

// BenchmarkRingIssue is the simulator's own cost of one launch through the
// command queue model.
func BenchmarkRingIssue(b *testing.B) {
	for _, bp := range benchProfiles {
		b.Run(bp.name, func(b *testing.B) {
			r := NewRing(bp.p, bp.m)
			var now int64
			for b.Loop() {
				now, _ = r.Issue(now)
			}
		})
	}
}

// BenchmarkLaunch launches empty kernels on a card, paying the modeled host
// cost for real: async ns/op tends to the modeled time per launch of a
// burst, sync ns/op to KLL (plus the simulator's overhead).
func BenchmarkLaunch(b *testing.B) {
	ctx := context.Background()
	for _, bp := range benchProfiles {
		p := bp.p
		p.Launch.Method = bp.m
		for _, sync := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/sync=%v", bp.name, sync), func(b *testing.B) {
				d, err := New(p, WithCalibration(testCal))
				if err != nil {
					b.Fatal(err)
				}
				defer d.Close()
				s := d.NewStream()
				for b.Loop() {
					if err := s.Launch(device.Kernel{Name: "empty", Cost: device.Cost{}}); err != nil {
						b.Fatal(err)
					}
					if sync {
						if err := s.Synchronize(ctx); err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := s.Synchronize(ctx); err != nil {
					b.Fatal(err)
				}
				model := p.Burst(bp.m, 100, 0)
				if sync {
					model = p.KLL(bp.m, 0)
				}
				b.ReportMetric(float64(model)/1e3, "model-µs/launch")
			})
		}
	}
}

// BenchmarkPageableH2D compares MTMC with the single-thread single-channel
// path: bytes really copied through the staging buffers (MB/s is the
// harness's real copy speed), model-GB/s the modeled bandwidth of the copy.
func BenchmarkPageableH2D(b *testing.B) {
	benchPageable(b, true)
}

// BenchmarkPageableD2H is BenchmarkPageableH2D in the other direction.
func BenchmarkPageableD2H(b *testing.B) {
	benchPageable(b, false)
}

func benchPageable(b *testing.B, h2d bool) {
	p := Default()
	cal := Calibrate()
	sizes := []int64{256 << 10, 4 << 20, 64 << 20}
	host := make([]byte, slices.Max(sizes))
	fillPattern(host)
	c := newCopier(p, p.Threads(cal))
	defer c.close()
	for _, size := range sizes {
		for _, mtmc := range []bool{true, false} {
			name := "single"
			if mtmc {
				name = "mtmc"
			}
			b.Run(fmt.Sprintf("%s/%s", formatSize(size), name), func(b *testing.B) {
				b.SetBytes(size)
				var modeled []time.Duration
				for b.Loop() {
					d, err := c.pageable(mtmc, h2d, host[:size], nil)
					if err != nil {
						b.Fatal(err)
					}
					modeled = append(modeled, d)
				}
				slices.Sort(modeled)
				b.ReportMetric(float64(size)/float64(modeled[len(modeled)/2]), "model-GB/s")
			})
		}
	}
}

// BenchmarkD2DChoose is the cost of the adaptive choice; model-ns is its
// modeled copy time summed over the paper's sizes.
func BenchmarkD2DChoose(b *testing.B) {
	t := NewD2DTable(Default(), testCal)
	sizes := PaperSizes()
	var total time.Duration
	for b.Loop() {
		total = 0
		for _, s := range sizes {
			_, d := t.Choose(s)
			total += d
		}
	}
	b.ReportMetric(float64(total), "model-ns")
}
