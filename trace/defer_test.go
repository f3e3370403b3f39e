package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// TestDeferSameTrace: with Options.Defer the trace holds the same tracks
// and events as when encoded while recording, in both formats and with
// chunks small enough that there are many; the spill file is gone after
// Close.
func TestDeferSameTrace(t *testing.T) {
	for _, f := range []Format{Perfetto, JSON} {
		for _, chunk := range []int{minChunkBytes, 0} {
			dir := t.TempDir()
			o := Options{Format: f, ChunkBytes: chunk}
			now := workloadTrace(t, o, 3000)
			o.Defer, o.SpillDir = true, dir
			later := workloadTrace(t, o, 3000)
			a, err := Parse(now)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Parse(later)
			if err != nil {
				t.Fatalf("%v, deferred: %v", f, err)
			}
			if len(a.Events) < 3000 || !reflect.DeepEqual(a.Tracks, b.Tracks) || !sameEvents(a.Events, b.Events) {
				t.Errorf("%v chunk %d: deferred trace differs: %d events and %d tracks, want %d and %d",
					f, chunk, len(b.Events), len(b.Tracks), len(a.Events), len(a.Tracks))
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
				t.Errorf("%v: spill files left after Close: %v", f, left)
			}
		}
	}
}

func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) && !(a[i].Value != a[i].Value && b[i].Value != b[i].Value) {
			return false
		}
	}
	return true
}

// TestDeferBadSpillDir: a spill directory that cannot take the file is an
// error from New, and nothing is written.
func TestDeferBadSpillDir(t *testing.T) {
	var buf bytes.Buffer
	dir := filepath.Join(t.TempDir(), "missing")
	if _, err := New(&buf, Options{Defer: true, SpillDir: dir}); err == nil {
		t.Fatal("New with a missing spill directory succeeded")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("spill directory created: %v", err)
	}
}

// TestDeferWritesAtClose: nothing reaches the output before Close.
func TestDeferWritesAtClose(t *testing.T) {
	var buf bytes.Buffer
	r, err := New(&buf, Options{Defer: true, SpillDir: t.TempDir(), ChunkBytes: minChunkBytes})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkload(r, 3)
	for range 2000 {
		w.kernel()
	}
	before := r.Stats().Bytes
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Bytes <= before || st.Events == 0 {
		t.Fatalf("bytes %d before Close, %d after (%d events)", before, st.Bytes, st.Events)
	}
	if _, err := Parse(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// TestSliceFlow: SliceFlow records what Slice and a flow event record.
// TestSliceFlow: SliceFlow records what Slice followed by the flow event
// records, in every format, across chunk boundaries and with Defer, for
// durations on both sides of what one packed record holds and for each
// flow kind.
func TestSliceFlow(t *testing.T) {
	durs := []int64{0, 1, 5, maxPackedDur - 1, maxPackedDur, maxPackedDur + 1, 1 << 40}
	kinds := []EventKind{EvFlowBegin, EvFlowStep, EvFlowEnd}
	const n = 300
	for _, opts := range []Options{{Format: JSON}, {Format: Perfetto}, {Format: Perfetto, Defer: true}, {Format: JSON, Defer: true, ChunkBytes: 1 << 10}, {Format: Perfetto, ChunkBytes: 1 << 10}} {
		opts.SpillDir = t.TempDir()
		rec := func(one bool) ([]Event, Stats) {
			var buf bytes.Buffer
			r, err := New(&buf, opts)
			if err != nil {
				t.Fatal(err)
			}
			a, b := r.Track("a", SliceTrack, Host), r.Track("b", SliceTrack, Device)
			name := r.Intern("k")
			for i := range n {
				ts := int64(i) * (2 << 40)
				dur, kind := durs[i%len(durs)], kinds[i%len(kinds)]
				if one {
					a.SliceFlow(ts, dur, name, kind, uint64(i+1))
					b.SliceFlow(ts+dur, 3, name, EvFlowEnd, uint64(i+1))
				} else {
					a.Slice(ts, dur, name)
					switch kind {
					case EvFlowBegin:
						a.FlowBegin(uint64(i + 1))
					case EvFlowStep:
						a.FlowStep(uint64(i + 1))
					default:
						a.FlowEnd(uint64(i + 1))
					}
					b.Slice(ts+dur, 3, name)
					b.FlowEnd(uint64(i + 1))
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			p, err := Parse(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			return p.Events, r.Stats()
		}
		got, gs := rec(true)
		want, ws := rec(false)
		parsed := 4 * n // JSON: complete slices; Perfetto: begin and end
		if opts.Format == Perfetto {
			parsed = 6 * n
		}
		// Chunks fill at other times when a pair takes one record: compare
		// each track's events in order.
		byTrack := func(evs []Event) {
			sort.SliceStable(evs, func(i, j int) bool { return evs[i].Track < evs[j].Track })
		}
		byTrack(got)
		byTrack(want)
		if len(want) != parsed || !sameEvents(got, want) {
			t.Fatalf("%+v: SliceFlow: %d events, differ from Slice + flow (%d)", opts, len(got), len(want))
		}
		if gs.Events != ws.Events || gs.Events != 4*n {
			t.Errorf("%+v: Stats.Events %d with SliceFlow, %d with Slice + flow, want %d", opts, gs.Events, ws.Events, 4*n)
		}
	}
	r, _ := New(&bytes.Buffer{}, Options{})
	r.Track("a", SliceTrack, Host).SliceFlow(0, 1, 0, EvSlice, 1)
	if err := r.Close(); !errors.Is(err, ErrMisuse) {
		t.Errorf("SliceFlow with a slice kind: Close = %v, want ErrMisuse", err)
	}
}
