package swai

// This file is the one place where swai names device/alloc's allocators.
// Everything else in the package goes through Kind, kindAllocator,
// newAllocator and measurePairs.

import (
	"fmt"
	"slices"
	"time"

	"github.com/pipert/pipert/device/alloc"
)

// Kind is what a block of device memory is for: the flag of the paper's
// algorithm 2. The management core (MPE) uses paged memory; the compute
// cores (CPE) use segment memory, whose allocation also writes one entry of
// the segment table (equation 3).
type Kind = alloc.Kind

// Memory kinds.
const (
	MPEMemory = alloc.MPE // paged memory of the management core
	CPEMemory = alloc.CPE // segment memory of the compute cores
)

func validKind(k Kind) bool { return k == MPEMemory || k == CPEMemory }

// Allocator names accepted in Profile.Allocator.
const (
	AllocMultilevel = "multilevel" // alloc.Multilevel: the paper's segment/page allocator (algorithm 2)
	AllocCaching    = "caching"    // alloc.Caching: PyTorch-style caching, the GPU's side
	AllocReference  = "reference"  // alloc.Reference: first fit, obviously correct
)

var allocatorNames = []string{AllocMultilevel, AllocCaching, AllocReference}

func knownAllocator(name string) bool { return slices.Contains(allocatorNames, name) }

// kindAllocator is an allocator that can place a block by memory kind.
type kindAllocator interface {
	alloc.Allocator
	AllocKind(size int64, kind Kind) (uint64, error)
}

// newAllocator returns the allocator called name over capacity bytes; the
// multi-level allocator gets segEntries segment-table entries.
func newAllocator(name string, capacity int64, segEntries int) (kindAllocator, error) {
	switch name {
	case AllocMultilevel:
		m, err := alloc.NewMultilevel(capacity, alloc.WithSegmentEntries(segEntries))
		if err != nil {
			return nil, fmt.Errorf("swai: %w", err)
		}
		return m, nil
	case AllocCaching:
		return anyKind{alloc.NewCaching(capacity)}, nil
	case AllocReference:
		return anyKind{alloc.NewReference(capacity)}, nil
	}
	return nil, fmt.Errorf("swai: unknown allocator %q (want one of %v)", name, allocatorNames)
}

// anyKind adapts an allocator with a single pool to kindAllocator.
type anyKind struct{ alloc.Allocator }

func (a anyKind) AllocKind(size int64, _ Kind) (uint64, error) { return a.Alloc(size) }

// measurePairs is, for every i, the real median time of one
// Alloc(sizes[i]) on as[i] followed by its Free, over n samples taken in
// interleaved rounds (alloc.MeasureAll).
func measurePairs(as []kindAllocator, sizes []int64, n int) ([]time.Duration, error) {
	points := make([]alloc.Point, len(as))
	for i, a := range as {
		points[i] = alloc.Point{A: a, Size: sizes[i]}
	}
	d, err := alloc.MeasureAll(points, n)
	if err != nil {
		return nil, fmt.Errorf("swai: %w", err)
	}
	return d, nil
}
