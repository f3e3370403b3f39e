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

// TestNilTensor: a nil *Tensor's methods answer as for an empty virtual
// tensor, or fail, and never panic.
func TestNilTensor(t *testing.T) {
	var n *kernel.Tensor
	if n.NumElements() != 0 || n.Bytes() != 0 || !n.IsVirtual() || n.Data() != nil || n.Meta() != nil || n.String() != "<nil>" {
		t.Errorf("nil tensor: %d elements, %d bytes, virtual %v, data %v, meta %v, %q", n.NumElements(), n.Bytes(), n.IsVirtual(), n.Data(), n.Meta(), n.String())
	}
	if v, err := n.IntValues(); err == nil {
		t.Errorf("nil tensor's IntValues = %v, want an error", v)
	}
}
