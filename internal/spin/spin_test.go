package spin

import (
	"testing"
	"time"
)

func TestIterationsScaleWithDuration(t *testing.T) {
	if r := Rate(); !(r > 0) {
		t.Fatalf("calibrated rate %v", r)
	}
	a, b := Iterations(time.Microsecond), Iterations(100*time.Microsecond)
	if a <= 0 || b < 99*a || b > 101*a+1 {
		t.Fatalf("Iterations(1µs) = %d, Iterations(100µs) = %d", a, b)
	}
	if Iterations(0) != 0 || Iterations(-time.Second) != 0 {
		t.Fatal("non-positive durations burn")
	}
	For(0)
	For(-time.Second)
	For(10 * time.Microsecond)
}

// TestForUntilStops: a closed channel stops a long burn before its first
// slice; an open or nil one lets it finish.
func TestForUntilStops(t *testing.T) {
	done := make(chan struct{})
	if !ForUntil(200*time.Microsecond, done) || !ForUntil(200*time.Microsecond, nil) || !ForUntil(time.Microsecond, done) {
		t.Fatal("a burn stopped with its channel open")
	}
	close(done)
	if ForUntil(time.Hour, done) {
		t.Fatal("a burn of an hour finished after its channel closed")
	}
	if !ForUntil(10*time.Microsecond, done) {
		t.Fatal("a cost shorter than a slice stopped: it should not look at the channel")
	}
}
