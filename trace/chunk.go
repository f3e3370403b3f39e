package trace

import (
	"sync"
	"unsafe"
)

// record is one event as a Track stores it: a fixed-size binary record whose
// fields mean what the kind's Spec says. A record is 24 bytes.
type record struct {
	kind EventKind
	_    [3]byte
	name Name   // interned name; 0 when the kind is not Named
	ts   int64  // ns on the caller's clock
	arg  uint64 // Spec.Arg: a duration, a counter value or a flow id
}

const recordSize = int(unsafe.Sizeof(record{}))

// chunk is a fixed-size buffer of records, all of one track. A chunk is owned
// by exactly one party at a time: the exchange's free list, the goroutine
// writing its track, or the writer goroutine.
type chunk struct {
	track int // index of the track in Recorder.tracks
	n     int // records in use
	recs  []record
}

// exchange passes chunks between the tracks and the writer goroutine, and
// bounds the memory they use.
//
// Protocol: a track takes a chunk with get, fills it, and hands it over with
// put; the writer takes queued chunks with take, encodes them, and returns
// each with release. Chunks are made lazily, up to limit; limit grows by one
// with each registered track. Invariants:
//
//  1. made <= limit, so memory is bounded by limit chunks.
//  2. A track holds at most one chunk at a time, and limit >= tracks + 1, so
//     when a track waits in get, some chunk is queued or being encoded, and
//     the writer will release it: get never waits forever while the writer
//     runs.
//
// A goroutine that finds no free chunk and none left to make waits on freed:
// that is the writer's back-pressure on the tracks. Tried and dropped: a
// channel per direction, whose capacity would have to be fixed before the
// tracks are known.
type exchange struct {
	mu     sync.Mutex
	freed  sync.Cond // signalled when a chunk returns to free
	queued sync.Cond // signalled when a chunk is queued or the exchange closes
	free   []*chunk
	queue  []*chunk // handed-over chunks, oldest first
	spare  []*chunk // the writer's previous batch, recycled as queue's storage
	made   int
	limit  int
	closed bool
	size   int // records per chunk
}

func newExchange(records, limit int) *exchange {
	x := &exchange{size: records, limit: limit}
	x.freed.L = &x.mu
	x.queued.L = &x.mu
	return x
}

// grow raises the chunk limit by n.
func (x *exchange) grow(n int) {
	x.mu.Lock()
	x.limit += n
	x.mu.Unlock()
}

// get returns an empty chunk. When none is free and the limit is reached it
// waits for the writer to release one if block is set, and returns nil if
// not. It returns nil once the exchange is closed.
func (x *exchange) get(block bool) *chunk {
	x.mu.Lock()
	for {
		if x.closed {
			x.mu.Unlock()
			return nil
		}
		if n := len(x.free); n > 0 {
			c := x.free[n-1]
			x.free = x.free[:n-1]
			x.mu.Unlock()
			return c
		}
		if x.made < x.limit {
			x.made++
			x.mu.Unlock()
			return &chunk{recs: make([]record, x.size)}
		}
		if !block {
			x.mu.Unlock()
			return nil
		}
		x.freed.Wait()
	}
}

// put queues c for the writer. After close, c is freed instead.
func (x *exchange) put(c *chunk) {
	x.mu.Lock()
	if x.closed {
		x.free = append(x.free, c)
	} else {
		x.queue = append(x.queue, c)
		x.queued.Signal()
	}
	x.mu.Unlock()
}

// take returns the queued chunks, oldest first, waiting until there is one.
// It returns nil when the exchange is closed and drained. Called only by the
// writer goroutine; the batch stays valid until its next call to take.
func (x *exchange) take() []*chunk {
	x.mu.Lock()
	defer x.mu.Unlock()
	for len(x.queue) == 0 {
		if x.closed {
			return nil
		}
		x.queued.Wait()
	}
	batch := x.queue
	x.queue = x.spare[:0]
	x.spare = batch
	return batch
}

// release returns a chunk the writer is done with to the free list.
func (x *exchange) release(c *chunk) {
	c.n = 0
	x.mu.Lock()
	x.free = append(x.free, c)
	x.freed.Signal()
	x.mu.Unlock()
}

// close makes take return nil once the queue is drained and wakes every
// waiter. Chunks put after close are freed, not written.
func (x *exchange) close() {
	x.mu.Lock()
	x.closed = true
	x.queued.Broadcast()
	x.freed.Broadcast()
	x.mu.Unlock()
}
