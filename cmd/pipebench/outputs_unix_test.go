//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteOutputKeepsFIFO: a failed write to a FIFO (or any file that was
// there) leaves it in place.
func TestWriteOutputKeepsFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A reader first, so that opening the FIFO for writing does not block.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fail := func(w io.Writer) error {
		w.Write([]byte("half"))
		return errDiskFull
	}
	if err := writeOutput(fifo, fail); !errors.Is(err, errDiskFull) {
		t.Errorf("err %v, want the write's", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("a failed write removed or replaced the FIFO: %v %v", fi, err)
	}
}
