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

// TestValueOfTooFewBytes: a value fixed at import whose host data is
// shorter than its shape, or whose shape is not one, is an error naming
// Options.Values and the input, not a node's failure.
func TestValueOfTooFewBytes(t *testing.T) {
	path := filepath.Join("testdata", "opset", "z13_resize_scale_float32_nearest.onnx") // x: float32 [1 1 10 10]
	for name, v := range map[string]*kernel.Tensor{
		"short":    {DType: kernel.Float32, Shape: kernel.Shape{1, 1, 10, 10}, Host: make([]byte, 399)},
		"negative": {DType: kernel.Float32, Shape: kernel.Shape{1, 1, -10, -10}, Host: make([]byte, 400)},
	} {
		_, err := ImportFile(path, Options{Values: map[string]*kernel.Tensor{"x": v}})
		if !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), `Options.Values["x"]`) {
			t.Errorf("%s value: %v, want ErrImport naming Options.Values[\"x\"]", name, err)
		}
	}
}
