//go:build unix

package onnx

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestExternalDataNamedPipe: an external data location that is a named
// pipe inside the model's directory is refused (ErrFormat), not read
// without end.
func TestExternalDataNamedPipe(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "w.bin"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	m := &Model{Graph: &Graph{Initializers: []*Tensor{{Name: "w", DataType: Float, Dims: []int64{3}, External: true, ExternalLocation: true,
		ExternalData: map[string]string{"location": "w.bin", "length": "12"}}}}}
	done := make(chan error, 1)
	go func() { done <- loadExternal(m, dir) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrFormat) {
			t.Errorf("a named pipe: %v, want ErrFormat", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a named pipe as external data did not return in 10 s")
	}
}
