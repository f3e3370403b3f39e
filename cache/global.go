package cache

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"

	"go.uber.org/atomic"
	"golang.org/x/sync/singleflight"
)

// Global is a global tiling cache: an LRU of Slots entries per op, shared
// by the goroutines of every executable that uses it.
//
// ATB keeps one global cache per thread. A node's host stages run on
// different goroutines here, so the cache is one per process (Shared) and
// takes a lock per op; concurrent misses on the same key compute the value
// once (Fill).
type Global struct {
	slots int
	mu    sync.RWMutex
	ops   map[string]*Op
	group singleflight.Group

	hits, misses, computed atomic.Int64
}

// Op is one op's entries of a global cache. A caller that looks the same
// op up often keeps its Op (Global.Op) and skips finding it by name.
type Op struct {
	g    *Global
	name string
	mu   sync.Mutex
	lru  LRU
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
func (g *Global) Slots() int { return g.slots }

// Op returns op's entries, made on first use.
func (g *Global) Op(op string) *Op {
	g.mu.RLock()
	o := g.ops[op]
	g.mu.RUnlock()
	if o != nil {
		return o
	}
	g.mu.Lock()
	defer g.mu.Unlock()
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
	o.mu.Lock()
	data, workspace, ok = o.lru.Get(h, key, dst)
	o.mu.Unlock()
	if ok {
		o.g.hits.Inc()
	} else {
		o.g.misses.Inc()
	}
	return data, workspace, ok
}

// Forget drops the entry of key from o's entries, if any: a value found
// wrong (a kernel whose run failed after its tiling was stored).
func (o *Op) Forget(h uint64, key []byte) {
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
// their own compute instead, so that each error names its own caller.
func (o *Op) Fill(h uint64, key, dst []byte, compute func(dst []byte) (Value, error)) (data []byte, workspace int64, computed bool, err error) {
	if data, workspace, ok := o.Get(h, key, dst); ok {
		return data, workspace, false, nil
	}
	var mine Value
	ran, fresh := false, false
	// The op's name's length first: no two (op, key) pairs share a
	// flight, whatever bytes they hold.
	v, err, _ := o.g.group.Do(strconv.Itoa(len(o.name))+":"+o.name+string(key), func() (any, error) {
		ran = true
		o.mu.Lock()
		d, ws, ok := o.lru.Get(h, key, dst)
		o.mu.Unlock()
		if ok { // stored by a computation that ended since the lookup
			mine = Value{Data: d, Workspace: ws}
			return Value{Data: bytes.Clone(d), Workspace: ws}, nil
		}
		fresh = true
		val, err := compute(dst)
		if err != nil {
			return nil, err
		}
		mine = val
		o.g.computed.Inc()
		o.mu.Lock()
		o.lru.Put(h, key, val.Data, val.Workspace)
		o.mu.Unlock()
		// The waiters read their copy after this caller went on to reuse
		// its dst: hand them a copy of their own.
		return Value{Data: bytes.Clone(val.Data), Workspace: val.Workspace}, nil
	})
	switch {
	case ran && err != nil:
		return dst, 0, true, err
	case ran:
		return mine.Data, mine.Workspace, fresh, nil
	case err != nil:
		val, err := compute(dst)
		if err != nil {
			return dst, 0, true, err
		}
		return val.Data, val.Workspace, true, nil
	}
	sv, ok := v.(Value)
	if !ok {
		return dst, 0, false, fmt.Errorf("cache: shared value of op %q is %T", o.name, v)
	}
	return append(dst[:0], sv.Data...), sv.Workspace, false, nil
}

// Stats are a global cache's counts since it was made: lookups that hit
// and missed, and values computed (a miss waiting for another caller's
// computation computes nothing).
type Stats struct {
	Hits, Misses, Computed int64
}

// Stats returns the cache's counts.
func (g *Global) Stats() Stats {
	return Stats{Hits: g.hits.Load(), Misses: g.misses.Load(), Computed: g.computed.Load()}
}
