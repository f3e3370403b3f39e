//go:build unix

package trace

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// createOut opens path for a trace: a named pipe only when its reader is
// there (opening it for writing would otherwise wait for one, or, read and
// write, take the trace into the pipe with nobody to read it), anything
// else created or truncated. A pipe's writes go through the runtime's
// poller, as Go opens pipes.
func createOut(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ENXIO) {
			return nil, fmt.Errorf("%s is a named pipe with no reader: start its reader first", path)
		}
		return f, err
	}
	return os.Create(path)
}
