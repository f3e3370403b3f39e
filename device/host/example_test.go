package host_test

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
)

func Example() {
	cpu, err := host.New(host.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	buf, err := cpu.Alloc(4, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := cpu.NewStream()
	if err := s.CopyH2D(buf, []byte{1, 2, 3, 4}); err != nil {
		fmt.Println(err)
		return
	}
	// A kernel with nothing computed for real (virtual data) burns the CPU
	// time the profile gives for its cost, here 300 ns + 2000 ops at
	// 2 GFLOP/s = 1.3 µs, on this goroutine. (The runtime launches kernels
	// it computed with the interval the computation took.)
	if err := s.Launch(device.Kernel{Name: "Sum", Cost: device.Cost{FLOPs: 2000}}); err != nil {
		fmt.Println(err)
		return
	}
	st := cpu.Stats()
	fmt.Println(st.Kernels, st.Copies, st.KernelNs >= 1300, s.Query())
	// Output: 1 1 true true
}

func ExampleMap() {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	shared := host.Map(sim) // the CPU addresses the accelerator's memory
	b, err := shared.Alloc(64, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := shared.NewStream().(host.Mapper)
	fmt.Println(m.HostMapped(b))
	shared.Free(b)
	fmt.Println(m.HostMapped(b))
	// Output:
	// true
	// false
}
