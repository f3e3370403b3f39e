package onnx

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestImportRealModels imports both models with their inputs fixed as the
// scenarios fix them and reports what pipert still lacks; a reader or
// graph error other than an unsupported op fails.
func TestImportRealModels(t *testing.T) {
	sr := kernel.New(kernel.Int64)
	kernel.Int64s(sr.Host)[0] = 16000
	for _, tc := range []struct {
		file string
		opt  Options
	}{
		{"ppocrv4-det.onnx", Options{Shapes: map[string][]int64{"x": {1, 3, 96, 96}}}},
		{"silero-vad-v5.onnx", Options{Shapes: map[string][]int64{"input": {1, 512}, "state": {2, 1, 128}}, Values: map[string]*kernel.Tensor{"sr": sr}}},
	} {
		g, err := ImportFile(filepath.Join("..", "models", tc.file), tc.opt)
		if err != nil {
			if errors.Is(err, ErrUnsupported) {
				t.Logf("%s: not yet: %v", tc.file, err)
				continue
			}
			t.Fatalf("%s: %v", tc.file, err)
		}
		ifs := 0
		for _, n := range g.Nodes {
			if n.Op == "If" {
				ifs++
			}
		}
		t.Logf("%s: %d nodes, %d constants, %d runtime Ifs", tc.file, len(g.Nodes), len(g.Consts), ifs)
	}
}
