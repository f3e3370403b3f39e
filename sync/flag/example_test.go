package flag_test

import (
	"context"
	"fmt"

	"github.com/pipert/pipert/sync/flag"
)

func ExampleFlag() {
	var ready flag.Flag
	var shape []int
	go func() {
		shape = []int{2, 3} // written before Set ...
		ready.Set()
	}()
	if err := ready.Wait(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(shape) // ... so visible after Wait
	// Output: [2 3]
}

func ExampleCounter() {
	var launched flag.Counter // kernels launched so far
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
