package device_test

import (
	"context"
	"fmt"

	"github.com/pipert/pipert/device"
)

// A simulated device used directly: a copy in, a kernel whose time is
// modeled from its cost, a copy out. Stats.Sub gives the figures of the
// period between two snapshots; nothing resets the device.
func ExampleSim() {
	dev, err := device.NewSim(device.SimOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	before := dev.Stats()
	buf, err := dev.Alloc(16, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	st := dev.NewStream()
	defer device.ReleaseStreams(dev, st)
	if err := st.CopyH2D(buf, []byte("sixteen bytes in")); err != nil {
		fmt.Println(err)
		return
	}
	if err := st.Launch(device.Kernel{Name: "Scale", Cost: device.Cost{FLOPs: 4, Bytes: 32}}); err != nil {
		fmt.Println(err)
		return
	}
	out := make([]byte, 16)
	if err := st.CopyD2H(context.Background(), out, buf); err != nil {
		fmt.Println(err)
		return
	}
	if err := dev.Free(buf); err != nil {
		fmt.Println(err)
		return
	}
	d := dev.Stats().Sub(before)
	fmt.Printf("%q\n", out)
	fmt.Println("kernels", d.Kernels, "copies", d.Copies, "allocs", d.Allocs, "frees", d.Frees, "in use", dev.Stats().MemInUse, "busy", d.BusyNs > 0)
	// Output:
	// "sixteen bytes in"
	// kernels 1 copies 2 allocs 1 frees 1 in use 0 busy true
}
