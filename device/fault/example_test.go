package fault_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/fault"
)

// A kernel faults asynchronously on its second launch: the launch itself
// succeeds, the next synchronisation reports the fault, every call fails
// until Reset, after which the device works again.
func Example() {
	sim, err := device.NewSim(device.SimOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := fault.New(sim, 1, fault.Rule{Kind: fault.Launch, Op: "MatMul", Nth: 2, Effect: fault.Async})
	s := d.NewStream()
	ctx := context.Background()
	fmt.Println("launch 1:", s.Launch(device.Kernel{Name: "MatMul"}))
	fmt.Println("launch 2:", s.Launch(device.Kernel{Name: "MatMul"}))
	err = s.Synchronize(ctx)
	fmt.Println("sync is a kernel fault:", errors.Is(err, device.ErrKernelFault))
	_, err = d.Alloc(64, false)
	fmt.Println("then alloc fails too:", errors.Is(err, device.ErrKernelFault))
	fmt.Println("reset:", d.Reset(), "epoch", d.Epoch())
	fmt.Println("launch 3:", s.Launch(device.Kernel{Name: "MatMul"}))
	// Output:
	// launch 1: <nil>
	// launch 2: <nil>
	// sync is a kernel fault: true
	// then alloc fails too: true
	// reset: <nil> epoch 1
	// launch 3: <nil>
}
