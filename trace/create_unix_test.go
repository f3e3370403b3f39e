//go:build unix

package trace

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCreateNamedPipe: Create of a named pipe without a reader fails and
// says so (it neither waits for one nor writes into a pipe nobody reads);
// with a reader the trace goes through the pipe whole.
func TestCreateNamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if r, err := Create(path, Options{}); err == nil || !strings.Contains(err.Error(), "no reader") {
		if r != nil {
			r.Close()
		}
		t.Fatalf("Create without a reader: %v, want an error naming the missing reader", err)
	}
	rd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	r, err := Create(path, Options{})
	if err != nil {
		t.Fatalf("Create with a reader: %v", err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(rd)
		got <- b
	}()
	tr := r.Track("w", SliceTrack, Host)
	name := r.Intern("k")
	for i := range 20000 { // more than a pipe's buffer
		tr.Slice(int64(i)*10, 5, name)
	}
	tr.Flush()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := Parse(<-got)
	if err != nil {
		t.Fatalf("the trace read from the pipe: %v", err)
	}
	if n := len(p.Events); n != 20000 {
		t.Errorf("%d events through the pipe, want 20000", n)
	}
}
