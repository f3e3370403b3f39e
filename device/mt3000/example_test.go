package mt3000_test

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/mt3000"
)

// The chip's DSP clusters are devices the host addresses in place; a
// kernel's modeled time on one is the fixed hthreads_group_exec time and
// then its tiled time, where ping-pong (the
// next tile's transfer overlapping this tile's compute) gains on large
// kernels and not on small ones.
func ExampleNew() {
	chip, err := mt3000.New(mt3000.Default(), mt3000.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	dsp, err := chip.Cluster(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(chip.Clusters(), "clusters;", dsp.Name(), "and", chip.CPU().Name())
	p := chip.Profile()
	for _, c := range []device.Cost{{FLOPs: 1e3, Bytes: 1e3}, {FLOPs: 1e9, Bytes: 1e8}} {
		fmt.Printf("%g FLOPs, %g bytes: %v, ping-pong gain %.2f\n", c.FLOPs, c.Bytes, p.KernelTime(c), p.PingPongGain(c))
	}
	// Output:
	// 4 clusters; mt3000-dsp0 and mt3000-cpu
	// 1000 FLOPs, 1000 bytes: 600.025µs, ping-pong gain 1.00
	// 1e+09 FLOPs, 1e+08 bytes: 2.976457ms, ping-pong gain 1.64
}
