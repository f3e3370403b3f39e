package actor

import (
	"context"
	"errors"
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
)

// tilingCopy moves the nodes' tiling data to the device by one of ATB's
// strategies (plan.TilingCopy); see the strategies for the model.
//
// # Ownership
//
// WithKernel: the launching goroutine sets each kernel's Args. MultiStream:
// the goroutine running Resize owns the copy stream, the ring's next block
// and the ready events (it records them); the launching goroutine makes
// the kernel stream wait for a ready event and records the block's free
// event after the kernel. Whole: goroutine 0 copies a batch while every
// queue is drained. Each keeps its counts in its own TilingStats.
type tilingCopy struct {
	how    plan.TilingCopy
	blocks int
	pool   device.Buffer // blocks × plan.TilingBlockBytes, at first use
	stream device.Stream // MultiStream's copy stream
	ready  []device.Event
	free   []device.Event // by ring block
	// batch holds, by node position, the last node of the Whole batch the
	// node starts (-1 for nodes inside a batch); host is the batch's
	// tilings end to end.
	batch []int
	host  []byte
	// stage is the host ring's block in pinned memory, when the device
	// allocates it (device.HostAllocator): each copy's source, so the
	// copies take the pinned path. noStage: the device has none.
	stage   []byte
	noStage bool
	// counts by owner: the Resize goroutine, the launching goroutine,
	// goroutine 0.
	atResize, atLaunch, at0 plan.TilingStats
}

func newTilingCopy(r *KernelRunner, how plan.TilingCopy, blocks int) *tilingCopy {
	tc := &tilingCopy{how: how, blocks: blocks}
	p := r.prog
	switch how {
	case plan.MultiStream:
		tc.ready = make([]device.Event, len(p.nodes))
		for i := range tc.ready {
			tc.ready[i] = newEvent(r.dev)
		}
		tc.free = make([]device.Event, blocks)
		for i := range tc.free {
			tc.free[i] = newEvent(r.dev)
		}
		tc.stream = newStream(r.dev)
	case plan.Whole:
		// A batch ends before a kernel whose InferShape waits for an
		// earlier kernel's launch: one reading values, or the real shapes
		// of a compute-dependent kernel's outputs.
		tc.batch = make([]int, len(p.nodes))
		start := 0
		for pos := range p.nodes {
			nd := &p.nodes[pos]
			if pos > 0 && (len(nd.valueDeps()) > 0 || readsComputed(p, nd)) {
				tc.batch[start], start = pos-1, pos
			}
			tc.batch[pos] = -1
		}
		if len(p.nodes) > 0 {
			tc.batch[start] = len(p.nodes) - 1
		}
	}
	return tc
}

// stats sums the run's counts.
func (tc *tilingCopy) stats() plan.TilingStats {
	s := tc.atResize
	s.Add(tc.atLaunch)
	s.Add(tc.at0)
	return s
}

// begin resets the counts; goroutine 0, before the run's first push.
func (tc *tilingCopy) begin() {
	tc.atResize, tc.atLaunch, tc.at0 = plan.TilingStats{}, plan.TilingStats{}, plan.TilingStats{}
}

// ensurePool allocates the ring (MultiStream, Whole) on first use.
func (r *KernelRunner) ensurePool() error {
	tc := r.tiling
	if !tc.pool.IsZero() {
		return nil
	}
	b, err := r.mem.alloc(r.dev, int64(tc.blocks)*plan.TilingBlockBytes, false)
	if err != nil {
		return fmt.Errorf("actor: tiling ring of %d blocks: %w", tc.blocks, err)
	}
	tc.pool = b
	return nil
}

// block is ring block i.
func (tc *tilingCopy) block(i int) device.Buffer {
	return device.Buffer{Addr: tc.pool.Addr + uint64(i)*plan.TilingBlockBytes, Size: plan.TilingBlockBytes}
}

// copyTiling is MultiStream's copy of node pos's tiling, on the goroutine
// running Resize, right after it: into ring block pos mod blocks once the
// kernel that last read the block completed (launched is that kernel's
// launch, which the caller waits for first), then the ready event.
func (r *KernelRunner) copyTiling(ctx context.Context, pos int, launched func(ctx context.Context, pos int) error) error {
	tc := r.tiling
	data := r.tilingOf(pos).Data
	if len(data) == 0 || r.skip[pos] || r.replaying(pos) {
		return nil // a replayed kernel's tiling stayed on the device
	}
	if len(data) > plan.TilingBlockBytes {
		return r.stageErr(pos, kernel.StageResize, fmt.Errorf("%w: %d bytes of tiling data, a block holds %d", plan.ErrTilingSpace, len(data), plan.TilingBlockBytes))
	}
	if err := r.ensurePool(); err != nil {
		return err
	}
	slot := pos % tc.blocks
	if prev := pos - tc.blocks; prev >= 0 {
		// A run that ends while the ring is full ends here: the error
		// names the kernel waiting for its block.
		if err := launched(ctx, prev); err != nil {
			return r.stageErr(pos, kernel.StageResize, fmt.Errorf("waiting for a tiling block: %w", err))
		}
		if ev := tc.free[slot]; !ev.Query() {
			tc.atResize.Stalls++
			if err := ev.Synchronize(ctx); err != nil {
				return r.stageErr(pos, kernel.StageResize, fmt.Errorf("waiting for a tiling block: %w", err))
			}
		}
	}
	data, err := r.stageTiling(data)
	if err != nil {
		return r.stageErr(pos, kernel.StageResize, err)
	}
	if err := tc.stream.CopyH2D(tc.block(slot), data); err != nil {
		return r.stageErr(pos, kernel.StageResize, fmt.Errorf("tiling copy: %w", err))
	}
	tc.stream.Record(tc.ready[pos])
	tc.atResize.Bytes += int64(len(data))
	tc.atResize.Copies++
	return nil
}

// tilingBefore prepares the launch of node pos for its tiling: the kernel
// value's Args (WithKernel) or the wait for its copy (MultiStream).
func (r *KernelRunner) tilingBefore(pos int, k *device.Kernel) {
	tc := r.tiling
	n := len(r.tilingOf(pos).Data)
	if tc == nil || n == 0 {
		return
	}
	switch tc.how {
	case plan.WithKernel:
		k.Args = int64(n)
		tc.atLaunch.Bytes += int64(n)
		tc.atLaunch.Copies++
	case plan.MultiStream:
		r.stream.WaitEvent(tc.ready[pos])
	}
}

// tilingAfter frees node pos's ring block once its kernel completes
// (MultiStream), on the launching goroutine after the launch.
func (r *KernelRunner) tilingAfter(pos int) {
	if tc := r.tiling; tc != nil && tc.how == plan.MultiStream && len(r.tilingOf(pos).Data) > 0 {
		r.stream.Record(tc.free[pos%tc.blocks])
	}
}

// copyWhole is Whole's copy of the tilings of nodes first…last, at once,
// from goroutine 0 while the queues are drained and the launching
// goroutine idle: into consecutive ring blocks, before the batch's first
// launch on the kernel stream.
func (r *KernelRunner) copyWhole(first, last int) error {
	tc := r.tiling
	tc.host = tc.host[:0]
	for pos := first; pos <= last; pos++ {
		if r.skip[pos] || r.replaying(pos) {
			continue
		}
		tc.host = append(tc.host, r.tilingOf(pos).Data...)
	}
	if len(tc.host) == 0 {
		return nil
	}
	if err := r.ensurePool(); err != nil {
		return err
	}
	if len(tc.host) > int(tc.pool.Size) {
		return fmt.Errorf("actor: tilings of nodes %q to %q: %w: %d bytes, the ring holds %d", r.prog.nodes[first].name, r.prog.nodes[last].name, plan.ErrTilingSpace, len(tc.host), tc.pool.Size)
	}
	src, err := r.stageTiling(tc.host)
	if err != nil {
		return fmt.Errorf("actor: tiling copy: %w", err)
	}
	if err := r.stream.CopyH2D(device.Buffer{Addr: tc.pool.Addr, Size: int64(len(src))}, src); err != nil {
		return fmt.Errorf("actor: tiling copy: %w", err)
	}
	tc.at0.Bytes += int64(len(tc.host))
	tc.at0.Copies++
	return nil
}

// stageTiling puts data in the pinned host block and returns the copy's
// source there: ATB keeps the tilings it computes in a host ring for the
// copies. The block grows (doubling, from 4 KiB) to the largest tiling
// or batch; a device without pinned memory leaves data where it is (a
// pageable copy). The copy reads its source at once, so one block
// serves every copy.
func (r *KernelRunner) stageTiling(data []byte) ([]byte, error) {
	tc := r.tiling
	if tc.noStage || len(data) == 0 {
		return data, nil
	}
	if len(data) > len(tc.stage) {
		ha, ok := r.dev.(device.HostAllocator)
		if !ok {
			tc.noStage = true
			return data, nil
		}
		n := max(2*len(tc.stage), 4<<10)
		for n < len(data) {
			n *= 2
		}
		b, _, err := ha.MallocHost(int64(n))
		if errors.Is(err, errors.ErrUnsupported) {
			tc.noStage = true
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("host block of %d bytes: %w", n, err)
		}
		if err := r.freeStage(); err != nil {
			return nil, err
		}
		tc.stage = b
	}
	return tc.stage[:copy(tc.stage, data)], nil
}

func (r *KernelRunner) freeStage() error {
	tc := r.tiling
	if tc.stage == nil {
		return nil
	}
	b := tc.stage
	tc.stage = nil
	if err := r.dev.(device.HostAllocator).FreeHost(b); err != nil {
		return fmt.Errorf("actor: tiling host block: %w", err)
	}
	return nil
}

// releaseTiling frees the ring and the host block.
func (r *KernelRunner) releaseTiling() error {
	tc := r.tiling
	if tc == nil {
		return nil
	}
	err := r.freeStage()
	if tc.pool.IsZero() {
		return err
	}
	b := tc.pool
	tc.pool = device.Buffer{}
	return errors.Join(err, r.mem.free(r.dev, b))
}

// Phases of a task under Whole: setup (prepare, InferShape, Resize) and
// execute (Launch); other strategies run every step at once.
const (
	phaseAll = iota
	phaseSetup
	phaseExecute
)

// feedWhole is goroutine 0 under Whole: batch by batch, every node's
// setup steps, a drain, the batch's tilings copied at once, then every
// node's launch.
func (e *engine) feedWhole(rs *runState) {
	r := e.r
	var acquire func(pos int) error
	if e.feed != nil {
		acquire = func(pos int) error { return r.Acquire(rs.ctx, pos, e.feed.Await) }
	}
	n := len(e.a.prog.nodes)
	for first := 0; first < n; {
		last := r.tiling.batch[first]
		for pos := first; pos <= last; pos++ {
			if rs.stopped() {
				return
			}
			if err := e.issue(pos, phaseSetup, acquire, rs); err != nil {
				rs.fail(err)
				return
			}
		}
		if e.pipe != nil {
			if err := e.waited0(rs, func() error { return e.drainBelow(0) }); err != nil {
				rs.fail(err)
				return
			}
		}
		if rs.stopped() {
			return
		}
		e.wk[0].carried = 0 // the copies may wait for the ring
		if err := r.copyWhole(first, last); err != nil {
			rs.fail(err)
			return
		}
		for pos := first; pos <= last; pos++ {
			if rs.stopped() {
				return
			}
			if err := e.step(pos, phaseExecute, rs); err != nil {
				rs.fail(err)
				return
			}
			if err := e.drainResolve(rs, pos); err != nil {
				rs.fail(err)
				return
			}
		}
		first = last + 1
	}
}
