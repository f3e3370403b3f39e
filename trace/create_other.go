//go:build !unix

package trace

import "os"

// createOut creates or truncates the file at path for a trace.
func createOut(path string) (*os.File, error) { return os.Create(path) }
