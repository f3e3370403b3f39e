package actor_test

import (
	"context"
	"fmt"
	"log"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// A SuperKernelActor runs a validated graph on one device stream in the
// mode its Config names. Here a Pipeline actor (InferShape, Resize and
// Launch on a goroutine each) runs y = relu(x + x) on real data: the
// outputs are what KBK gives, bit for bit.
func ExampleSuperKernelActor() {
	b := subgraph.NewBuilder("double-relu")
	x := b.Input("x", kernel.Float32, 4)
	b.Output(b.Op("ReLU", b.Op("Add", x, x)))
	g, err := b.Build(ops.Builtins())
	if err != nil {
		log.Fatal(err)
	}
	checked, err := subgraph.Validate(g, ops.Builtins())
	if err != nil {
		log.Fatal(err)
	}
	a, err := actor.New(checked, plan.Config{Mode: plan.Pipeline}, actor.Options{Name: "example"})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	in := kernel.FromFloat32([]float32{-2, -0.5, 0.5, 2}, 4)
	outs, stats, err := a.Run(context.Background(), []*kernel.Tensor{in})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(kernel.Float32s(outs[0].Host), stats.Mode, stats.Kernels, "kernels")
	// Output: [0 0 1 4] pipeline 2 kernels
}
