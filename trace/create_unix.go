//go:build unix

package trace

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// readerWait is how long Create waits for a named pipe's reader to open it
// (a variable for the tests).
var readerWait = 30 * time.Second

// createOut opens path for a trace: a named pipe once its reader has it
// open, waiting up to readerWait for one (opening it for writing alone
// would wait without end, and read-write would take the trace into the
// pipe with nobody to read it); anything else created or truncated. A
// pipe's writes go through the runtime's poller, as Go opens pipes.
func createOut(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return os.Create(path)
	}
	deadline := time.Now().Add(readerWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is a named pipe and no reader opened it in %v: start its reader", path, readerWait)
		}
		time.Sleep(pause)
	}
}
