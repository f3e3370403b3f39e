package kernel_test

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestNewPanicsOnSizesThatDoNotFit: as its doc says, New panics, like
// make, on a negative or Dynamic dimension and on a size that overflows,
// where the byte count wrapped to a small number before.
func TestNewPanicsOnSizesThatDoNotFit(t *testing.T) {
	for _, shape := range [][]int64{{1 << 32, 1 << 32}, {1<<62 + 1}, {-1, 2}, {3, kernel.Dynamic}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(Float32, %v) did not panic", shape)
				}
			}()
			kernel.New(kernel.Float32, shape...)
		}()
	}
	if got := len(kernel.New(kernel.Float64, 2, 3).Host); got != 48 {
		t.Errorf("New(Float64, 2, 3) holds %d bytes, want 48", got)
	}
}
