package actor

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"time"
	"weak"

	"github.com/pipert/pipert/cache"
	"github.com/pipert/pipert/internal/spin"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/plan"
)

// Runners builds an executable's kernels (ATB's Runners): a kernel.Resolver
// over the Config's that takes each kernel from the process's runner pool
// when plan.Runners is on, builds it otherwise, paying Costs.Create for
// each it builds, and gives every kernel it handed out back to the pool at
// Release, when the executable is closed. A kernel is never in the pool
// while an executable uses it. The pool is the resolver's: a kernel built
// by one resolver is never handed to an executable of another, whose
// factory for the same op may build another kernel. Kernels whose
// attributes cannot be encoded (subgraphs of control flow), and those of a
// resolver that cannot be told apart from others (a value of a type that
// is not comparable), are always built and never pooled.
type Runners struct {
	base   kernel.Resolver
	pool   *cache.Pool[kernel.Kernel] // nil: off
	create time.Duration
	ctx    context.Context // the compilation's (Within); nil: none yet

	mu           sync.Mutex
	taken        []pooled
	hits, misses int
}

type pooled struct {
	key string
	k   kernel.Kernel
}

// poolKey names a runner pool: its slots per key and the resolver whose
// kernels it holds — the resolver itself, or, for a pointer, a weak
// pointer to what it points to, so that the pool does not keep a
// registry the program dropped (the pool goes with it).
type poolKey struct {
	slots int
	typ   reflect.Type
	reg   any
}

var (
	poolsMu sync.Mutex
	pools   = map[poolKey]*cache.Pool[kernel.Kernel]{}
)

// runnerPool is the process's runner pool of slots kernels per key for
// the kernels reg builds, nil when reg cannot be a map key.
func runnerPool(slots int, reg kernel.Resolver) *cache.Pool[kernel.Kernel] {
	if reg == nil {
		return nil
	}
	v := reflect.ValueOf(reg)
	if !v.Comparable() {
		return nil
	}
	k := poolKey{slots: slots, typ: v.Type(), reg: reg}
	var obj *byte // what a pointer resolver points to, when it can be held weakly
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Type().Elem().Size() > 0 {
		obj = (*byte)(v.UnsafePointer())
		k.reg = weak.Make(obj)
	}
	poolsMu.Lock()
	defer poolsMu.Unlock()
	p := pools[k]
	if p == nil {
		p = cache.NewPool[kernel.Kernel](slots)
		pools[k] = p
		if obj != nil {
			runtime.AddCleanup(obj, dropPool, k)
		}
	}
	return p
}

// dropPool forgets the pool of a resolver the program dropped.
func dropPool(k poolKey) {
	poolsMu.Lock()
	delete(pools, k)
	poolsMu.Unlock()
}

// NewRunners returns the resolver an executable of the checked Config c
// builds its kernels with. Runners of no resolver (nil or zero Runners, or
// those of a Config without Registry) have no op: New fails with
// ErrMisuse.
func NewRunners(c plan.Config) *Runners {
	r := &Runners{base: c.Registry, create: c.Costs.Create}
	if c.Caches.Kinds.Has(plan.Runners) {
		r.pool = runnerPool(c.Caches.RunnerSlots, c.Registry)
	}
	return r
}

// New implements kernel.Resolver.
func (r *Runners) New(op string, attrs kernel.Attrs) (kernel.Kernel, error) {
	if r == nil || r.base == nil {
		return nil, fmt.Errorf("actor: a %s kernel from Runners of no resolver (nil or zero Runners, or a Config without Registry): %w", op, ErrMisuse)
	}
	key, ok := runnerKey(op, attrs)
	if ok && r.pool != nil {
		if k, hit := r.pool.Get(key); hit {
			if st, ok := k.(kernel.Stateful); ok {
				st.Reset() // another executable's until now
			}
			r.mu.Lock()
			r.taken = append(r.taken, pooled{key, k})
			r.hits++
			r.mu.Unlock()
			return k, nil
		}
	}
	k, err := r.base.New(op, attrs)
	if err != nil || k == nil {
		return k, err
	}
	var done <-chan struct{}
	if r.ctx != nil {
		done = r.ctx.Done()
	}
	if !spin.ForUntil(r.create, done) {
		return nil, fmt.Errorf("actor: creating a %s kernel: %w", op, r.ctx.Err())
	}
	r.mu.Lock()
	r.misses++
	if ok && r.pool != nil {
		r.taken = append(r.taken, pooled{key, k})
	}
	r.mu.Unlock()
	return k, nil
}

// Within makes New's creation cost stop early, with an error wrapping
// ctx's, once ctx ends; call it with the compilation's context before the
// compilation, and with context.Background() after it (later kernels burn
// their cost whole).
func (r *Runners) Within(ctx context.Context) {
	if r != nil {
		r.ctx = ctx
	}
}

// Has implements kernel.Resolver.
func (r *Runners) Has(op string) bool { return r != nil && r.base != nil && r.base.Has(op) }

// Release gives every pooled kernel handed out back to the pool; the
// executable that used them must not run again.
func (r *Runners) Release() {
	if r == nil {
		return
	}
	r.mu.Lock()
	taken := r.taken
	r.taken = nil
	r.mu.Unlock()
	if r.pool == nil {
		return
	}
	for _, t := range taken {
		r.pool.Put(t.key, t.k)
	}
}

// Counts returns the kernels taken from the pool and those built.
func (r *Runners) Counts() (hits, misses int) {
	if r == nil {
		return 0, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits, r.misses
}

// runnerKey encodes op and its attributes, false when an attribute cannot
// be encoded.
func runnerKey(op string, attrs kernel.Attrs) (string, bool) {
	key, _, ok := attrKey(nil, op, nil, attrs)
	return string(key), ok
}
