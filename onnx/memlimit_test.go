package onnx_test

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
)

// TestDataSizedOutputUnderMemoryLimit: a Resize whose sizes come from its
// inputs and ask for 2 GiB fails its run, in every mode, under a Go
// memory limit of 256 MiB, and the same executable then runs a small size.
func TestDataSizedOutputUnderMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	m, err := onnx.ReadFile(filepath.Join("testdata", "opset", "ex3_pd_resize13_nearest_sizes_rt.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	hw := func(h, w int32) *kernel.Tensor {
		x := kernel.New(kernel.Int32, 2)
		binary.LittleEndian.PutUint32(x.Host, uint32(h))
		binary.LittleEndian.PutUint32(x.Host[4:], uint32(w))
		return x
	}
	x := kernel.New(kernel.Float32, 1, 1, 4, 6)
	for _, mode := range []pipert.Mode{pipert.KBK, pipert.Async, pipert.Pipeline} {
		g, err := onnx.Import(m, onnx.Options{})
		if err != nil {
			t.Fatal(err)
		}
		exe, err := pipert.Compile(g, pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}), pipert.WithMode(mode))
		if err != nil {
			t.Fatal(err)
		}
		_, err = exe.Run(context.Background(), map[string]*kernel.Tensor{"x": x, "hw": hw(1<<19, 1<<10)})
		if !errors.Is(err, pipert.ErrOutOfMemory) {
			t.Errorf("%v: a 2 GiB output under a 256 MiB limit: %v, want ErrOutOfMemory", mode, err)
		}
		out, err := exe.Run(context.Background(), map[string]*kernel.Tensor{"x": x, "hw": hw(8, 12)})
		if err != nil {
			t.Errorf("%v: small run after the refused one: %v", mode, err)
		} else if got := out.Outputs["y"].Shape; !got.Equal(kernel.Shape{1, 1, 8, 12}) {
			t.Errorf("%v: y shape %v, want [1 1 8 12]", mode, got)
		}
		exe.Close()
	}
}
