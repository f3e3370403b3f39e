package onnx

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestValueOfTheDeclaredShape: a value fixed at import (Options.Values)
// must have the shape the model declares for its input, as a fixed shape
// (Options.Shapes) must; one of the declared shape folds.
func TestValueOfTheDeclaredShape(t *testing.T) {
	path := filepath.Join("testdata", "opset", "z13_resize_scale_float32_nearest.onnx") // x: float32 [1 1 10 10]
	for _, shape := range [][]int64{{1}, {1, 1, 10, 9}, {1, 1, 10, 10, 1}} {
		_, err := ImportFile(path, Options{Values: map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, shape...)}})
		if !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "declares [1 1 10 10]") {
			t.Errorf("value of shape %v: %v, want ErrImport naming the declared shape", shape, err)
		}
	}
	if _, err := ImportFile(path, Options{Values: map[string]*kernel.Tensor{"x": kernel.New(kernel.Float32, 1, 1, 10, 10)}}); err != nil {
		t.Errorf("value of the declared shape: %v", err)
	}
}
