package actor

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
)

// planAlign is the alignment of every tensor and workspace in an arena.
const planAlign = 64

// peakLive is the most bytes live at one position of n: no arena holds
// the items in less.
func peakLive(items []planItem, n int) int64 {
	live := make([]int64, n+2)
	for _, it := range items {
		live[it.start] += it.size
		live[it.end+1] -= it.size
	}
	var cur, peak int64
	for _, d := range live {
		cur += d
		peak = max(peak, cur)
	}
	return peak
}

// memPlan is a device-memory plan (plan.MemoryPlan): one arena holding
// every intermediate tensor and workspace of a run, at offsets computed
// from their lifetimes in execution order, so that a planned launch makes
// no allocator call.
//
// A tensor lives from its producer's launch to the launch of its last
// reader (graph outputs to the end of the run), a workspace during its
// node's launch: two of them may share bytes only when their lifetimes
// are disjoint. Frees happen in launch order on the one kernel stream, so
// bytes reused by a later launch are reused after every earlier kernel
// that read them, as with the allocator.
type memPlan struct {
	arena device.Buffer
	real  bool // the arena has host-visible contents
	// borrowed: the arena is the caller's (UseWorkspace), never freed here
	borrowed bool
	off      []int64 // by slot: offset in the arena
	size     []int64 // by slot: the bytes planned (0: not planned)
	wsOff    []int64 // by node position
	wsLen    []int64
	stats    plan.PlanStats
}

// planItem is one tensor or workspace to place.
type planItem struct {
	slot, pos  int // slot, or -1 and the node position of a workspace
	start, end int // lifetime, inclusive, in node positions
	size       int64
	off        int64
}

// An executable's first plan also tries up to climbTries swaps of its
// best order, each a placement quadratic in the tensors, within
// climbBudget item pairs in all (256 tries for up to 181 tensors, 37 for
// 460). A replan does not climb: a graph whose shapes vary replans as
// they grow, and a replan must stay cheap.
const (
	climbTries  = 256
	climbBudget = 8 << 20
)

func alignUp(n int64) int64 { return (n + planAlign - 1) &^ (planAlign - 1) }

// buildPlan places the tensors and workspaces of sizes (by slot; ws by
// node position; headroom added to those that grew since the previous
// plan) by best fit, largest first.
func (r *KernelRunner) buildPlan(prev *memPlan) (*memPlan, []planItem) {
	p := r.prog
	n := len(p.nodes)
	end := make([]int, len(p.slots))
	for s := range end {
		end[s] = n // graph outputs live to the end of the run
	}
	for pos := range p.nodes {
		for _, s := range p.nodes[pos].free() {
			end[s] = pos
		}
	}
	// A plan never shrinks a tensor of the previous plan: the sizes that
	// did not fit grow (with room for the next steps), the others keep
	// their bytes, so a graph whose shapes vary run to run stops
	// replanning once it has seen its largest ones.
	grow := func(size, was int64) int64 {
		switch {
		case prev == nil || was == 0:
		case size > was:
			size += size / 4
		default:
			size = was
		}
		return alignUp(size)
	}
	var items []planItem
	for s, info := range p.slots {
		var was int64
		if prev != nil {
			was = prev.size[s]
		}
		if info.producer < 0 || r.seen[s] <= 0 && was <= 0 {
			continue
		}
		items = append(items, planItem{slot: s, pos: -1, start: int(info.producer), end: end[s], size: grow(r.seen[s], was)})
	}
	for pos, ws := range r.seenWS {
		var was int64
		if prev != nil {
			was = prev.wsLen[pos]
		}
		if ws <= 0 && was <= 0 {
			continue
		}
		items = append(items, planItem{slot: -1, pos: pos, start: pos, end: pos, size: grow(ws, was)})
	}
	// breadth is the bytes live at each position; an item's weight the
	// largest breadth over its lifetime (TFLite's "greedy by breadth":
	// the items live where memory is tightest are placed first).
	breadth := make([]int64, n+2)
	for _, it := range items {
		breadth[it.start] += it.size
		breadth[it.end+1] -= it.size
	}
	for i := 1; i < len(breadth); i++ {
		breadth[i] += breadth[i-1]
	}
	weight := make(map[[2]int]int64, len(items))
	for _, it := range items {
		var w int64
		for p := it.start; p <= it.end; p++ {
			w = max(w, breadth[p])
		}
		weight[[2]int{it.slot, it.pos}] = w
	}
	wOf := func(it planItem) int64 { return weight[[2]int{it.slot, it.pos}] }
	// Best fit in a few orders (largest first, longest-lived first,
	// largest area first, by breadth), keeping the smallest arena: no
	// order is best for every graph.
	orders := []func(a, b planItem) int{
		func(a, b planItem) int { return cmpDesc(wOf(a), wOf(b), a.size, b.size) },
		func(a, b planItem) int { return cmpDesc(a.size, b.size, a.start, b.start) },
		func(a, b planItem) int { return cmpDesc(int64(a.end-a.start), int64(b.end-b.start), a.size, b.size) },
		func(a, b planItem) int {
			return cmpDesc(a.size*int64(a.end-a.start+1), b.size*int64(b.end-b.start+1), a.start, b.start)
		},
		func(a, b planItem) int { return cmpDesc(int64(-a.start), int64(-b.start), a.size, b.size) },
	}
	var arena int64 = -1
	var best []planItem
	try := make([]planItem, len(items))
	for _, order := range orders {
		copy(try, items)
		slices.SortStableFunc(try, order)
		if a := place(try); arena < 0 || a < arena {
			arena = a
			best = append(best[:0], try...)
		}
	}
	// Small graphs can afford more, when the best order left room above
	// the lower bound: perturbations of it, each pair swap kept when it
	// shrinks the arena (a bounded hill climb, deterministic).
	if prev == nil && len(best) > 1 && arena > peakLive(best, n) {
		rng := rand.New(rand.NewPCG(uint64(len(best)), 0x9e3779b97f4a7c15))
		for range min(climbTries, climbBudget/(len(best)*len(best))) {
			copy(try, best)
			i, j := rng.IntN(len(try)), rng.IntN(len(try))
			try[i], try[j] = try[j], try[i]
			if a := place(try); a < arena {
				arena = a
				copy(best, try)
			}
		}
	}
	items = best
	arena = max(arena, 0)
	mp := &memPlan{off: make([]int64, len(p.slots)), size: make([]int64, len(p.slots)),
		wsOff: make([]int64, n), wsLen: make([]int64, n)}
	var sum int64
	for _, it := range items {
		if it.slot >= 0 {
			mp.off[it.slot], mp.size[it.slot] = it.off, it.size
		} else {
			mp.wsOff[it.pos], mp.wsLen[it.pos] = it.off, it.size
		}
		sum += it.size
	}
	peak := peakLive(items, n)
	mp.stats = plan.PlanStats{ArenaBytes: arena, PeakLiveBytes: peak, SumBytes: sum, Tensors: len(items)}
	return mp, items
}

// replan plans the run that just succeeded (its sizes in seen and
// seenWS) when there is no plan yet or a launch did not fit the plan, and
// allocates the new arena (freeing the old one). It runs on goroutine 0
// after the run drained and the stream is idle.
func (r *KernelRunner) replan() error {
	if !r.planOn || r.plan != nil && r.fallbacks == 0 {
		return nil
	}
	mp, _ := r.buildPlan(r.plan)
	if err := r.dropPlan(); err != nil {
		return err
	}
	if mp.stats.ArenaBytes == 0 {
		return nil
	}
	buf, err := r.mem.alloc(r.dev, mp.stats.ArenaBytes, r.seenReal)
	if err != nil {
		return fmt.Errorf("actor: memory plan arena of %d bytes: %w", mp.stats.ArenaBytes, err)
	}
	mp.arena, mp.real = buf, r.seenReal
	mp.stats.Replans = r.replans + 1
	r.replans++
	r.plan = mp
	return nil
}

// dropPlan frees the arena.
func (r *KernelRunner) dropPlan() error {
	if r.capture != nil {
		r.capture.invalidate() // its addresses were the plan's
	}
	if r.plan == nil {
		return nil
	}
	b, borrowed := r.plan.arena, r.plan.borrowed
	r.plan = nil
	if borrowed {
		return nil
	}
	return r.mem.free(r.dev, b)
}

// planned returns slot s's bytes in the arena for a tensor of n bytes, or
// false when the plan has no room for it (or no host contents when real).
func (r *KernelRunner) planned(s int, n int64, real bool) (device.Buffer, bool) {
	mp := r.plan
	if mp == nil || mp.size[s] < n || real && !mp.real {
		return device.Buffer{}, false
	}
	return mp.sub(mp.off[s], n, real), true
}

// plannedWS is planned for node pos's workspace.
func (r *KernelRunner) plannedWS(pos int, n int64, real bool) (device.Buffer, bool) {
	mp := r.plan
	if mp == nil || mp.wsLen[pos] < n || real && !mp.real {
		return device.Buffer{}, false
	}
	return mp.sub(mp.wsOff[pos], n, real), true
}

// sub is n bytes of the arena at off, zeroed when real (as the allocator
// gives them).
func (mp *memPlan) sub(off, n int64, real bool) device.Buffer {
	b := device.Buffer{Addr: mp.arena.Addr + uint64(off), Size: n}
	if real {
		b.Data = mp.arena.Data[off : off+n : off+n]
		clear(b.Data)
	}
	return b
}

// cmpDesc orders by x descending, then by y descending (ints: ascending).
func cmpDesc(x1, x2 int64, y1, y2 any) int {
	switch {
	case x1 > x2:
		return -1
	case x1 < x2:
		return 1
	}
	switch a := y1.(type) {
	case int:
		return a - y2.(int)
	case int64:
		b := y2.(int64)
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
	}
	return 0
}

// place gives every item, in order, the offset of the smallest gap that
// holds it among the items placed before it whose lifetimes overlap its
// own (or the end of them), and returns the arena's size.
//
// The overlapping items are found through blocks of placeBlock node
// positions, each listing the placed items alive in it, so that a long
// graph of short-lived tensors places in time linear in its length; an
// item whose blocks list more entries than there are placed items scans
// those instead, so that many long-lived tensors (a wide fan-out, outputs
// kept to the end) place in time quadratic in their number, not cubic.
func place(items []planItem) int64 {
	var arena int64
	steps := 0
	for _, it := range items {
		steps = max(steps, it.end+1)
	}
	alive := make([][]int32, steps/placeBlock+1) // placed items by block
	seen := make([]int32, len(items))
	var near []int32
	for i := range items {
		it := &items[i]
		near = near[:0]
		b0, b1 := it.start/placeBlock, it.end/placeBlock
		listed := 0
		for b := b0; b <= b1; b++ {
			listed += len(alive[b])
		}
		overlaps := func(j int32) bool { o := &items[j]; return o.start <= it.end && it.start <= o.end }
		if listed > i {
			for j := range int32(i) {
				if overlaps(j) {
					near = append(near, j)
				}
			}
		} else {
			for b := b0; b <= b1; b++ {
				for _, j := range alive[b] {
					if seen[j] != int32(i)+1 && overlaps(j) {
						seen[j] = int32(i) + 1
						near = append(near, j)
					}
				}
			}
		}
		slices.SortFunc(near, func(a, b int32) int {
			if c := cmp.Compare(items[a].off, items[b].off); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		// Walk the gaps between them, by offset.
		best, bestGap := int64(-1), int64(-1)
		var cur int64
		for _, j := range near {
			o := &items[j]
			if gap := o.off - cur; gap >= it.size && (bestGap < 0 || gap < bestGap) {
				best, bestGap = cur, gap
			}
			cur = max(cur, o.off+o.size)
		}
		if best < 0 {
			best = cur
		}
		it.off = best
		arena = max(arena, it.off+it.size)
		for b := b0; b <= b1; b++ {
			alive[b] = append(alive[b], int32(i))
		}
	}
	return arena
}

// placeBlock is the node positions of one block of place's index.
const placeBlock = 16

// ErrDynamicWorkspace is the cause of WorkspaceSize's failure on a graph
// whose sizes are not known before it runs.
var ErrDynamicWorkspace = errors.New("workspace size depends on run-time values")

// ErrShortWorkspace is the cause of UseWorkspace's failure on a buffer
// smaller than WorkspaceSize, or whose contents are shorter than its size.
var ErrShortWorkspace = errors.New("workspace buffer too small")

// WorkspaceSize returns the bytes of the arena a memory plan needs for a
// run, before any run: every intermediate tensor and workspace of the
// graph placed by lifetime (ATB's Setup). It needs a static-shape graph:
// a dynamic input dimension, a value-dependent node or a spliced branch is
// an error wrapping ErrDynamicWorkspace and naming it. A compute-dependent
// node counts its upper bound; a node that fails on the shapes following
// from that bound is an error wrapping ErrDynamicWorkspace naming both.
func (a *SuperKernelActor) WorkspaceSize() (int64, error) {
	if a == nil {
		return 0, errUnmade("WorkspaceSize")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return 0, ErrClosed
	}
	if a.prog == nil {
		return 0, errUnmade("WorkspaceSize")
	}
	mp, err := a.r.dryPlan()
	if err != nil {
		return 0, err
	}
	return mp.stats.ArenaBytes, nil
}

// UseWorkspace makes buf, a buffer of the actor's device of at least
// WorkspaceSize bytes owned by the caller, the arena of the actor's memory
// plan (plan.MemoryPlan must be on; without it, the error wraps
// errors.ErrUnsupported): runs place every intermediate tensor
// and workspace in it and call no allocator for them. The caller keeps
// buf alive until Close (or the next UseWorkspace) and frees it after;
// a run whose tensors outgrow it falls back to the allocator and then
// plans an arena of the actor's own.
func (a *SuperKernelActor) UseWorkspace(buf device.Buffer) error {
	if a == nil {
		return errUnmade("UseWorkspace")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return ErrClosed
	}
	if a.prog == nil {
		return errUnmade("UseWorkspace")
	}
	if !a.r.planOn {
		return fmt.Errorf("actor: UseWorkspace needs the memory plan (plan.MemoryPlan): %w", errors.ErrUnsupported)
	}
	mp, err := a.r.dryPlan()
	if err != nil {
		return err
	}
	if buf.IsZero() {
		return fmt.Errorf("actor: the zero Buffer is no workspace: allocate one of the device (the plan needs %d bytes): %w", mp.stats.ArenaBytes, ErrShortWorkspace)
	}
	if buf.Size < mp.stats.ArenaBytes {
		return fmt.Errorf("actor: workspace of %d bytes, the plan needs %d: %w", buf.Size, mp.stats.ArenaBytes, ErrShortWorkspace)
	}
	if buf.Data != nil && int64(len(buf.Data)) < buf.Size {
		return fmt.Errorf("actor: workspace of %d bytes holds only %d bytes of contents: %w", buf.Size, len(buf.Data), ErrShortWorkspace)
	}
	if err := a.r.dropPlan(); err != nil {
		return err
	}
	mp.arena, mp.real, mp.borrowed = buf, buf.Data != nil, true
	a.r.plan = mp
	return nil
}

// dryPlan plans a run of the graph's declared input shapes without
// running it: InferShape and Resize of every node in order, on virtual
// tensors (goroutine 0, between runs).
func (r *KernelRunner) dryPlan() (*memPlan, error) {
	p := r.prog
	for _, in := range p.decl {
		if !in.Shape.Known() {
			return nil, fmt.Errorf("actor: input %q has shape %v: %w", in.Name, in.Shape, ErrDynamicWorkspace)
		}
	}
	for pos := range p.nodes {
		nd := &p.nodes[pos]
		if nd.guard.tok() >= 0 || nd.volatile {
			return nil, fmt.Errorf("actor: node %q (op %s) runs only as its data decide: %w", nd.name, nd.op(), ErrDynamicWorkspace)
		}
		for _, j := range nd.valueDeps() {
			if s := nd.in()[j]; p.slots[s].producer >= 0 || p.slots[s].isInput {
				return nil, fmt.Errorf("actor: node %q (op %s) reads the value of input %d: %w", nd.name, nd.op(), j, ErrDynamicWorkspace)
			}
		}
	}
	// A dry plan is no run: mode Replay's capture neither decides it nor
	// skips the InferShape of the nodes it replays. Its InferShape and
	// Resize write the slots' dtypes and shapes and the nodes' tiling
	// data, which a capture replays (a segment after a compute-dependent
	// node keeps the tiling of its captured shapes, not of the node's
	// upper bound): they are put back after it.
	c := r.capture
	r.capture = nil
	type meta struct {
		dt    kernel.DType
		shape kernel.Shape
	}
	metas := make([]meta, len(r.tensors))
	for s := range r.tensors {
		metas[s] = meta{r.tensors[s].DType, slices.Clone(r.tensors[s].Shape)}
	}
	tilings := make([]kernel.Tiling, len(r.tilings))
	for pos := range r.tilings {
		tl := r.tilingOf(pos)
		tilings[pos] = kernel.Tiling{Data: slices.Clone(tl.Data), Workspace: tl.Workspace}
	}
	defer func() {
		r.capture = c
		for s := range r.tensors {
			if !p.slots[s].isConst {
				t := &r.tensors[s]
				t.DType, t.Shape = metas[s].dt, append(t.Shape[:0], metas[s].shape...)
			}
		}
		for pos := range r.tilings {
			tl := r.tilingOf(pos)
			r.setTiling(pos, kernel.Tiling{Data: append(tl.Data[:0], tilings[pos].Data...), Workspace: tilings[pos].Workspace})
		}
		// The tilings put back are not the ones the local caches took
		// last (rok): the next Resize looks its key up.
		clear(r.rok)
	}()
	seen, seenWS := make([]int64, len(p.slots)), make([]int64, len(p.nodes))
	for s := range r.tensors {
		if !p.slots[s].isConst {
			t := &r.tensors[s]
			t.Host, t.Buf, t.DType, t.Shape = nil, device.Buffer{}, 0, t.Shape[:0]
		}
	}
	for i, s := range p.inputs {
		in := p.decl[i]
		r.tensors[s].DType, r.tensors[s].Shape = in.DType, append(r.tensors[s].Shape[:0], in.Shape...)
	}
	clear(r.skip)
	clear(r.staged)
	// bound names, by slot, the compute-dependent node whose upper bound
	// the slot's shape follows from ("" when it follows from the inputs).
	bound := make([]string, len(p.slots))
	for pos := range p.nodes {
		nd := &p.nodes[pos]
		from := ""
		for _, s := range nd.in() {
			if from == "" {
				from = bound[s]
			}
		}
		err := r.Infer(pos)
		if err == nil {
			err = r.Resize(pos)
		}
		if err != nil && from != "" {
			// Shapes a run computes would differ from the bound.
			return nil, fmt.Errorf("actor: node %q (op %s) fails on the upper bound of compute-dependent node %q, whose run-time shapes it follows: %w (%w)", nd.name, nd.op(), from, ErrDynamicWorkspace, err)
		}
		if err != nil {
			return nil, err
		}
		for _, s := range nd.out() {
			if bound[s] = from; nd.compute {
				bound[s] = nd.name
			}
		}
		for _, s := range p.nodes[pos].out() {
			seen[s] = r.tensors[s].Bytes()
		}
		seenWS[pos] = r.tilingOf(pos).Workspace
	}
	saved, savedWS := r.seen, r.seenWS
	r.seen, r.seenWS = seen, seenWS
	mp, _ := r.buildPlan(nil)
	r.seen, r.seenWS = saved, savedWS
	return mp, nil
}
