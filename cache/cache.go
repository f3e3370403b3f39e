// Package cache holds the host caches of tiling data, in the style of
// Ascend Transformer Boost: a node's local cache (LRU, a few slots, owned
// by one goroutine) and the global cache (per op, a few slots each, shared
// by every executable of the process and safe for concurrent use; misses on
// the same key by several goroutines at once compute once).
//
// A key is an opaque byte string that the caller builds from everything
// the cached value is a function of (the runtime: the node's attributes,
// its operands' dtypes and shapes and the values of its value-dependency
// inputs). The caller also passes the key's hash; the caches use it only
// to skip slots quickly and always compare the whole key, so two keys with
// the same hash never share a value.
package cache

import (
	"bytes"
	"hash/maphash"
)

var seed = maphash.MakeSeed()

// Hash is the hash of key the caches are meant to be used with.
func Hash(key []byte) uint64 { return maphash.Bytes(seed, key) }

// Value is what a cache holds for a key: tiling data and the workspace
// size computed with it.
type Value struct {
	Data      []byte
	Workspace int64
}

// slot is one entry of an LRU.
type slot struct {
	h   uint64
	key []byte
	v   Value
}

// LRU is a cache of a fixed number of slots with least-recently-used
// eviction, for one goroutine at a time. Its slots' buffers are reused:
// once every slot has held keys and values as long as the ones it sees,
// Get and Put allocate nothing. The zero LRU, and a nil *LRU, have no
// slots: they hold nothing (NewLRU makes one that does).
type LRU struct {
	// slots[:n] hold entries, most recently used first; slots grows as
	// entries come, up to size (so that an LRU of many slots costs only
	// what it holds).
	slots []slot
	n     int
	size  int
}

// NewLRU returns an LRU of n ≥ 1 slots (n < 1 makes one slot).
func NewLRU(n int) *LRU {
	if n < 1 {
		n = 1
	}
	return &LRU{size: n}
}

// Slots is the number of slots.
func (c *LRU) Slots() int {
	if c == nil {
		return 0
	}
	return c.size
}

// Len is the number of entries held.
func (c *LRU) Len() int {
	if c == nil {
		return 0
	}
	return c.n
}

// Get looks key up. On a hit it appends the value's data to dst[:0] and
// returns it with the workspace size, and the entry becomes the most
// recently used.
func (c *LRU) Get(h uint64, key, dst []byte) (data []byte, workspace int64, ok bool) {
	if c == nil {
		return dst, 0, false
	}
	for i := 0; i < c.n; i++ {
		s := &c.slots[i]
		if s.h != h || !bytes.Equal(s.key, key) {
			continue
		}
		c.front(i)
		s = &c.slots[0]
		return append(dst[:0], s.v.Data...), s.v.Workspace, true
	}
	return dst, 0, false
}

// Put stores a copy of key and data as the most recently used entry,
// replacing the entry of an equal key or else the least recently used one.
func (c *LRU) Put(h uint64, key, data []byte, workspace int64) {
	if c.Slots() == 0 {
		return
	}
	i := 0
	for ; i < c.n; i++ {
		if c.slots[i].h == h && bytes.Equal(c.slots[i].key, key) {
			break
		}
	}
	if i == c.n {
		if c.n < c.size {
			if c.n == len(c.slots) {
				c.slots = append(c.slots, slot{})
			}
			c.n++
		}
		i = c.n - 1 // a free slot, or the least recently used
	}
	c.front(i)
	s := &c.slots[0]
	s.h = h
	s.key = append(s.key[:0], key...)
	s.v.Data = append(s.v.Data[:0], data...)
	s.v.Workspace = workspace
}

// Remove drops the entry of key, if any; the others keep their order.
func (c *LRU) Remove(h uint64, key []byte) {
	for i := 0; i < c.Len(); i++ {
		if c.slots[i].h == h && bytes.Equal(c.slots[i].key, key) {
			s := c.slots[i] // its buffers, kept for reuse
			copy(c.slots[i:c.n-1], c.slots[i+1:c.n])
			c.n--
			c.slots[c.n] = s
			return
		}
	}
}

// Reset drops every entry (the slots keep their buffers for reuse).
func (c *LRU) Reset() {
	if c != nil {
		c.n = 0
	}
}

// Keys calls f with each entry's hash and key, most recently used first;
// f must not keep key.
func (c *LRU) Keys(f func(h uint64, key []byte)) {
	for i := 0; i < c.Len(); i++ {
		f(c.slots[i].h, c.slots[i].key)
	}
}

// front moves slot i to the front, shifting the ones before it back.
func (c *LRU) front(i int) {
	if i == 0 {
		return
	}
	s := c.slots[i]
	copy(c.slots[1:i+1], c.slots[:i])
	c.slots[0] = s
}
