package alloc

import (
	"fmt"
	"testing"
)

// benchCapacity is the device memory the benchmarks allocate from.
const benchCapacity = 32 << 30

// paperSizes are the request sizes of the SDAA paper's allocation figures.
var paperSizes = []struct {
	name string
	size int64
}{
	{"1KB", 1 << 10},
	{"16KB", 16 << 10},
	{"256KB", 256 << 10},
	{"4MB", 4 << 20},
	{"8MB", 8 << 20},
	{"64MB", 64 << 20},
	{"1GB", 1 << 30},
}

func newBenchAllocator(b testing.TB, name string) Allocator {
	switch name {
	case "multilevel":
		m, err := NewMultilevel(benchCapacity)
		if err != nil {
			b.Fatal(err)
		}
		return m
	case "caching":
		return NewCaching(benchCapacity)
	case "reference":
		return NewReference(benchCapacity)
	}
	panic("unknown allocator " + name)
}

var benchAllocators = []string{"multilevel", "caching", "reference"}

// BenchmarkAllocFree times one Alloc+Free pair per iteration, on an
// allocator that already holds a few live blocks of mixed sizes.
func BenchmarkAllocFree(b *testing.B) {
	for _, name := range benchAllocators {
		b.Run(name, func(b *testing.B) {
			for _, s := range paperSizes {
				b.Run(s.name, func(b *testing.B) {
					a := newBenchAllocator(b, name)
					for _, sz := range []int64{300, 5000, 100 << 10, 3 << 20} {
						if _, err := a.Alloc(sz); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportAllocs()
					for b.Loop() {
						addr, err := a.Alloc(s.size)
						if err != nil {
							b.Fatal(err)
						}
						if err := a.Free(addr); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkMeasure reports Measure's median for every allocator and paper
// size as custom metrics (ns per pair), the figures the device table uses.
func BenchmarkMeasure(b *testing.B) {
	for b.Loop() {
		for _, name := range benchAllocators {
			for _, s := range paperSizes {
				d, err := Measure(newBenchAllocator(b, name), s.size, 100)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(d.Nanoseconds()), fmt.Sprintf("ns-%s-%s", name, s.name))
			}
		}
	}
}
