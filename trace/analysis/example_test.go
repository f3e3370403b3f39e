package analysis_test

import (
	"fmt"
	"log"

	"github.com/pipert/pipert/trace/analysis"
)

// Small kernels: 10 µs of host work each against 3 µs on the device. The
// pipeline hides the host behind the device only as far as two cores allow:
// its four workers take turns on them, and it ends close to the 505 µs the
// cores need.
func ExamplePredict() {
	ks := make([]analysis.Kernel, 100)
	for i := range ks {
		ks[i] = analysis.Kernel{Prepare: 1000, Infer: 3000, Resize: 2000, Launch: 4000, Device: 3000}
	}
	mc := analysis.Machine{LaunchLatency: 2000, Cores: 2, QueueCapacity: 8}
	for _, m := range []analysis.Mode{analysis.KBK, analysis.Async, analysis.Pipeline} {
		p, err := analysis.Predict(ks, m, mc)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-8s makespan %4d µs (flow shop %4d, core bound %3d)\n", m.Name, p.Makespan/1000, p.FlowShop/1000, p.CoreBound/1000)
	}
	// Output:
	// kbk      makespan 1005 µs (flow shop 1005, core bound 505)
	// async    makespan  609 µs (flow shop  609, core bound 505)
	// pipeline makespan  508 µs (flow shop  411, core bound 505)
}

func ExampleBubbles() {
	device := []analysis.Interval{{Start: 10, End: 20}, {Start: 30, End: 40}}
	stages := []analysis.Busy{
		{Name: "infer", Intervals: []analysis.Interval{{Start: 0, End: 8}, {Start: 20, End: 24}}},
		{Name: "launch", Intervals: []analysis.Interval{{Start: 8, End: 10}, {Start: 24, End: 30}}},
	}
	for _, b := range analysis.Bubbles(device, stages) {
		fmt.Printf("device idle %d–%d ns: waiting on %s (%d ns busy)\n", b.Start, b.End, b.Bottleneck, b.BottleneckBusy)
	}
	// Output:
	// device idle 0–10 ns: waiting on infer (8 ns busy)
	// device idle 20–30 ns: waiting on launch (6 ns busy)
}
