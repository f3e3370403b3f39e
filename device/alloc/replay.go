package alloc

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"
)

// Op is one step of an allocation trace. An alloc op allocates Size bytes
// and names the block ID; a free op frees the block named ID. An ID may be
// reused once its block is freed.
type Op struct {
	Alloc bool
	Size  int64 // bytes, for alloc ops
	ID    int   // >= 0 and below 2·len(trace)+1024: Replay keeps a table indexed by them
}

// ReplayStats describe one replay of a trace.
type ReplayStats struct {
	Ops, Allocs, Frees int
	// Elapsed is the host time spent in Alloc and Free. It is measured per
	// chunk of replayChunk ops; the Stats sampling between chunks is not
	// counted.
	Elapsed time.Duration
	NsPerOp float64 // Elapsed / Ops
	// PeakInUse and PeakReserved are the allocator's high-water marks.
	PeakInUse, PeakReserved int64
	// Fragmentation is the mean of Stats().Fragmentation sampled after
	// every chunk; MaxFragmentation the largest sample.
	Fragmentation, MaxFragmentation float64
	Final                           Stats // Stats after the last op
}

// replayChunk is the number of ops timed together by Replay.
const replayChunk = 256

// ErrTrace is returned by Replay for a malformed trace.
var ErrTrace = errors.New("alloc: malformed trace")

// Replay runs trace through a and measures it. It stops at the first error:
// a malformed op (wrapping ErrTrace) or an allocator error, reported with the
// op's index; the stats then cover the ops before it.
func Replay(a Allocator, trace []Op) (ReplayStats, error) {
	if a == nil {
		return ReplayStats{}, errors.New("alloc: replay on a nil allocator")
	}
	maxID, limit := -1, 2*len(trace)+1024
	for i, op := range trace {
		if op.ID < 0 || op.ID >= limit {
			return ReplayStats{}, fmt.Errorf("%w: op %d has ID %d: want IDs in [0, %d) for %d ops (dense: a table is indexed by them)", ErrTrace, i, op.ID, limit, len(trace))
		}
		maxID = max(maxID, op.ID)
	}
	addrs := make([]uint64, maxID+1) // 0: not live
	var rs ReplayStats
	fragSum, samples := 0.0, 0
	finish := func() {
		rs.Final = a.Stats()
		rs.PeakInUse, rs.PeakReserved = rs.Final.Peak, rs.Final.PeakReserved
		if rs.Ops > 0 {
			rs.NsPerOp = float64(rs.Elapsed.Nanoseconds()) / float64(rs.Ops)
		}
		if samples > 0 {
			rs.Fragmentation = fragSum / float64(samples)
		}
	}
	for start := 0; start < len(trace); start += replayChunk {
		chunk := trace[start:min(start+replayChunk, len(trace))]
		var err error
		done := 0
		t0 := time.Now()
		for _, op := range chunk {
			if op.Alloc {
				if addrs[op.ID] != 0 {
					err = fmt.Errorf("%w: ID %d allocated while live", ErrTrace, op.ID)
					break
				}
				var addr uint64
				if addr, err = a.Alloc(op.Size); err != nil {
					err = fmt.Errorf("alloc %d bytes as ID %d: %w", op.Size, op.ID, err)
					break
				}
				addrs[op.ID] = addr
				rs.Allocs++
			} else {
				addr := addrs[op.ID]
				if addr == 0 {
					err = fmt.Errorf("%w: ID %d freed while not live", ErrTrace, op.ID)
					break
				}
				if err = a.Free(addr); err != nil {
					err = fmt.Errorf("free ID %d: %w", op.ID, err)
					break
				}
				addrs[op.ID] = 0
				rs.Frees++
			}
			done++
		}
		rs.Elapsed += time.Since(t0)
		rs.Ops += done
		if err != nil {
			finish()
			return rs, fmt.Errorf("alloc: replay op %d: %w", start+done, err)
		}
		f := a.Stats().Fragmentation
		fragSum += f
		samples++
		rs.MaxFragmentation = max(rs.MaxFragmentation, f)
	}
	finish()
	return rs, nil
}

// measureBatch is the least host time one Measure sample lasts, so that the
// clock's own cost (tens of ns) stays below a few percent.
const measureBatch = 5 * time.Microsecond

// measureWarmup is how long Measure runs pairs before it samples.
const measureWarmup = 2 * time.Millisecond

// Measure returns the median host time of one Alloc(size)+Free pair on a
// over n samples (n < 1 counts as 1); it is MeasureAll of one point.
func Measure(a Allocator, size int64, n int) (time.Duration, error) {
	d, err := MeasureAll([]Point{{a, size}}, n)
	if err != nil {
		return 0, err
	}
	return d[0], nil
}

// A Point is an allocator and the request size whose Alloc+Free pairs
// MeasureAll times.
type Point struct {
	A    Allocator
	Size int64
}

// MeasureAll returns, for every point, the median host time of one
// Alloc(Size)+Free pair on A over n samples (n < 1 counts as 1). Each
// sample times a batch of pairs — as many as make the batch last
// measureBatch — and divides by its length. The samples are interleaved:
// each of n rounds takes one sample of every point in turn, so that a slow
// spell of a shared machine falls on all points alike and their ratios
// hold. Points should have allocators of their own.
//
// Before sampling, MeasureAll runs a garbage collection, so that a cycle
// set off by earlier work (building a large allocator, say) does not
// compete with the samples, and then runs pairs of every point for
// measureWarmup: the first pairs on a fresh allocator touch cold memory and
// would both read slow and make the batch too short. Each allocator is
// left holding what it held before, though caches may have filled.
func MeasureAll(points []Point, n int) ([]time.Duration, error) {
	n = max(n, 1)
	wrap := func(p Point, err error) error {
		return fmt.Errorf("alloc: measure %d-byte pairs: %w", p.Size, err)
	}
	for _, p := range points {
		if p.A == nil {
			return nil, wrap(p, errors.New("nil allocator"))
		}
	}
	runtime.GC()
	batch := make([]int, len(points))
	for i, p := range points {
		for t0 := time.Now(); time.Since(t0) < measureWarmup; {
			if _, err := timePairs(p.A, p.Size, 64); err != nil {
				return nil, wrap(p, err)
			}
		}
		for batch[i] = 1; batch[i] < 1<<20; batch[i] *= 2 {
			d, err := timePairs(p.A, p.Size, batch[i])
			if err != nil {
				return nil, wrap(p, err)
			}
			if d >= measureBatch {
				break
			}
		}
	}
	samples := make([][]time.Duration, len(points))
	for i := range samples {
		samples[i] = make([]time.Duration, n)
	}
	for r := range n {
		for i, p := range points {
			d, err := timePairs(p.A, p.Size, batch[i])
			if err != nil {
				return nil, wrap(p, err)
			}
			samples[i][r] = d / time.Duration(batch[i])
		}
	}
	medians := make([]time.Duration, len(points))
	for i, s := range samples {
		slices.Sort(s)
		medians[i] = s[n/2]
	}
	return medians, nil
}

// timePairs times k Alloc(size)+Free pairs.
func timePairs(a Allocator, size int64, k int) (time.Duration, error) {
	t0 := time.Now()
	for range k {
		addr, err := a.Alloc(size)
		if err != nil {
			return 0, err
		}
		if err := a.Free(addr); err != nil {
			return 0, err
		}
	}
	return time.Since(t0), nil
}
