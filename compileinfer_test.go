package pipert_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// shaky is a kernel whose InferShape panics on rank 1 and does not
// implement rank 2.
type shaky struct{}

func (shaky) Op() string             { return "Shaky" }
func (shaky) Arity() (int, int, int) { return 1, 1, 1 }
func (shaky) Deps() kernel.Deps      { return kernel.Deps{} }
func (shaky) InferShape(in, out []*kernel.Tensor) error {
	switch in[0].Shape.Rank() {
	case 1:
		var s []int
		_ = s[in[0].Shape[0]] // a bug of the kernel
	case 2:
		return fmt.Errorf("Shaky: rank 2: %w", kernel.ErrNotImplemented)
	}
	out[0].Shape, out[0].DType = in[0].Shape.Clone(), in[0].DType
	return nil
}
func (shaky) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	t.Data = t.Data[:0]
	return nil
}
func (shaky) Cost(in, out []*kernel.Tensor) device.Cost { return device.Cost{} }
func (shaky) Compute(a *kernel.Args) error              { return nil }

// TestCompileInferShapeErrorsKeepTheirCause: an InferShape that panics or
// fails at Compile (static shapes) gives an error matching what it
// matches at Run: ErrPanic, or the kernel's own sentinel, as well as
// subgraph.ErrInferShape.
func TestCompileInferShapeErrorsKeepTheirCause(t *testing.T) {
	reg := ops.NewRegistry()
	if err := reg.Register("Shaky", func(kernel.Attrs) (kernel.Kernel, error) { return shaky{}, nil }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shape []int64
		want  error
	}{{[]int64{4}, pipert.ErrPanic}, {[]int64{2, 2}, kernel.ErrNotImplemented}} {
		b := subgraph.NewBuilder("shaky")
		b.Output(b.Op("Shaky", b.Input("x", kernel.Float32, c.shape...)))
		_, err := pipert.Compile(b.Graph(), pipert.WithRegistry(reg))
		if !errors.Is(err, c.want) || !errors.Is(err, subgraph.ErrInferShape) {
			t.Errorf("shape %v: %v, want an error matching %v and subgraph.ErrInferShape", c.shape, err, c.want)
		}
	}
}
