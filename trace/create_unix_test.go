//go:build unix

package trace

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCreateNamedPipe: Create of a named pipe that no reader opens in
// readerWait fails and says so (it neither waits without end nor writes
// into a pipe nobody reads); with a reader that comes while it waits, the
// trace goes through the pipe whole.
func TestCreateNamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	wait := readerWait
	defer func() { readerWait = wait }()
	readerWait = 300 * time.Millisecond
	if r, err := Create(path, Options{}); err == nil || !strings.Contains(err.Error(), "no reader") {
		if r != nil {
			r.Close()
		}
		t.Fatalf("Create without a reader: %v, want an error naming the missing reader", err)
	}
	// A reader that comes after Create began, waiting as long as it does
	// by default: the reader's goroutine may be descheduled past its
	// 100 ms, which must not count as no reader.
	readerWait = wait
	opened := make(chan *os.File)
	go func() {
		time.Sleep(100 * time.Millisecond)
		rd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Error(err)
		}
		opened <- rd
	}()
	r, err := Create(path, Options{})
	rd := <-opened
	if rd == nil {
		t.FailNow()
	}
	defer rd.Close()
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
