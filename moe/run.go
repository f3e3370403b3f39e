package moe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device/fabric"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// ErrInjected is the cause of the failure Options.Fail injects.
var ErrInjected = errors.New("moe: injected rank failure")

// DefaultWallWatchdog bounds a real run's wait on one flag in wall time.
const DefaultWallWatchdog = 10 * time.Second

// Options are a real run's settings.
type Options struct {
	Fabric fabric.Config // the devices (default: 8 ranks on xGMI)
	// Watchdog bounds each flag wait in wall time (0:
	// DefaultWallWatchdog); an expired wait is an ErrWatchdog error
	// naming the flag, the waiting kernel and the rank that should have
	// set it.
	Watchdog time.Duration
	// Fail, when set, makes rank Fail.Rank's dispatch-send fail (with
	// ErrInjected) after sending Fail.After tokens: the other ranks must
	// return promptly with a cancellation error.
	Fail *Failure
}

// Failure is an injected rank failure.
type Failure struct {
	Rank, After int
	// Silent makes the rank stop sending without an error, as a hung peer
	// would: its flags are never set, and the waiters' watchdog fires.
	Silent bool
}

// Run computes the layer with variant v on real data: one pipert
// executable per rank (pipeline mode where the variant says so, KBK
// otherwise), the ranks on goroutines under an errgroup. It returns each
// rank's output, Counts[r] × Hidden. The first rank error cancels the
// others and is returned naming its rank.
func Run(ctx context.Context, v Variant, in *Input, opt Options) ([][]float32, error) {
	if in == nil {
		return nil, fmt.Errorf("%w: no input", ErrProblem)
	}
	if err := in.P.Check(opt.Fabric); err != nil {
		return nil, err
	}
	if err := in.Check(); err != nil {
		return nil, err
	}
	if v < VReference || v > VVarlen {
		return nil, fmt.Errorf("%w: variant %d", ErrProblem, int(v))
	}
	if opt.Watchdog < 0 {
		return nil, fmt.Errorf("%w: negative watchdog %v", ErrProblem, opt.Watchdog)
	}
	if opt.Watchdog == 0 {
		opt.Watchdog = DefaultWallWatchdog
	}
	if opt.Fail != nil && (opt.Fail.Rank < 0 || opt.Fail.Rank >= in.P.Ranks) {
		return nil, fmt.Errorf("%w: failure injected on rank %d of %d", ErrProblem, opt.Fail.Rank, in.P.Ranks)
	}
	if opt.Fail != nil && opt.Fail.After < 0 {
		return nil, fmt.Errorf("%w: failure injected after %d tokens: want 0 or more", ErrProblem, opt.Fail.After)
	}
	rd, err := newRound(v, in, opt)
	if err != nil {
		return nil, err
	}
	exes := make([]*pipert.Executable, in.P.Ranks)
	defer func() {
		for _, e := range exes {
			if e != nil {
				e.Close()
			}
		}
	}()
	for r := range exes {
		if exes[r], err = rd.compile(r); err != nil {
			return nil, fmt.Errorf("moe: rank %d: %w", r, err)
		}
	}
	out := make([][]float32, in.P.Ranks)
	g, gctx := errgroup.WithContext(ctx)
	for r := range exes {
		g.Go(func() error {
			rs := rd.ranks[r]
			rs.ctx = gctx
			p := in.P
			inputs := map[string]*kernel.Tensor{
				"x":   kernel.FromFloat32(in.X[r], int64(in.Counts[r]), int64(p.Hidden)),
				"idx": int32Tensor(in.Idx[r], int64(in.Counts[r]), int64(p.TopK)),
				"w":   kernel.FromFloat32(in.W[r], int64(in.Counts[r]), int64(p.TopK)),
			}
			res, err := exes[r].Run(gctx, inputs)
			if err != nil {
				return fmt.Errorf("moe: %s rank %d: %w", v, r, err)
			}
			out[r] = append([]float32(nil), kernel.Float32s(res.Outputs["y"].Data())...)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

func int32Tensor(v []int32, shape ...int64) *kernel.Tensor {
	t := kernel.New(kernel.Int32, shape...)
	copy(kernel.Int32s(t.Host), v)
	return t
}

// round is one run's shared state: the symmetric heap, the flags and the
// host mailboxes.
type round struct {
	v    Variant
	t    traits
	p    Problem
	in   *Input
	opt  Options
	cap  int // dispatch slots per source rank on a receiver: Tokens × TopK
	heap *fabric.Heap
	tok  []fabric.Ptr // per rank: world × cap × Hidden float32, tokens received
	meta []fabric.Ptr // per rank: world × cap × 2 int32 (token, k)
	comb []fabric.Ptr // per rank: Tokens × TopK × Hidden float32, expert outputs back
	dCnt []*fabric.Flags
	dTok []*fabric.Flags
	cCnt []*fabric.Flags
	cTok []*fabric.Flags
	// dmail and cmail are the host-staged all-to-alls of dispatch and
	// combine, [src][dst]: written by src before its count flag, read by
	// dst after it.
	dmail, cmail [][][]mail
	ranks        []*rankState
}

type mail struct {
	slot    int
	t, k, e int32
	data    []float32
}

// metaLen is the int32s of metadata a dispatched token carries: its
// position at the source (token, k) and its expert.
const metaLen = 3

// rankState is what one rank's kernels share during a run.
type rankState struct {
	r    int
	ctx  context.Context
	sent []int     // flat tokens sent to each rank
	recv []slotRef // tokens received, in processing order
	y    []float32 // expert outputs of recv, when not fused
}

type slotRef struct{ src, slot, expert int }

func newRound(v Variant, in *Input, opt Options) (*round, error) {
	p := in.P
	rd := &round{v: v, t: v.traits(), p: p, in: in, opt: opt, cap: p.Tokens * p.TopK}
	world := p.Ranks
	tokBytes := int64(world) * int64(rd.cap) * int64(p.Hidden) * 4
	metaBytes := int64(world) * int64(rd.cap) * metaLen * 4
	combBytes := int64(rd.cap) * int64(p.Hidden) * 4
	var err error
	if rd.heap, err = fabric.NewHeap(world, tokBytes+metaBytes+combBytes+3*fabric.HeapAlign, true); err != nil {
		return nil, err
	}
	rd.tok, rd.meta, rd.comb = make([]fabric.Ptr, world), make([]fabric.Ptr, world), make([]fabric.Ptr, world)
	for r := range world {
		if rd.tok[r], err = rd.heap.Alloc(r, "dispatch_tokens", tokBytes); err != nil {
			return nil, err
		}
		if rd.meta[r], err = rd.heap.Alloc(r, "dispatch_meta", metaBytes); err != nil {
			return nil, err
		}
		if rd.comb[r], err = rd.heap.Alloc(r, "combine_tokens", combBytes); err != nil {
			return nil, err
		}
	}
	wd := opt.Watchdog
	rd.dCnt, rd.dTok, rd.cCnt, rd.cTok = make([]*fabric.Flags, world), make([]*fabric.Flags, world), make([]*fabric.Flags, world), make([]*fabric.Flags, world)
	epr := p.ExpertsPerRank()
	for r := range world {
		bySrc := func(i int) int { return i }
		rd.dCnt[r] = fabric.NewFlags("dispatch_count", r, world, bySrc, wd)
		rd.cCnt[r] = fabric.NewFlags("combine_count", r, world, bySrc, wd)
		if rd.t.perToken {
			rd.dTok[r] = fabric.NewFlags("dispatch_token", r, world*rd.cap, func(i int) int { return i / rd.cap }, wd)
			idx := in.Idx[r]
			rd.cTok[r] = fabric.NewFlags("combine_token", r, rd.cap, func(i int) int {
				if i < len(idx) {
					return int(idx[i]) / epr
				}
				return -1
			}, wd)
		}
	}
	rd.dmail, rd.cmail = make([][][]mail, world), make([][][]mail, world)
	for s := range world {
		rd.dmail[s], rd.cmail[s] = make([][]mail, world), make([][]mail, world)
	}
	rd.ranks = make([]*rankState, world)
	for r := range rd.ranks {
		rd.ranks[r] = &rankState{r: r, sent: make([]int, world)}
	}
	return rd, nil
}

// compile builds rank r's executable: dispatch-send, dispatch-recv, the
// experts (unless fused), combine-send, combine-recv.
func (rd *round) compile(r int) (*pipert.Executable, error) {
	p := rd.p
	n := int64(rd.in.Counts[r])
	b := subgraph.NewBuilder(fmt.Sprintf("moe-%s-rank%d", rd.v, r))
	x := b.Input("x", kernel.Float32, n, int64(p.Hidden))
	idx := b.Input("idx", kernel.Int32, n, int64(p.TopK))
	w := b.Input("w", kernel.Float32, n, int64(p.TopK))
	at := kernel.Attrs{"rank": int64(r)}
	d := b.OpAttrs(opDispatchSend, at, x, idx)
	rv := b.OpAttrs(opDispatchRecv, at, d)
	if !rd.t.fused {
		rv = b.OpAttrs(opExperts, at, rv)
	}
	c := b.OpAttrs(opCombineSend, at, rv)
	y := b.Node(&subgraph.Node{Op: opCombineRecv, Attrs: at, Inputs: []string{c, w}, Outputs: []string{"y"}}, 1)
	b.Output(y...)
	opts := []pipert.Option{pipert.WithMode(pipert.KBK), pipert.WithRegistry(resolver{rd})}
	if rd.t.pipeline {
		// pipeline mode with the host caches that fit: ATB's defaults,
		// InferShape reuse and the memory plan. Not the runner pool: a
		// kernel is bound to its run's round.
		opts = append(opts, pipert.WithMode(pipert.Pipeline),
			pipert.WithCaches(pipert.Caches{Kinds: pipert.DefaultCaches | pipert.InferReuse | pipert.MemoryPlan}))
	}
	return pipert.Compile(b.Graph(), opts...)
}

// dispatchSend: rank r sends each flat token (t, k) to the rank holding
// expert idx[t,k], into its slot of the receiver's buffer for r, and
// signals: per token (count-in-flag 0) or, once all are sent, per rank
// with the count.
func (rd *round) dispatchSend(rs *rankState, x []float32, idx []int32) error {
	p, r := rd.p, rs.r
	epr := p.ExpertsPerRank()
	order := make([]int, len(idx))
	for f := range order {
		order[f] = f
	}
	if rd.t.sorted {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(idx[a], idx[b]) })
	}
	clear(rs.sent)
	for i, f := range order {
		if fl := rd.opt.Fail; fl != nil && fl.Rank == r && i == fl.After {
			if fl.Silent {
				return nil
			}
			return fmt.Errorf("%w after %d tokens", ErrInjected, i)
		}
		t, k := f/p.TopK, f%p.TopK
		dst := int(idx[f]) / epr
		slot := rs.sent[dst]
		rs.sent[dst]++
		src := x[t*p.Hidden : (t+1)*p.Hidden]
		if rd.t.host {
			rd.dmail[r][dst] = append(rd.dmail[r][dst], mail{slot: slot, t: int32(t), k: int32(k), e: idx[f], data: slices.Clone(src)})
			continue
		}
		at := (r*rd.cap + slot)
		copy(rd.heap.Float32s(rd.tok[dst])[at*p.Hidden:(at+1)*p.Hidden], src)
		m := rd.heap.Int32s(rd.meta[dst])[at*metaLen:]
		m[0], m[1], m[2] = int32(t), int32(k), idx[f]
		if rd.t.perToken {
			if err := rd.dTok[dst].Set(at, 0); err != nil {
				return err
			}
		}
	}
	for dst, n := range rs.sent {
		if err := rd.dCnt[dst].Set(r, uint64(n)); err != nil {
			return err
		}
	}
	return nil
}

// dispatchRecv: rank r waits for every source's tokens (its count, then
// each token under per-token flags), unstages host mail, and lists the
// received tokens grouped by local expert (the grouped GEMM's layout).
func (rd *round) dispatchRecv(rs *rankState) error {
	p, r := rd.p, rs.r
	epr := p.ExpertsPerRank()
	rs.recv = rs.recv[:0]
	for src := range p.Ranks {
		n, err := rd.dCnt[r].Wait(rs.ctx, src, fmt.Sprintf("dispatch-recv on rank %d", r))
		if err != nil {
			return err
		}
		if int(n) > rd.cap {
			return fmt.Errorf("moe: rank %d: %d tokens from rank %d overflow the %d slots", r, n, src, rd.cap)
		}
		if rd.t.host {
			for _, m := range rd.dmail[src][r] {
				at := src*rd.cap + m.slot
				copy(rd.heap.Float32s(rd.tok[r])[at*p.Hidden:(at+1)*p.Hidden], m.data)
				meta := rd.heap.Int32s(rd.meta[r])[at*metaLen:]
				meta[0], meta[1], meta[2] = m.t, m.k, m.e
			}
		}
		for slot := range int(n) {
			at := src*rd.cap + slot
			if rd.t.perToken {
				if _, err := rd.dTok[r].Wait(rs.ctx, at, fmt.Sprintf("dispatch-recv on rank %d", r)); err != nil {
					return err
				}
			}
			meta := rd.heap.Int32s(rd.meta[r])[at*metaLen:]
			t, e := int(meta[0]), int(meta[2])
			if e/epr != r {
				return fmt.Errorf("moe: rank %d received token %d of rank %d for expert %d, held by rank %d", r, t, src, e, e/epr)
			}
			rs.recv = append(rs.recv, slotRef{src: src, slot: slot, expert: e})
		}
	}
	slices.SortStableFunc(rs.recv, func(a, b slotRef) int { return cmp.Compare(a.expert, b.expert) })
	return nil
}

// experts is the grouped GEMM's separate pass: y = x ⊙ expert row.
func (rd *round) experts(rs *rankState) {
	p := rd.p
	rs.y = slices.Grow(rs.y[:0], len(rs.recv)*p.Hidden)[:len(rs.recv)*p.Hidden]
	for i, s := range rs.recv {
		rd.expertRow(rs.r, s, rs.y[i*p.Hidden:(i+1)*p.Hidden])
	}
}

func (rd *round) expertRow(r int, s slotRef, y []float32) {
	p := rd.p
	at := s.src*rd.cap + s.slot
	x := rd.heap.Float32s(rd.tok[r])[at*p.Hidden : (at+1)*p.Hidden]
	ew := rd.in.Experts[s.expert*p.Hidden : (s.expert+1)*p.Hidden]
	for h := range y {
		y[h] = expertMul(x[h], ew[h])
	}
}

// combineSend: rank r writes each expert output back to the token's rank,
// at (token, k) in its combine buffer, and signals per token or, once all
// are sent, per rank.
func (rd *round) combineSend(rs *rankState) error {
	p, r := rd.p, rs.r
	var scratch []float32
	if rd.t.fused {
		scratch = make([]float32, p.Hidden)
	}
	sent := make([]int, p.Ranks)
	for i, s := range rs.recv {
		y := scratch
		if rd.t.fused {
			rd.expertRow(r, s, y)
		} else {
			y = rs.y[i*p.Hidden : (i+1)*p.Hidden]
		}
		at := s.src*rd.cap + s.slot
		meta := rd.heap.Int32s(rd.meta[r])[at*metaLen:]
		f := int(meta[0])*p.TopK + int(meta[1])
		sent[s.src]++
		if rd.t.host {
			rd.cmail[r][s.src] = append(rd.cmail[r][s.src], mail{slot: f, data: slices.Clone(y)})
			continue
		}
		copy(rd.heap.Float32s(rd.comb[s.src])[f*p.Hidden:(f+1)*p.Hidden], y)
		if rd.t.perToken {
			if err := rd.cTok[s.src].Set(f, 0); err != nil {
				return err
			}
		}
	}
	for src, n := range sent {
		if err := rd.cCnt[src].Set(r, uint64(n)); err != nil {
			return err
		}
	}
	return nil
}

// combineRecv: rank r waits for its tokens' expert outputs and reduces
// them in k order with the routing weights.
func (rd *round) combineRecv(rs *rankState, w, out []float32) error {
	p, r := rd.p, rs.r
	name := fmt.Sprintf("combine-recv on rank %d", r)
	if !rd.t.perToken {
		for src := range p.Ranks {
			n, err := rd.cCnt[r].Wait(rs.ctx, src, name)
			if err != nil {
				return err
			}
			if int(n) != rs.sent[src] {
				return fmt.Errorf("moe: rank %d: %d expert outputs back from rank %d, sent it %d tokens", r, n, src, rs.sent[src])
			}
			if rd.t.host {
				// rank src's mail to r was written before its count flag
				// and is read only here: the host-staged all-to-all's
				// second half.
				for _, m := range rd.cmail[src][r] {
					copy(rd.heap.Float32s(rd.comb[r])[m.slot*p.Hidden:(m.slot+1)*p.Hidden], m.data)
				}
			}
		}
	}
	comb := rd.heap.Float32s(rd.comb[r])
	for t := range rd.in.Counts[r] {
		o := out[t*p.Hidden : (t+1)*p.Hidden]
		clear(o)
		for k := range p.TopK {
			f := t*p.TopK + k
			if rd.t.perToken {
				if _, err := rd.cTok[r].Wait(rs.ctx, f, name); err != nil {
					return err
				}
			}
			y := comb[f*p.Hidden : (f+1)*p.Hidden]
			wk := w[f]
			for h := range o {
				o[h] = combineTerm(o[h], wk, y[h])
			}
		}
	}
	return nil
}
