package cache

import (
	"bytes"
	"errors"
	"sync"

	"go.uber.org/atomic"
)

// Global is a global tiling cache: an LRU of Slots entries per op, shared
// by the goroutines of every executable that uses it.
//
// ATB keeps one global cache per thread. A node's host stages run on
// different goroutines here, so the cache is one per process (Shared) and
// takes a lock per op; concurrent misses on the same key compute the value
// once (Fill).
//
// The zero Global, and a nil *Global, have no slots: they hold nothing,
// and every Fill computes (NewGlobal makes one that does hold entries).
type Global struct {
	slots int
	mu    sync.RWMutex
	ops   map[string]*Op

	hits, misses, computed atomic.Int64
}

// Op is one op's entries of a global cache. A caller that looks the same
// op up often keeps its Op (Global.Op) and skips finding it by name. The
// zero Op, of no cache, and a nil *Op (a nil Global's) hold nothing and
// count nothing: every Fill computes.
type Op struct {
	g    *Global
	name string
	mu   sync.Mutex // guards lru and flights
	lru  LRU
	// flights holds the computations under way, by key: the callers that
	// miss a key while it is computed wait for its flight.
	flights map[string]*flight
}

// flight is one caller's computation of a key, which the callers missing
// the same key meanwhile wait for. Its computing caller closes done however
// its compute ends — a return, a panic, runtime.Goexit — so that a waiter
// never waits for a caller that is gone, and never takes on its panic or
// its Goexit: a wait that finds no value runs the waiter's own compute.
// One flight was tried and dropped: x/sync's singleflight, which re-panics
// the computing caller's panic in every waiter and makes each call
// runtime.Goexit when it did.
type flight struct {
	done chan struct{}
	// val, set before done is closed when the compute succeeded, is the
	// waiters' copy (the computing caller reuses its dst).
	val Value
	ok  bool
}

// NewGlobal returns an empty global cache of slots ≥ 1 entries per op.
func NewGlobal(slots int) *Global {
	return &Global{slots: max(slots, 1), ops: make(map[string]*Op)}
}

var shared struct {
	sync.Mutex
	m map[int]*Global
}

// Shared returns the process's global cache of slots entries per op: every
// caller asking for the same slot count gets the same cache.
func Shared(slots int) *Global {
	slots = max(slots, 1)
	shared.Lock()
	defer shared.Unlock()
	if shared.m == nil {
		shared.m = make(map[int]*Global)
	}
	g := shared.m[slots]
	if g == nil {
		g = NewGlobal(slots)
		shared.m[slots] = g
	}
	return g
}

// Slots is the number of entries per op.
func (g *Global) Slots() int {
	if g == nil {
		return 0
	}
	return g.slots
}

// Op returns op's entries, made on first use.
func (g *Global) Op(op string) *Op {
	if g == nil {
		return nil // a nil Op holds nothing
	}
	g.mu.RLock()
	o := g.ops[op]
	g.mu.RUnlock()
	if o != nil {
		return o
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ops == nil { // the zero Global
		g.ops = make(map[string]*Op)
	}
	if o = g.ops[op]; o == nil {
		o = &Op{g: g, name: op, lru: LRU{size: g.slots}}
		g.ops[op] = o
	}
	return o
}

// Get looks key up in op's entries, as LRU.Get does.
func (g *Global) Get(op string, h uint64, key, dst []byte) (data []byte, workspace int64, ok bool) {
	return g.Op(op).Get(h, key, dst)
}

// Fill is Op(op).Fill.
func (g *Global) Fill(op string, h uint64, key, dst []byte, compute func(dst []byte) (Value, error)) (data []byte, workspace int64, computed bool, err error) {
	return g.Op(op).Fill(h, key, dst, compute)
}

// Get looks key up in o's entries, as LRU.Get does.
func (o *Op) Get(h uint64, key, dst []byte) (data []byte, workspace int64, ok bool) {
	if o == nil {
		return dst, 0, false
	}
	o.mu.Lock()
	data, workspace, ok = o.lru.Get(h, key, dst)
	o.mu.Unlock()
	switch {
	case o.g == nil: // the zero Op
	case ok:
		o.g.hits.Inc()
	default:
		o.g.misses.Inc()
	}
	return data, workspace, ok
}

// Forget drops the entry of key from o's entries, if any: a value found
// wrong (a kernel whose run failed after its tiling was stored).
func (o *Op) Forget(h uint64, key []byte) {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.lru.Remove(h, key)
	o.mu.Unlock()
}

// Fill returns the value of key in o's entries, computing it if it is
// missing. Of the callers that miss the same key at the same time, one
// runs its compute (which writes into its own dst and returns it) and
// stores the value; the others wait and get a copy in their dst. computed
// reports whether the caller's own compute ran. An error of a compute is
// the error of the caller that ran it; the callers that waited for it run
// their own compute instead, so that each error names its own caller. So
// do they when the compute panicked or called runtime.Goexit, which end
// only the goroutine of the caller that ran it. A nil compute is an
// error.
func (o *Op) Fill(h uint64, key, dst []byte, compute func(dst []byte) (Value, error)) (data []byte, workspace int64, computed bool, err error) {
	if compute == nil {
		return dst, 0, false, errors.New("cache: Fill of a nil compute")
	}
	if o == nil {
		return computeOwn(dst, compute) // a nil Op keeps nothing
	}
	if data, workspace, ok := o.Get(h, key, dst); ok {
		return data, workspace, false, nil
	}
	o.mu.Lock()
	// stored by a computation that ended since the lookup
	if d, ws, ok := o.lru.Get(h, key, dst); ok {
		o.mu.Unlock()
		return d, ws, false, nil
	}
	if f := o.flights[string(key)]; f != nil {
		o.mu.Unlock()
		<-f.done
		if f.ok {
			return append(dst[:0], f.val.Data...), f.val.Workspace, false, nil
		}
		return computeOwn(dst, compute)
	}
	f := &flight{done: make(chan struct{})}
	if o.flights == nil {
		o.flights = make(map[string]*flight)
	}
	k := string(key)
	o.flights[k] = f
	o.mu.Unlock()
	defer o.land(k, f)
	val, err := compute(dst)
	if err != nil {
		return dst, 0, true, err
	}
	if o.g != nil {
		o.g.computed.Inc()
	}
	o.mu.Lock()
	o.lru.Put(h, key, val.Data, val.Workspace)
	o.mu.Unlock()
	f.val, f.ok = Value{Data: bytes.Clone(val.Data), Workspace: val.Workspace}, true
	return val.Data, val.Workspace, true, nil
}

// land ends flight f of key k: later misses start a flight of their own,
// and its waiters go on (deferred, so that it runs however the compute
// ended).
func (o *Op) land(k string, f *flight) {
	o.mu.Lock()
	delete(o.flights, k)
	o.mu.Unlock()
	close(f.done)
}

// computeOwn is a waiter's own computation, after the flight it waited for
// gave no value.
func computeOwn(dst []byte, compute func(dst []byte) (Value, error)) ([]byte, int64, bool, error) {
	val, err := compute(dst)
	if err != nil {
		return dst, 0, true, err
	}
	return val.Data, val.Workspace, true, nil
}

// Stats are a global cache's counts since it was made: lookups that hit
// and missed, and values computed (a miss waiting for another caller's
// computation computes nothing).
type Stats struct {
	Hits, Misses, Computed int64
}

// Stats returns the cache's counts.
func (g *Global) Stats() Stats {
	if g == nil {
		return Stats{}
	}
	return Stats{Hits: g.hits.Load(), Misses: g.misses.Load(), Computed: g.computed.Load()}
}
