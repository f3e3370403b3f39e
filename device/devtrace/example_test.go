package devtrace_test

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// One recorder traces both sides of a run: the executable's host stages
// (pipert.WithTrace) and, through a devtrace observer, the device's
// modeled work, each kernel's device slice ending its flow.
func Example() {
	var out bytes.Buffer
	rec, err := trace.New(&out, trace.Options{Format: trace.JSON})
	if err != nil {
		fmt.Println(err)
		return
	}
	obs := devtrace.New(rec, "sim")
	dev, err := device.NewSim(device.SimOptions{Observer: obs})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := subgraph.NewBuilder("chain")
	x := b.Input("x", kernel.Float32, 4)
	b.Output(b.Op("ReLU", b.Op("Neg", x)))
	exe, err := pipert.Compile(b.Graph(), pipert.WithDevice(dev), pipert.WithMode(pipert.Pipeline), pipert.WithTrace(rec, "chain"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}); err != nil {
		fmt.Println(err)
		return
	}
	if err := exe.Close(); err != nil {
		fmt.Println(err)
		return
	}
	obs.Close()
	if err := rec.Close(); err != nil {
		fmt.Println(err)
		return
	}
	p, err := trace.Parse(out.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	var device []string
	for _, s := range p.Slices() {
		if p.Tracks[s.Track].Group == "device" {
			device = append(device, p.Tracks[s.Track].Name+": "+s.Name)
		}
	}
	sort.Strings(device)
	for _, d := range device {
		fmt.Println(d)
	}
	fmt.Println("valid:", trace.Validate(p) == nil)
	// Output:
	// sim stream 0: Neg
	// sim stream 0: ReLU
	// sim stream 0: d2h
	// sim stream 0: h2d
	// valid: true
}
