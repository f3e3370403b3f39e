package cache_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pipert/pipert/cache"
	"github.com/pipert/pipert/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

// refLRU is the trivially correct LRU: a list of entries, most recent
// first, searched and rebuilt on every call.
type refLRU struct {
	n       int
	entries []refEntry
}

type refEntry struct {
	key, data []byte
	ws        int64
}

func (r *refLRU) get(key []byte) ([]byte, int64, bool) {
	for i, e := range r.entries {
		if bytes.Equal(e.key, key) {
			r.entries = append([]refEntry{e}, append(r.entries[:i:i], r.entries[i+1:]...)...)
			return e.data, e.ws, true
		}
	}
	return nil, 0, false
}

func (r *refLRU) put(key, data []byte, ws int64) {
	for i, e := range r.entries {
		if bytes.Equal(e.key, key) {
			r.entries = append(r.entries[:i:i], r.entries[i+1:]...)
			break
		}
	}
	e := refEntry{key: bytes.Clone(key), data: bytes.Clone(data), ws: ws}
	r.entries = append([]refEntry{e}, r.entries...)
	if len(r.entries) > r.n {
		r.entries = r.entries[:r.n]
	}
}

// TestLRUMatchesReference drives the LRU and the reference with the same
// random gets and puts, with a hash that collides often (the LRU must
// compare whole keys).
func TestLRUMatchesReference(t *testing.T) {
	for _, n := range []int{1, 2, 5, 16} {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		c, ref := cache.NewLRU(n), &refLRU{n: n}
		var dst []byte
		for i := 0; i < 20000; i++ {
			k := rng.IntN(3 * n)
			key := []byte(fmt.Sprintf("key-%d", k))
			h := uint64(k % 3) // many keys share a hash
			if rng.IntN(2) == 0 {
				data := bytes.Repeat([]byte{byte(i)}, rng.IntN(40))
				c.Put(h, key, data, int64(i))
				ref.put(key, data, int64(i))
				continue
			}
			var ws int64
			var ok bool
			dst, ws, ok = c.Get(h, key, dst)
			rd, rws, rok := ref.get(key)
			if ok != rok || ok && (!bytes.Equal(dst, rd) || ws != rws) {
				t.Fatalf("slots %d, step %d, key %s: got (%v, %d, %v), want (%v, %d, %v)", n, i, key, dst, ws, ok, rd, rws, rok)
			}
		}
		if c.Len() != len(ref.entries) {
			t.Fatalf("slots %d: %d entries, reference %d", n, c.Len(), len(ref.entries))
		}
	}
}

// TestLRUCollidingHashesKeepTheirValues: two keys with the same hash
// never get each other's value.
func TestLRUCollidingHashesKeepTheirValues(t *testing.T) {
	c := cache.NewLRU(1)
	c.Put(42, []byte("shape 2x3"), []byte{1}, 10)
	if _, _, ok := c.Get(42, []byte("shape 3x2"), nil); ok {
		t.Fatal("a key with the same hash hit another key's entry")
	}
	c.Put(42, []byte("shape 3x2"), []byte{2}, 20)
	if d, ws, ok := c.Get(42, []byte("shape 3x2"), nil); !ok || d[0] != 2 || ws != 20 {
		t.Fatalf("got %v %d %v", d, ws, ok)
	}
	if _, _, ok := c.Get(42, []byte("shape 2x3"), nil); ok {
		t.Fatal("the evicted entry is still found")
	}
}

// TestLRUSteadyStateAllocatesNothing: once the slots have grown to the
// sizes they see, Get and Put reuse them.
func TestLRUSteadyStateAllocatesNothing(t *testing.T) {
	c := cache.NewLRU(2)
	keys := [][]byte{[]byte("aaaa"), []byte("bbbbbb"), []byte("cc")}
	data := make([]byte, 64)
	dst := make([]byte, 0, 64)
	i := 0
	step := func() {
		k := keys[i%3]
		i++
		if _, _, ok := c.Get(cache.Hash(k), k, dst); !ok {
			c.Put(cache.Hash(k), k, data, 1)
		}
	}
	for j := 0; j < 10; j++ {
		step()
	}
	if a := testing.AllocsPerRun(1000, step); a != 0 {
		t.Fatalf("%v allocations per lookup", a)
	}
}

// TestGlobalConcurrentMissesComputeOnce: goroutines of many "executables"
// miss the same key at once; the value is computed once, every caller gets
// it in its own buffer, and the per-op slots are shared.
func TestGlobalConcurrentMissesComputeOnce(t *testing.T) {
	g := cache.NewGlobal(5)
	key := []byte("MatMul 4x64 64x64")
	h := cache.Hash(key)
	release := make(chan struct{})
	var mu sync.Mutex
	computes := 0
	const n = 16
	var wg sync.WaitGroup
	got := make([][]byte, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]byte, 0, 8)
			d, ws, _, err := g.Fill("MatMul", h, key, dst, func(dst []byte) (cache.Value, error) {
				mu.Lock()
				computes++
				mu.Unlock()
				<-release
				return cache.Value{Data: append(dst[:0], 7, 8, 9), Workspace: 128}, nil
			})
			if err == nil && ws != 128 {
				err = fmt.Errorf("workspace %d", ws)
			}
			got[i], errs[i] = d, err
		}()
	}
	close(release)
	wg.Wait()
	for i := range got {
		if errs[i] != nil || !bytes.Equal(got[i], []byte{7, 8, 9}) {
			t.Fatalf("caller %d: %v %v", i, got[i], errs[i])
		}
	}
	if computes != 1 || g.Stats().Computed != 1 {
		t.Fatalf("computed %d times (stats %+v), want once", computes, g.Stats())
	}
	// Later lookups hit.
	if d, _, ok := g.Get("MatMul", h, key, nil); !ok || !bytes.Equal(d, []byte{7, 8, 9}) {
		t.Fatalf("lookup after fill: %v %v", d, ok)
	}
	// Another op's entries are apart.
	if _, _, ok := g.Get("Add", h, key, nil); ok {
		t.Fatal("an op found another op's entry")
	}
}

// TestGlobalErrorsAreNotShared: a failed computation stores nothing, and
// each caller's error is its own.
func TestGlobalErrorsAreNotShared(t *testing.T) {
	g := cache.NewGlobal(1)
	boom := errors.New("boom")
	_, _, computed, err := g.Fill("Op", 1, []byte("k"), nil, func([]byte) (cache.Value, error) { return cache.Value{}, boom })
	if !errors.Is(err, boom) || !computed {
		t.Fatalf("got %v, computed %v", err, computed)
	}
	if _, _, ok := g.Get("Op", 1, []byte("k"), nil); ok {
		t.Fatal("a failed computation was stored")
	}
}

// TestGlobalPerOpLRU: each op holds Slots entries, least recently used
// evicted, colliding hashes told apart by their keys.
func TestGlobalPerOpLRU(t *testing.T) {
	g := cache.NewGlobal(2)
	fill := func(k string, v byte) {
		if _, _, _, err := g.Fill("Op", 9, []byte(k), nil, func(dst []byte) (cache.Value, error) {
			return cache.Value{Data: []byte{v}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	fill("a", 1)
	fill("b", 2)
	if d, _, ok := g.Get("Op", 9, []byte("a"), nil); !ok || d[0] != 1 {
		t.Fatal("a lost")
	}
	fill("c", 3) // evicts b, the least recently used
	if _, _, ok := g.Get("Op", 9, []byte("b"), nil); ok {
		t.Fatal("b should have been evicted")
	}
	for k, v := range map[string]byte{"a": 1, "c": 3} {
		if d, _, ok := g.Get("Op", 9, []byte(k), nil); !ok || d[0] != v {
			t.Fatalf("%s: %v %v", k, d, ok)
		}
	}
	if a, b := cache.Shared(3), cache.Shared(3); a != b || a == cache.Shared(4) {
		t.Fatal("Shared must return one cache per slot count")
	}
}

// TestPoolHandsEachValueToOneUser: a value taken is no longer in the pool
// until given back; a key keeps at most Slots idle values; concurrent users
// never get the same value twice.
func TestPoolHandsEachValueToOneUser(t *testing.T) {
	p := cache.NewPool[*int](2)
	if _, ok := p.Get("a"); ok {
		t.Fatal("empty pool gave a value")
	}
	v1, v2, v3 := new(int), new(int), new(int)
	if !p.Put("a", v1) || !p.Put("a", v2) || p.Put("a", v3) {
		t.Fatal("slots not honoured")
	}
	if p.Len("a") != 2 || p.Len("b") != 0 {
		t.Fatalf("lens %d %d", p.Len("a"), p.Len("b"))
	}
	got, ok := p.Get("a")
	if !ok || got != v2 || p.Len("a") != 1 {
		t.Fatalf("Get gave %p %v, %d left", got, ok, p.Len("a"))
	}
	p = cache.NewPool[*int](64)
	for range 64 {
		p.Put("k", new(int))
	}
	var mu sync.Mutex
	seen := map[*int]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				v, ok := p.Get("k")
				if !ok {
					continue
				}
				mu.Lock()
				if seen[v] {
					mu.Unlock()
					t.Error("a value in use was handed out again")
					return
				}
				seen[v] = true
				mu.Unlock()
				mu.Lock()
				delete(seen, v)
				mu.Unlock()
				p.Put("k", v)
			}
		}()
	}
	wg.Wait()
	if p.Len("k") != 64 {
		t.Fatalf("%d values left of 64", p.Len("k"))
	}
}

// TestGlobalOpsNeverShareAFlight checks that two ops whose name and key
// bytes run together the same way (op "a\x00b" with key "c", op "a" with
// key "b\x00c") do not share a computation in flight: each caller gets its
// own op's value.
func TestGlobalOpsNeverShareAFlight(t *testing.T) {
	g := cache.NewGlobal(4)
	k1, k2 := []byte("c"), []byte("b\x00c")
	inFirst, release := make(chan struct{}), make(chan struct{})
	first := make(chan []byte)
	go func() {
		d, _, _, err := g.Fill("a\x00b", cache.Hash(k1), k1, nil, func(dst []byte) (cache.Value, error) {
			close(inFirst)
			<-release
			return cache.Value{Data: append(dst[:0], "first"...)}, nil
		})
		if err != nil {
			d = []byte(err.Error())
		}
		first <- d
	}()
	<-inFirst
	second := make(chan []byte)
	go func() {
		d, _, _, err := g.Fill("a", cache.Hash(k2), k2, nil, func(dst []byte) (cache.Value, error) {
			return cache.Value{Data: append(dst[:0], "second"...)}, nil
		})
		if err != nil {
			d = []byte(err.Error())
		}
		second <- d
	}()
	var got []byte
	select {
	case got = <-second:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("the second op's Fill waited for the first op's computation")
	}
	close(release)
	if string(got) != "second" {
		t.Errorf("op a, key b\\x00c: got %q, want its own value", got)
	}
	if d := <-first; string(d) != "first" {
		t.Errorf("op a\\x00b, key c: got %q", d)
	}
}

// TestZeroLRUHoldsNothing checks that the zero LRU takes Puts and finds
// nothing, instead of panicking.
func TestZeroLRUHoldsNothing(t *testing.T) {
	var c cache.LRU
	c.Put(1, []byte("k"), []byte("v"), 0)
	if _, _, ok := c.Get(1, []byte("k"), nil); ok || c.Len() != 0 {
		t.Fatalf("the zero LRU holds %d entries", c.Len())
	}
}

// TestZeroGlobalHoldsNothing: the zero Global, as the zero LRU, keeps
// nothing: every Fill computes, Get misses, and nothing panics.
func TestZeroGlobalHoldsNothing(t *testing.T) {
	var g cache.Global
	for range 2 {
		data, _, computed, err := g.Fill("op", 1, []byte("k"), nil, func(dst []byte) (cache.Value, error) {
			return cache.Value{Data: append(dst, 'v')}, nil
		})
		if err != nil || !computed || string(data) != "v" {
			t.Fatalf("Fill on the zero Global: %q, computed %v, %v", data, computed, err)
		}
	}
	if _, _, ok := g.Get("op", 1, []byte("k"), nil); ok || g.Slots() != 0 {
		t.Fatalf("the zero Global found an entry (slots %d)", g.Slots())
	}
}

// TestRemoveResetForget: Remove drops one entry and keeps the others in
// their order, Reset drops all, Keys lists them most recent first, and a
// global Op's Forget drops its entry of a key.
func TestRemoveResetForget(t *testing.T) {
	c := cache.NewLRU(3)
	for i, k := range []string{"a", "b", "c"} {
		c.Put(uint64(i), []byte(k), []byte(k+k), int64(i))
	}
	keys := func() (ks []string) {
		c.Keys(func(_ uint64, key []byte) { ks = append(ks, string(key)) })
		return ks
	}
	if got := keys(); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Fatalf("keys %v", got)
	}
	c.Remove(1, []byte("b"))
	c.Remove(9, []byte("zz")) // absent: nothing
	if got := keys(); !slices.Equal(got, []string{"c", "a"}) || c.Len() != 2 {
		t.Fatalf("after Remove: keys %v, len %d", got, c.Len())
	}
	if _, _, ok := c.Get(1, []byte("b"), nil); ok {
		t.Fatal("a removed entry is found")
	}
	if d, ws, ok := c.Get(0, []byte("a"), nil); !ok || string(d) != "aa" || ws != 0 {
		t.Fatalf("a kept entry: %q %d %v", d, ws, ok)
	}
	c.Put(5, []byte("d"), []byte("dd"), 5) // fills the freed slot
	if c.Len() != 3 {
		t.Fatalf("len %d after a Put into the freed slot", c.Len())
	}
	c.Reset()
	if c.Len() != 0 || len(keys()) != 0 {
		t.Fatalf("after Reset: len %d, keys %v", c.Len(), keys())
	}
	g := cache.NewGlobal(2).Op("op")
	g.Fill(7, []byte("k"), nil, func(dst []byte) (cache.Value, error) { return cache.Value{Data: []byte("v")}, nil })
	if _, _, ok := g.Get(7, []byte("k"), nil); !ok {
		t.Fatal("filled entry missing")
	}
	g.Forget(7, []byte("k"))
	if _, _, ok := g.Get(7, []byte("k"), nil); ok {
		t.Fatal("a forgotten entry is found")
	}
}

// TestLRUOfManySlots: an LRU of very many slots costs what it holds, not
// its size (its slots grow as entries come), and evicts at its size.
func TestLRUOfManySlots(t *testing.T) {
	c := cache.NewLRU(1 << 40)
	if c.Slots() != 1<<40 {
		t.Fatalf("Slots() = %d", c.Slots())
	}
	for i := range 3 {
		k := []byte{byte(i)}
		c.Put(cache.Hash(k), k, k, int64(i))
	}
	if c.Len() != 3 {
		t.Errorf("Len %d, want 3", c.Len())
	}
	small := cache.NewLRU(2)
	for i := range 3 {
		k := []byte{byte(i)}
		small.Put(cache.Hash(k), k, k, int64(i))
	}
	if _, _, ok := small.Get(cache.Hash([]byte{0}), []byte{0}, nil); ok || small.Len() != 2 {
		t.Errorf("an LRU of 2 slots kept the first of 3 entries (Len %d)", small.Len())
	}
	g := cache.NewGlobal(1 << 40)
	if _, _, computed, err := g.Fill("Op", 1, []byte{1}, nil, func(dst []byte) (cache.Value, error) { return cache.Value{Data: append(dst, 9)}, nil }); err != nil || !computed {
		t.Errorf("a global cache of many slots: %v, %v", computed, err)
	}
}

// TestGlobalWaitersOutliveAComputeThatDoesNotReturn: a compute that panics
// or calls runtime.Goexit ends its own caller only; the callers waiting for
// it on the same key run their own compute, as after an error, and get its
// value.
func TestGlobalWaitersOutliveAComputeThatDoesNotReturn(t *testing.T) {
	for _, how := range []string{"panic", "Goexit"} {
		t.Run(how, func(t *testing.T) {
			g := cache.NewGlobal(2)
			key := []byte("k")
			h := cache.Hash(key)
			started, release := make(chan struct{}), make(chan struct{})
			first := make(chan any, 1)
			go func() {
				returned := false
				defer func() {
					if !returned {
						first <- recover()
					}
				}()
				g.Fill("Op", h, key, nil, func([]byte) (cache.Value, error) {
					close(started)
					<-release
					if how == "panic" {
						panic("boom")
					}
					runtime.Goexit()
					return cache.Value{}, nil
				})
				returned = true
				first <- "returned"
			}()
			<-started
			type result struct {
				data     []byte
				computed bool
				err      error
			}
			waiter := make(chan result, 1)
			go func() {
				var r result
				// Fill's own end, whatever it is, is reported.
				defer func() { waiter <- r }()
				r.err = errors.New("the waiter's goroutine did not return from Fill")
				r.data, _, r.computed, r.err = g.Fill("Op", h, key, nil, func(dst []byte) (cache.Value, error) {
					return cache.Value{Data: append(dst[:0], 'w')}, nil
				})
			}()
			// The waiter joins the flight before it ends: its lookup
			// has missed, and it goes on to wait.
			for g.Stats().Misses < 2 {
				runtime.Gosched()
			}
			time.Sleep(20 * time.Millisecond)
			close(release)
			if got := <-first; how == "panic" && got != "boom" {
				t.Fatalf("computing caller: %v, want its own panic", got)
			}
			r := <-waiter
			if r.err != nil || string(r.data) != "w" || !r.computed {
				t.Fatalf("waiter: %q computed %v, %v; want its own value", r.data, r.computed, r.err)
			}
		})
	}
}

// TestNilCaches: nil caches hold nothing, and a nil Global's Fill
// computes every time.
func TestNilCaches(t *testing.T) {
	var g *cache.Global
	calls := 0
	compute := func(dst []byte) (cache.Value, error) {
		calls++
		return cache.Value{Data: append(dst[:0], 7), Workspace: 3}, nil
	}
	for range 2 {
		data, ws, computed, err := g.Fill("Add", 1, []byte("k"), nil, compute)
		if err != nil || !computed || ws != 3 || len(data) != 1 || data[0] != 7 {
			t.Fatalf("nil Global: Fill = %v, %d, %v, %v", data, ws, computed, err)
		}
	}
	if calls != 2 {
		t.Errorf("nil Global: %d computes for 2 Fills, want 2", calls)
	}
	if _, _, ok := g.Get("Add", 1, []byte("k"), nil); ok {
		t.Error("nil Global: a hit")
	}
	var c *cache.LRU
	c.Put(1, []byte("k"), []byte{1}, 0)
	if _, _, ok := c.Get(1, []byte("k"), nil); ok || c.Len() != 0 {
		t.Errorf("nil LRU: hit %v, Len %d", ok, c.Len())
	}
	var p *cache.Pool[int]
	if p.Put("k", 1) {
		t.Error("nil Pool: Put kept a value")
	}
	if _, ok := p.Get("k"); ok {
		t.Error("nil Pool: Get found a value")
	}
}
