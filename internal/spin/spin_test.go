package spin

import (
	"testing"
	"time"
)

func TestForReturnsAfterDuration(t *testing.T) {
	start := time.Now()
	For(200 * time.Microsecond)
	if got := time.Since(start); got < 200*time.Microsecond {
		t.Fatalf("For(200µs) returned after %v", got)
	}
	For(0)
	For(-time.Second)
}
