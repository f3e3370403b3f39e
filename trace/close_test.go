package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestTrackClose: a closed track's events reach the trace, and the
// Recorder keeps no chunk for it: however many tracks come and go, the
// chunks it holds stay within the open tracks plus the spares. An event
// after Close is a misuse; a second Close does nothing.
func TestTrackClose(t *testing.T) {
	both(t, func(t *testing.T, opts Options) {
		opts.ChunkBytes, opts.SpareChunks = 1<<10, 1
		const tracks = 200
		var made, limit int
		p := roundTrip(t, opts, func(r *Recorder) {
			n := r.Intern("n")
			keep := r.Track("kept", SliceTrack, Host)
			for i := range tracks {
				tr := r.Track(fmt.Sprint("t", i), SliceTrack, Host)
				for j := range 3 {
					tr.Slice(int64(3*i+j), 1, n)
				}
				keep.Slice(int64(3*i), 3, n)
				tr.Close()
				tr.Close()
			}
			r.x.mu.Lock()
			made, limit = r.x.made, r.x.limit
			r.x.mu.Unlock()
		})
		// Chunks the writer has not given back yet may exceed the limit
		// for a while; never by the closed tracks' count.
		if limit != 2 || made > limit+1 {
			t.Errorf("after %d tracks closed: %d chunks made, limit %d; want limit 2 (one open track, one spare) and no more than one chunk beyond", tracks, made, limit)
		}
		per := map[string]int{}
		for _, s := range p.Slices() {
			per[p.Tracks[s.Track].Name]++
		}
		if per["kept"] != tracks || per["t0"] != 3 || per[fmt.Sprint("t", tracks-1)] != 3 {
			t.Errorf("slices per track: kept %d, t0 %d, last %d; want %d, 3, 3", per["kept"], per["t0"], per[fmt.Sprint("t", tracks-1)], tracks)
		}
	})
	r, err := New(discard{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Track("t", SliceTrack, Host)
	tr.Close()
	tr.Slice(1, 1, r.Intern("late"))
	if err := r.Close(); !errors.Is(err, ErrMisuse) {
		t.Errorf("an event after Close: Recorder.Close = %v, want ErrMisuse", err)
	}
	var nilTrack *Track
	nilTrack.Close()
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestForeignName: an event naming a Name this Recorder never interned
// (another Recorder's) is a misuse that Close reports, and costs nothing
// else: the event is written under a name saying so, and every other
// event is in the trace, in every format and with Defer.
func TestForeignName(t *testing.T) {
	both(t, func(t *testing.T, opts Options) {
		for _, deferred := range []bool{false, true} {
			opts.Defer = deferred
			other, err := New(discard{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 50 {
				other.Intern(fmt.Sprint("other", i))
			}
			foreign := other.Intern("foreign")
			if err := other.Close(); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			r, err := New(&buf, opts)
			if err != nil {
				t.Fatal(err)
			}
			n := r.Intern("good")
			tr := r.Track("t", SliceTrack, Host)
			for i := range 100 {
				tr.Slice(int64(2*i), 1, n)
			}
			tr.Slice(200, 1, foreign)
			tr.Begin(202, foreign)
			tr.End(203)
			tr.Slice(204, 1, n)
			if err := r.Close(); !errors.Is(err, ErrMisuse) || !strings.Contains(err.Error(), fmt.Sprint("Name ", foreign)) {
				t.Fatalf("defer %v: Close = %v, want ErrMisuse naming Name %d", deferred, err, foreign)
			}
			p, err := Parse(buf.Bytes())
			if err != nil {
				t.Fatalf("defer %v: the trace does not parse: %v", deferred, err)
			}
			names := map[string]int{}
			for _, s := range p.Slices() {
				names[s.Name]++
			}
			if names["good"] != 101 || names[fmt.Sprint("unknown name ", foreign)] != 2 {
				t.Errorf("defer %v: slices by name %v, want 101 good and 2 unknown", deferred, names)
			}
		}
	})
}

// TestChunksMadeAhead: the writer makes a chunk for each registered
// slice track and one spare before anything is recorded, so that a
// track's first event takes a free chunk instead of making one on the
// traced goroutine; a counter track records into a small chunk of its
// own first, which the writer lets go.
func TestChunksMadeAhead(t *testing.T) {
	both(t, func(t *testing.T, opts Options) {
		opts.ChunkBytes, opts.SpareChunks = 1<<10, 2
		r, err := New(io.Discard, opts)
		if err != nil {
			t.Fatal(err)
		}
		n := r.Intern("n")
		var tracks [3]*Track
		for i := range tracks {
			tracks[i] = r.Track(fmt.Sprint("t", i), SliceTrack, Host)
		}
		counter := r.Track("c", CounterTrack, Host)
		const ahead = len(tracks) + 1
		free := func() (made, free int) {
			r.x.mu.Lock()
			defer r.x.mu.Unlock()
			return r.x.made, len(r.x.free)
		}
		// The writer works on its own goroutine: wait for it, parking
		// on nothing but the scheduler.
		deadline := time.Now().Add(10 * time.Second)
		for _, f := free(); f < ahead && time.Now().Before(deadline); _, f = free() {
			runtime.Gosched()
		}
		if made, f := free(); made != ahead || f != ahead {
			t.Fatalf("before any event: %d chunks made, %d free; want %d made ahead, all free", made, f, ahead)
		}
		if counter.cur == nil || !counter.cur.own {
			t.Fatalf("counter track before any event: chunk %v; want its own, made with it", counter.cur)
		}
		for i, tr := range tracks {
			tr.Slice(int64(i), 1, n)
		}
		counter.Counter(0, 1)
		if made, f := free(); made != ahead || f != 1 {
			t.Errorf("after each track's first event: %d chunks made, %d free; want %d made, 1 free", made, f, ahead)
		}
		if got, want := len(counter.cur.recs), min(firstCounter, r.x.size); !counter.cur.own || got != want {
			t.Errorf("counter track's first chunk: %d records, own %v; want %d, its own", got, counter.cur.own, want)
		}
		// Past its first chunk, the counter track takes the spare; the
		// writer lets the first go rather than freeing it.
		for i := range len(counter.cur.recs) {
			counter.Counter(int64(i+1), 1)
		}
		if made, f := free(); made != ahead || f != 0 || counter.cur.own {
			t.Errorf("after the counter's first chunk: %d chunks made, %d free, own chunk %v; want %d made, none free, the exchange's", made, f, counter.cur.own, ahead)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if made, f := free(); made != ahead || f != ahead {
			t.Errorf("after Close: %d chunks made, %d free; want %d, all free (the counter's own chunk let go)", made, f, ahead)
		}
	})
}

// TestMappedChunkIsEmpty checks that making a chunk ready for its track
// (its pages mapped and written once) leaves every record zero, whatever
// its size against the page size.
func TestMappedChunkIsEmpty(t *testing.T) {
	for _, size := range []int{1, 170, 171, 1 << 10, deferChunkBytes / recordSize, defaultChunkBytes/recordSize + 3} {
		c := newChunk(size, true)
		for i, b := range recordBytes(c.recs) {
			if b != 0 {
				t.Fatalf("%d records: byte %d is %#x, want 0", size, i, b)
			}
		}
	}
}

// TestCloseWhileClosing: a Close called while another is writing the
// trace out returns only once that one has, with the same error; it
// returned at once, with no error, while the output was still being
// written.
func TestCloseWhileClosing(t *testing.T) {
	both(t, func(t *testing.T, opts Options) {
		synctest.Test(t, func(t *testing.T) {
			errFull := errors.New("disk full")
			w := gatedWriter{gate: make(chan struct{}), err: errFull}
			r, err := New(w, opts)
			if err != nil {
				t.Fatal(err)
			}
			s := r.Track("s", SliceTrack, Host)
			s.Slice(0, 1, r.Intern("x"))
			first, second := make(chan error, 1), make(chan error, 1)
			go func() { first <- r.Close() }()
			synctest.Wait() // the first Close waits in the output's Write
			go func() { second <- r.Close() }()
			synctest.Wait()
			early := false
			select {
			case err := <-second:
				t.Errorf("a Close made while the first was writing returned %v before it", err)
				early = true
			default:
			}
			close(w.gate)
			if err := <-first; !errors.Is(err, errFull) {
				t.Errorf("first Close: %v, want %v", err, errFull)
			}
			if early {
				return
			}
			if err := <-second; !errors.Is(err, errFull) {
				t.Errorf("second Close: %v, want the first's, %v", err, errFull)
			}
		})
	})
}

// gatedWriter fails every write with err once gate is closed.
type gatedWriter struct {
	gate chan struct{}
	err  error
}

func (w gatedWriter) Write([]byte) (int, error) {
	<-w.gate
	return 0, w.err
}

// TestHoldDelaysClose: Close waits for every span Hold opened to be
// released, recording nothing meanwhile, and reads the tracks only then;
// a Hold once Close has begun reports false; holds nest; a nil
// Recorder's Hold reports false.
func TestHoldDelaysClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		r, err := New(&buf, Options{Format: JSON})
		if err != nil {
			t.Fatal(err)
		}
		n := r.Intern("kept")
		tr := r.Track("t", SliceTrack, Host)
		for range 2 { // two holds: Close waits for both
			if !r.Hold() {
				t.Fatal("Hold on an open Recorder reported false")
			}
		}
		tr.Slice(1, 1, n)
		closed := make(chan error, 1)
		go func() { closed <- r.Close() }()
		synctest.Wait()
		select {
		case err := <-closed:
			t.Fatalf("Close returned (%v) with two holds open", err)
		default:
		}
		if r.Enabled() {
			t.Error("recording goes on while Close waits")
		}
		tr.Slice(2, 1, r.Intern("dropped")) // held: Close reads no track yet
		if r.Hold() {
			t.Error("Hold after Close began reported true")
		}
		r.Release()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned with a hold open")
		default:
		}
		r.Release()
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if s := buf.String(); !strings.Contains(s, `"kept"`) || strings.Contains(s, `"dropped"`) {
			t.Errorf("trace %s: want the event before Close and not the one after", s)
		}
	})
	var nilRec *Recorder
	if nilRec.Hold() {
		t.Error("a nil Recorder's Hold reported true")
	}
}
