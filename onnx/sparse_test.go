package onnx_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestSparseTensors: a sparse initializer (flat indices) and a Constant's
// sparse_value (coordinates) are read dense, as onnxruntime loads them.
// testdata/sparse/sparse.onnx computes MatMul(c, x + w) with w [[0 5 0]
// [0 0 7]] and c [[0 3] [4 0]]; onnxruntime 1.30 gives the expected values
// for x = [[1 2 3] [4 5 6]].
func TestSparseTensors(t *testing.T) {
	m, err := onnx.ReadFile(filepath.Join("testdata", "sparse", "sparse.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	for _, mode := range []pipert.Mode{pipert.KBK, pipert.Pipeline} {
		res, err := runIn(g, map[string]*kernel.Tensor{"x": x}, mode)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := kernel.Float32s(res.Outputs["z"].Host), []float32{12, 15, 39, 4, 28, 12}; !slices.Equal(got, want) {
			t.Errorf("%v: z = %v, want onnxruntime's %v", mode, got, want)
		}
	}
}
