package pipert_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// fillGraph is Neg(ConstantOfShape(s)): a tensor as large as the input's
// values say.
func fillGraph(cpu bool) *subgraph.Graph {
	b := subgraph.NewBuilder("fill")
	y := b.Op("ConstantOfShape", b.Input("s", kernel.Int64, 2))
	if cpu {
		b.Last().Placement = subgraph.OnCPU
	}
	b.Output(b.Op("Neg", y))
	return b.Graph()
}

// TestHostMemoryIsAnError: a run whose tensor is larger than the host's
// memory (4 TiB, on a simulated device of 8 TiB) fails with an error
// matching device.ErrHostMemory and device.ErrOutOfMemory, in every mode,
// on device and CPU parts and in the host evaluator, where Go's failed
// allocation would end the process. The executable then runs a small
// shape correctly.
func TestHostMemoryIsAnError(t *testing.T) {
	huge := map[string]*kernel.Tensor{"s": kernel.FromInt64([]int64{1 << 20, 1 << 20}, 2)}
	small := map[string]*kernel.Tensor{"s": kernel.FromInt64([]int64{2, 3}, 2)}
	type variant struct {
		name string
		cpu  bool
		opts []pipert.Option
	}
	variants := []variant{
		{"kbk", false, []pipert.Option{pipert.WithMode(pipert.KBK)}},
		{"async", false, []pipert.Option{pipert.WithMode(pipert.Async)}},
		{"pipeline", false, []pipert.Option{pipert.WithMode(pipert.Pipeline)}},
		{"replay", false, []pipert.Option{pipert.WithMode(pipert.Replay)}},
		{"hetero", false, []pipert.Option{pipert.WithHeterogeneous(nil)}},
		{"hetero-cpu", true, []pipert.Option{pipert.WithHeterogeneous(nil)}},
	}
	for _, v := range variants {
		p := device.Default()
		p.MemoryBytes = device.MaxMemoryBytes
		dev, err := device.NewSim(device.SimOptions{Profile: p})
		if err != nil {
			t.Fatal(err)
		}
		exe, err := pipert.Compile(fillGraph(v.cpu), append(v.opts, pipert.WithDevice(dev))...)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		_, err = exe.Run(context.Background(), huge)
		if !errors.Is(err, device.ErrHostMemory) || !errors.Is(err, device.ErrOutOfMemory) {
			t.Errorf("%s: run of a 4 TiB tensor: %v, want device.ErrHostMemory and device.ErrOutOfMemory", v.name, err)
		}
		res, err := exe.Run(context.Background(), small)
		if err != nil {
			t.Errorf("%s: run after the refused one: %v", v.name, err)
		} else if y := res.Outputs["neg_0:0"]; !slices.Equal(y.Shape, kernel.Shape{2, 3}) || !slices.Equal(kernel.Float32s(y.Host), []float32{0, 0, 0, 0, 0, 0}) {
			t.Errorf("%s: run after the refused one gave %v", v.name, y)
		}
		if err := exe.Close(); err != nil {
			t.Errorf("%s: Close: %v", v.name, err)
		}
		if s := dev.Stats(); s.MemInUse != 0 {
			t.Errorf("%s: %d device bytes in use after Close", v.name, s.MemInUse)
		}
	}
	_, _, err := control.Eval(fillGraph(false), []*kernel.Tensor{huge["s"]}, ops.Builtins())
	var ke *kernel.Error
	if !errors.Is(err, device.ErrHostMemory) || !errors.As(err, &ke) || ke.Node != "constantofshape_0" {
		t.Errorf("control.Eval of a 4 TiB tensor: %v, want device.ErrHostMemory naming the node", err)
	}
}

// TestSizesTheValuesCannotHaveAreOperandErrors: values that ask a
// built-in op for a tensor of more bytes than an int64 counts
// (ConstantOfShape of 2^40 × 2^40, Expand to it) fail the run with an
// error matching subgraph.ErrInferShape (the operands' fault), not
// kernel.ErrBadAnswer (a kernel's), naming the node, in every mode and in
// the host evaluator; the executable then runs a small shape correctly.
func TestSizesTheValuesCannotHaveAreOperandErrors(t *testing.T) {
	huge := map[string]*kernel.Tensor{"s": kernel.FromInt64([]int64{1 << 40, 1 << 40}, 2)}
	small := map[string]*kernel.Tensor{"s": kernel.FromInt64([]int64{2, 3}, 2)}
	expand := func(cpu bool) *subgraph.Graph {
		b := subgraph.NewBuilder("expand")
		y := b.Op("Expand", b.Const("one", kernel.FromFloat32([]float32{1}, 1)), b.Input("s", kernel.Int64, 2))
		if cpu {
			b.Last().Placement = subgraph.OnCPU
		}
		b.Output(b.Op("Neg", y))
		return b.Graph()
	}
	graphs := map[string]func(bool) *subgraph.Graph{"ConstantOfShape": fillGraph, "Expand": expand}
	check := func(what string, err error, node string) {
		var ke *kernel.Error
		if !errors.Is(err, subgraph.ErrInferShape) || errors.Is(err, kernel.ErrBadAnswer) || !errors.As(err, &ke) || ke.Node != node {
			t.Errorf("%s: %v, want an ErrInferShape (not ErrBadAnswer) naming node %s", what, err, node)
		}
	}
	for op, graph := range graphs {
		node := map[string]string{"ConstantOfShape": "constantofshape_0", "Expand": "expand_0"}[op]
		for _, m := range append(everyMode(), modeCase{"hetero-cpu", []pipert.Option{pipert.WithHeterogeneous(nil)}}) {
			exe, err := pipert.Compile(graph(m.name == "hetero-cpu"), m.opts...)
			if err != nil {
				t.Fatalf("%s %s: %v", op, m.name, err)
			}
			_, err = exe.Run(context.Background(), huge)
			check(op+" "+m.name, err, node)
			if res, err := exe.Run(context.Background(), small); err != nil {
				t.Errorf("%s %s: run after the refused one: %v", op, m.name, err)
			} else if y := res.Outputs["neg_0:0"]; !slices.Equal(y.Shape, kernel.Shape{2, 3}) {
				t.Errorf("%s %s: run after the refused one gave %v", op, m.name, y)
			}
			if err := exe.Close(); err != nil {
				t.Errorf("%s %s: Close: %v", op, m.name, err)
			}
		}
		_, _, err := control.Eval(graph(false), []*kernel.Tensor{huge["s"]}, ops.Builtins())
		check(op+" control.Eval", err, node)
	}
}
