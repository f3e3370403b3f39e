package pipert_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	devfault "github.com/pipert/pipert/device/fault"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// TestConstantsOwnedByTheExecutable: changing a graph's constants after
// Compile (their contents and shapes) changes nothing the executable does:
// not a value dependency read at every run (Reshape's shape), not the
// constants a later lane of submissions uploads, not the re-upload after a
// device reset. Every mode and heterogeneous placement.
func TestConstantsOwnedByTheExecutable(t *testing.T) {
	ctx := context.Background()
	variants := []struct {
		name string
		opts []pipert.Option
	}{
		{"kbk", []pipert.Option{pipert.WithMode(pipert.KBK)}},
		{"async", []pipert.Option{pipert.WithMode(pipert.Async)}},
		{"pipeline", []pipert.Option{pipert.WithMode(pipert.Pipeline)}},
		{"replay", []pipert.Option{pipert.WithMode(pipert.Replay)}},
		{"hetero", []pipert.Option{pipert.WithHeterogeneous(nil)}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			sim, err := device.NewSim(device.SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			dev := devfault.New(sim, 1)
			b := subgraph.NewBuilder("g")
			x := b.Input("x", kernel.Float32, 2)
			c := kernel.FromFloat32([]float32{5, 6}, 2)
			sh := kernel.FromInt64([]int64{2, 1}, 2)
			add := b.Op("Add", x, b.Const("c", c))
			rs := b.Op("Reshape", x, b.Const("sh", sh))
			b.Output(add, rs)
			g := b.Graph()
			if v.name == "hetero" {
				g.Nodes[1].Placement = subgraph.OnCPU
			}
			exe, err := pipert.Compile(g, append(v.opts, pipert.WithDevice(dev))...)
			if err != nil {
				t.Fatal(err)
			}
			defer exe.Close()
			in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 1}, 2)}
			check := func(when string, r *pipert.Result, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				if got := kernel.Float32s(r.Outputs[add].Host); !slices.Equal(got, []float32{6, 7}) {
					t.Errorf("%s: Add gave %v, want [6 7]", when, got)
				}
				if got := r.Outputs[rs].Shape; !slices.Equal(got, kernel.Shape{2, 1}) {
					t.Errorf("%s: Reshape gave shape %v, want [2 1]", when, got)
				}
			}
			r, err := exe.Run(ctx, in)
			check("before the change", r, err)

			kernel.Float32s(c.Host)[0] = 1000
			kernel.Int64s(sh.Host)[0], kernel.Int64s(sh.Host)[1] = 1, 2
			r, err = exe.Run(ctx, in)
			check("after the change", r, err)
			p1, err := exe.Submit(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			p2, err := exe.Submit(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			r, err = p1.Wait()
			check("submitted step 1", r, err)
			r, err = p2.Wait()
			check("submitted step 2", r, err)
			dev.Reset()
			r, err = exe.Run(ctx, in)
			check("after a reset", r, err)
			c.Shape, c.Host = kernel.Shape{1}, c.Host[:4]
			dev.Reset()
			r, err = exe.Run(ctx, in)
			check("after a reshape of the constant and a reset", r, err)
		})
	}
}

// TestOptionsShareable: one Option value given to concurrent Compiles is
// safe (the race detector watches), and WithCarried after WithConfig does
// not write into the spare capacity of the caller's Config.Carried.
func TestOptionsShareable(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 2)
	y := b.Op("Neg", x)
	z := b.Op("Abs", x)
	b.Output(y, z)
	g := b.Graph()
	hetero := pipert.WithHeterogeneous(nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exe, err := pipert.Compile(g, hetero)
			if err != nil {
				t.Error(err)
				return
			}
			exe.Close()
		}()
	}
	wg.Wait()

	carried := make([]string, 1, 4)
	carried[0] = y
	exe, err := pipert.Compile(g, pipert.WithConfig(pipert.Config{Carried: carried}), pipert.WithCarried(z))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	if spare := carried[:2][1]; spare != "" {
		t.Errorf("WithCarried wrote %q into the caller's Config.Carried", spare)
	}
	if got := exe.Config().Carried; !slices.Equal(got, []string{y, z}) {
		t.Errorf("Carried = %v, want [%s %s]", got, y, z)
	}
}

// scribbler is a placement policy that clears the contents of every
// tensor of its view (plan.Placer: "c is the placer's own copy"), then
// places by the nodes' labels.
type scribbler struct{}

func (scribbler) Place(c *subgraph.Checked, t plan.Target) ([]subgraph.Placement, error) {
	for _, m := range c.Meta {
		clear(m.Host)
	}
	for _, k := range c.Graph.Consts {
		clear(k.Tensor.Host)
	}
	return heterog.Labels().Place(c, t)
}

// TestPlacerViewOwnsItsTensors: a placement policy that writes into its
// view's tensors (the statically known values, the constants) changes
// nothing the executable runs.
func TestPlacerViewOwnsItsTensors(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 2, 2)
	m := b.Op("MatMul", x, b.Const("w", kernel.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)))
	b.Last().Placement = subgraph.OnCPU
	y := b.Op("Reshape", m, b.Const("sh", kernel.FromInt64([]int64{4, 1}, 2)))
	b.Output(y)
	e, err := pipert.Compile(b.Graph(), pipert.WithHeterogeneous(scribbler{}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 0, 0, 1}, 2, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if o := r.Outputs[y]; !slices.Equal(o.Shape, kernel.Shape{4, 1}) || !slices.Equal(kernel.Float32s(o.Host), []float32{1, 2, 3, 4}) {
		t.Errorf("got %v %v, want [4 1] [1 2 3 4]", o.Shape, kernel.Float32s(o.Host))
	}
}
