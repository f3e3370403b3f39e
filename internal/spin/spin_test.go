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
