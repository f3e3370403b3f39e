// Package devtrace records a device's modeled work into a trace: each stream
// becomes a slice track of the trace's device process, and every kernel
// launched with a flow id ends that kernel's flow on its device slice.
//
// Dependency rule: devtrace imports device and trace only.
package devtrace

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/trace"
)

// Observer is a device.Observer writing to a trace.Recorder. Each stream's
// work is recorded by the stream's owner goroutine, so every track keeps
// the recorder's one-writer rule.
//
// Streams are numbered from 0 in creation order over the device's life,
// so a process that compiles many executables on one device reaches high
// numbers: every one is traced. The zero Observer, and a nil *Observer,
// record nothing.
type Observer struct {
	rec    *trace.Recorder
	prefix string
	mu     sync.Mutex // serialises track creation
	// chunks holds the tracks by stream number, chunkSize to a chunk. The
	// slice is replaced, never written, once published, and a chunk's
	// entries are set once: a stream's owner reads both without a lock.
	chunks atomic.Pointer[[]*chunk]
}

// stream is one stream's track and name cache, used only by the stream's
// owner goroutine.
type stream struct {
	t     *trace.Track
	names map[string]trace.Name
	// recent caches names by a cheap hash in front of names: a kernel's
	// name is its op's, so a graph's few ops hit it, and a hit costs a
	// string comparison (usually of one pointer) instead of a map lookup.
	recent [recentSlots]struct {
		s string
		n trace.Name
	}
}

const (
	recentBits  = 6
	recentSlots = 1 << recentBits
)

// name returns the interned s, interning it with rec the first time.
func (st *stream) name(rec *trace.Recorder, s string) trace.Name {
	// By the address of its bytes, mixed: a runtime names a kernel by
	// its op's one string, and distinct strings land apart (hashing the
	// text instead costs as much as the map on a hit, or put Sub and Mul
	// in one slot).
	p := uint64(uintptr(unsafe.Pointer(unsafe.StringData(s))))
	h := int((p * 0x9e3779b97f4a7c15) >> (64 - recentBits))
	if r := &st.recent[h]; r.n != 0 && r.s == s {
		return r.n
	}
	n, ok := st.names[s]
	if !ok {
		n = rec.Intern(s)
		st.names[s] = n
	}
	st.recent[h].s, st.recent[h].n = s, n
	return n
}

// New returns an observer recording to rec, naming tracks "<prefix> stream N".
// A nil or disabled rec records nothing.
func New(rec *trace.Recorder, prefix string) *Observer {
	return &Observer{rec: rec, prefix: prefix}
}

// Close closes the track of every stream (trace.Track.Close), when the
// device is done: no stream works again. The owner of a device made for
// one executable (a heterogeneous executable's host CPU device) closes
// its observer with it, so that the recorder keeps no memory for it.
// Work observed after Close is a misuse of the recorder.
func (o *Observer) Close() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	cs := o.chunks.Load()
	if cs == nil || !o.rec.Hold() {
		return // a closed recorder has taken the tracks' chunks
	}
	defer o.rec.Release()
	for _, c := range *cs {
		for i := range c {
			if st := c[i].Load(); st != nil {
				st.t.Close()
			}
		}
	}
}

// OnStreamReleased implements device.StreamObserver: the stream's track
// is closed (trace.Track.Close), so that a long-lived device's observer
// keeps no recorder memory for the streams of closed executables.
func (o *Observer) OnStreamReleased(id int) {
	if o == nil || id < 0 || !o.rec.Hold() {
		return // a closed recorder has taken the tracks' chunks
	}
	defer o.rec.Release()
	if cs := o.chunks.Load(); cs != nil && id/chunkSize < len(*cs) {
		if st := (*cs)[id/chunkSize][id%chunkSize].Load(); st != nil {
			st.t.Close()
		}
	}
}

// OnNewStream implements device.NewStreamObserver: the stream's track is
// registered now, at the Compile that makes the stream, whether or not
// the recorder is enabled, so that the recorder has its buffer ready
// before the first traced run. Made at the stream's first traced work
// instead, the tracks of a heterogeneous executable's devices (18 on the
// hetero scenario) were registered in its first traced run, each making
// its 256 KiB buffer on the traced goroutines: that run took 6–11 ms
// against 2.2 (2 cores).
func (o *Observer) OnNewStream(id int) {
	if o != nil && o.rec != nil && id >= 0 {
		o.track(id)
	}
}

// chunk is the tracks of chunkSize consecutive streams.
type chunk [chunkSize]atomic.Pointer[stream]

const chunkSize = 64

// track returns stream id's track, made when the stream is (OnNewStream)
// or on its first traced work, for a device that does not tell its new
// streams.
func (o *Observer) track(id int) *stream {
	o.mu.Lock()
	defer o.mu.Unlock()
	var cs []*chunk
	if p := o.chunks.Load(); p != nil {
		cs = *p
	}
	if id/chunkSize >= len(cs) {
		next := make([]*chunk, id/chunkSize+1)
		copy(next, cs)
		for i := len(cs); i < len(next); i++ {
			next[i] = new(chunk)
		}
		cs = next
		o.chunks.Store(&next)
	}
	slot := &cs[id/chunkSize][id%chunkSize]
	if st := slot.Load(); st != nil {
		return st
	}
	st := &stream{
		t:     o.rec.Track(fmt.Sprintf("%s stream %d", o.prefix, id), trace.SliceTrack, trace.Device),
		names: make(map[string]trace.Name),
	}
	slot.Store(st)
	return st
}

// OnWork implements device.Observer.
func (o *Observer) OnWork(w device.Work) {
	if o == nil || !o.rec.Enabled() || w.Stream < 0 {
		return
	}
	var st *stream
	if cs := o.chunks.Load(); cs != nil && w.Stream/chunkSize < len(*cs) {
		st = (*cs)[w.Stream/chunkSize][w.Stream%chunkSize].Load()
	}
	if st == nil {
		st = o.track(w.Stream)
	}
	n := st.name(o.rec, w.Name)
	if w.Flow != 0 {
		st.t.SliceFlow(w.Start, w.End-w.Start, n, trace.EvFlowEnd, w.Flow)
	} else {
		st.t.Slice(w.Start, w.End-w.Start, n)
	}
}
