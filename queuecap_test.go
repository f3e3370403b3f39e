package pipert_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
)

// TestLargeQueueCapacityCostsNoRing: the largest queue capacity accepted
// does not allocate stage queues for a million tasks when the graph has a
// few kernels (an executable of four kernels holds well under a megabyte
// in every mode), and runs as KBK does.
func TestLargeQueueCapacityCostsNoRing(t *testing.T) {
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 4, 4)}
	want := runOnce(t, addChain(4), in, pipert.WithMode(pipert.KBK))
	for _, m := range everyMode()[1:] {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		e, err := pipert.Compile(addChain(4), append(m.opts, pipert.WithQueueCapacity(plan.MaxQueueCapacity))...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		if grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc); grew > 1<<20 {
			t.Errorf("%s: the executable holds %d bytes, want at most 1 MiB", m.name, grew)
		}
		if err := sameResults(want, got); err != nil {
			t.Errorf("%s: %v", m.name, err)
		}
		runtime.KeepAlive(e)
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
