package pipert_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// valueScribbler is Reshape, not kernel.Trusted, whose InferShape, once armed,
// writes the value of its shape input (a value dependency) after
// inferring from it.
type valueScribbler struct {
	kernel.Kernel
	armed *atomic.Bool
}

func (k valueScribbler) InferShape(in, out []*kernel.Tensor) error {
	err := k.Kernel.InferShape(in, out)
	if k.armed.Load() && len(in[1].Host) > 0 {
		in[1].Host[0] ^= 0xff
	}
	return err
}

// TestValueWriteIsolated: a kernel not Trusted that writes a value
// dependency's value in InferShape writes a copy of its own, at compile
// time and in every mode, whether the value is a graph input, a constant
// or computed: the caller's tensor, the constant and the other readers
// of the value keep theirs; the run fails with kernel.ErrBadAnswer, and
// once the kernel behaves the executable gives the right results.
func TestValueWriteIsolated(t *testing.T) {
	armed := new(atomic.Bool)
	reg := ops.NewRegistry()
	if err := reg.Register("Scribble", func(a kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("Reshape", a)
		return valueScribbler{k, armed}, err
	}); err != nil {
		t.Fatal(err)
	}
	shape := func() *kernel.Tensor { return kernel.FromInt64([]int64{2, 4}, 2) }
	for _, src := range []string{"input", "constant", "computed"} {
		b := subgraph.NewBuilder("scribble")
		x := b.Input("x", kernel.Float32, 8)
		var s string
		switch src {
		case "input":
			s = b.Input("s", kernel.Int64, 2)
		case "constant":
			s = b.Const("s", shape())
		case "computed":
			s = b.Op("Add", b.Input("s", kernel.Int64, 2), b.Const("z", kernel.FromInt64([]int64{0, 0}, 2)))
		}
		b.Output(b.Op("Scribble", x, s), b.Op("Add", s, s))
		g := b.Graph()
		for _, m := range everyMode() {
			t.Run(src+"/"+m.name, func(t *testing.T) {
				armed.Store(true) // at compile time too: the static inference
				exe, err := pipert.Compile(g, append(slices.Clone(m.opts), pipert.WithRegistry(reg))...)
				if err != nil {
					t.Fatal(err)
				}
				defer exe.Close()
				run := func() (*pipert.Result, error) {
					in := map[string]*kernel.Tensor{"x": kernel.FromFloat32(make([]float32, 8), 8)}
					s := shape()
					if src != "constant" {
						in["s"] = s
					}
					res, err := exe.Run(context.Background(), in)
					if v, _ := s.IntValues(); v[0] != 2 {
						t.Fatalf("Run changed the caller's s to %v", v)
					}
					return res, err
				}
				if _, err := run(); !errors.Is(err, kernel.ErrBadAnswer) {
					t.Fatalf("armed run: %v, want kernel.ErrBadAnswer", err)
				}
				armed.Store(false)
				res, err := run()
				if err != nil {
					t.Fatal(err)
				}
				if got := kernel.Int64s(res.Outputs[g.Outputs[1]].Host); !slices.Equal(got, []int64{4, 8}) {
					t.Fatalf("Add(s, s) = %v, want [4 8]", got)
				}
				if got := res.Outputs[g.Outputs[0]].Shape; !got.Equal(kernel.Shape{2, 4}) {
					t.Fatalf("Scribble's output has shape %v, want [2 4]", got)
				}
			})
		}
	}
}
