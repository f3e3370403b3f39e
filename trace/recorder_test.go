package trace

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// both runs f once per output format.
func both(t *testing.T, f func(t *testing.T, opts Options)) {
	t.Helper()
	for _, o := range []Options{{Format: Perfetto}, {Format: Perfetto, NoCompression: true}, {Format: JSON}} {
		name := o.Format.String()
		if o.NoCompression {
			name += "-raw"
		}
		t.Run(name, func(t *testing.T) { f(t, o) })
	}
}

// roundTrip records with rec into a fresh Recorder and parses the output.
func roundTrip(t *testing.T, opts Options, rec func(r *Recorder)) *Parsed {
	t.Helper()
	var buf bytes.Buffer
	r, err := New(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	rec(r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatalf("parse %v output: %v", opts.Format, err)
	}
	if p.Format != opts.Format {
		t.Fatalf("parsed format %v, wrote %v", p.Format, opts.Format)
	}
	return p
}

func TestWorkloadRoundTrip(t *testing.T) {
	const kernels = 3000
	both(t, func(t *testing.T, opts Options) {
		// Small chunks, so that many hand-overs happen.
		opts.ChunkBytes = 4 << 10
		p := roundTrip(t, opts, func(r *Recorder) {
			w := newWorkload(r, 7)
			for range kernels {
				w.kernel()
			}
		})
		if err := Validate(p); err != nil {
			t.Fatal(err)
		}
		want := map[string]TrackInfo{
			"runner":             {"runner", SliceTrack, "host"},
			"infer":              {"infer", SliceTrack, "host"},
			"resize":             {"resize", SliceTrack, "host"},
			"launch":             {"launch", SliceTrack, "host"},
			"stream 0":           {"stream 0", SliceTrack, "device"},
			"launch queue depth": {"launch queue depth", CounterTrack, "host"},
			"device memory":      {"device memory", CounterTrack, "device"},
			"device utilisation": {"device utilisation", CounterTrack, "device"},
		}
		if len(p.Tracks) != len(want) {
			t.Fatalf("tracks = %+v, want %d", p.Tracks, len(want))
		}
		for _, tr := range p.Tracks {
			if want[tr.Name] != tr {
				t.Errorf("track %+v, want %+v", tr, want[tr.Name])
			}
		}
		perTrack := map[string]int{}
		for _, s := range p.Slices() {
			perTrack[p.Tracks[s.Track].Name]++
			if s.Depth != 0 {
				t.Fatalf("slice %+v nested; the workload has none", s)
			}
		}
		for _, n := range []string{"runner", "infer", "resize", "launch", "stream 0"} {
			if perTrack[n] != kernels {
				t.Errorf("track %q has %d slices, want %d", n, perTrack[n], kernels)
			}
		}
		var begins, steps, ends, ints, floats int
		for _, ev := range p.Events {
			switch ev.Kind {
			case EvFlowBegin:
				begins++
			case EvFlowStep:
				steps++
			case EvFlowEnd:
				ends++
			case EvCounter:
				ints++
			case EvCounterFloat:
				floats++
			}
		}
		if begins != kernels || steps != 3*kernels || ends != kernels {
			t.Errorf("flows: %d begins, %d steps, %d ends; want %d, %d, %d", begins, steps, ends, kernels, 3*kernels, kernels)
		}
		if ints != 2*kernels || floats != kernels/utilisationEach {
			t.Errorf("counters: %d int, %d float samples; want %d, %d", ints, floats, 2*kernels, kernels/utilisationEach)
		}
	})
}

// TestConcurrentPipeline traces a pipeline whose stages are real goroutines
// handing kernels on through channels, each writing its own track, with a
// pool of two chunks beyond one per track so that tracks wait for the writer.
func TestConcurrentPipeline(t *testing.T) {
	const kernels = 2000
	both(t, func(t *testing.T, opts Options) {
		opts.ChunkBytes = 1 << 10
		opts.SpareChunks = 1
		p := roundTrip(t, opts, func(r *Recorder) {
			names := []string{"prepare", "infer", "resize", "launch"}
			var tracks [5]*Track
			var ids [5]Name
			for i, n := range names {
				tracks[i] = r.Track(n, SliceTrack, Host)
				ids[i] = r.Intern(n)
			}
			tracks[4] = r.Track("stream", SliceTrack, Device)
			ids[4] = r.Intern("kernel")
			depth := r.Track("depth", CounterTrack, Host)

			type token struct {
				id   uint64
				done int64 // when the previous stage finished
			}
			chans := make([]chan token, 6)
			for i := range chans {
				chans[i] = make(chan token, 16)
			}
			var wg sync.WaitGroup
			for s := range 5 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var free int64
					for tok := range chans[s] {
						start := max(free, tok.done)
						tracks[s].Slice(start, 100, ids[s])
						switch s {
						case 0:
							tracks[s].FlowBegin(tok.id)
						case 4:
							tracks[s].FlowEnd(tok.id)
						default:
							tracks[s].FlowStep(tok.id)
						}
						if s == 3 {
							depth.Counter(start, int64(len(chans[s])))
						}
						free = start + 100
						chans[s+1] <- token{tok.id, free}
					}
					close(chans[s+1])
				}()
			}
			go func() {
				for i := range kernels {
					chans[0] <- token{uint64(i + 1), 0}
				}
				close(chans[0])
			}()
			for range chans[5] {
			}
			wg.Wait()
		})
		if err := Validate(p); err != nil {
			t.Fatal(err)
		}
		if n := len(p.Slices()); n != 5*kernels {
			t.Fatalf("%d slices, want %d", n, 5*kernels)
		}
	})
}

// genSlice is one slice of a random nesting forest, with how to record it.
type genSlice struct {
	name       string
	start, end int64
	complete   bool // recorded with Slice, else with Begin and End
}

// genForest returns random properly nested slices on [lo, hi), in start
// order (parents first), at most depth levels deep.
func genForest(rng interface{ IntN(int) int }, lo, hi int64, depth int) []genSlice {
	var out []genSlice
	for t := lo; t < hi && depth > 0; {
		start := t + int64(rng.IntN(3)) // ties with the previous end happen
		if start >= hi {
			break
		}
		end := start + int64(rng.IntN(int(min(hi-start, 40))+1))
		s := genSlice{name: string(rune('a' + rng.IntN(4))), start: start, end: end, complete: rng.IntN(2) == 0}
		out = append(out, s)
		if rng.IntN(3) > 0 {
			out = append(out, genForest(rng, start, end, depth-1)...)
		}
		t = end
	}
	return out
}

// recordForest records a forest on t in start order: complete slices as
// Slice, the others as Begin now and End when the time comes.
func recordForest(t *Track, names map[string]Name, forest []genSlice) {
	var open []genSlice // Begin/End slices not yet ended, innermost last
	closeUpTo := func(ts int64) {
		for len(open) > 0 && open[len(open)-1].end <= ts {
			t.End(open[len(open)-1].end)
			open = open[:len(open)-1]
		}
	}
	for _, s := range forest {
		closeUpTo(s.start)
		if s.complete {
			t.Slice(s.start, s.end-s.start, names[s.name])
		} else {
			// Zero-length Begin/End slices must end before anything nested
			// or following starts at the same time: End at once.
			t.Begin(s.start, names[s.name])
			open = append(open, s)
			if s.end == s.start {
				closeUpTo(s.start)
			}
		}
	}
	closeUpTo(math.MaxInt64)
}

// TestNestingMatchesReference records random nestings of complete and
// Begin/End slices and checks that the slices read back from each format are
// exactly those recorded.
func TestNestingMatchesReference(t *testing.T) {
	both(t, func(t *testing.T, opts Options) {
		opts.ChunkBytes = 1 << 10
		for seed := range uint64(40) {
			rng := newRand(seed)
			forests := make([][]genSlice, 3)
			for i := range forests {
				forests[i] = genForest(rng, 0, 2000, 4)
			}
			p := roundTrip(t, opts, func(r *Recorder) {
				names := map[string]Name{}
				for _, n := range []string{"a", "b", "c", "d"} {
					names[n] = r.Intern(n)
				}
				for i, f := range forests {
					recordForest(r.Track(string(rune('A'+i)), SliceTrack, Host), names, f)
				}
			})
			if err := Validate(p); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			got := map[[4]int64]int{} // track, start, end, name → count
			for _, s := range p.Slices() {
				got[[4]int64{int64(s.Track), s.Start, s.End, int64(s.Name[0])}]++
			}
			want := map[[4]int64]int{}
			for i, f := range forests {
				for _, s := range f {
					want[[4]int64{int64(i), s.start, s.end, int64(s.name[0])}]++
				}
			}
			if len(got) != len(want) {
				t.Fatalf("seed %d: %d distinct slices read, %d recorded", seed, len(got), len(want))
			}
			for k, n := range want {
				if got[k] != n {
					t.Fatalf("seed %d: slice %v read %d times, recorded %d", seed, k, got[k], n)
				}
			}
		}
	})
}

// TestZeroRecorder: the zero Recorder, not made by New or Create, records
// nothing, as a nil one, and says so: Made is false, and its Close is an
// error wrapping ErrMisuse.
func TestZeroRecorder(t *testing.T) {
	r := new(Recorder)
	if r.Made() || (*Recorder)(nil).Made() {
		t.Fatal("a zero or nil Recorder reports Made")
	}
	r.SetEnabled(true)
	if r.Enabled() || r.Hold() || r.Intern("x") != 0 || r.Group("g") != 0 || r.Track("t", SliceTrack, Host) != nil || r.Stats() != (Stats{}) {
		t.Fatal("zero Recorder is not inert")
	}
	r.Release()
	if err := r.Close(); !errors.Is(err, ErrMisuse) {
		t.Fatalf("Close of a zero Recorder: %v, want an error wrapping ErrMisuse", err)
	}
	made, err := New(io.Discard, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !made.Made() {
		t.Error("a Recorder of New does not report Made")
	}
	if err := made.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNilAndDisabled(t *testing.T) {
	var r *Recorder
	if r.Enabled() || r.Intern("x") != 0 || r.Group("g") != 0 || r.Track("t", SliceTrack, Host) != nil {
		t.Fatal("nil Recorder is not inert")
	}
	r.SetEnabled(true)
	if r.Enabled() || r.Close() != nil || r.Stats() != (Stats{}) {
		t.Fatal("nil Recorder is not inert")
	}
	var tr *Track
	tr.Begin(1, 0)
	tr.End(2)
	tr.Slice(1, 1, 0)
	tr.Instant(1, 0)
	tr.FlowBegin(1)
	tr.FlowStep(1)
	tr.FlowEnd(1)
	tr.Flush()
	if tr.Enabled() {
		t.Fatal("nil Track enabled")
	}

	both(t, func(t *testing.T, opts Options) {
		p := roundTrip(t, opts, func(r *Recorder) {
			s := r.Track("s", SliceTrack, Host)
			c := r.Track("c", CounterTrack, Host)
			n := r.Intern("n")
			r.SetEnabled(false)
			if s.Enabled() || r.Enabled() {
				t.Fatal("disabled recorder reports enabled")
			}
			s.Slice(1, 1, n)
			c.Counter(1, 1)
			r.SetEnabled(true)
			s.Slice(5, 1, n)
		})
		// The Chrome JSON format has no way to declare a counter track
		// without a sample.
		if want := map[Format]int{Perfetto: 2, JSON: 1}[opts.Format]; len(p.Tracks) != want {
			t.Fatalf("tracks %+v, want %d", p.Tracks, want)
		}
		ss := p.Slices()
		if len(ss) != 1 || ss[0].Start != 5 {
			t.Fatalf("slices %+v, want only the one recorded while enabled", ss)
		}
	})
}

func TestAllocs(t *testing.T) {
	var nilTrack *Track
	off, err := New(io.Discard, Options{})
	if err != nil {
		t.Fatal(err)
	}
	offTrack := off.Track("off", SliceTrack, Host)
	off.SetEnabled(false)

	r, err := New(io.Discard, Options{ChunkBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Track("s", SliceTrack, Host)
	c := r.Track("c", CounterTrack, Device)
	n := r.Intern("kernel")
	ts := int64(0)
	kernel := func(tr *Track, ctr *Track) {
		ts += 10
		tr.Begin(ts, n)
		tr.FlowBegin(uint64(ts))
		tr.End(ts + 2)
		tr.Slice(ts+3, 4, n)
		tr.FlowStep(uint64(ts))
		tr.FlowEnd(uint64(ts))
		tr.Instant(ts+8, n)
		ctr.Counter(ts, ts)
		ctr.CounterFloat(ts, 0.5)
	}
	for range 10000 { // warm up: the pool and the writer's buffers reach their size
		kernel(s, c)
	}
	if a := testing.AllocsPerRun(1000, func() { kernel(nilTrack, nilTrack) }); a != 0 {
		t.Errorf("nil tracks: %v allocs per kernel", a)
	}
	if a := testing.AllocsPerRun(1000, func() { kernel(offTrack, offTrack) }); a != 0 {
		t.Errorf("disabled recorder: %v allocs per kernel", a)
	}
	// Enabled: 1000 runs fill about 100 chunks of 1 KiB, so hand-overs and
	// the writer's encoding are inside the measurement.
	if a := testing.AllocsPerRun(1000, func() { kernel(s, c) }); a != 0 {
		t.Errorf("enabled: %v allocs per kernel", a)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := off.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNoBlockDrops(t *testing.T) {
	pr, pw := io.Pipe()
	r, err := New(pw, Options{ChunkBytes: 1 << 10, SpareChunks: 1, NoBlock: true, Format: JSON})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Track("s", SliceTrack, Host)
	n := r.Intern("n")
	// Nobody reads the pipe, so once the writer's 256 KiB buffer is full it
	// blocks, and the two chunks (the track's and one spare) run out.
	for i := range 100_000 {
		s.Slice(int64(i), 1, n)
	}
	if st := r.Stats(); st.Dropped == 0 {
		t.Fatalf("stats %+v: no drops with a stuck writer", st)
	}
	done := make(chan error)
	go func() {
		err := r.Close()
		pw.Close()
		done <- err
	}()
	if _, err := io.Copy(io.Discard, pr); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWriteErrorIsSticky(t *testing.T) {
	boom := errors.New("disk full")
	r, err := New(failWriter{boom}, Options{ChunkBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Track("s", SliceTrack, Host)
	n := r.Intern("n")
	for i := range 200_000 { // far more than the bufio buffer holds
		s.Slice(int64(i), 1, n)
	}
	if err := r.Close(); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "trace: ") {
		t.Fatalf("Close = %v, want a trace error wrapping %v", err, boom)
	}
}

// TestPanickingWriter: a writer that panics, in the writer goroutine or in
// Close, is an error from Close wrapping ErrWriter, called no more after
// its panic; the recording goroutines never notice.
func TestPanickingWriter(t *testing.T) {
	for _, after := range []int{0, 1, 300 << 10} { // New's header, the first chunk, later
		w := &panicWriter{after: after}
		r, err := New(w, Options{ChunkBytes: 1 << 10})
		if err != nil {
			t.Fatalf("after %d bytes: New: %v", after, err)
		}
		s := r.Track("s", SliceTrack, Host)
		n := r.Intern("n")
		for i := range 200_000 {
			s.Slice(int64(i), 1, n)
		}
		err = r.Close()
		if !errors.Is(err, ErrWriter) || !strings.Contains(err.Error(), "full up") {
			t.Fatalf("after %d bytes: Close = %v, want an error wrapping ErrWriter with the panic's value", after, err)
		}
		if w.panics != 1 {
			t.Errorf("after %d bytes: the writer was called %d times after its first panic, want never", after, w.panics-1)
		}
	}
}

// panicWriter takes after bytes, then panics at every write.
type panicWriter struct {
	after, n int
	panics   int
}

func (w *panicWriter) Write(p []byte) (int, error) {
	if w.panics > 0 || w.n+len(p) > w.after {
		w.panics++
		panic("full up")
	}
	w.n += len(p)
	return len(p), nil
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

func TestOrphanFlows(t *testing.T) {
	both(t, func(t *testing.T, opts Options) {
		var r *Recorder
		p := roundTrip(t, opts, func(rr *Recorder) {
			r = rr
			s := r.Track("s", SliceTrack, Host)
			s.FlowBegin(1) // nothing recorded before it
			s.Instant(5, r.Intern("i"))
			s.FlowEnd(1) // after an instant, not a slice
		})
		if got := r.Stats().Orphans; got != 2 {
			t.Errorf("Orphans = %d, want 2", got)
		}
		if err := Validate(p); err != nil {
			t.Fatal(err)
		}
	})
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{{Format: 9}, {ChunkBytes: 100}, {ChunkBytes: -1}, {ChunkBytes: 1<<30 + 1}, {ChunkBytes: math.MaxInt}, {SpareChunks: -1}, {SpareChunks: 1 << 40}, {SpareChunks: math.MaxInt}, {ChunkBytes: 1 << 30, SpareChunks: 5}, {ChunkBytes: 1 << 10, SpareChunks: 4<<20 + 1}} {
		if _, err := New(io.Discard, o); !errors.Is(err, ErrOptions) {
			t.Errorf("New(%+v) = %v, want ErrOptions", o, err)
		}
	}
	for _, c := range []struct {
		path string
		want Format
	}{{"a.pftrace", Perfetto}, {"a.perfetto-trace", Perfetto}, {"x/a.PB", Perfetto}, {"a.json", JSON}} {
		if f, err := FormatOf(c.path); err != nil || f != c.want {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", c.path, f, err, c.want)
		}
	}
	if _, err := FormatOf("a.txt"); !errors.Is(err, ErrOptions) {
		t.Errorf("FormatOf(a.txt) = %v, want ErrOptions", err)
	}
	if _, err := Create(filepath.Join(t.TempDir(), "a.txt"), Options{}); !errors.Is(err, ErrOptions) {
		t.Errorf("Create(a.txt) = %v, want ErrOptions", err)
	}
}

// TestMisuseIsAnError: each misuse of the API records nothing and makes
// Close fail with an error wrapping ErrMisuse naming the first one; the
// rest of the trace is written; nothing panics.
func TestMisuseIsAnError(t *testing.T) {
	var buf bytes.Buffer
	r, err := New(&buf, Options{Format: JSON})
	if err != nil {
		t.Fatal(err)
	}
	if tr := r.Track("x", 0, Host); tr != nil {
		t.Error("Track with kind 0 returned a track")
	}
	if tr := r.Track("y", SliceTrack, 99); tr != nil {
		t.Error("Track in an unknown group returned a track")
	}
	c := r.Track("c", CounterTrack, Host)
	c.Slice(1, 1, 0)
	c.SliceFlow(1, 1, 0, EvFlowBegin, 7)
	s := r.Track("s", SliceTrack, Host)
	s.Counter(1, 1)
	s.SliceFlow(2, 1, r.Intern("a"), EvSlice, 1)
	s.Slice(5, 2, r.Intern("kept"))
	c.Counter(6, 3)
	if got := EventKind(0).Spec(); got != (Spec{}) {
		t.Errorf("Spec of an invalid kind: %+v", got)
	}
	err = r.Close()
	if !errors.Is(err, ErrMisuse) || !strings.Contains(err.Error(), `Track "x"`) {
		t.Fatalf("Close = %v, want an error wrapping ErrMisuse naming the first misuse", err)
	}
	p, perr := Parse(buf.Bytes())
	if perr != nil {
		t.Fatal(perr)
	}
	if len(p.Tracks) != 2 || len(p.Events) != 2 {
		t.Errorf("misuse recorded something: tracks %+v, events %+v", p.Tracks, p.Events)
	}
}

func TestCreateAndReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"t.pftrace", "t.perfetto-trace", "t.pb", "t.json"} {
		path := filepath.Join(dir, name)
		r, err := Create(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := r.Group("cpu subgraphs")
		a := r.Track("actor 1", SliceTrack, g)
		a.Slice(10, 5, r.Intern("Unique"))
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		p, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := FormatOf(path)
		if p.Format != want {
			t.Errorf("%s: read as %v", name, p.Format)
		}
		if len(p.Tracks) != 1 || p.Tracks[0] != (TrackInfo{"actor 1", SliceTrack, "cpu subgraphs"}) {
			t.Errorf("%s: tracks %+v", name, p.Tracks)
		}
		ss := p.Slices()
		if len(ss) != 1 || ss[0] != (Slice{Track: 0, Name: "Unique", Start: 10, End: 15}) {
			t.Errorf("%s: slices %+v", name, ss)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v", err)
	}
}

// TestCountersNamedAlike: two counter tracks of one group with one name
// (two executables traced under one name) read back as two tracks in
// either format, and the trace validates.
func TestCountersNamedAlike(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"t.pftrace", "t.json"} {
		path := filepath.Join(dir, name)
		r, err := Create(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a := r.Track("queue depth", CounterTrack, Host)
		b := r.Track("queue depth", CounterTrack, Host)
		a.Counter(10, 1)
		b.Counter(5, 2)
		a.Counter(20, 3)
		b.Counter(15, 4)
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		p, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Tracks) != 2 {
			t.Errorf("%s: tracks %+v, want two", name, p.Tracks)
		}
		if err := Validate(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestNewOfNilWriter: a nil writer is an options error at New, not a
// writer failure at Close.
func TestNewOfNilWriter(t *testing.T) {
	if r, err := New(nil, Options{}); !errors.Is(err, ErrOptions) || r != nil {
		t.Errorf("New(nil): %v, %v; want ErrOptions", r, err)
	}
}

// TestGoexitWriter: a writer that calls runtime.Goexit (as testing's
// FailNow does), in the writer goroutine or in Close, ends only the
// goroutine that called it: every Close, that one's if it returns and
// every later one, returns an error wrapping ErrWriter, the recording
// goroutines never wait for a writer that is gone, and the writer is
// called no more.
func TestGoexitWriter(t *testing.T) {
	for _, c := range []struct {
		events int
		spill  bool
	}{{10, false}, {200_000, false}, {200_000, true}} { // written by Close, by the writer goroutine, by Close from the spill
		events := c.events
		w := &goexitWriter{}
		dir := t.TempDir()
		r, err := New(w, Options{ChunkBytes: 1 << 10, SpareChunks: 1, Defer: c.spill, SpillDir: dir})
		if err != nil {
			t.Fatalf("%d events: New: %v", events, err)
		}
		s := r.Track("s", SliceTrack, Host)
		n := r.Intern("n")
		for i := range events {
			s.Slice(int64(i), 1, n)
		}
		closed := make(chan error, 2)
		for range 2 {
			go func() {
				ok := false
				defer func() {
					if !ok {
						closed <- nil
					}
				}()
				err := r.Close()
				ok = true
				closed <- err
			}()
		}
		returned := 0
		for range 2 {
			select {
			case err := <-closed:
				if err == nil {
					continue // the goroutine that met the Goexit
				}
				returned++
				if !errors.Is(err, ErrWriter) || !strings.Contains(err.Error(), "Goexit") {
					t.Errorf("%d events: Close = %v, want an error wrapping ErrWriter naming Goexit", events, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%d events: Close waits for a Close whose writer called runtime.Goexit", events)
			}
		}
		if returned == 0 {
			t.Errorf("%d events: no Close returned", events)
		}
		if err := r.Close(); !errors.Is(err, ErrWriter) {
			t.Errorf("%d events: Close again = %v, want ErrWriter", events, err)
		}
		if w.calls != 1 {
			t.Errorf("%d events: the writer was called %d times after its Goexit, want never", events, w.calls-1)
		}
		if left, err := os.ReadDir(dir); err != nil || len(left) > 0 {
			t.Errorf("%d events: spill directory holds %d files after Close (%v), want none", events, len(left), err)
		}
	}
}

// goexitWriter calls runtime.Goexit at every write.
type goexitWriter struct{ calls int }

func (w *goexitWriter) Write(p []byte) (int, error) {
	w.calls++
	runtime.Goexit()
	return len(p), nil
}
