//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// TestTraceToFIFO: a trace written to a FIFO goes through it whole and is
// not read back for the analysis (which would block on the FIFO), and
// pipebench analyze refuses a FIFO, with exit status 2, instead of
// waiting on it.
func TestTraceToFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan int64, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.Copy(io.Discard, f)
		f.Close()
		got <- n
	}()
	code, _, stderr := runArgs(t, "-real", "-scenario", "zerocost", "-reps", "1", "-mode", "kbk", "-trace", fifo)
	if code != 0 || !strings.Contains(stderr, "not a regular file: not analysed") {
		t.Fatalf("-trace to a FIFO: exit %d, stderr %q", code, stderr)
	}
	if n := <-got; n <= 0 {
		t.Fatalf("the FIFO's reader got %d bytes", n)
	}
	if code, _, stderr := runArgs(t, "analyze", fifo); code != 2 || !strings.Contains(stderr, "not a regular file") {
		t.Fatalf("analyze of a FIFO: exit %d, stderr %q", code, stderr)
	}
}
