package pipert_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/devtrace"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
	"github.com/pipert/pipert/trace"
)

// TestHeterogeneousTraceValidates: a heterogeneous executable traced with
// WithTrace, on a device observed on the same recorder, writes a trace
// whose every flow ends: its CPU kernels' flows end on the slices of the
// host CPU device the executable owns.
func TestHeterogeneousTraceValidates(t *testing.T) {
	for _, cpuOp := range []string{"ReLU", "Shape"} {
		path := filepath.Join(t.TempDir(), "h.pftrace")
		rec, err := trace.Create(path, trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dev, err := device.NewSim(device.SimOptions{Observer: devtrace.New(rec, "")})
		if err != nil {
			t.Fatal(err)
		}
		b := subgraph.NewBuilder("g")
		h := b.Op("Neg", b.Input("x", kernel.Float32, 4))
		c := b.Op(cpuOp, h)
		b.Last().Placement = subgraph.OnCPU
		b.Output(c, b.Op("Neg", h))
		e, err := pipert.Compile(b.Graph(), pipert.WithHeterogeneous(nil), pipert.WithDevice(dev), pipert.WithTrace(rec, "g"))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := e.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 4)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		p, err := trace.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := trace.Validate(p); err != nil {
			t.Errorf("CPU op %s: %v", cpuOp, err)
		}
	}
}
