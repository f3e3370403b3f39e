package fabric_test

import (
	"fmt"
	"time"

	"github.com/pipert/pipert/device/fabric"
)

// A modeled exchange on two ranks joined by xGMI: rank 0 computes, sends
// 64 MiB to rank 1 and sets a flag there once the bytes arrived; rank 1
// waits for the flag, then computes on them. The model is a deterministic
// discrete-event run: the same figures every time (64 MiB at 64 GB/s a
// direction take 1.05 ms).
func ExampleModel() {
	m, err := fabric.NewModel(fabric.Config{Ranks: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	ready := m.Flag("ready", 1, 0)
	send := fabric.Kernel{Name: "send", Lanes: [][]fabric.Item{{{Work: 10 * time.Microsecond, Dst: 1, Bytes: 64 << 20, Set: ready}}}}
	recv := fabric.Kernel{Name: "recv", Lanes: [][]fabric.Item{{{Wait: ready, Work: 10 * time.Microsecond}}}}
	if err := m.Add(0, send); err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Add(1, recv); err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("makespan", res.Makespan, "flag wait", res.FlagWait(), "busiest link", fmt.Sprintf("%.2f", res.LinkUtilization))
	// Output:
	// makespan 1.069576ms flag wait 1.059576ms busiest link 0.98
}
