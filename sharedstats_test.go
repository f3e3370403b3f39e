package pipert_test

import (
	"context"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// sideKernel is ReLU whose Compute first runs another executable, which
// works on the same device while the heterogeneous run is under way.
type sideKernel struct {
	kernel.Kernel
	side *pipert.Executable
}

func (k *sideKernel) Compute(a *kernel.Args) error {
	if k.side != nil {
		if _, err := k.side.Run(a.Ctx, map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 256, 256)}); err != nil {
			return err
		}
	}
	return k.Kernel.Compute(a)
}

// TestSharedDeviceStatsAreTheRunsOwn: the work of another executable on
// the same device, done while a run is under way, is in neither that run's
// DeviceWork nor its Bound, heterogeneous or not; only DeviceBusy, the
// device's own figure, counts it.
func TestSharedDeviceStatsAreTheRunsOwn(t *testing.T) {
	dev, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("side")
	x := b.Input("x", kernel.Float32, 256, 256)
	y := x
	for range 4 {
		y = b.Op("MatMul", y, y)
	}
	b.Output(y)
	side, err := pipert.Compile(b.Graph(), pipert.WithDevice(dev))
	if err != nil {
		t.Fatal(err)
	}
	defer side.Close()

	for _, het := range []bool{false, true} {
		var k *sideKernel
		r := ops.NewRegistry()
		if err := r.Register("Side", func(kernel.Attrs) (kernel.Kernel, error) {
			relu, err := ops.Builtins().New("ReLU", nil)
			k = &sideKernel{Kernel: relu}
			return k, err
		}); err != nil {
			t.Fatal(err)
		}
		g := subgraph.NewBuilder("main")
		h := g.Input("x", kernel.Float32, 4)
		g.Node(&subgraph.Node{Name: "side", Op: "Side", Inputs: []string{h}, Placement: subgraph.OnCPU}, 1)
		h = g.Op("Neg", g.Last().Outputs[0])
		g.Output(g.Op("Abs", h))
		opts := []pipert.Option{pipert.WithDevice(dev), pipert.WithRegistry(r)}
		if het {
			opts = append(opts, pipert.WithHeterogeneous(nil))
		}
		exe, err := pipert.Compile(g.Graph(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}
		alone, err := exe.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		k.side = side
		beside, err := exe.Run(context.Background(), in)
		k.side = nil
		exe.Close()
		if err != nil {
			t.Fatal(err)
		}
		a, s := alone.Stats, beside.Stats
		if s.DeviceWork != a.DeviceWork || s.DeviceWork <= 0 {
			t.Errorf("heterogeneous %v: DeviceWork %v beside another executable's work, %v alone: want the same, positive", het, s.DeviceWork, a.DeviceWork)
		}
		if s.DeviceBusy <= a.DeviceBusy {
			t.Errorf("heterogeneous %v: DeviceBusy %v beside another executable's work, %v alone: want more", het, s.DeviceBusy, a.DeviceBusy)
		}
	}
}
