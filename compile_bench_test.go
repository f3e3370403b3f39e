package pipert_test

import (
	"runtime"
	"testing"

	"github.com/pipert/pipert"
)

// BenchmarkCompile compiles a 100 000-node Add chain (addChain) and
// reports, beside the time, the time a kernel (ns/kernel), the heap the
// executable holds a kernel (B/kernel, after a collection) and what
// Compile allocates a kernel (alloc-B/kernel). The first iteration of a
// process also pays the first touch of the heap it grows into; run with
// -benchtime=1x for a fresh process's first Compile.
func BenchmarkCompile(b *testing.B) {
	const n = 100_000
	g := addChain(n)
	var held, allocated, iters float64
	for b.Loop() {
		b.StopTimer()
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		b.StartTimer()
		e, err := pipert.Compile(g, pipert.WithMode(pipert.KBK))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.ReadMemStats(&m1)
		allocated += float64(m1.TotalAlloc - m0.TotalAlloc)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		held += float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
		iters++
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/iters/n, "ns/kernel")
	b.ReportMetric(held/iters/n, "B/kernel")
	b.ReportMetric(allocated/iters/n, "alloc-B/kernel")
}
