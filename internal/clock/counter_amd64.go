package clock

import (
	"os"
	"runtime"
	"strings"
)

// counter reads the processor's time-stamp counter.
func counter() int64

// invariantTSC reports whether CPUID says the time-stamp counter runs at a
// constant rate in every power state.
func invariantTSC() bool

// counterUsable reports whether Now may read the time-stamp counter: it is
// invariant and Linux keeps time with it.
func counterUsable() bool {
	if runtime.GOOS != "linux" || !invariantTSC() {
		return false
	}
	b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	return err == nil && strings.TrimSpace(string(b)) == "tsc"
}
