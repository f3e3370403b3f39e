package pipert_test

import (
	"context"
	"errors"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// fatTiling is ReLU whose tiling data is ReLU's and then more than a
// block of the tiling ring.
type fatTiling struct{ kernel.Kernel }

func (k fatTiling) Resize(in, out []*kernel.Tensor, t *kernel.Tiling) error {
	if err := k.Kernel.Resize(in, out, t); err != nil {
		return err
	}
	t.Data = append(t.Data, make([]byte, 3<<20+1)...)
	return nil
}

// TestTilingSpaceIsAnError: tiling data that does not fit the device's
// tiling ring (a kernel's beyond a block with MultiStream, beyond a
// one-block ring with Whole) fails the run with ErrTilingSpace; with the
// default WithKernel it runs.
func TestTilingSpaceIsAnError(t *testing.T) {
	r := ops.NewRegistry()
	if err := r.Register("Fat", func(a kernel.Attrs) (kernel.Kernel, error) {
		k, err := ops.Builtins().New("ReLU", a)
		return fatTiling{k}, err
	}); err != nil {
		t.Fatal(err)
	}
	b := subgraph.NewBuilder("fat")
	b.Output(b.Op("Fat", b.Input("x", kernel.Float32, 4)))
	g := b.Graph()
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-1, 2, -3, 4}, 4)}
	for _, tc := range []struct {
		name string
		opt  pipert.Option
		want error
	}{
		{"with-kernel", pipert.WithTilingCopy(pipert.WithKernel, 0), nil},
		{"multi-stream", pipert.WithTilingCopy(pipert.MultiStream, 2), pipert.ErrTilingSpace},
		{"whole", pipert.WithTilingCopy(pipert.Whole, 1), pipert.ErrTilingSpace},
	} {
		for _, m := range []pipert.Mode{pipert.KBK, pipert.Pipeline} {
			exe, err := pipert.Compile(g, pipert.WithRegistry(r), pipert.WithMode(m), tc.opt)
			if err != nil {
				t.Fatalf("%s %v: %v", tc.name, m, err)
			}
			_, err = exe.Run(context.Background(), in)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%s %v: got %v, want %v", tc.name, m, err, tc.want)
			}
			if err := exe.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
