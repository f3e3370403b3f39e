package cache

import "sync"

// Pool keeps idle values per key, at most Slots each: ATB's Runner Pool,
// where a value is a kernel (a Runner) and a key its op and attributes. A
// value is in the pool only while no one uses it: Get takes it out, Put
// gives it back. Its methods are safe for concurrent use. A nil *Pool
// keeps nothing.
type Pool[T any] struct {
	slots int
	mu    sync.Mutex
	idle  map[string][]T
}

// NewPool returns an empty pool of slots ≥ 1 values per key.
func NewPool[T any](slots int) *Pool[T] {
	return &Pool[T]{slots: max(slots, 1), idle: make(map[string][]T)}
}

// Slots is the number of values kept per key.
func (p *Pool[T]) Slots() int {
	if p == nil {
		return 0
	}
	return p.slots
}

// Get takes an idle value of key out of the pool.
func (p *Pool[T]) Get(key string) (v T, ok bool) {
	if p == nil {
		return v, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	vs := p.idle[key]
	if len(vs) == 0 {
		return v, false
	}
	v = vs[len(vs)-1]
	var zero T
	vs[len(vs)-1] = zero
	p.idle[key] = vs[:len(vs)-1]
	return v, true
}

// Put gives v back under key; it reports false, dropping v, when key's
// slots are full.
func (p *Pool[T]) Put(key string, v T) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	vs := p.idle[key]
	if len(vs) >= p.slots {
		return false
	}
	p.idle[key] = append(vs, v)
	return true
}

// Len is the number of idle values of key.
func (p *Pool[T]) Len(key string) int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle[key])
}
