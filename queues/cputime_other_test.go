//go:build !linux

package queues

import "time"

// processCPU and machineCPU are not available here; benchmarks omit the
// metrics built on them.
func processCPU() (time.Duration, bool) { return 0, false }
func machineCPU() (time.Duration, bool) { return 0, false }
