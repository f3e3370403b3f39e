package ops_test

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
)

// ExampleBuiltins builds an Add from the built-in registry and takes it
// through the kernel life cycle on a simulated device: infer the output
// shape, compute the tiling, allocate the output, compute.
func ExampleBuiltins() {
	dev, err := device.NewSim(device.SimOptions{})
	if err != nil {
		panic(err)
	}
	k, err := ops.Builtins().New("Add", nil)
	if err != nil {
		panic(err)
	}
	x := kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	bias := kernel.FromFloat32([]float32{10, 20, 30}, 3)
	in, out := []*kernel.Tensor{x, bias}, []*kernel.Tensor{{}}

	if err := k.InferShape(in, out); err != nil {
		panic(err)
	}
	var tiling kernel.Tiling
	if err := k.Resize(in, out, &tiling); err != nil {
		panic(err)
	}
	if out[0].Buf, err = dev.Alloc(out[0].Bytes(), kernel.OutputsReal(k, in)); err != nil {
		panic(err)
	}
	args := &kernel.Args{In: in, Out: out, Tiling: tiling, Node: "add"}
	if err := k.Compute(args); err != nil {
		panic(err)
	}
	fmt.Println(out[0].Shape, kernel.Float32s(out[0].Data()))
	fmt.Printf("%+v\n", k.Cost(in, out))
	// Output:
	// [2,3] [11 22 33 14 25 36]
	// {FLOPs:6 Bytes:60}
}

// Example_shapeOnly shows that Shape computes a real output from a virtual
// input, which is how value dependencies start in benchmarks at model size.
func Example_shapeOnly() {
	dev, _ := device.NewSim(device.SimOptions{})
	k, _ := ops.Builtins().New("Shape", nil)
	in := []*kernel.Tensor{kernel.Virtual(kernel.Float16, 8, 2048, 4096)}
	out := []*kernel.Tensor{{}}
	_ = k.InferShape(in, out)
	var tiling kernel.Tiling
	_ = k.Resize(in, out, &tiling)
	out[0].Buf, _ = dev.Alloc(out[0].Bytes(), kernel.OutputsReal(k, in))
	_ = k.Compute(&kernel.Args{In: in, Out: out, Tiling: tiling})
	fmt.Println(kernel.OutputsReal(k, in), kernel.Int64s(out[0].Data()))
	// Output: true [8 2048 4096]
}
