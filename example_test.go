package pipert_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/subgraph"
)

// A graph with a value dependency (Reshape by a shape computed on the device)
// run in the three-stage pipeline: the result is the same as kernel by kernel.
func Example() {
	b := subgraph.NewBuilder("demo")
	x := b.Input("x", kernel.Float32, 2, 3)
	y := b.Op("ReLU", b.Op("Add", x, b.Const("one", kernel.FromFloat32([]float32{1}, 1))))
	shape := b.OpAttrs("Gather", kernel.Attrs{"axis": int64(0)}, b.Op("Shape", y), b.Const("perm", kernel.FromInt64([]int64{1, 0}, 2)))
	b.Output(b.Op("Reshape", y, shape))

	exe, err := pipert.Compile(b.Graph(), pipert.WithMode(pipert.Pipeline))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{
		"x": kernel.FromFloat32([]float32{-3, -2, -1, 0, 1, 2}, 2, 3),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Outputs["reshape_0:0"]
	fmt.Println(out.Shape, kernel.Float32s(out.Host))
	fmt.Println(res.Stats.Mode, res.Stats.Kernels, "kernels")
	// Output:
	// [3,2] [0 0 0 1 2 3]
	// pipeline 5 kernels
}

// ExampleLoadONNX imports an ONNX model (y = Relu(x), opset 13) and runs
// it in the pipeline mode.
func ExampleLoadONNX() {
	g, err := pipert.LoadONNX("testdata/relu.onnx")
	if err != nil {
		fmt.Println(err)
		return
	}
	exe, err := pipert.Compile(g, pipert.WithMode(pipert.Pipeline))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3}, 3)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(kernel.Float32s(res.Outputs["y"].Host))
	// Output: [0 2 0]
}

// ExampleCompileContext bounds Compile (which uploads the constants to
// the device) by a deadline, as a caller whose device may stop answering
// does.
func ExampleCompileContext() {
	b := subgraph.NewBuilder("bounded")
	x := b.Input("x", kernel.Float32, 2)
	b.Output(b.Op("Add", x, b.Const("one", kernel.FromFloat32([]float32{1, 1}, 2))))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	exe, err := pipert.CompileContext(ctx, b.Graph())
	if err != nil {
		fmt.Println(err) // wraps context.DeadlineExceeded if the device did not answer in time
		return
	}
	defer exe.Close()
	res, err := exe.Run(ctx, map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2}, 2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(kernel.Float32s(res.Outputs[b.Graph().Outputs[0]].Host))
	// Output: [2 3]
}

// ExampleWithOutputs imports a scikit-learn classifier as skl2onnx writes
// it, whose probabilities leave through ZipMap as a sequence of maps:
// selecting the label and the tensor before ZipMap imports it.
func ExampleWithOutputs() {
	path := "onnx/testdata/opset/e_skl2onnx_zipmap.onnx"
	if _, err := pipert.LoadONNX(path); errors.Is(err, onnx.ErrUnsupported) {
		fmt.Println("as written: unsupported (ZipMap)")
	}
	g, err := pipert.LoadONNX(path, pipert.WithOutputs("output_label", "probabilities"))
	if err != nil {
		fmt.Println(err)
		return
	}
	exe, err := pipert.Compile(g)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	x := kernel.FromFloat32([]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0}, 5, 3)
	res, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"float_input": x})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(kernel.Int64s(res.Outputs["output_label"].Host), res.Outputs["probabilities"].Shape)
	// Output:
	// as written: unsupported (ZipMap)
	// [1 2 2 2 0] [5,3]
}

// ExampleWithCaches runs one graph twice with every host cache on: the
// second run reuses every InferShape, Setup and tiling of the first, and
// launches into the planned arena without calling the allocator.
func ExampleWithCaches() {
	b := subgraph.NewBuilder("cached")
	x := b.Input("x", kernel.Float32, kernel.Dynamic, 4)
	b.Output(b.Op("GELU", b.Op("MatMul", x, b.Const("w", kernel.New(kernel.Float32, 4, 4)))))
	all := pipert.TilingLocal | pipert.TilingGlobal | pipert.InferReuse | pipert.SetupReuse | pipert.MemoryPlan
	exe, err := pipert.Compile(b.Graph(), pipert.WithMode(pipert.Pipeline), pipert.WithCaches(pipert.Caches{Kinds: all}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	in := map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 2, 4)}
	for run := 1; run <= 2; run++ {
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			fmt.Println(err)
			return
		}
		c := res.Stats.Cache
		fmt.Printf("run %d: infer %d hits %d misses, tiling %d local hits, planned %v\n",
			run, c.InferHits, c.InferMisses, c.LocalHits, res.Stats.Plan.ArenaBytes > 0 && res.Stats.Plan.Fallbacks == 0)
	}
	// Output:
	// run 1: infer 0 hits 2 misses, tiling 0 local hits, planned false
	// run 2: infer 2 hits 0 misses, tiling 2 local hits, planned true
}

// Consecutive steps submitted so that each step's host stages overlap the
// device tail of the one before; the state output of each step is carried
// into the next step's state input, tensor by tensor.
func ExampleExecutable_Submit() {
	b := subgraph.NewBuilder("stream")
	state := b.Input("state", kernel.Float32, 2)
	x := b.Input("x", kernel.Float32, 2)
	b.Output(b.Op("Add", state, x)) // the new state: a running sum
	g := b.Graph()
	out := g.Outputs[0]

	exe, err := pipert.Compile(g, pipert.WithMode(pipert.Pipeline), pipert.WithCarried(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	ctx := context.Background()
	prev, err := exe.Submit(ctx, map[string]*kernel.Tensor{
		"state": kernel.FromFloat32([]float32{0, 0}, 2),
		"x":     kernel.FromFloat32([]float32{1, 10}, 2),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for step := 1; step < 4; step++ {
		p, err := exe.Submit(ctx, map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 10}, 2)},
			pipert.Carry{From: prev, Output: out, Input: "state"})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := prev.Wait()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("step", step-1, kernel.Float32s(res.Outputs[out].Host))
		prev = p
	}
	res, err := prev.Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("step 3", kernel.Float32s(res.Outputs[out].Host))
	// Output:
	// step 0 [1 10]
	// step 1 [2 20]
	// step 2 [3 30]
	// step 3 [4 40]
}

// Replay mode: the first run sizes the memory plan, the second is
// captured, the third is replayed as one submission to the device.
func ExampleReplay() {
	b := subgraph.NewBuilder("static")
	x := b.Input("x", kernel.Float32, 4)
	b.Output(b.Op("ReLU", b.Op("Mul", x, b.Const("two", kernel.FromFloat32([]float32{2}, 1)))))
	exe, err := pipert.Compile(b.Graph(), pipert.WithMode(pipert.Replay))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 1, -2, 2}, 4)}
	for run := range 3 {
		res, err := exe.Run(context.Background(), in)
		if err != nil {
			fmt.Println(err)
			return
		}
		r := res.Stats.Replay
		fmt.Printf("run %d: replayed %d kernels, captured %d sequences; %v\n", run, r.Kernels, r.Captures, kernel.Float32s(res.Outputs[b.Graph().Outputs[0]].Host))
	}
	// Output:
	// run 0: replayed 0 kernels, captured 0 sequences; [0 2 0 4]
	// run 1: replayed 0 kernels, captured 1 sequences; [0 2 0 4]
	// run 2: replayed 2 kernels, captured 0 sequences; [0 2 0 4]
}
