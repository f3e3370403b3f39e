//go:build !linux

package hostmem

// systemAvailable is unknown outside Linux: nothing is refused.
func systemAvailable() (int64, bool) { return 0, false }
