package host_test

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
)

// sum is a kernel's computation: it adds up a buffer of bytes.
type sum struct {
	in    device.Buffer
	total int
}

func (s *sum) Run() error {
	for _, b := range s.in.Data {
		s.total += int(b)
	}
	return nil
}

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
	k := &sum{in: buf}
	// The kernel runs now, on this goroutine; its real time is its interval.
	if err := s.Launch("Sum", device.Cost{}, k); err != nil {
		fmt.Println(err)
		return
	}
	st := cpu.Stats()
	fmt.Println(k.total, st.Kernels, st.Copies, s.Query())
	// Output: 10 1 1 true
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
