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

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/trace"
)

// maxStreams bounds the streams of one observed device; work on streams
// beyond it is not traced.
const maxStreams = 64

// Observer is a device.Observer writing to a trace.Recorder. Each stream's
// work is recorded by the stream's owner goroutine, so every track keeps
// the recorder's one-writer rule.
type Observer struct {
	rec    *trace.Recorder
	prefix string
	mu     sync.Mutex // serialises track creation
	tracks [maxStreams]atomic.Pointer[stream]
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

const recentSlots = 64 // a power of two

// name returns the interned s, interning it with rec the first time.
func (st *stream) name(rec *trace.Recorder, s string) trace.Name {
	var h int
	if len(s) > 0 {
		h = (len(s)*31 + int(s[0]) + 7*int(s[len(s)-1])) & (recentSlots - 1)
	}
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

// OnWork implements device.Observer.
func (o *Observer) OnWork(w device.Work) {
	if !o.rec.Enabled() || w.Stream < 0 || w.Stream >= maxStreams {
		return
	}
	st := o.tracks[w.Stream].Load()
	if st == nil {
		o.mu.Lock()
		if st = o.tracks[w.Stream].Load(); st == nil {
			st = &stream{
				t:     o.rec.Track(fmt.Sprintf("%s stream %d", o.prefix, w.Stream), trace.SliceTrack, trace.Device),
				names: make(map[string]trace.Name),
			}
			o.tracks[w.Stream].Store(st)
		}
		o.mu.Unlock()
	}
	n := st.name(o.rec, w.Name)
	if w.Flow != 0 {
		st.t.SliceFlow(w.Start, w.End-w.Start, n, trace.EvFlowEnd, w.Flow)
	} else {
		st.t.Slice(w.Start, w.End-w.Start, n)
	}
}
