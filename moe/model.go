package moe

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pipert/pipert/device/fabric"
)

// Costs are the figures of the modeled run. The document gives only the
// compute units (304) and the grids it tuned (256 and 304 blocks); the
// rest is marked with its source.
type Costs struct {
	// CUs is the compute units per device: a kernel's grid is at most
	// this many resident blocks (document: MI300X, 304).
	CUs int
	// MemBandwidth is a device's memory bandwidth, bytes per second
	// (AMD MI300X datasheet: 5.3 TB/s); one block moves MemBandwidth/CUs.
	MemBandwidth float64
	// ElemBytes is the bytes of a hidden element (bf16 assumed: 2).
	ElemBytes int
	// KernelIssue is the host time to issue one kernel from C++ (assumed
	// 5 µs: argument marshalling and the HIP launch call).
	KernelIssue time.Duration
	// EagerOp is the host time of one eager PyTorch op from Python
	// (assumed 25 µs: interpreter, dispatcher, allocator, launch).
	EagerOp time.Duration
	// LaunchLatency is the delay from issue to the earliest start
	// (assumed 2 µs).
	LaunchLatency time.Duration
	// Alloc is the host time of the per-step allocations of the P2P
	// versions before overheads were removed (the document's hipMalloc
	// calls; assumed 20 µs), paid with two zeroing kernels (memset).
	Alloc time.Duration
	// FlagPoll is a block's time to observe a set flag in system-scope
	// memory (assumed 0.5 µs per acquire).
	FlagPoll time.Duration
	// LaunchShare is the launch stage's share of a kernel's host time in
	// pipert's pipeline mode: infer and resize run on goroutines of their
	// own, so the host issues a kernel every LaunchShare × KernelIssue
	// (pipert's three host stages: 1/3).
	LaunchShare float64
}

// DefaultCosts are the figures above.
func DefaultCosts() Costs {
	return Costs{CUs: 304, MemBandwidth: 5.3e12, ElemBytes: 2,
		KernelIssue: 5 * time.Microsecond, EagerOp: 25 * time.Microsecond,
		LaunchLatency: 2 * time.Microsecond, Alloc: 20 * time.Microsecond,
		FlagPoll: 500 * time.Nanosecond, LaunchShare: 1.0 / 3}
}

// Check rejects costs out of range.
func (c Costs) Check() error {
	if c.CUs < 1 || !(c.MemBandwidth > 0) || math.IsInf(c.MemBandwidth, 0) || c.ElemBytes < 1 || !(c.LaunchShare > 0 && c.LaunchShare <= 1) ||
		c.KernelIssue < 0 || c.EagerOp < 0 || c.LaunchLatency < 0 || c.Alloc < 0 || c.FlagPoll < 0 {
		return fmt.Errorf("%w: costs %+v", ErrProblem, c)
	}
	return nil
}

// builder lays one variant's kernels out on a fabric.Model.
type builder struct {
	m     *fabric.Model
	p     Problem
	c     Costs
	t     traits
	in    *Input
	tokB  int64         // bytes of one token's hidden vector
	block float64       // one block's memory bandwidth
	send  [][][]int     // [src][dst] flat token indices src sends dst, in send order
	recv  [][]recvToken // [dst] tokens received, in arrival (source, slot) order
	// grouped is recv in the grouped GEMM's layout: by local expert
	// (stable), the order combine-send's blocks take them in.
	grouped [][]recvToken
	host    time.Duration // the host time of one kernel
}

type recvToken struct{ src, slot, f, expert int }

// ModelOptions are a modeled run's settings.
type ModelOptions struct {
	// Trace keeps the spans of kernels, lanes and links and the flag
	// flows in the result.
	Trace bool
	// Watchdog bounds one flag wait in modeled time (0:
	// fabric.DefaultWatchdog, 10 ms).
	Watchdog time.Duration
}

// Model gives variant v's modeled run on the routing of in (its Idx and
// Counts; Routes makes one at full size without data) over fabric f.
func Model(v Variant, in *Input, c Costs, f fabric.Config, opt ModelOptions) (fabric.Result, error) {
	if in == nil {
		return fabric.Result{}, fmt.Errorf("%w: no input", ErrProblem)
	}
	p := in.P
	if err := p.Check(f); err != nil {
		return fabric.Result{}, err
	}
	if err := in.checkRouting(); err != nil {
		return fabric.Result{}, err
	}
	if err := c.Check(); err != nil {
		return fabric.Result{}, err
	}
	if v < VReference || v > VVarlen {
		return fabric.Result{}, fmt.Errorf("%w: variant %d", ErrProblem, int(v))
	}
	if opt.Watchdog < 0 {
		return fabric.Result{}, fmt.Errorf("%w: negative watchdog %v", ErrProblem, opt.Watchdog)
	}
	f.Ranks = p.Ranks
	m, err := fabric.NewModel(f)
	if err != nil {
		return fabric.Result{}, err
	}
	m.LaunchLatency, m.Trace, m.Watchdog = c.LaunchLatency, opt.Trace, opt.Watchdog
	b := &builder{m: m, p: p, c: c, t: v.traits(), in: in,
		tokB: int64(p.Hidden) * int64(c.ElemBytes), block: c.MemBandwidth / float64(c.CUs)}
	b.host = c.KernelIssue
	if b.t.host {
		b.host = c.EagerOp
	}
	if b.t.pipeline {
		b.host = time.Duration(float64(c.KernelIssue) * c.LaunchShare)
	}
	b.route()
	switch v {
	case VReference:
		err = b.reference()
	case VSorted:
		err = b.sorted()
	default:
		err = b.p2p()
	}
	if err != nil {
		return fabric.Result{}, err
	}
	return m.Run()
}

// route lists who sends what to whom: flat tokens in index order (sorted
// variants: stable by expert), received in (source, slot) order.
func (b *builder) route() {
	p, epr := b.p, b.p.ExpertsPerRank()
	b.send = make([][][]int, p.Ranks)
	b.recv = make([][]recvToken, p.Ranks)
	for s := range p.Ranks {
		b.send[s] = make([][]int, p.Ranks)
		idx := b.in.Idx[s]
		order := make([]int, len(idx))
		for f := range order {
			order[f] = f
		}
		if b.t.sorted {
			sortByExpert(order, idx)
		}
		for _, f := range order {
			d := int(idx[f]) / epr
			b.send[s][d] = append(b.send[s][d], f)
		}
	}
	b.grouped = make([][]recvToken, p.Ranks)
	for d := range p.Ranks {
		for s := range p.Ranks {
			for slot, f := range b.send[s][d] {
				b.recv[d] = append(b.recv[d], recvToken{src: s, slot: slot, f: f, expert: int(b.in.Idx[s][f])})
			}
		}
		b.grouped[d] = slices.Clone(b.recv[d])
		slices.SortStableFunc(b.grouped[d], func(x, y recvToken) int { return cmp.Compare(x.expert, y.expert) })
	}
}

// dur is the time one block takes to move n bytes of its own memory.
func (b *builder) dur(n int64) time.Duration {
	return time.Duration(float64(n) / b.block * 1e9)
}

func (b *builder) add(r int, name string, host time.Duration, sync bool, lanes [][]fabric.Item) error {
	return b.m.Add(r, fabric.Kernel{Name: name, Host: host, Sync: sync, Lanes: lanes})
}

// spread puts n items, item(i), round-robin over at most g lanes.
func spread(n, g int, item func(i int) []fabric.Item) [][]fabric.Item {
	lanes := make([][]fabric.Item, min(max(n, 1), g))
	for i := range n {
		lanes[i%g] = append(lanes[i%g], item(i)...)
	}
	return lanes
}

// local is a kernel moving n tokens' bytes rw times within the device on
// every block (a gather, a scatter, a pointwise pass).
func (b *builder) local(r int, name string, n int, rw int64, host time.Duration, sync bool) error {
	w := b.dur(rw * b.tokB)
	return b.add(r, name, host, sync, spread(n, b.c.CUs, func(int) []fabric.Item { return []fabric.Item{{Work: w}} }))
}

// tiny is a kernel of negligible device work (a sort of indices, a count).
func (b *builder) tiny(r int, name string, host time.Duration, sync bool) error {
	return b.add(r, name, host, sync, [][]fabric.Item{{{Work: time.Microsecond}}})
}

// allToAll is a collective all-to-all of each rank's tokens to each peer,
// per bytes a token: the library's kernel sends one chunk per peer on its
// own lanes and ends when every peer's chunk has arrived. back sends the
// combine direction.
func (b *builder) allToAll(name string, back bool, per int64) error {
	p := b.p
	flags := make([][]fabric.FlagID, p.Ranks) // [dst][src]
	for d := range p.Ranks {
		flags[d] = make([]fabric.FlagID, p.Ranks)
		for s := range p.Ranks {
			flags[d][s] = b.m.Flag(fmt.Sprintf("%s[%d→%d]", name, s, d), d, s)
		}
	}
	const lanesPerPeer = 8
	for r := range p.Ranks {
		var lanes [][]fabric.Item
		for d := range p.Ranks {
			n := len(b.send[r][d])
			if back {
				n = len(b.send[d][r])
			}
			chunk := (n + lanesPerPeer - 1) / lanesPerPeer
			for l := range lanesPerPeer {
				cnt := int64(max(0, min(chunk, n-l*chunk)))
				items := []fabric.Item{{Work: b.dur(cnt * per), Dst: d, Bytes: cnt * per, Rate: b.block}}
				if l == 0 {
					items = append(items, fabric.Item{Dst: d, Bytes: 8, Set: flags[d][r]})
				}
				lanes = append(lanes, items)
			}
		}
		var wait []fabric.Item
		for s := range p.Ranks {
			wait = append(wait, fabric.Item{Wait: flags[r][s], Work: b.c.FlagPoll})
		}
		lanes = append(lanes, wait)
		if err := b.add(r, name, b.host, false, lanes); err != nil {
			return err
		}
	}
	return nil
}

// op is one eager op of the host-driven versions: n tokens moved rw
// times on every block (n 0: a kernel of negligible work, a sort of
// indices or a count); sync makes the host wait for it.
type op struct {
	name string
	n    int
	rw   int64
	sync bool
}

// ops issues rank r's eager ops in order.
func (b *builder) ops(r int, list ...op) error {
	for _, o := range list {
		var err error
		if o.n == 0 && o.rw == 0 {
			err = b.tiny(r, o.name, b.host, o.sync)
		} else {
			err = b.local(r, o.name, o.n, o.rw, b.host, o.sync)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// sorted is the optimized PyTorch version: the competition's reference
// (outside the document: gpu-mode/reference-kernels, amd_distributed
// all2all) with its Python loops replaced by sorts, as the document
// describes it ("the same as the reference kernel, only the token
// reordering's Python loop replaced by a sort"). Each op is eager, issued
// by the host. Dispatch sends three collectives through the reference's
// protocol (collective): the counts, the tokens and their metadata
// (global expert, source rank, token, k, pad: 5 × int32); the receiver
// sorts what it got by local expert. Its buffers hold exactly the tokens
// received: the padding to the worst case comes with the symmetric heap
// of the P2P versions (the document says so of its first P2P kernels), so
// the grouped GEMM runs over the received tokens only. Combine, as the
// reference's, counts what goes back to each source and sends the counts,
// the outputs in the order they came and their metadata; the source
// weights and scatter-adds them.
func (b *builder) sorted() error {
	p := b.p
	for r := range p.Ranks {
		f := b.in.Counts[r] * p.TopK
		if err := b.ops(r, op{name: "argsort"}, op{name: "div(token)"}, op{name: "div(rank)"},
			op{name: "bincount(rank)"}, op{name: "gather", n: f, rw: 2}, op{name: "stack(meta)"}); err != nil {
			return err
		}
	}
	if err := b.collective("", false); err != nil {
		return err
	}
	for r := range p.Ranks {
		n := len(b.recv[r])
		if err := b.ops(r, op{name: "argsort(recv)"}, op{name: "gather(recv)", n: n, rw: 2},
			op{name: "bincount(expert)"}, op{name: "cumsum(expert)"}, op{name: "grouped-gemm", n: n, rw: 3},
			op{name: "scatter(recv)", n: n, rw: 2}, op{name: "bincount(source)"}); err != nil {
			return err
		}
	}
	if err := b.collective(" back", true); err != nil {
		return err
	}
	for r := range p.Ranks {
		f := b.in.Counts[r] * p.TopK
		if err := b.ops(r, op{name: "gather(weights)"}, op{name: "mul(weights)", n: f, rw: 2},
			op{name: "zeros(out)", n: b.in.Counts[r], rw: 1}, op{name: "scatter_add", n: f, rw: 2, sync: true}); err != nil {
			return err
		}
	}
	return nil
}

// collective is one direction of the reference's exchange (back: the
// combine's), every rank's host following the reference's calls: an
// all-to-all of the counts, whose total the host reads (.sum().item()) to
// size the receive buffers; then the tokens and then their metadata, each
// an all_to_all_single whose split sizes the host reads from the two
// count tensors (.tolist() twice) just before the call. Every read copies
// to the host and waits for the stream, and a blocking collective makes
// the stream wait for it, so the host reads the metadata's split sizes
// only after the tokens have arrived: the three collectives run one after
// the other, with the host's reads between them.
func (b *builder) collective(suffix string, back bool) error {
	p := b.p
	reads := func(list ...op) error {
		for r := range p.Ranks {
			if err := b.ops(r, list...); err != nil {
				return err
			}
		}
		return nil
	}
	if err := reads(op{name: "all_to_all(counts" + suffix + ")", sync: true}, op{name: "item(total)", sync: true},
		op{name: "tolist(recv splits)", sync: true}, op{name: "tolist(send splits)", sync: true}); err != nil {
		return err
	}
	name := "all_to_all(tokens)"
	if back {
		name = "all_to_all(combine)"
	}
	if err := b.allToAll(name, back, b.tokB); err != nil {
		return err
	}
	if err := reads(op{name: "tolist(recv splits)", sync: true}, op{name: "tolist(send splits)", sync: true}); err != nil {
		return err
	}
	return b.allToAll("all_to_all(meta"+suffix+")", back, metaBytes)
}

// metaBytes is one token's metadata in the sorted version's all-to-all.
const metaBytes = 5 * 4

// paddedRows is the rows of a rank's symmetric receive buffer: the worst
// case, every source's tokens × min(top-k, experts per rank) (a token
// reaches one expert at most once).
func (b *builder) paddedRows() int {
	return b.p.Ranks * b.p.Tokens * min(b.p.TopK, b.p.ExpertsPerRank())
}

// paddedGEMM is the unfused grouped GEMM (the competition's stand-in, a
// pointwise multiply by each local expert's weight) over the whole padded
// receive buffer: it cannot skip the padding without the counts, so its
// time does not depend on the routing — as in the document's profile
// (115.0–116.0 µs on every rank at full size while the dispatch varies
// from 315 to 378 µs). Fusing it into combine-send, which skips padding
// by the known counts, saves this whole pass.
func (b *builder) paddedGEMM(r int) error {
	return b.local(r, "grouped-gemm", b.paddedRows(), 3, b.host, false)
}

// reference is the competition's reference: Python loops over the flat
// tokens (one eager op each) to build the send buffers, the exchange
// through the host (collective), a loop over the local experts, and loops
// back.
func (b *builder) reference() error {
	p := b.p
	for r := range p.Ranks {
		for range b.in.Counts[r] * p.TopK {
			if err := b.ops(r, op{name: "copy(token)", n: 1, rw: 2}); err != nil {
				return err
			}
		}
	}
	if err := b.collective("", false); err != nil {
		return err
	}
	for r := range p.Ranks {
		for e := range p.ExpertsPerRank() {
			n := 0
			for _, t := range b.recv[r] {
				if t.expert%p.ExpertsPerRank() == e {
					n++
				}
			}
			if err := b.ops(r, op{name: "gather(expert)", n: n, rw: 2}, op{name: "expert", n: n, rw: 3},
				op{name: "scatter(expert)", n: n, rw: 2}); err != nil {
				return err
			}
		}
	}
	if err := b.collective(" back", true); err != nil {
		return err
	}
	for r := range p.Ranks {
		for range b.in.Counts[r] * p.TopK {
			if err := b.ops(r, op{name: "add(token)", n: 1, rw: 3}); err != nil {
				return err
			}
		}
		if err := b.ops(r, op{name: "synchronize", sync: true}); err != nil {
			return err
		}
	}
	return nil
}

// p2p lays out the P2P kernels: dispatch-send, dispatch-recv, the grouped
// GEMM (unless fused), combine-send, combine-recv, with the allocations and
// zeroing of the versions that still pay them.
func (b *builder) p2p() error {
	p, c := b.p, b.c
	world := p.Ranks
	// flags
	dCnt := make([][]fabric.FlagID, world) // [dst][src]
	cCnt := make([][]fabric.FlagID, world)
	dTok := make([][][]fabric.FlagID, world) // [dst][src][slot]
	cTok := make([][]fabric.FlagID, world)   // [src rank][flat token]
	for d := range world {
		dCnt[d], cCnt[d] = make([]fabric.FlagID, world), make([]fabric.FlagID, world)
		dTok[d] = make([][]fabric.FlagID, world)
		for s := range world {
			dCnt[d][s] = b.m.Flag(fmt.Sprintf("dispatch_count[%d]", s), d, s)
			cCnt[d][s] = b.m.Flag(fmt.Sprintf("combine_count[%d]", s), d, s)
			if b.t.perToken {
				dTok[d][s] = make([]fabric.FlagID, len(b.send[s][d]))
				for slot := range dTok[d][s] {
					dTok[d][s][slot] = b.m.Flag(fmt.Sprintf("dispatch_token[%d,%d]", s, slot), d, s)
				}
			}
		}
	}
	epr := p.ExpertsPerRank()
	for s := range world {
		if b.t.perToken {
			cTok[s] = make([]fabric.FlagID, len(b.in.Idx[s]))
			for f := range cTok[s] {
				cTok[s][f] = b.m.Flag(fmt.Sprintf("combine_token[%d]", f), s, int(b.in.Idx[s][f])/epr)
			}
		}
	}
	tokDur := b.dur(b.tokB)
	for r := range world {
		overheads := !b.t.pipeline
		if overheads {
			// per-step buffers: allocated, then zeroed by two kernels
			if err := b.tiny(r, "hipMalloc+memset(counts)", b.host+c.Alloc, false); err != nil {
				return err
			}
			if err := b.tiny(r, "memset(flags)", b.host, false); err != nil {
				return err
			}
		}
		// dispatch-send: a lane per block, one flat token per item
		var flat []struct{ d, slot int }
		for d := range world {
			for slot := range b.send[r][d] {
				flat = append(flat, struct{ d, slot int }{d, slot})
			}
		}
		lanes := spread(len(flat), c.CUs, func(i int) []fabric.Item {
			t := flat[i]
			it := fabric.Item{Work: tokDur, Dst: t.d, Bytes: b.tokB, Rate: b.block}
			if t.d == r {
				it.Work += tokDur // local write
			}
			if b.t.perToken {
				it.Set = dTok[t.d][r][t.slot]
			}
			return []fabric.Item{it}
		})
		// the counts: after a grid-wide sync (per-rank flags, a lane of
		// their own after every token) or counted concurrently by one
		// block (per-token flags); dispatch-send then waits for every
		// source's count, so dispatch-recv knows its work.
		var count []fabric.Item
		if b.t.perToken {
			count = append(count, fabric.Item{Work: time.Microsecond})
		}
		for d := range world {
			count = append(count, fabric.Item{Dst: d, Bytes: 8, Set: dCnt[d][r]})
		}
		if b.t.perToken {
			for s := range world {
				count = append(count, fabric.Item{Wait: dCnt[r][s], Work: c.FlagPoll})
			}
			lanes = append(lanes, count)
		}
		if err := b.add(r, "dispatch-send", b.host, false, lanes); err != nil {
			return err
		}
		if !b.t.perToken {
			if err := b.add(r, "dispatch-signal", b.host, false, [][]fabric.Item{count}); err != nil {
				return err
			}
		}
		// dispatch-recv
		recv := b.recv[r]
		switch {
		case !b.t.perToken: // one block per source rank, after its flag
			lanes = make([][]fabric.Item, world)
			for s := range world {
				lanes[s] = append(lanes[s], fabric.Item{Wait: dCnt[r][s], Work: c.FlagPoll})
			}
			for _, t := range recv {
				lanes[t.src] = append(lanes[t.src], fabric.Item{Work: 2 * tokDur})
			}
		case b.t.varlen: // flattened over every block by cumulative counts
			lanes = spread(len(recv), c.CUs, func(i int) []fabric.Item {
				t := recv[i]
				return []fabric.Item{{Wait: dTok[r][t.src][t.slot], Work: c.FlagPoll + 2*tokDur}}
			})
		default: // block bid serves source bid % world, its tokens strided
			per := max(c.CUs/world, 1)
			lanes = make([][]fabric.Item, min(c.CUs, per*world))
			for _, t := range recv {
				l := t.src + world*(t.slot%per)
				lanes[l] = append(lanes[l], fabric.Item{Wait: dTok[r][t.src][t.slot], Work: c.FlagPoll + 2*tokDur})
			}
		}
		if err := b.add(r, "dispatch-recv", b.host, false, lanes); err != nil {
			return err
		}
		if !b.t.fused {
			if err := b.paddedGEMM(r); err != nil {
				return err
			}
		}
		// combine-send: the document's grid was 256 blocks until tuned to
		// one per compute unit (304) with the fused kernel.
		grid := 256
		if b.t.fused {
			grid = c.CUs
		}
		// read the expert output, or (fused) the token: the expert's row
		// is read once per block and expert and stays in cache.
		work := tokDur
		grouped := b.grouped[r]
		item := func(t recvToken) []fabric.Item {
			it := fabric.Item{Work: work, Dst: t.src, Bytes: b.tokB, Rate: b.block}
			if t.src == r {
				it.Work += tokDur
			}
			if b.t.perToken {
				it.Set = cTok[t.src][t.f]
			}
			return []fabric.Item{it}
		}
		g := min(grid, c.CUs)
		if b.t.varlen { // flattened over every block by cumulative counts
			lanes = spread(len(grouped), g, func(i int) []fabric.Item { return item(grouped[i]) })
		} else { // block bid serves local expert bid % experts, its tokens strided
			per := max(g/epr, 1)
			lanes = make([][]fabric.Item, min(g, per*epr))
			seen := make([]int, epr)
			for _, t := range grouped {
				e := t.expert % epr
				l := e + epr*(seen[e]%per)
				seen[e]++
				lanes[l%len(lanes)] = append(lanes[l%len(lanes)], item(t)...)
			}
		}
		if err := b.add(r, "combine-send", b.host, false, lanes); err != nil {
			return err
		}
		if !b.t.perToken {
			var sig []fabric.Item
			for s := range world {
				sig = append(sig, fabric.Item{Dst: s, Bytes: 8, Set: cCnt[s][r]})
			}
			if err := b.add(r, "combine-signal", b.host, false, [][]fabric.Item{sig}); err != nil {
				return err
			}
		}
		// combine-recv: a token per item, waiting for its top-k outputs
		n := b.in.Counts[r]
		lanes = spread(n, c.CUs, func(t int) []fabric.Item {
			var items []fabric.Item
			for k := range p.TopK {
				it := fabric.Item{Work: tokDur}
				if b.t.perToken {
					it.Wait, it.Work = cTok[r][t*p.TopK+k], tokDur+c.FlagPoll
				}
				items = append(items, it)
			}
			return append(items, fabric.Item{Work: tokDur})
		})
		if !b.t.perToken {
			for l := range lanes {
				var wait []fabric.Item
				for s := range world {
					wait = append(wait, fabric.Item{Wait: cCnt[r][s], Work: c.FlagPoll})
				}
				lanes[l] = append(wait, lanes[l]...)
			}
		}
		if err := b.add(r, "combine-recv", b.host, !b.t.pipeline, lanes); err != nil {
			return err
		}
	}
	return nil
}

func sortByExpert(order []int, idx []int32) {
	// stable insertion by expert through counting: experts are small ints
	maxE := int32(0)
	for _, e := range idx {
		maxE = max(maxE, e)
	}
	buckets := make([][]int, maxE+1)
	for _, f := range order {
		buckets[idx[f]] = append(buckets[idx[f]], f)
	}
	order = order[:0]
	for _, b := range buckets {
		order = append(order, b...)
	}
}
