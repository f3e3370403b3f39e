//go:build !linux

package trace

// populate does nothing where MADV_POPULATE_WRITE is not available: the
// pages of a new chunk fault in as its track writes them.
func populate([]byte) {}
