package ready_test

import (
	"context"
	"fmt"

	"github.com/pipert/pipert/sync/ready"
)

func ExampleFlag() {
	var done ready.Flag
	var shape []int
	go func() {
		shape = []int{2, 3} // written before Set ...
		done.Set()
	}()
	if err := done.Wait(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(shape) // ... so visible after Wait
	// Output: [2 3]
}

func ExampleCounter() {
	var launched ready.Counter // kernels launched so far
	outputs := make([]string, 3)
	go func() {
		for k := range outputs {
			outputs[k] = fmt.Sprintf("out%d", k)
			launched.Advance(1)
		}
	}()
	// A per-tensor barrier: wait for kernel 1 (the second) only.
	if err := launched.WaitAtLeast(context.Background(), 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(outputs[1])
	// Output: out1
}
