package heterog_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/heterog/heterogtest"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// newManager is heterogtest.Manager.
func newManager(tb testing.TB, mapped bool) *heterog.Manager { return heterogtest.Manager(tb, mapped) }

// reference is heterogtest.Reference.
func reference(tb testing.TB, g *subgraph.Graph, in map[string]*kernel.Tensor) map[string]*kernel.Tensor {
	return heterogtest.Reference(tb, g, in)
}

// sameOutputs reports the first difference between two output sets.
func sameOutputs(want, got map[string]*kernel.Tensor) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d outputs, want %d", len(got), len(want))
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, g := want[n], got[n]
		if g == nil {
			return fmt.Errorf("output %q missing", n)
		}
		if g.DType != w.DType || !g.Shape.Equal(w.Shape) {
			return fmt.Errorf("output %q: %v, want %v", n, g, w)
		}
		if !bytes.Equal(g.Host, w.Host) {
			return fmt.Errorf("output %q: contents differ", n)
		}
	}
	return nil
}
