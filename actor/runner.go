package actor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime/debug"
	"slices"
	"time"

	"github.com/pipert/pipert/cache"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/clock"
	"github.com/pipert/pipert/internal/hostmem"
	"github.com/pipert/pipert/internal/spin"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// KernelRunner is the per-kernel core of an actor, the KernelRunner of
// MindSpore's runtime: for each kernel of a lowered graph it prepares the
// inputs, runs InferShape and Resize, and launches it (allocation, the real
// computation, the modeled launch, the frees), and it says what a kernel
// must wait for before its InferShape. It starts no goroutines and never
// decides to wait: the engine (the goroutine shell around it) decides which
// goroutine runs each step, as the stage plan says, and performs the waits
// that Needs names before it calls Resolve and Stage. Tests drive it step
// by step. An actor makes its own KernelRunner; the zero KernelRunner,
// and a nil *KernelRunner, run nothing: their steps return errors matching
// ErrMisuse, Prepare does nothing and their queries report no needs, no
// event and no resolved node.
//
// # Protocol
//
// A run is Begin, then for each kernel pos in execution order Prepare,
// (Needs, and for each need Resolve or Stage), Infer, Resize, Launch, then
// End. The steps of one kernel run in that order, each on one goroutine
// at a time with a happens-before edge to the next (the same goroutine, or
// a queue hand-off); different kernels' steps may run concurrently on
// different goroutines, as long as every kind of step runs in execution
// order (each is owned by one goroutine of the plan):
//
//   - Prepare and Begin/End: goroutine 0 (the caller of Run).
//   - Infer, Resolve and Stage: the goroutine of the plan's Infer stage,
//     which owns the copy stream.
//   - Launch: the goroutine of the plan's Launch stage, the only one that
//     allocates and frees during the run, in execution order (so peak
//     memory is KBK's), and the owner of the kernel stream.
//
// # Invariants
//
//  1. A step fails rather than panics: every call into kernel code is
//     recovered, and a panic becomes a *kernel.Error naming node, op,
//     stage, the panic value and its stack.
//  2. A kernel's outputs are valid before its Launch: InferShape must leave
//     every output with a valid dtype and non-negative dimensions whose
//     byte count fits in an int64, and must not replace the output tensors.
//  3. Everything a run allocated is freed by End, whatever failed: End
//     releases every live non-constant buffer, the workspace in flight and
//     the spare buffers (freeList).
type KernelRunner struct {
	prog *program
	dev  device.Device
	mem  *Memory
	// done is the current run's context's Done: a synthetic host cost
	// stops burning once it is closed (see burn).
	done <-chan struct{}
	// spare holds the buffers the run's launches freed, for its later
	// launches (see freeList); End empties it.
	spare *freeList
	// stream carries kernels, uploads and downloads in execution order.
	stream device.Stream

	tensors []kernel.Tensor // by slot
	// ptrs holds, from each node's ptrAt, the tensors its kernel gets as
	// inputs (slots or views), then as outputs (slots): see in and out.
	ptrs  []*kernel.Tensor
	ptrAt []int32
	// tilings holds, by node position, the node's tiling: its Resize's
	// (or a cache's) answer, kept across runs so that Resize writes into
	// the data it wrote last (nil: none yet, a zero tiling; see tilingOf
	// and setTiling).
	tilings []*kernel.Tiling
	// flow0 is the trace flow id of the run's first kernel (0: not
	// traced); node pos's is flow0+pos (see flowOf).
	flow0 uint64
	// evs holds the events of the nodes whose launches record one (the
	// watched and the published); evAt, by node position, the index of
	// its event in evs plus one (0: none). See Event.
	evs  []device.Event
	evAt []int32
	live []bool // by slot: holds device memory
	// staging holds, by value slot (slotInfo.value−1), the buffers for
	// host copies of values; staged the host copy of the value staged
	// in this run (nil: none yet), read through stagedOf. Owned by the
	// goroutine running InferShape.
	staging [][]byte
	staged  [][]byte
	// views are the tensors value-dependency inputs are read through, one
	// per (node, value dependency); the kernels' inputs (ptrs) point to
	// them: a copy of the slot with the staged value as Host, refreshed by
	// the node's Infer.
	// The slot itself is never written while other nodes read it, so a
	// launch in flight never races with the staging of a later reader.
	// A checked node (a kernel not kernel.Trusted) reads every input
	// through a view with dims of its own: a kernel that writes its
	// input's dtype or shape writes its view, which the runner checks and
	// puts back, never the slot that other stages read meanwhile. A
	// node's views are prog.viewed's inputs, from its node.viewBase.
	views []kernel.Tensor
	// vcopy holds, by view, a checked node's own copy of a value
	// dependency's value (see refreshViews).
	vcopy [][]byte
	// outs holds, by node position, the outputs a checked node's Resize,
	// Compute and OutputShapes see (nil for the others): views of its output
	// slots with dims of their own, refreshed before each of those stages
	// and compared with the slots after it. A kernel that writes an
	// output's dtype, shape or buffer after InferShape writes its view,
	// never the slot that the stages of its consumers read meanwhile.
	// outBase holds, by node position, the index in outViews and outs
	// of its first output's view (checked nodes only).
	outs     []*kernel.Tensor
	outViews []kernel.Tensor
	outBase  []int32
	// resolved marks compute-dependent nodes whose real output shapes are
	// set in this run; written by the goroutine running the Infer stage
	// (or goroutine 0 while the others are drained).
	resolved []bool
	// skip marks the nodes of spliced branches not taken in this run, set
	// by the goroutine running InferShape (see Brancher).
	skip    []bool
	runSeed uint64 // the run's number (kernel.Args.Run), set by Begin
	// runCtx is the run's context, for kernel.Interruptible kernels (nil:
	// none, outside a run).
	runCtx context.Context
	seed   uint64

	// A run fed by other parts (see Feed): pending marks input slots not
	// uploaded yet, written by goroutine 0 only; uploaded holds, by node
	// position, the event of the upload a launch must wait for, set by
	// goroutine 0 before it hands the node on.
	pending  []bool
	uploaded []device.Event
	upload   device.Stream // owned by goroutine 0
	upEvents []device.Event
	nUp      int
	publish  []bool // by node position: its launch is published (Feed)

	// Host caches (plan.Caches). local holds, by node position, the local
	// tiling cache of localSlots slots (local nil: off), made at the
	// node's first Resize (nil until then, and for a volatile node); it,
	// rkey and the tiling counts of cs belong to the goroutine running
	// Resize. ikey holds, by node position, the key of the node's last
	// InferShape, then its outputs, from ikeyLen (see keyOf; ikey nil:
	// InferReuse and SetupReuse off; iok: they are valid), iscratch the
	// key being built; they and cs's infer counts belong to the goroutine
	// running InferShape. The setup state and counts belong to goroutine
	// 0.
	local      []*cache.LRU
	localSlots int
	global     []*cache.Op // by attribute key (internedKey.id): its op's global entries (nil: off)
	ikey       [][]byte
	ikeyLen    []int32
	iok        []bool
	// rok, by node position (nil: no local tiling cache or no InferShape
	// key), says the node's last Resize ended with its tiling in its local
	// cache under the key of ikey, and that tiling still its tiling
	// (tilings): while the InferShape key stays the same, the next Resize is a
	// local hit known without building the key. Infer clears it when the
	// key changes; Resize reads and sets it.
	rok []bool
	// ver, by slot, counts the changes of the slot's dtype and shape
	// as its producer's InferShape gives them (bumped whenever they may
	// differ from the previous run's); iver holds, from each node's
	// iverOff, the versions of its inputs when its InferShape key was
	// last stored or found the same. A node whose inputs are all at
	// those versions (none a graph input, none read as a value) has the
	// same key without building it. Written by the goroutine running
	// InferShape (nil: InferReuse and SetupReuse off).
	ver     []uint32
	iver    []uint32
	iverOff []int32
	// lcost, by node position, is the node's last launch cost, valid
	// while cok: with the InferShape key unchanged, the operands and so
	// the cost are the same. Infer clears cok; the launching goroutine
	// reads and sets both.
	lcost []device.Cost
	cok   []bool
	// launched, when set (a traced actor), is told of every node whose
	// kernel the device took, pos to pos+n-1, by the launching goroutine.
	launched func(pos, n int)
	inferOn  bool // InferReuse
	setupOn  bool // SetupReuse: Setup is paid in Infer, on a miss
	// Memory plan (plan.MemoryPlan). seen and seenWS hold this run's
	// bytes of each slot and each node's workspace, seenReal (below)
	// whether any was real, fallbacks (below) the launches that did not
	// fit the plan, inArena the slots whose buffer is in the arena: all
	// written by the launching goroutine and read by goroutine 0 once the
	// run drained.
	planOn  bool
	plan    *memPlan
	seen    []int64
	seenWS  []int64
	replans int
	inArena []bool

	// capture is mode Replay's recorded run (nil in other modes).
	capture *capture
	// constsUp: every constant is on the device. epoch is the device's
	// (device.Epocher) when they were put there.
	constsUp bool
	epoch    uint64
	// tiling moves the tilings to the device (plan.TilingCopy).
	tiling *tilingCopy

	// What follows is written for every kernel, each group by the one
	// goroutine named, on cache lines of its own: the fields above are
	// read by every stage's goroutine, and a line that one of them wrote
	// would move to the others' cores with every kernel (zerocost, 2
	// cores: async 1 000 → 700 ns a kernel, pipeline 1 260 → 990 once
	// these and the engine's were apart).
	//
	// cs holds this run's cache counts, and the time its synthetic costs
	// and its kernels' computations took, by the stage that counts them
	// (indexed by kernel.Stage).
	//
	// The kernel contract's checks keep the shapes (and, before Compute,
	// the buffers) a stage must leave as they were: inferShapes, resizeIn
	// and launchIn, one scratch per stage.
	//
	// iscratch is the InferShape key being built (see ikey), rkey the
	// tiling key, rtiling the tiling Resize works on.
	//
	// largs and rargs are the kernel.Args the launching goroutine
	// (Compute, LaunchOn) and Resolve's hand a kernel, filled for it by
	// argsOf: a node keeps no Args of its own. lcargs and rcargs are
	// their copies with a checked node's output views (checkedArgs). ws
	// is the workspace of the launch in flight when it is not the memory
	// plan's (zero: none): a launch that fails leaves it for release.
	// seenReal and fallbacks belong to the memory plan (see planOn).
	_  linePad
	cs [kernel.StageLaunch + 1]stageCounts

	// The goroutine running InferShape's.
	_           linePad
	iscratch    []byte
	inferShapes []int64

	// The goroutine running Resize's.
	_        linePad
	rkey     []byte
	resizeIn []int64
	rtiling  kernel.Tiling

	// The launching goroutine's.
	_             linePad
	largs, lcargs kernel.Args
	ws            device.Buffer
	launchIn      []int64
	seenReal      bool
	fallbacks     int

	// Resolve's (the goroutine running InferShape, or goroutine 0).
	_             linePad
	rargs, rcargs kernel.Args
	_             linePad
}

// linePad keeps what precedes it and what follows it off one cache line.
type linePad [64]byte

// stageCounts is one stage's cache counts, on lines no other stage's
// counts share.
type stageCounts struct {
	plan.CacheStats
	// burnt is the wall time of the stage's synthetic costs in this run
	// (see burn); computed, Launch's only, that of its kernels' Compute
	// on real data.
	burnt, computed time.Duration
	_               linePad
}

// Need is one thing a kernel's InferShape waits for.
type Need struct {
	// Producer is the node position whose completion is needed.
	Producer int
	// Input is the consuming kernel's input position whose value must be
	// staged to the host (Stage), or -1 when the producer is
	// compute-dependent and its real output shapes must be read (Resolve).
	Input int
}

// newRunner makes the per-node and per-slot state of prog on dev, with one
// stream for kernels.
func newRunner(prog *program, dev device.Device, mem *Memory, seed uint64) *KernelRunner {
	r := &KernelRunner{
		prog: prog, dev: dev, mem: mem, spare: newFreeList(dev, mem), stream: newStream(dev), seed: seed,
		tensors:  make([]kernel.Tensor, len(prog.slots)),
		ptrAt:    make([]int32, len(prog.nodes)),
		tilings:  make([]*kernel.Tiling, len(prog.nodes)),
		evAt:     make([]int32, len(prog.nodes)),
		live:     make([]bool, len(prog.slots)),
		staging:  make([][]byte, prog.values),
		staged:   make([][]byte, prog.values),
		resolved: make([]bool, len(prog.nodes)),
		skip:     make([]bool, len(prog.nodes)),
	}
	n, nv, nout := 0, 0, 0
	for pos := range prog.nodes {
		nd := &prog.nodes[pos]
		n += len(nd.in()) + len(nd.out())
		nv += len(prog.viewed(pos))
		if nd.checked {
			nout += len(nd.out())
		}
	}
	r.ptrs = make([]*kernel.Tensor, n)
	r.views = make([]kernel.Tensor, nv)
	r.vcopy = make([][]byte, nv)
	if nout > 0 {
		r.outs = make([]*kernel.Tensor, nout)
		r.outViews = make([]kernel.Tensor, nout)
		r.outBase = make([]int32, len(prog.nodes))
		nout = 0
		for pos := range prog.nodes {
			if nd := &prog.nodes[pos]; nd.checked {
				r.outBase[pos] = int32(nout)
				nout += len(nd.out())
			}
		}
	}
	nv, n = 0, 0
	for pos := range prog.nodes {
		nd := &prog.nodes[pos]
		r.ptrAt[pos] = int32(n)
		in := r.in(pos)
		for i, s := range nd.in() {
			in[i] = &r.tensors[s]
		}
		for _, j := range prog.viewed(pos) {
			in[j] = &r.views[nv]
			nv++
		}
		for i, s := range nd.out() {
			r.ptrs[n+len(in)+i] = &r.tensors[s]
		}
		n += len(nd.in()) + len(nd.out())
		if nd.watched {
			r.addEvent(pos, newEvent(dev))
		}
	}
	return r
}

// tilingOf returns node pos's tiling.
func (r *KernelRunner) tilingOf(pos int) kernel.Tiling {
	if t := r.tilings[pos]; t != nil {
		return *t
	}
	return kernel.Tiling{}
}

// setTiling makes t node pos's tiling. A node keeps a tiling once it had
// one with data (or room for it) or a workspace, so that its next Resize
// writes into the same data.
func (r *KernelRunner) setTiling(pos int, t kernel.Tiling) {
	p := r.tilings[pos]
	if p == nil {
		if cap(t.Data) == 0 && t.Workspace == 0 {
			return
		}
		p = new(kernel.Tiling)
		r.tilings[pos] = p
	}
	*p = t
}

// globalOf returns node pos's entries in the global tiling cache (nil:
// none, or the cache is off).
func (r *KernelRunner) globalOf(pos int) *cache.Op {
	if r.global == nil {
		return nil
	}
	return r.global[r.prog.nodes[pos].key.id]
}

// keyOf returns node pos's last InferShape key (see ikey).
func (r *KernelRunner) keyOf(pos int) []byte { return r.ikey[pos][:r.ikeyLen[pos]] }

// in returns the tensors node pos's kernel gets as inputs: its input
// slots, or their views.
func (r *KernelRunner) in(pos int) []*kernel.Tensor {
	at, n := int(r.ptrAt[pos]), int(r.prog.nodes[pos].nin)
	return r.ptrs[at : at+n : at+n]
}

// out returns the tensors node pos's kernel gets as outputs: its output
// slots.
func (r *KernelRunner) out(pos int) []*kernel.Tensor {
	nd := &r.prog.nodes[pos]
	at := int(r.ptrAt[pos]) + int(nd.nin)
	return r.ptrs[at : at+int(nd.nout) : at+int(nd.nout)]
}

// flowOf returns node pos's trace flow id in this run (0: not traced).
func (r *KernelRunner) flowOf(pos int) uint64 {
	if r.flow0 == 0 {
		return 0
	}
	return r.flow0 + uint64(pos)
}

// argsOf fills a with what node pos's kernel is handed in this run and
// returns it: its operands, tiling, name, seed, run number, flow and the
// run's context, and no workspace.
func (r *KernelRunner) argsOf(pos int, a *kernel.Args) *kernel.Args {
	*a = kernel.Args{
		In: r.in(pos), Out: r.out(pos), Tiling: r.tilingOf(pos),
		Node: r.prog.nodes[pos].name,
		Seed: r.seed ^ (r.runSeed * 0x9e3779b97f4a7c15) ^ nameSeed(r.prog.nodes[pos].name),
		Run:  r.runSeed, Flow: r.flowOf(pos), Ctx: r.runCtx,
	}
	return a
}

// setCaches turns on the host caches of c.
func (r *KernelRunner) setCaches(c plan.Caches) {
	n := len(r.prog.nodes)
	if c.Kinds.Has(plan.TilingLocal) {
		// The caches are made as the nodes first need them: an
		// executable holds none before it runs.
		r.local, r.localSlots = make([]*cache.LRU, n), c.LocalSlots
	}
	if c.Kinds.Has(plan.TilingGlobal) {
		g := cache.Shared(c.GlobalSlots)
		r.global = make([]*cache.Op, r.prog.keys)
		for pos := range r.prog.nodes {
			if k := r.prog.nodes[pos].key; k.global != "" && r.global[k.id] == nil {
				r.global[k.id] = g.Op(k.global)
			}
		}
	}
	r.inferOn, r.setupOn = c.Kinds.Has(plan.InferReuse), c.Kinds.Has(plan.SetupReuse)
	if r.planOn = c.Kinds.Has(plan.MemoryPlan); r.planOn {
		r.seen, r.seenWS, r.inArena = make([]int64, len(r.prog.slots)), make([]int64, n), make([]bool, len(r.prog.slots))
	}
	if r.inferOn || r.setupOn {
		r.ikey, r.ikeyLen, r.iok = make([][]byte, n), make([]int32, n), make([]bool, n)
		if r.local != nil {
			r.rok = make([]bool, n)
		}
		r.lcost, r.cok = make([]device.Cost, n), make([]bool, n)
		r.ver, r.iverOff = make([]uint32, len(r.prog.slots)), make([]int32, n+1)
		for pos := range r.prog.nodes {
			r.iverOff[pos+1] = r.iverOff[pos] + int32(len(r.prog.nodes[pos].in()))
		}
		r.iver = make([]uint32, r.iverOff[n])
	}
}

// forgetAnswers drops what the host caches keep of the kernels' answers
// (InferShape's outputs, tilings, launch costs, replay captures) after a
// run that err failed in a kernel's stage: an answer that broke the
// kernel contract once (a shape, a workspace or a cost the run could not
// use) is not served to the next runs, which ask the kernels again. The
// failing node's tilings leave the global cache too: those its local
// cache lists, or without one the tiling this run asked for. A run that
// failed otherwise (cancelled, an input refused) keeps them.
func (r *KernelRunner) forgetAnswers(err error) {
	var ke *kernel.Error
	if !errors.As(err, &ke) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	for pos := range r.prog.nodes {
		g := r.globalOf(pos)
		if g == nil || r.prog.nodes[pos].name != ke.Node {
			continue
		}
		if r.local != nil && r.local[pos] != nil {
			r.local[pos].Keys(func(h uint64, key []byte) { g.Forget(h, key) })
		} else {
			// No local cache lists the node's keys: forget the one
			// this run asked for (its operands are still the run's).
			key := r.tilingKey(pos, nil)
			g.Forget(keyHash(key), key)
		}
	}
	clear(r.iok)
	clear(r.rok)
	clear(r.cok)
	for _, l := range r.local {
		if l != nil {
			l.Reset()
		}
	}
	if r.capture != nil {
		r.capture.invalidate()
	}
}

// uploadConsts copies the graph's constants to the device; they stay there
// until releaseConsts. After a failed upload, releaseConsts then
// uploadConsts again.
func (r *KernelRunner) uploadConsts(ctx context.Context) error {
	if err := r.uploadConsts1(ctx); err != nil {
		return err
	}
	r.constsUp = true
	return nil
}

func (r *KernelRunner) uploadConsts1(ctx context.Context) (err error) {
	defer devicePanic(&err)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("actor: upload constants: %w", err)
	}
	for i, s := range r.prog.consts {
		if err := r.place(s, r.prog.constVals[i], r.stream); err != nil {
			return fmt.Errorf("actor: upload constant %q: %w", r.prog.slots[s].name, err)
		}
	}
	return r.stream.Synchronize(ctx)
}

// place gives slot s the dtype, shape and contents of src: device memory,
// and a copy on stream st when src is real.
func (r *KernelRunner) place(s int, src *kernel.Tensor, st device.Stream) error {
	t := &r.tensors[s]
	t.Shape = append(t.Shape[:0], src.Shape...)
	t.DType, t.Host = src.DType, src.Host
	buf, err := r.mem.alloc(r.dev, t.Bytes(), src.Host != nil)
	if err != nil {
		return err
	}
	t.Buf = buf
	r.live[s] = true
	if src.Host != nil {
		return st.CopyH2D(buf, src.Host)
	}
	return nil
}

// releaseConsts frees the constants.
func (r *KernelRunner) releaseConsts() error {
	r.constsUp = false
	var first error
	for _, s := range r.prog.consts {
		if r.live[s] {
			r.live[s] = false
			if err := r.mem.free(r.dev, r.tensors[s].Buf); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// ensureDevice makes the device hold what the runner keeps there between
// runs: after a device reset (a new device.Epocher epoch) every buffer is
// gone and is forgotten, not freed; then the constants are uploaded again
// if they are not all there, waiting as long as ctx lets it. It runs on
// goroutine 0 before a run.
func (r *KernelRunner) ensureDevice(ctx context.Context) error {
	if ep, ok := r.dev.(device.Epocher); ok {
		if e := ep.Epoch(); e != r.epoch {
			r.forgetDevice()
			r.epoch = e
		}
	}
	if r.constsUp {
		return nil
	}
	if err := r.releaseConsts(); err != nil {
		return err
	}
	return r.uploadConsts(ctx)
}

// forgetDevice drops every buffer the runner holds without freeing it:
// the device was reset and freed them.
func (r *KernelRunner) forgetDevice() {
	for s := range r.live {
		if r.live[s] {
			r.live[s] = false
			if r.inArena == nil || !r.inArena[s] {
				r.mem.forget(r.tensors[s].Buf)
			}
			if r.inArena != nil {
				r.inArena[s] = false
			}
			r.tensors[s].Buf = device.Buffer{}
		}
	}
	r.spare.forget()
	r.constsUp = false
	if mp := r.plan; mp != nil {
		if !mp.borrowed {
			r.mem.forget(mp.arena)
		}
		r.plan = nil
		if r.capture != nil {
			r.capture.invalidate()
		}
	}
	if tc := r.tiling; tc != nil && !tc.pool.IsZero() {
		r.mem.forget(tc.pool)
		tc.pool = device.Buffer{}
	}
}

// Begin starts a run: it resets the per-run state and uploads the inputs
// (in the order of the graph's declared inputs, already checked). flow is
// the trace flow id of the first kernel (0: not traced).
func (r *KernelRunner) Begin(inputs []*kernel.Tensor, flow uint64) error {
	if r == nil || r.prog == nil {
		return errUnmade("Begin")
	}
	for s := range r.tensors {
		if r.prog.slots[s].isConst {
			continue
		}
		t := &r.tensors[s]
		t.Host, t.Buf, t.DType = nil, device.Buffer{}, 0
		t.Shape = t.Shape[:0]
	}
	clear(r.resolved)
	clear(r.skip)
	clear(r.staged)
	clear(r.cs[:])
	clear(r.seen)
	clear(r.seenWS)
	r.seenReal, r.fallbacks = false, 0
	r.runSeed++
	r.flow0 = flow
	clear(r.uploaded)
	r.nUp = 0
	for i, s := range r.prog.inputs {
		in := inputs[i]
		if in == nil {
			r.pending[s] = true // awaited: see Acquire
			continue
		}
		if err := r.place(s, in, r.stream); err != nil {
			return fmt.Errorf("actor: upload input %q: %w", r.prog.slots[s].name, err)
		}
	}
	return nil
}

// feedable makes the state a fed run needs.
func (r *KernelRunner) feedable() {
	if r.pending != nil {
		return
	}
	// The stream first: a device of the caller's may fail to make one
	// (a panic the run reports), and nothing is set then, so that the
	// next run tries again; pending, set last, says it is done.
	r.upload = newStream(r.dev)
	r.uploaded = make([]device.Event, len(r.prog.nodes))
	r.publish = make([]bool, len(r.prog.nodes))
	r.pending = make([]bool, len(r.prog.slots))
}

// Acquire uploads the graph inputs node pos reads that Begin left pending,
// getting each from await (which may block until another part produced
// it). It runs on goroutine 0, before Prepare(pos); the node's launch then
// waits for the upload on the device.
func (r *KernelRunner) Acquire(ctx context.Context, pos int, await func(ctx context.Context, input int) (*kernel.Tensor, error)) error {
	if r == nil || r.prog == nil {
		return errUnmade("Acquire")
	}
	nd := &r.prog.nodes[pos]
	for _, s := range nd.in() {
		if !r.pending[s] {
			continue
		}
		if err := r.acquire(ctx, int(s), await); err != nil {
			return err
		}
		if r.nUp == len(r.upEvents) {
			r.upEvents = append(r.upEvents, newEvent(r.dev))
		}
		ev := r.upEvents[r.nUp]
		r.nUp++
		r.upload.Record(ev)
		r.uploaded[pos] = ev
	}
	return nil
}

// acquire awaits pending graph input slot s and uploads it on the upload
// stream.
func (r *KernelRunner) acquire(ctx context.Context, s int, await func(ctx context.Context, input int) (*kernel.Tensor, error)) error {
	info := r.prog.slots[s]
	in, err := await(ctx, int(info.input))
	if err != nil {
		return fmt.Errorf("actor: input %q: %w", info.name, err)
	}
	if err := r.checkInput(int(info.input), in); err != nil {
		return err
	}
	if err := r.place(s, in, r.upload); err != nil {
		return fmt.Errorf("actor: upload input %q: %w", info.name, err)
	}
	r.pending[s] = false
	return nil
}

// AcquireRest uploads the awaited graph inputs no node reads (outputs
// passed through), after every node was fed, on goroutine 0; the stream
// waits for them before the outputs are copied.
func (r *KernelRunner) AcquireRest(ctx context.Context, await func(ctx context.Context, input int) (*kernel.Tensor, error)) error {
	if r == nil || r.prog == nil {
		return errUnmade("AcquireRest")
	}
	for _, s := range r.prog.inputs {
		if !r.pending[s] {
			continue
		}
		if err := r.acquire(ctx, s, await); err != nil {
			return err
		}
		ev := newEvent(r.dev)
		r.upload.Record(ev)
		r.stream.WaitEvent(ev)
	}
	return nil
}

// checkInput reports an awaited input that is not what graph input i
// declares.
func (r *KernelRunner) checkInput(i int, t *kernel.Tensor) error {
	d := r.prog.decl[i]
	switch {
	case t == nil:
		return fmt.Errorf("actor: %w: input %q is nil", subgraph.ErrBadInput, d.Name)
	case d.AnyShape && (!t.DType.Valid() || !t.Shape.Known()):
		return fmt.Errorf("actor: %w: input %q: %v %v", subgraph.ErrBadInput, d.Name, t.DType, t.Shape)
	case !d.AnyShape && (t.DType != d.DType || len(t.Shape) != len(d.Shape)):
		return fmt.Errorf("actor: %w: input %q: %v %v, declared %v %v", subgraph.ErrBadInput, d.Name, t.DType, t.Shape, d.DType, d.Shape)
	}
	if !d.AnyShape {
		for j, dim := range d.Shape {
			if dim != kernel.Dynamic && dim != t.Shape[j] {
				return fmt.Errorf("actor: %w: input %q: shape %v, declared %v", subgraph.ErrBadInput, d.Name, t.Shape, d.Shape)
			}
		}
	}
	n, ok := bytesOf(t.Shape, t.DType)
	if !ok || (t.Host != nil && int64(len(t.Host)) != n) {
		return fmt.Errorf("actor: %w: input %q: shape %v and %d bytes of data do not match", subgraph.ErrBadInput, d.Name, t.Shape, len(t.Host))
	}
	return nil
}

// Outputs copies the graph outputs to new host tensors, after every kernel
// launched; an output have holds already is taken from there.
func (r *KernelRunner) Outputs(ctx context.Context, have []*kernel.Tensor) ([]*kernel.Tensor, error) {
	if r == nil || r.prog == nil {
		return nil, errUnmade("Outputs")
	}
	outs := make([]*kernel.Tensor, len(r.prog.outputs))
	for i, s := range r.prog.outputs {
		if have != nil && have[i] != nil {
			outs[i] = have[i] // published already: the same contents
			continue
		}
		t := &r.tensors[s]
		o := &kernel.Tensor{Shape: t.Shape.Clone(), DType: t.DType}
		if t.Buf.Data != nil {
			var err error
			if o.Host, err = hostmem.Make(o.Bytes()); err != nil {
				return nil, fmt.Errorf("actor: download output %q: %w", r.prog.slots[s].name, err)
			}
			if err := r.stream.CopyD2H(ctx, o.Host, t.Buf); err != nil {
				return nil, fmt.Errorf("actor: download output %q: %w", r.prog.slots[s].name, err)
			}
		} else if t.Host != nil && t.Buf.IsZero() {
			o.Host = append([]byte(nil), t.Host[:o.Bytes()]...)
		}
		outs[i] = o
	}
	return outs, nil
}

// OutputsInto copies the graph outputs into the caller's tensors dst
// (RunInto), after every kernel launched: all of them, or, when one does
// not fit, none (ErrShortOutput).
func (r *KernelRunner) OutputsInto(ctx context.Context, dst []*kernel.Tensor) error {
	if r == nil || r.prog == nil {
		return errUnmade("OutputsInto")
	}
	for i, s := range r.prog.outputs {
		t := &r.tensors[s]
		real := t.Buf.Data != nil || t.Host != nil && t.Buf.IsZero()
		if n := t.Bytes(); real && int64(cap(dst[i].Host)) < n {
			return fmt.Errorf("actor: output %q: %d bytes into a buffer of %d: %w", r.prog.slots[s].name, n, cap(dst[i].Host), ErrShortOutput)
		}
	}
	for i, s := range r.prog.outputs {
		t, d := &r.tensors[s], dst[i]
		n := t.Bytes()
		d.DType, d.Shape, d.Buf = t.DType, append(d.Shape[:0], t.Shape...), device.Buffer{}
		var src []byte
		switch {
		case t.Buf.Data != nil:
		case t.Host != nil && t.Buf.IsZero():
			src = t.Host[:n]
		default:
			d.Host = nil // virtual
			continue
		}
		d.Host = d.Host[:n]
		if d.Host == nil {
			d.Host = []byte{} // real, and empty: not virtual
		}
		if src != nil {
			copy(d.Host, src)
			continue
		}
		if err := r.stream.CopyD2H(ctx, d.Host, t.Buf); err != nil {
			return fmt.Errorf("actor: download output %q: %w", r.prog.slots[s].name, err)
		}
	}
	return nil
}

// End frees every non-constant buffer still held after a run (outputs,
// unused inputs, and everything when the run failed), the workspace of
// a launch that failed half way and the buffers the run's launches kept
// for reuse (spare). It is safe to call whatever state a failed run left.
func (r *KernelRunner) End() error {
	if r == nil || r.prog == nil {
		return errUnmade("End")
	}
	var first error
	note := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	clear(r.pending)
	for s := range r.live {
		if r.live[s] && !r.prog.slots[s].isConst {
			r.live[s] = false
			if r.inArena != nil && r.inArena[s] {
				r.inArena[s] = false
				continue
			}
			note(r.mem.free(r.dev, r.tensors[s].Buf))
		}
	}
	if b := r.ws; !b.IsZero() {
		r.ws = device.Buffer{}
		note(r.mem.free(r.dev, b))
	}
	note(r.spare.release())
	return first
}

// releaseStreams tells the device the runner's streams are done, when the
// actor closes (device.StreamReleaser).
func (r *KernelRunner) releaseStreams() {
	var tiling device.Stream
	if r.tiling != nil {
		tiling = r.tiling.stream
	}
	device.ReleaseStreams(r.dev, r.stream, r.upload, tiling)
}

// newStream is d.NewStream, whose nil answer (a device breaking its
// contract) panics with a message naming the device: the callers recover
// a device's panics into the run's or Compile's error (ErrPanic).
func newStream(d device.Device) device.Stream {
	s := d.NewStream()
	if s == nil {
		panic(fmt.Sprintf("device %q: NewStream returned nil", d.Name()))
	}
	return s
}

// newEvent is d.NewEvent, checked as newStream.
func newEvent(d device.Device) device.Event {
	e := d.NewEvent()
	if e == nil {
		panic(fmt.Sprintf("device %q: NewEvent returned nil", d.Name()))
	}
	return e
}

// stageErr wraps a kernel failure with its node, op and stage.
func (r *KernelRunner) stageErr(pos int, st kernel.Stage, err error) error {
	nd := &r.prog.nodes[pos]
	return fmt.Errorf("actor: %w", &kernel.Error{Node: nd.name, Op: nd.op(), Stage: st, Err: err})
}

// recovered turns a panic of kernel code in stage st of node pos into an
// error; use as `defer r.recovered(pos, st, &err)`.
func (r *KernelRunner) recovered(pos int, st kernel.Stage, err *error) {
	if p := recover(); p != nil {
		*err = r.stageErr(pos, st, &PanicError{Value: p, Stack: debug.Stack()})
	}
}

// PanicError is the cause of a step's failure when kernel code panicked:
// the panic value and the stack of the goroutine that recovered it.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("panic: %v\n\n%s", e.Value, e.Stack)
}

// Is reports whether target is kernel.ErrPanic, which every PanicError
// matches.
func (e *PanicError) Is(target error) bool { return target == kernel.ErrPanic }

// Prepare gathers node pos's inputs. Inputs are bound when the graph is
// lowered, so the step is the node's synthetic prepare cost. A node of a
// spliced branch pays it in Infer, once it is known to run.
func (r *KernelRunner) Prepare(pos int) {
	if r == nil || r.prog == nil {
		return
	}
	if r.capture != nil && r.capture.noPrep[pos] {
		return // a replay is predicted: Infer pays it if there is none
	}
	if nd := &r.prog.nodes[pos]; nd.guard.tok() < 0 && !r.setupOn {
		r.burn(kernel.StagePrepare, nd.costs.Prepare)
	}
}

// taken reports whether node pos runs in this run: it is not in a spliced
// branch, or its branch was chosen (a node in a branch of a skipped If
// sees no choice). It is called by the goroutine running InferShape, after
// the choice's node was inferred.
func (r *KernelRunner) taken(pos int) bool {
	g := r.prog.nodes[pos].guard
	if g.tok() < 0 {
		return true
	}
	c := r.tensors[g.tok()].Host
	return len(c) == 1 && c[0] == g.want()
}

// Needs appends to out what node pos's InferShape waits for: compute-
// dependent producers of its inputs not yet resolved, and value-dependency
// inputs with no host copy yet. An empty result means InferShape may run.
func (r *KernelRunner) Needs(pos int, out []Need) []Need {
	if r == nil || r.prog == nil {
		return out
	}
	if !r.taken(pos) {
		return out // skipped: Infer needs nothing
	}
	nd := &r.prog.nodes[pos]
	for _, pr := range nd.cdeps() {
		if !r.resolved[pr] {
			out = append(out, Need{Producer: pr, Input: -1})
		}
	}
	for _, j := range nd.valueDeps() {
		if s := nd.in()[j]; r.tensors[s].Host != nil || r.stagedOf(int(s)) != nil {
			continue // a constant, a host input, or staged by an earlier reader
		}
		out = append(out, Need{Producer: int(r.prog.slots[nd.in()[j]].producer), Input: j})
	}
	return out
}

// Resolve sets the real output shapes of compute-dependent node pos, after
// it completed on the device (the caller has waited for that).
func (r *KernelRunner) Resolve(pos int) (err error) {
	if r == nil || r.prog == nil {
		return errUnmade("Resolve")
	}
	defer r.recovered(pos, kernel.StageLaunch, &err)
	if r.resolved[pos] {
		return nil
	}
	nd := &r.prog.nodes[pos]
	ar := r.argsOf(pos, &r.rargs)
	var shapes []kernel.Shape
	cd := nd.k.(kernel.ComputeDependent) // checked by newProgram
	if !nd.checked {
		shapes, err = cd.OutputShapes(ar)
	} else {
		shapes, err = cd.OutputShapes(r.checkedArgs(pos, ar, &r.rcargs))
		if perr := r.keptTensors(pos); perr != nil {
			return r.stageErr(pos, kernel.StageLaunch, badAnswer("OutputShapes %w", perr))
		}
		if cerr := r.sameOutputs(pos, true); cerr != nil && err == nil {
			err = badAnswer("OutputShapes %w", cerr)
		}
	}
	if err != nil {
		return r.stageErr(pos, kernel.StageLaunch, err)
	}
	out := r.out(pos)
	if len(shapes) != len(out) {
		return r.stageErr(pos, kernel.StageLaunch, badAnswer("OutputShapes returned %d shapes for %d outputs", len(shapes), len(out)))
	}
	for i, sh := range shapes {
		t := out[i]
		n, ok := bytesOf(sh, t.DType)
		if !ok {
			return r.stageErr(pos, kernel.StageLaunch, badAnswer("OutputShapes: output %d shape %v has a negative dimension or more bytes than an int64 counts", i, sh))
		}
		if len(sh) != len(t.Shape) {
			return r.stageErr(pos, kernel.StageLaunch, badAnswer("OutputShapes: output %d shape %v is not of rank %d, InferShape's", i, sh, len(t.Shape)))
		}
		if n > 0 && n > t.Buf.Size {
			return r.stageErr(pos, kernel.StageLaunch, badAnswer("OutputShapes: output %d shape %v exceeds the %d bytes allocated for InferShape's bound", i, sh, t.Buf.Size))
		}
		t.Shape = append(t.Shape[:0], sh...)
	}
	r.resolved[pos] = true
	return nil
}

// Stage copies value-dependency input j of node pos to the host over
// stream s, after its producer completed (the caller has waited for that
// or made s wait for it).
func (r *KernelRunner) Stage(ctx context.Context, pos, j int, s device.Stream) error {
	if r == nil || r.prog == nil {
		return errUnmade("Stage")
	}
	slot := r.prog.nodes[pos].in()[j]
	t := &r.tensors[slot]
	vs := int(r.prog.slots[slot].value) - 1
	if vs < 0 {
		return r.stageErr(pos, kernel.StageInfer, fmt.Errorf("stage input %d: not a value dependency", j))
	}
	if t.Host != nil || r.staged[vs] != nil {
		return nil
	}
	if t.Buf.Data == nil {
		// A virtual tensor has no value to stage: InferShape sees none and
		// says whether it can do without (an If reads its branch inputs'
		// shapes only, on virtual data).
		return nil
	}
	n := t.Bytes()
	if int64(cap(r.staging[vs])) < n {
		b, err := hostmem.Make(n)
		if err != nil {
			return r.stageErr(pos, kernel.StageInfer, fmt.Errorf("stage input %d: %w", j, err))
		}
		r.staging[vs] = b
	}
	h := r.staging[vs][:n]
	if err := s.CopyD2H(ctx, h, t.Buf); err != nil {
		return r.stageErr(pos, kernel.StageInfer, err)
	}
	r.staged[vs] = h
	return nil
}

// stagedOf is the host copy of slot s's value staged in this run (nil:
// none yet, or s is not a value slot).
func (r *KernelRunner) stagedOf(s int) []byte {
	if v := r.prog.slots[s].value; v > 0 {
		return r.staged[v-1]
	}
	return nil
}

// refreshViews gives node pos's views (prog.viewed; a checked node's dims
// copied, the others' shared) the dtype, shape and host value of their
// slots, the staged value as Host. It runs on the
// goroutine running InferShape, which may read a slot's buffer only once
// its producer's launch is known to have happened: for graph inputs and
// constants, and for staged slots. Other views get their buffer at the
// node's launch (viewBuffers).
func (r *KernelRunner) refreshViews(pos int) {
	nd := &r.prog.nodes[pos]
	in := r.in(pos)
	for i, j := range r.prog.viewed(pos) {
		s := nd.in()[j]
		t, v := &r.tensors[s], in[j]
		if nd.checked {
			v.Shape = append(v.Shape[:0], t.Shape...) // dims of its own
		} else {
			v.Shape = t.Shape
		}
		v.DType, v.Host, v.Buf = t.DType, t.Host, device.Buffer{}
		if h := r.stagedOf(int(s)); h != nil {
			v.Host = h
		}
		if nd.checked && v.Host != nil && slices.Contains(nd.valueDeps(), j) {
			// A value of its own, and no buffer until its launch: what
			// InferShape writes there reaches no caller's tensor,
			// constant or other reader (checked by valuesKept).
			vi := int(r.prog.nodes[pos].viewBase) + i
			r.vcopy[vi] = append(r.vcopy[vi][:0], v.Host...)
			v.Host = r.vcopy[vi]
			continue
		}
		if r.prog.slots[s].producer < 0 || r.stagedOf(int(s)) != nil {
			v.Buf = t.Buf
		}
	}
}

// valuesKept checks, after checked node pos's InferShape, that the
// values of its value-dependency inputs are those refreshViews copied.
func (r *KernelRunner) valuesKept(pos int) error {
	nd := &r.prog.nodes[pos]
	in := r.in(pos)
	for i, j := range r.prog.viewed(pos) {
		s := nd.in()[j]
		src := r.tensors[s].Host
		if h := r.stagedOf(int(s)); h != nil {
			src = h
		}
		if src == nil || !slices.Contains(nd.valueDeps(), j) {
			continue
		}
		if c := r.vcopy[int(r.prog.nodes[pos].viewBase)+i]; !bytes.Equal(c, src) || !bytes.Equal(in[j].Host, src) {
			return fmt.Errorf("wrote the value of input %d", j)
		}
	}
	return nil
}

// viewBuffers gives node pos's views their slots' buffers; it runs on the
// launching goroutine, which set them.
func (r *KernelRunner) viewBuffers(pos int) {
	nd, in := &r.prog.nodes[pos], r.in(pos)
	for _, j := range r.prog.viewed(pos) {
		in[j].Buf = r.tensors[nd.in()[j]].Buf
	}
}

// Infer runs node pos's InferShape and checks what it inferred. A node of
// a spliced branch not taken is marked skipped instead: its outputs are
// empty, and Resize and Launch pass it by.
func (r *KernelRunner) Infer(pos int) (err error) {
	if r == nil || r.prog == nil {
		return errUnmade("Infer")
	}
	defer r.recovered(pos, kernel.StageInfer, &err)
	nd := &r.prog.nodes[pos]
	in, out := r.in(pos), r.out(pos)
	if nd.guard.tok() >= 0 {
		if !r.taken(pos) {
			r.skip[pos], r.resolved[pos] = true, true
			for _, t := range out {
				t.Shape = append(t.Shape[:0], 0)
			}
			r.bumpOutputs(pos)
			return nil
		}
	}
	if r.capture != nil {
		if r.decide(pos) {
			if r.ikey != nil {
				r.forgetKeyed(pos)
				r.bumpOutputs(pos)
			}
			return nil
		}
		if r.capture.noPrep[pos] && !r.setupOn {
			r.burn(kernel.StageInfer, nd.costs.Prepare) // predicted a replay, fell back
		}
	}
	r.refreshViews(pos)
	// The node's Setup is paid here when its Prepare did not pay it: for
	// a node of a spliced branch, once it is known to run, and under
	// SetupReuse, where the input shapes are known, unless they are the
	// previous run's.
	cs := &r.cs[kernel.StageInfer]
	reuse := r.ikey != nil && !nd.volatile
	same := false
	if reuse {
		if same = r.inputsKept(pos); !same {
			r.iscratch = r.inferKey(pos, r.iscratch[:0])
			same = r.iok[pos] && bytes.Equal(r.iscratch, r.keyOf(pos))
			if same {
				r.noteInputs(pos)
			} else {
				r.iok[pos] = false // until InferShape succeeds
				r.forgetKeyed(pos)
			}
		}
	}
	if r.ver != nil && (!same || nd.checked) {
		// Outputs InferShape gives anew (a kernel of the caller's is
		// not trusted to give the same twice).
		r.bumpOutputs(pos)
	}
	if r.setupOn {
		if same {
			cs.SetupHits++
		} else {
			cs.SetupMisses++
		}
	}
	if (r.setupOn || nd.guard.tok() >= 0) && !(r.setupOn && same) {
		r.burn(kernel.StageInfer, nd.costs.Prepare)
	}
	if r.inferOn && reuse {
		if same {
			r.restoreOutputs(pos, r.ikey[pos][r.ikeyLen[pos]:])
			cs.InferHits++
			return nil
		}
		cs.InferMisses++
	}
	if nd.checked {
		r.inferShapes = saveShapes(r.inferShapes[:0], in)
	}
	if nd.numbered {
		nd.k.(kernel.RunNumbered).SetRun(r.runSeed)
	}
	if nd.stoppable {
		ctx := r.runCtx
		if ctx == nil {
			ctx = context.Background()
		}
		nd.k.(kernel.Interruptible).SetContext(ctx)
	}
	err = nd.k.InferShape(in, out)
	if nd.checked {
		if perr := r.keptTensors(pos); perr != nil {
			return r.stageErr(pos, kernel.StageInfer, badAnswer("InferShape %w", perr))
		}
		if verr := r.valuesKept(pos); verr != nil && err == nil {
			err = badAnswer("InferShape %w", verr)
		}
		if i := changedShape(r.inferShapes, in); i >= 0 {
			restoreShapes(r.inferShapes, in) // only then: other stages read them
			if err == nil {
				err = badAnswer("InferShape changed the dtype or shape of input %d", i)
			}
		}
	}
	if err != nil {
		if !errors.Is(err, kernel.ErrBadAnswer) && (r.runCtx == nil || r.runCtx.Err() == nil) {
			// The kernel refused its operands, as Validate's
			// inference does for shapes it knows before a run.
			err = fmt.Errorf("%w: %w", subgraph.ErrInferShape, err)
		}
		return r.stageErr(pos, kernel.StageInfer, err)
	}
	for i, s := range nd.out() {
		t := out[i]
		if t != &r.tensors[s] {
			out[i] = &r.tensors[s]
			return r.stageErr(pos, kernel.StageInfer, badAnswer("InferShape replaced output tensor %d", i))
		}
		if !t.DType.Valid() {
			return r.stageErr(pos, kernel.StageInfer, badAnswer("output %d has invalid dtype %v", i, t.DType))
		}
		if _, ok := bytesOf(t.Shape, t.DType); !ok {
			if !nd.checked {
				// A built-in kernel's operands (a value input's
				// huge sizes) ask for it: they are at fault.
				return r.stageErr(pos, kernel.StageInfer, fmt.Errorf("%w: output %d shape %v has a negative dimension or more bytes than an int64 counts", subgraph.ErrInferShape, i, t.Shape))
			}
			return r.stageErr(pos, kernel.StageInfer, badAnswer("output %d shape %v has a negative dimension or more bytes than an int64 counts", i, t.Shape))
		}
	}
	if reuse && !r.iok[pos] && len(r.iscratch) <= math.MaxInt32 {
		r.ikeyLen[pos] = int32(len(r.iscratch))
		r.ikey[pos] = r.appendOutputs(pos, append(r.ikey[pos][:0], r.iscratch...))
		r.iok[pos] = true
		r.noteInputs(pos)
	}
	r.burn(kernel.StageInfer, nd.costs.Infer)
	return nil
}

// Resize gives node pos its tiling: from the node's local tiling cache,
// else from the global one, else by running the kernel's Resize (and then
// both caches keep it).
func (r *KernelRunner) Resize(pos int) (err error) {
	if r == nil || r.prog == nil {
		return errUnmade("Resize")
	}
	if r.skip[pos] || r.replaying(pos) {
		return nil
	}
	defer r.recovered(pos, kernel.StageResize, &err)
	// The node's tiling is worked on in rtiling and kept when Resize
	// succeeds: a node without a tiling holds none.
	tl := &r.rtiling
	*tl = r.tilingOf(pos)
	if err := r.tile(pos, tl); err != nil {
		return err
	}
	r.setTiling(pos, *tl)
	return nil
}

// tile is Resize of node pos, into tl.
func (r *KernelRunner) tile(pos int, tl *kernel.Tiling) error {
	nd := &r.prog.nodes[pos]
	local := r.local != nil && !nd.volatile
	if local && r.local[pos] == nil {
		r.local[pos] = cache.NewLRU(r.localSlots)
	}
	global := r.globalOf(pos)
	if !local && global == nil {
		if err := r.resize(pos, tl); err != nil {
			return err
		}
		r.burn(kernel.StageResize, nd.costs.Resize)
		return nil
	}
	if local && r.rok != nil {
		if r.rok[pos] && r.iok[pos] {
			// The key the local cache would be asked for is the one
			// it answered last, with the tiling the node still has.
			r.cs[kernel.StageResize].LocalHits++
			r.burn(kernel.StageResize, nd.costs.Resize-nd.costs.Tiling)
			return nil
		}
		r.rok[pos] = false
	}
	r.rkey = r.tilingKey(pos, r.rkey[:0])
	h := keyHash(r.rkey)
	if local {
		if d, ws, ok := r.local[pos].Get(h, r.rkey, tl.Data); ok {
			tl.Data, tl.Workspace = d, ws
			r.cs[kernel.StageResize].LocalHits++
			r.keepTiling(pos)
			r.burn(kernel.StageResize, nd.costs.Resize-nd.costs.Tiling)
			return nil
		}
		r.cs[kernel.StageResize].LocalMisses++
	}
	if global != nil {
		d, ws, computed, err := global.Fill(h, r.rkey, tl.Data, func(dst []byte) (v cache.Value, err error) {
			// Recovered here, so that callers waiting for this
			// computation get an error, not this node's panic.
			defer r.recovered(pos, kernel.StageResize, &err)
			tl.Data = dst
			if err := r.resize(pos, tl); err != nil {
				return cache.Value{}, err
			}
			return cache.Value{Data: tl.Data, Workspace: tl.Workspace}, nil
		})
		if err != nil {
			return err
		}
		tl.Data, tl.Workspace = d, ws
		if computed {
			r.cs[kernel.StageResize].GlobalMisses++
			r.burn(kernel.StageResize, nd.costs.Resize)
		} else {
			r.cs[kernel.StageResize].GlobalHits++
			r.burn(kernel.StageResize, nd.costs.Resize-nd.costs.Tiling)
		}
	} else {
		if err := r.resize(pos, tl); err != nil {
			return err
		}
		r.burn(kernel.StageResize, nd.costs.Resize)
	}
	if local {
		r.local[pos].Put(h, r.rkey, tl.Data, tl.Workspace)
		r.keepTiling(pos)
	}
	return nil
}

// inputsKept reports whether node pos's InferShape key is known to be
// the stored one without building it: the key is valid, no input is read
// as a value, is a graph input (set by the caller) or the output of a
// compute-dependent kernel (set by its OutputShapes, after its launch),
// and every input slot is at the version noted with the key.
func (r *KernelRunner) inputsKept(pos int) bool {
	nd := &r.prog.nodes[pos]
	if !r.iok[pos] || len(nd.valueDeps()) > 0 || len(nd.cdeps()) > 0 {
		return false
	}
	noted := r.iver[r.iverOff[pos]:r.iverOff[pos+1]]
	for j, s := range nd.in() {
		if r.prog.slots[s].isInput || r.ver[s] != noted[j] {
			return false
		}
	}
	return true
}

// noteInputs notes the versions of node pos's inputs, whose key is the
// stored one.
func (r *KernelRunner) noteInputs(pos int) {
	noted := r.iver[r.iverOff[pos]:r.iverOff[pos+1]]
	for j, s := range r.prog.nodes[pos].in() {
		noted[j] = r.ver[s]
	}
}

// bumpOutputs marks node pos's outputs as changed (ver).
func (r *KernelRunner) bumpOutputs(pos int) {
	if r.ver == nil {
		return
	}
	for _, s := range r.prog.nodes[pos].out() {
		r.ver[s]++
	}
}

// forgetKeyed forgets what node pos kept under its InferShape key, which
// changed: its tiling's place in the local cache, its launch cost.
func (r *KernelRunner) forgetKeyed(pos int) {
	if r.rok != nil {
		r.rok[pos] = false
	}
	r.cok[pos] = false
}

// keepTiling notes that node pos's tiling is its local cache's latest
// entry, under the node's InferShape key (rok). A node of a user's kernel
// is left out: its InferShape is trusted for shapes, not for giving the
// same outputs twice, and its Launch could write its tiling.
func (r *KernelRunner) keepTiling(pos int) {
	if r.rok != nil && r.iok[pos] && !r.prog.nodes[pos].checked {
		r.rok[pos] = true
	}
}

// resize runs node pos's Resize into tl and checks it.
func (r *KernelRunner) resize(pos int, tl *kernel.Tiling) error {
	nd := &r.prog.nodes[pos]
	in, out := r.in(pos), r.out(pos)
	if nd.checked {
		out = r.outputViews(pos, false)
		r.resizeIn = saveShapes(r.resizeIn[:0], in)
	}
	err := nd.k.Resize(in, out, tl)
	if nd.checked {
		if perr := r.keptTensors(pos); perr != nil {
			return r.stageErr(pos, kernel.StageResize, badAnswer("Resize %w", perr))
		}
		if cerr := sameInputs(r.resizeIn, in); cerr != nil && err == nil {
			err = badAnswer("Resize %w", cerr)
		}
	}
	if err != nil {
		return r.stageErr(pos, kernel.StageResize, err)
	}
	if nd.checked {
		if err := r.sameOutputs(pos, false); err != nil {
			return r.stageErr(pos, kernel.StageResize, badAnswer("Resize %w", err))
		}
	}
	if tl.Workspace < 0 {
		return r.stageErr(pos, kernel.StageResize, badAnswer("negative workspace %d", tl.Workspace))
	}
	return nil
}

// Launch allocates node pos's outputs and workspace, computes the real
// results when the data is real, launches the kernel's modeled work on the
// stream, records the node's event if someone waits on it, and frees what
// dies here.
func (r *KernelRunner) Launch(pos int) error {
	if r == nil || r.prog == nil {
		return errUnmade("Launch")
	}
	if r.replaying(pos) {
		if c := r.capture; pos == c.segs[c.seg[pos]].first {
			return r.replaySegment(pos)
		}
		return nil // replayed with the segment's first kernel
	}
	return r.launch(pos)
}

// launch is Launch of a kernel not replayed.
func (r *KernelRunner) launch(pos int) (err error) {
	defer r.recovered(pos, kernel.StageLaunch, &err)
	nd := &r.prog.nodes[pos]
	if r.uploaded != nil {
		if ev := r.uploaded[pos]; ev != nil {
			r.stream.WaitEvent(ev) // even when skipped: later readers rely on it
		}
	}
	if r.skip[pos] {
		if nd.watched || r.publish != nil && r.publish[pos] {
			r.stream.Record(r.Event(pos))
		}
		return r.freeDead(pos)
	}
	r.viewBuffers(pos)
	out := r.out(pos)
	real := nd.outputsReal(r.in(pos))
	allPlanned := r.planOn
	if real && r.planOn {
		r.seenReal = true
	}
	for i, s := range nd.out() {
		t := out[i]
		n := t.Bytes()
		if r.planOn {
			r.seen[s] = n
			if buf, ok := r.planned(int(s), n, real); ok {
				t.Buf = buf
				r.live[s], r.inArena[s] = true, true
				continue
			}
			r.fallbacks++
			allPlanned = false
		}
		buf, err := r.spare.alloc(n, real)
		if err != nil {
			return r.stageErr(pos, kernel.StageLaunch, fmt.Errorf("output %d: %w", i, err))
		}
		t.Buf = buf
		r.live[s] = true
	}
	ownWS := false // the workspace is r.ws, not the plan's
	var ws device.Buffer
	if n := r.tilingOf(pos).Workspace; n > 0 {
		var buf device.Buffer
		ok := false
		if r.planOn {
			r.seenWS[pos] = n
			if buf, ok = r.plannedWS(pos, n, real); !ok {
				r.fallbacks++
				allPlanned = false
			}
		}
		if !ok {
			var err error
			if buf, err = r.spare.alloc(n, real); err != nil {
				return r.stageErr(pos, kernel.StageLaunch, fmt.Errorf("workspace: %w", err))
			}
			r.ws, ownWS = buf, true
		}
		ws = buf
	}
	if l, ok := nd.k.(Launcher); ok {
		ar := r.argsOf(pos, &r.largs)
		ar.Workspace = ws
		err := l.LaunchOn(r.stream, ar, real)
		r.largs.Workspace = device.Buffer{}
		if err != nil {
			return r.stageErr(pos, kernel.StageLaunch, err)
		}
		if r.launched != nil {
			r.launched(pos, 1) // a Launcher ends its kernel's flow
		}
	} else {
		cost, err := r.cost(pos)
		if err != nil {
			return r.stageErr(pos, kernel.StageLaunch, err)
		}
		k := device.Kernel{Name: nd.op(), Cost: cost, Flow: r.flowOf(pos)}
		r.tilingBefore(pos, &k)
		if real {
			t0 := clock.Now()
			if err := r.compute(pos, ws); err != nil {
				return r.stageErr(pos, kernel.StageLaunch, err)
			}
			k.Computed = device.Interval{Start: t0, End: clock.Now()}
			r.cs[kernel.StageLaunch].computed += time.Duration(k.Computed.End - k.Computed.Start)
		}
		if err := r.stream.Launch(k); err != nil {
			return r.stageErr(pos, kernel.StageLaunch, err)
		}
		if r.launched != nil {
			r.launched(pos, 1)
		}
		r.tilingAfter(pos)
	}
	if nd.watched || r.publish != nil && r.publish[pos] {
		r.stream.Record(r.Event(pos))
	}
	if ownWS {
		b := r.ws
		r.ws = device.Buffer{}
		if err := r.spare.free(b); err != nil {
			return r.stageErr(pos, kernel.StageLaunch, err)
		}
	}
	if err := r.freeDead(pos); err != nil {
		return err
	}
	if allPlanned {
		r.burn(kernel.StageLaunch, nd.costs.Launch-nd.costs.Alloc)
	} else {
		r.burn(kernel.StageLaunch, nd.costs.Launch)
	}
	return nil
}

// freeDead frees the slots whose last use is node pos.
func (r *KernelRunner) freeDead(pos int) error {
	for _, s := range r.prog.nodes[pos].free() {
		if r.live[s] {
			r.live[s] = false
			if r.inArena != nil && r.inArena[s] {
				r.inArena[s] = false
				continue
			}
			if err := r.spare.free(r.tensors[s].Buf); err != nil {
				return r.stageErr(pos, kernel.StageLaunch, err)
			}
		}
	}
	return nil
}

// published copies graph output out, produced by node pos, to a new host
// tensor (virtual when the computation was), after the node completed.
// It runs on the publishing goroutine, with its own stream s.
func (r *KernelRunner) published(ctx context.Context, out int, s device.Stream) (*kernel.Tensor, error) {
	t := &r.tensors[r.prog.outputs[out]]
	o := &kernel.Tensor{Shape: t.Shape.Clone(), DType: t.DType}
	if t.Buf.Data != nil {
		var err error
		if o.Host, err = hostmem.Make(o.Bytes()); err != nil {
			return nil, fmt.Errorf("actor: publish output %q: %w", r.prog.slots[r.prog.outputs[out]].name, err)
		}
		if err := s.CopyD2H(ctx, o.Host, t.Buf); err != nil {
			return nil, fmt.Errorf("actor: publish output %q: %w", r.prog.slots[r.prog.outputs[out]].name, err)
		}
	}
	return o, nil
}

// Event is node pos's completion event (nil unless someone waits on it).
func (r *KernelRunner) Event(pos int) device.Event {
	if r == nil || r.prog == nil {
		return nil
	}
	if i := r.evAt[pos]; i > 0 {
		return r.evs[i-1]
	}
	return nil
}

// addEvent gives node pos event ev, recorded by its launches. It is
// called while no run goes on.
func (r *KernelRunner) addEvent(pos int, ev device.Event) {
	r.evs = append(r.evs, ev)
	r.evAt[pos] = int32(len(r.evs))
}

// Compute reports whether node pos is compute-dependent.
func (r *KernelRunner) Compute(pos int) bool {
	return r != nil && r.prog != nil && r.prog.nodes[pos].compute
}

// Resolved reports whether node pos's real output shapes are set in this
// run (a compute-dependent node's, by its first consumer's Resolve).
func (r *KernelRunner) Resolved(pos int) bool { return r != nil && r.prog != nil && r.resolved[pos] }

// elements is the element count of shape sh, false if a dimension is
// negative or the count overflows an int64.
func elements(sh kernel.Shape) (int64, bool) {
	n := uint64(1)
	for _, d := range sh {
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > 1<<63-1 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}

// bytesOf is the byte count of a tensor of shape sh and dtype dt, false if
// it is not a valid count.
func bytesOf(sh kernel.Shape, dt kernel.DType) (int64, bool) {
	n, ok := elements(sh)
	if !ok {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(n), uint64(dt.Size()))
	if hi != 0 || lo > 1<<63-1 {
		return 0, false
	}
	return int64(lo), true
}

// Launcher is implemented by kernels that a device actor runs somewhere
// other than on its stream (package heterog's nodes computed on the host
// CPU): LaunchOn replaces the computation and launch of the kernel. It gets
// the actor's stream, the kernel's arguments with outputs and workspace
// allocated, and whether the data is real (Compute must run).
type Launcher interface {
	LaunchOn(s device.Stream, a *kernel.Args, real bool) error
}

// burn burns synthetic host cost d, stopping early when the run's context
// ends, in stage s (the stage whose goroutine runs it: a Prepare cost paid
// in Infer is Infer's), and adds the wall time it took to the stage's
// burnt time.
func (r *KernelRunner) burn(s kernel.Stage, d time.Duration) {
	if d <= 0 {
		return
	}
	t := clock.Now()
	spin.ForUntil(d, r.done)
	r.cs[s].burnt += time.Duration(clock.Now() - t)
}

// compute runs node pos's Compute and, unless its kernel is
// kernel.Trusted, checks that it left its outputs' tensors, shapes and
// buffers as they were; a replaced buffer is put back, so that the run
// frees what it allocated. ws is the node's workspace (zero: none). It
// runs on the launching goroutine.
func (r *KernelRunner) compute(pos int, ws device.Buffer) error {
	nd := &r.prog.nodes[pos]
	ar := r.argsOf(pos, &r.largs)
	ar.Workspace = ws
	// The arguments keep no buffer past the launch.
	defer func() { r.largs.Workspace, r.lcargs.Workspace = device.Buffer{}, device.Buffer{} }()
	if !nd.checked {
		return nd.k.Compute(ar)
	}
	ca := r.checkedArgs(pos, ar, &r.lcargs)
	r.launchIn = saveShapes(r.launchIn[:0], ar.In)
	err := nd.k.Compute(ca)
	if perr := r.keptTensors(pos); perr != nil {
		return badAnswer("Compute %w", perr)
	}
	if cerr := sameInputs(r.launchIn, ar.In); cerr != nil && err == nil {
		err = badAnswer("Compute %w", cerr)
	}
	if cerr := r.sameOutputs(pos, true); cerr != nil && err == nil {
		err = badAnswer("Compute %w", cerr)
	}
	return err
}

// badAnswer is the error of a kernel's answer that breaks the Kernel
// contract: it matches kernel.ErrBadAnswer.
func badAnswer(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{kernel.ErrBadAnswer}, a...)...)
}

// outputViews refreshes checked node pos's output views (r.outs) from
// its slots, as InferShape left them: the dtype, the shape (dims of their
// own) and the host value, and the buffer when withBuf is set (Compute;
// Resize runs before the outputs have one). It returns them.
func (r *KernelRunner) outputViews(pos int, withBuf bool) []*kernel.Tensor {
	nd := &r.prog.nodes[pos]
	at := int(r.outBase[pos])
	outs := r.outs[at : at+int(nd.nout) : at+int(nd.nout)]
	for i, s := range nd.out() {
		v := r.outView(pos, i)
		outs[i] = v
		t := &r.tensors[s]
		v.DType, v.Shape, v.Host, v.Buf = t.DType, append(v.Shape[:0], t.Shape...), t.Host, device.Buffer{}
		if withBuf {
			v.Buf = t.Buf
		}
	}
	return outs
}

// checkedArgs returns the arguments checked node pos's Compute and
// OutputShapes are handed, in ca: its arguments ar with its output
// views, buffers included.
func (r *KernelRunner) checkedArgs(pos int, ar, ca *kernel.Args) *kernel.Args {
	*ca = *ar
	ca.Out = r.outputViews(pos, true)
	return ca
}

// outView returns checked node pos's view of output i.
func (r *KernelRunner) outView(pos, i int) *kernel.Tensor {
	return &r.outViews[int(r.outBase[pos])+i]
}

// keptTensors checks that a call into checked node pos's kernel left
// the tensors of its arguments where the runtime put them: its inputs'
// views and its output slots (the output views are refreshed before each
// stage that hands them over). It puts back every one replaced, and
// reports the first.
func (r *KernelRunner) keptTensors(pos int) error {
	nd := &r.prog.nodes[pos]
	in, out := r.in(pos), r.out(pos)
	var err error
	for i, j := range r.prog.viewed(pos) {
		if want := &r.views[int(r.prog.nodes[pos].viewBase)+i]; in[j] != want {
			in[j] = want
			if err == nil {
				err = fmt.Errorf("replaced input tensor %d", j)
			}
		}
	}
	for i, s := range nd.out() {
		if want := &r.tensors[s]; out[i] != want {
			out[i] = want
			if err == nil {
				err = fmt.Errorf("replaced output tensor %d", i)
			}
		}
	}
	return err
}

// cost asks node pos's kernel for the device work of its launch; for a
// checked node, it checks that Cost left the tensors in place.
func (r *KernelRunner) cost(pos int) (device.Cost, error) {
	if r.cok != nil && r.cok[pos] {
		return r.lcost[pos], nil
	}
	nd := &r.prog.nodes[pos]
	c := nd.k.Cost(r.in(pos), r.out(pos))
	if nd.checked {
		if err := r.keptTensors(pos); err != nil {
			return c, badAnswer("Cost %w", err)
		}
		return c, nil
	}
	if r.cok != nil && r.iok[pos] { // a volatile node never has its key
		r.lcost[pos], r.cok[pos] = c, true
	}
	return c, nil
}

// sameOutputs checks that a stage after InferShape left checked node
// pos's output views as outputViews made them: the views themselves, of
// their slots' dtypes and shapes, and, when withBuf is set, buffers. The
// slots are never written: the next refresh puts the views back.
func (r *KernelRunner) sameOutputs(pos int, withBuf bool) error {
	for i, s := range r.prog.nodes[pos].out() {
		v, t := r.outs[int(r.outBase[pos])+i], &r.tensors[s]
		switch {
		case v != r.outView(pos, i):
			return fmt.Errorf("replaced output tensor %d", i)
		case v.DType != t.DType || !slices.Equal(v.Shape, t.Shape):
			return fmt.Errorf("changed the dtype or shape of output %d", i)
		case withBuf && (v.Buf.Addr != t.Buf.Addr || v.Buf.Size != t.Buf.Size):
			return fmt.Errorf("replaced the buffer of output %d", i)
		}
	}
	return nil
}

// sameInputs checks that a stage after InferShape left the dtypes and
// shapes of a node's inputs as saveShapes saved them (other kernels read
// them), and puts them back if not.
func sameInputs(saved []int64, in []*kernel.Tensor) error {
	if i := changedShape(saved, in); i >= 0 {
		restoreShapes(saved, in)
		return fmt.Errorf("changed the dtype or shape of input %d", i)
	}
	return nil
}

// saveShapes appends the dtypes and shapes of ts to buf, each as its
// dtype, rank and dims.
func saveShapes(buf []int64, ts []*kernel.Tensor) []int64 {
	for _, t := range ts {
		buf = append(buf, int64(t.DType), int64(len(t.Shape)))
		buf = append(buf, t.Shape...)
	}
	return buf
}

// changedShape returns the index of the first tensor of ts whose dtype or
// shape is not the one saveShapes saved, or -1.
func changedShape(saved []int64, ts []*kernel.Tensor) int {
	for i, t := range ts {
		n := int(saved[1])
		if t.DType != kernel.DType(saved[0]) || len(t.Shape) != n {
			return i
		}
		for j, d := range t.Shape {
			if d != saved[2+j] {
				return i
			}
		}
		saved = saved[2+n:]
	}
	return -1
}

// restoreShapes puts back the dtypes and shapes saveShapes saved.
func restoreShapes(saved []int64, ts []*kernel.Tensor) {
	for _, t := range ts {
		n := int(saved[1])
		t.DType = kernel.DType(saved[0])
		t.Shape = append(t.Shape[:0], saved[2:2+n]...)
		saved = saved[2+n:]
	}
}
