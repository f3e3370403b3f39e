package kernel_test

import (
	"context"
	"fmt"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// scale is a kernel of one's own: y = alpha · x over float32 tensors.
type scale struct{ alpha float32 }

func (*scale) Op() string                     { return "Scale" }
func (*scale) Arity() (minIn, maxIn, out int) { return 1, 1, 1 }
func (*scale) Deps() kernel.Deps              { return kernel.Deps{} }

func (*scale) InferShape(in, out []*kernel.Tensor) error {
	if in[0].DType != kernel.Float32 {
		return fmt.Errorf("Scale takes float32, not %v", in[0].DType)
	}
	out[0].DType, out[0].Shape = kernel.Float32, in[0].Shape.Clone()
	return nil
}

// Resize needs no tiling data and no workspace.
func (*scale) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	t.Data, t.Workspace = t.Data[:0], 0
	return nil
}

// Cost models one multiplication an element, reading and writing it once.
func (*scale) Cost(in, out []*kernel.Tensor) device.Cost {
	n := float64(out[0].NumElements())
	return device.Cost{FLOPs: n, Bytes: 8 * n}
}

func (k *scale) Compute(a *kernel.Args) error {
	x, y := kernel.Float32s(a.In[0].Data()), kernel.Float32s(a.Out[0].Data())
	for i, v := range x {
		y[i] = k.alpha * v
	}
	return nil
}

// A kernel of one's own, registered under an op name, runs in every mode:
// here in the pipeline, twice in a row.
func Example() {
	reg := ops.NewRegistry()
	err := reg.Register("Scale", func(attrs kernel.Attrs) (kernel.Kernel, error) {
		alpha, ok := attrs["alpha"].(float64)
		if !ok {
			return nil, fmt.Errorf("Scale needs a float attribute alpha, got %v", attrs["alpha"])
		}
		return &scale{alpha: float32(alpha)}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := subgraph.NewBuilder("scaled")
	x := b.Input("x", kernel.Float32, 2, 2)
	y := b.OpAttrs("Scale", kernel.Attrs{"alpha": 2.0}, x)
	z := b.OpAttrs("Scale", kernel.Attrs{"alpha": -0.5}, y)
	b.Output(z)

	exe, err := pipert.Compile(b.Graph(), pipert.WithRegistry(reg), pipert.WithMode(pipert.Pipeline))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Outputs[z]
	fmt.Println(out.Shape, kernel.Float32s(out.Host), res.Stats.Kernels, "kernels")
	// Output:
	// [2,2] [-1 -2 -3 -4] 2 kernels
}
