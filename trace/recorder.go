package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Format is an output format.
type Format uint8

// Output formats. The zero Format is invalid; in Options it means "the
// default" (Perfetto for New, the file name's for Create).
const (
	// Perfetto is the native Perfetto protobuf trace (a stream of
	// TracePackets), for files named *.pftrace, *.perfetto-trace or *.pb.
	Perfetto Format = iota + 1
	// JSON is the Chrome JSON trace-event format, for files named *.json.
	JSON
)

func (f Format) String() string {
	switch f {
	case Perfetto:
		return "perfetto"
	case JSON:
		return "json"
	}
	return fmt.Sprintf("Format(%d)", f)
}

// FormatOf returns the format a file name asks for: Perfetto for .pftrace,
// .perfetto-trace and .pb, JSON for .json.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pftrace", ".perfetto-trace", ".pb":
		return Perfetto, nil
	case ".json":
		return JSON, nil
	}
	return 0, fmt.Errorf("%w: %s: unknown trace file extension (want .pftrace, .perfetto-trace, .pb or .json)", ErrOptions, path)
}

// Options configure a Recorder. The zero Options are valid: Perfetto output,
// 1 MiB chunks, four spare chunks, blocking back-pressure, compression on.
type Options struct {
	// Format is the output format. Zero means Perfetto for New and the file
	// name's format for Create.
	Format Format
	// ChunkBytes is the size of one event chunk. Zero means 1 MiB, or
	// 256 KiB with Defer; the minimum is 1 KiB. Large chunks make
	// hand-overs to the writer rare: each wakes the writer goroutine, and
	// on a machine whose cores the traced goroutines keep busy every
	// wake-up displaces one of them while it encodes (pipebench smallops
	// in pipeline mode on 2 cores: tracing cost about 9% of the makespan
	// with 64 KiB chunks, about 1% with 1 MiB); the most is 1 GiB. With Defer the writer only
	// appends the chunk to the spill file, and smaller chunks keep the
	// tracks' buffers in the cores' caches (zerocost -quick, 2 cores,
	// measured when a slice and its flow took two records: tracing cost
	// per kernel, kbk/async/pipeline, about 140/125/165 ns with 1 MiB
	// chunks, 135/75/105 ns with 256 KiB). The writer goroutine makes
	// the chunks ahead, maps each whole when it makes it (on Linux) and
	// writes each of its pages once, so that the traced goroutines
	// neither make chunks nor fault their pages in one at a time: each
	// is resident at its full size from then on.
	ChunkBytes int
	// SpareChunks is how many chunks may be on their way to the writer
	// beyond the one each track is filling. Zero means 4. Memory is bounded
	// by (tracks not closed + SpareChunks) * ChunkBytes (Track.Close), and
	// 4 KiB for each counter track. The writer makes a chunk for each
	// slice track and one spare ahead, as tracks are registered, while it
	// has nothing to write; a counter track records into a 4 KiB chunk of
	// its own, made with it, first. The spares may take at most 4 GiB:
	// SpareChunks * ChunkBytes beyond that is refused.
	SpareChunks int
	// NoBlock makes a track that finds every chunk in use drop its events
	// (counted in Stats.Dropped) instead of waiting for the writer. Dropped
	// events can leave slices open or flows dangling; Validate reports them.
	NoBlock bool
	// NoCompression writes Perfetto packets as they are. By default they are
	// written in zlib-compressed batches (TracePacket.compressed_packets),
	// which the Perfetto UI and trace processor read natively.
	NoCompression bool
	// Defer keeps the events raw while recording and encodes them at
	// Close. The writer goroutine then only appends each handed-over
	// chunk, as it is, to a spill file (24 bytes an event, in SpillDir),
	// so that encoding and compression — about 1 µs of CPU a kernel, ten
	// times what recording costs the traced goroutines — do not compete
	// for the cores the traced work runs on. Close reads the spill back
	// in order, encodes it and removes it: the trace holds the same
	// events, and the output is written only at Close.
	Defer bool
	// SpillDir is where Defer's spill file goes (empty: os.TempDir()).
	SpillDir string
}

const (
	defaultChunkBytes  = 1 << 20
	deferChunkBytes    = 256 << 10
	minChunkBytes      = 1 << 10
	maxChunkBytes      = 1 << 30
	defaultSpareChunks = 4
	// maxSpareBytes bounds SpareChunks * ChunkBytes: the spares of the
	// largest chunks at the default count.
	maxSpareBytes = defaultSpareChunks * maxChunkBytes
)

// ErrOptions is matched by the errors of New and Create given invalid
// Options, and of FormatOf given a name of no known format.
var ErrOptions = errors.New("trace: invalid options")

// withDefaults fills in the defaults and rejects invalid options.
func (o Options) withDefaults() (Options, error) {
	if o.Format == 0 {
		o.Format = Perfetto
	}
	if o.Format != Perfetto && o.Format != JSON {
		return o, fmt.Errorf("%w: format %v", ErrOptions, o.Format)
	}
	if o.ChunkBytes == 0 {
		o.ChunkBytes = defaultChunkBytes
		if o.Defer {
			o.ChunkBytes = deferChunkBytes
		}
	}
	if o.ChunkBytes < minChunkBytes || o.ChunkBytes > maxChunkBytes {
		return o, fmt.Errorf("%w: chunk size %d outside [%d, %d]", ErrOptions, o.ChunkBytes, minChunkBytes, maxChunkBytes)
	}
	if o.SpareChunks == 0 {
		o.SpareChunks = defaultSpareChunks
	}
	if o.SpareChunks < 0 {
		return o, fmt.Errorf("%w: negative spare chunk count %d", ErrOptions, o.SpareChunks)
	}
	if o.SpareChunks > maxSpareBytes/o.ChunkBytes {
		return o, fmt.Errorf("%w: %d spare chunks of %d bytes: more than %d bytes", ErrOptions, o.SpareChunks, o.ChunkBytes, maxSpareBytes)
	}
	return o, nil
}

// Name is an interned event name: an index into the Recorder's name table.
// The zero Name is "no name".
type Name uint32

// Group is a group of tracks, shown as one process in Perfetto and in the
// Chrome JSON format. Host and Device always exist; Recorder.Group adds more.
type Group uint32

// The predefined groups.
const (
	Host   Group = 1 // host goroutines and host-side counters
	Device Group = 2 // device streams and device counters
)

// ErrMisuse is matched by the error Close returns when the Recorder was
// misused: a track of an invalid kind or group, an event of the wrong
// kind for its track, or one naming a Name this Recorder never interned.
// The misused call records nothing (a misused Track returns nil; the
// event with a foreign Name is written under the name "unknown name N")
// and the rest of the trace is written. Read and Scan given a nil reader
// return an error wrapping it too.
var ErrMisuse = errors.New("trace: misuse")

// misused records the first misuse of the API, for Close.
func (r *Recorder) misused(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.misusedLocked(format, args...)
}

// misusedLocked is misused with r.mu held.
func (r *Recorder) misusedLocked(format string, args ...any) {
	if r.misuse == nil {
		r.misuse = fmt.Errorf("%w: "+format, append([]any{ErrMisuse}, args...)...)
	}
}

// Stats are a Recorder's running totals.
type Stats struct {
	Events  uint64 // events handed to the writer
	Chunks  uint64 // chunks encoded
	Bytes   uint64 // bytes written to the output
	Dropped uint64 // events dropped for want of a free chunk (Options.NoBlock)
	Orphans uint64 // flow events dropped because no slice preceded them
}

// Recorder records events from many goroutines and streams them to one output.
//
// Each goroutine writes through its own Track: a single-writer buffer of
// fixed-size records that goes to the writer goroutine when full. The writer
// encodes chunks in the order it receives them and returns them to a bounded
// pool; a track that finds the pool empty waits (or drops, with NoBlock).
//
// A nil *Recorder is valid and records nothing; so is a disabled one. The
// zero Recorder (not made by New or Create) records nothing either, and
// its Close is an error wrapping ErrMisuse (see Made). Its
// methods are safe for concurrent use, except Close, which must come after
// every Track's writer has stopped or, if it records inside Hold and
// Release, whenever it likes: Close then stops recording and waits for the
// holds to be released before it reads the tracks.
type Recorder struct {
	enabled atomic.Bool
	// holds counts the spans of recording open (Hold), plus closingBit once
	// Close has begun; drained is closed, once, by whoever takes it to
	// exactly closingBit.
	holds       atomic.Int64
	drained     chan struct{}
	drainedOnce sync.Once

	opts  Options
	x     *exchange
	enc   encoder
	out   *bufio.Writer
	count *countingWriter
	file  *os.File // closed by Close when Create opened it

	mu       sync.Mutex
	misuse   error    // the first misuse of the API, reported by Close
	names    []string // by Name; names[0] is the empty name
	nameIDs  map[string]Name
	groups   []string // by Group; groups[0] is unused
	tracks   []*Track
	closed   bool
	closeErr error         // Close's error, set before closeEnd is closed
	closeEnd chan struct{} // closed when the first Close has done its work

	spill *os.File // Options.Defer: the raw chunks, in hand-over order

	done    chan struct{} // closed when the writer goroutine exits
	werr    error         // the writer goroutine's first error; read after done
	events  atomic.Uint64
	chunks  atomic.Uint64
	dropped atomic.Uint64
	orphans atomic.Uint64
}

// New returns an enabled Recorder that streams to w in opts.Format. It starts
// the writer goroutine, which Close stops; Close flushes but does not close w.
// A nil w is an ErrOptions error.
func New(w io.Writer, opts Options) (*Recorder, error) {
	if w == nil {
		return nil, fmt.Errorf("%w: nil writer", ErrOptions)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &Recorder{
		opts:     opts,
		x:        newExchange(opts.ChunkBytes/recordSize, opts.SpareChunks),
		count:    &countingWriter{w: w},
		names:    []string{""},
		nameIDs:  map[string]Name{},
		groups:   []string{"", "host", "device"},
		done:     make(chan struct{}),
		closeEnd: make(chan struct{}),
		drained:  make(chan struct{}),
	}
	r.out = bufio.NewWriterSize(r.count, 256<<10)
	switch opts.Format {
	case Perfetto:
		r.enc = newPerfettoEncoder(r, r.out, !opts.NoCompression)
	case JSON:
		r.enc = newJSONEncoder(r, r.out)
	}
	if err := r.enc.start(); err != nil {
		return nil, fmt.Errorf("trace: write header: %w", err)
	}
	if opts.Defer {
		if r.spill, err = os.CreateTemp(opts.SpillDir, "pipert-trace-*.raw"); err != nil {
			return nil, fmt.Errorf("trace: spill file: %w", err)
		}
	}
	r.enabled.Store(true)
	go r.run()
	return r, nil
}

// Create creates the file at path and returns a Recorder streaming to it. If
// opts.Format is zero the format is chosen from the file name (see FormatOf).
// Close flushes and closes the file. A named pipe (Unix) is written to
// once its reader has it open: Create waits up to 30 s for one, then
// fails rather than wait without end or lose the trace.
func Create(path string, opts Options) (*Recorder, error) {
	if opts.Format == 0 {
		f, err := FormatOf(path)
		if err != nil {
			return nil, err
		}
		opts.Format = f
	}
	f, err := createOut(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	r, err := New(f, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// closingBit marks Recorder.holds once Close has begun.
const closingBit = 1 << 62

// Hold opens a span in which the caller records on tracks of r — a run of
// an executable — and reports whether r is open. A Close made while spans
// are open stops recording at once and waits for each to be released
// before it reads the tracks, so a runtime that holds r for every run
// (pipert's executables do, and for their Close) may have it closed
// under running work. Once Close has begun, Hold records nothing and
// reports false; the caller must then leave r's tracks alone (their
// chunks belong to Close). Every Hold that reported true takes one
// Release. Holds nest and cost two atomic operations; a nil Recorder's
// Hold reports false.
func (r *Recorder) Hold() bool {
	if !r.Made() {
		return false
	}
	if r.holds.Add(1)&closingBit != 0 {
		r.Release()
		return false
	}
	return true
}

// Release closes a span Hold opened. Close called inside a span (from a
// kernel of a held run) waits for that span: for ever. A Release with no
// span open (more Releases than Holds that reported true) does nothing
// but make Close return an error wrapping ErrMisuse; a nil Recorder's
// does nothing.
func (r *Recorder) Release() {
	if !r.Made() {
		return
	}
	switch n := r.holds.Add(-1); {
	case n < 0 || n == closingBit-1: // no span was open: undo
		if r.holds.Add(1) == closingBit {
			r.drainedOnce.Do(func() { close(r.drained) })
		}
		r.misused("Release with no span open")
	case n == closingBit:
		r.drainedOnce.Do(func() { close(r.drained) })
	}
}

// Made reports whether r was made by New or Create. The zero Recorder
// (new(Recorder), a Recorder{} literal) was not: it records nothing, as a
// nil one, and its Close is an error; a configuration that takes a
// Recorder refuses it (plan.Config.Check).
func (r *Recorder) Made() bool { return r != nil && r.x != nil }

// Enabled reports whether r records events. It is the cheap check to make
// before computing anything only a trace needs.
func (r *Recorder) Enabled() bool { return r != nil && r.enabled.Load() }

// SetEnabled turns recording on or off. Switch between runs, not while a
// slice is open: a slice whose end is not recorded stays open in the trace.
// It has no effect on a nil or closed Recorder.
func (r *Recorder) SetEnabled(on bool) {
	if !r.Made() {
		return
	}
	r.mu.Lock()
	if !r.closed {
		r.enabled.Store(on)
	}
	r.mu.Unlock()
}

// Intern returns the Name of s, adding s to the name table the first time.
// Intern names once, up front (an op type, a stage), and record events with
// the Name: each name is written to a Perfetto trace once. It returns 0 on a
// nil or zero Recorder.
func (r *Recorder) Intern(s string) Name {
	if !r.Made() {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := r.nameIDs[s]; ok {
		return id
	}
	id := Name(len(r.names))
	r.names = append(r.names, s)
	r.nameIDs[s] = id
	return id
}

// Group registers a new group of tracks (a process in the viewer) and returns
// it. It returns 0 on a nil or zero Recorder.
func (r *Recorder) Group(name string) Group {
	if !r.Made() {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups = append(r.groups, name)
	return Group(len(r.groups) - 1)
}

// Track registers a track named name of the given kind in group g and returns
// the handle its writer records through. Tracks may be registered at any
// time before Close. It returns nil on a nil or zero Recorder; a nil
// *Track records nothing. An invalid kind or group is a misuse: Track
// returns nil and Close an error wrapping ErrMisuse.
func (r *Recorder) Track(name string, kind TrackKind, g Group) *Track {
	if !r.Made() {
		return nil
	}
	if kind != SliceTrack && kind != CounterTrack {
		r.misused("Track %q: invalid kind %v", name, kind)
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if g == 0 || int(g) >= len(r.groups) {
		r.misusedLocked("Track %q: unknown group %d", name, g)
		return nil
	}
	t := &Track{r: r, id: len(r.tracks), name: name, kind: kind, group: g}
	if kind == CounterTrack {
		// Its first chunk, its own: one page, made here rather than by
		// its first sample, in a traced run (see exchange).
		t.cur = &chunk{track: t.id, recs: make([]record, min(firstCounter, r.x.size)), own: true}
	}
	r.tracks = append(r.tracks, t)
	r.x.grow(1, kind == SliceTrack)
	return t
}

// Stats returns the running totals. Events and Chunks count what the writer
// has encoded so far (with Options.Defer: spilled); Bytes what reached the
// output (with Defer: at Close).
func (r *Recorder) Stats() Stats {
	if !r.Made() {
		return Stats{}
	}
	return Stats{
		Events:  r.events.Load(),
		Chunks:  r.chunks.Load(),
		Bytes:   r.count.n.Load(),
		Dropped: r.dropped.Load(),
		Orphans: r.orphans.Load(),
	}
}

// Close stops recording, waits for the spans Hold opened to be released,
// hands every track's last chunk to the writer, waits for it to drain,
// writes the format's trailer, flushes, and closes the file if Create
// opened it. It returns the first error met while writing. Every Track's
// writer must have stopped before Close, or record inside a Hold; later
// calls on its tracks are no-ops. Close is idempotent: a later call, or one made while the
// first is at work, returns once the first has returned, with its error.
func (r *Recorder) Close() (err error) {
	switch {
	case r == nil:
		return nil
	case !r.Made():
		return fmt.Errorf("%w: Close of a Recorder not made by New or Create", ErrMisuse)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.closeEnd
		return r.closeErr
	}
	r.closed = true
	r.enabled.Store(false)
	tracks := r.tracks
	r.mu.Unlock()
	// Recording is off: a span still open ends without recording more.
	if r.holds.Add(closingBit) != closingBit {
		<-r.drained
	}

	finished := false
	defer func() {
		if !finished {
			// The writer called runtime.Goexit on this goroutine: the
			// calls waiting for this one return its error.
			err = r.count.goexited()
		}
		r.mu.Lock()
		if r.misuse != nil {
			err = errors.Join(r.misuse, err)
		}
		r.closeErr = err
		r.mu.Unlock()
		close(r.closeEnd)
	}()
	err = r.finish(tracks)
	finished = true
	return err
}

// finish is Close's work once recording has stopped: it hands the tracks'
// last chunks to the writer, waits for it to drain, writes the trailer,
// flushes, and closes the spill and the file.
func (r *Recorder) finish(tracks []*Track) error {
	for _, t := range tracks {
		if c := t.cur; c != nil {
			t.cur = nil
			if c.n > 0 {
				r.x.put(c)
			} else {
				r.x.release(c)
			}
		}
	}
	r.x.close()
	<-r.done

	err := r.werr
	if r.spill != nil {
		defer func() {
			name := r.spill.Name()
			r.spill.Close()
			os.Remove(name)
		}()
		if err == nil {
			err = r.unspill()
		}
	}
	if err == nil {
		if err = r.enc.finish(); err != nil {
			err = fmt.Errorf("trace: write trailer: %w", err)
		}
	}
	if ferr := r.out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("trace: flush: %w", ferr)
	}
	if r.file != nil {
		if cerr := r.file.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("trace: %w", cerr)
		}
	}
	return err
}

// run is the writer goroutine: it encodes handed-over chunks in order and
// returns them to the pool. After an error it keeps draining without
// encoding, so that tracks never wait on a dead writer. A writer that
// calls runtime.Goexit ends the goroutine: the batch's chunks go back to
// the pool, the error is sticky, and a new writer goroutine goes on
// draining.
func (r *Recorder) run() {
	var batch []*chunk
	ended := false
	defer func() {
		if ended {
			close(r.done)
			return
		}
		if r.werr == nil {
			r.werr = fmt.Errorf("trace: write: %w", r.count.goexited())
		}
		for _, c := range batch {
			r.x.release(c)
		}
		go r.run()
	}()
	for {
		batch = r.x.take()
		if batch == nil {
			ended = true
			return
		}
		for len(batch) > 0 {
			c := batch[0]
			if r.werr == nil && r.spill != nil {
				if err := spillChunk(r.spill, c); err != nil {
					r.werr = fmt.Errorf("trace: spill: %w", err)
				}
			} else if r.werr == nil {
				if err := r.enc.chunk(c); err != nil {
					r.werr = fmt.Errorf("trace: write: %w", err)
				}
			}
			r.events.Add(uint64(c.n + c.packed))
			r.chunks.Add(1)
			r.x.release(c)
			batch = batch[1:]
		}
	}
}

// trackMeta is what an encoder needs to know of a track.
type trackMeta struct {
	name  string
	kind  TrackKind
	group Group
}

// numTracks returns how many tracks are registered.
func (r *Recorder) numTracks() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.tracks)
}

// trackMeta returns the description of track i.
func (r *Recorder) trackMeta(i int) trackMeta {
	r.mu.Lock()
	t := r.tracks[i]
	r.mu.Unlock()
	return trackMeta{name: t.name, kind: t.kind, group: t.group}
}

// groupName returns the name of group g.
func (r *Recorder) groupName(g Group) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.groups[g]
}

// nameOf returns the string of an interned name, and false for a Name the
// table does not hold.
func (r *Recorder) nameOf(n Name) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if int(n) >= len(r.names) {
		// A Name of another Recorder, or made up: the event keeps its
		// place in the trace under a name saying so.
		r.misusedLocked("an event names Name %d, which this Recorder's Intern never gave", n)
		return fmt.Sprintf("unknown name %d", n)
	}
	return r.names[n]
}

// ErrWriter is the error of a writer given to New that panicked or called
// runtime.Goexit: the panic is recovered (Goexit ends only the goroutine
// that called the writer), the writer is not called again, and Close
// returns an error wrapping ErrWriter with the panic's value.
var ErrWriter = errors.New("trace: the writer panicked")

// countingWriter counts the bytes written through it, and turns a panic
// of the writer, which is the caller's code, into a sticky error.
type countingWriter struct {
	w        io.Writer
	n        atomic.Uint64
	panicked error // set by the one goroutine writing at a time
}

func (c *countingWriter) Write(p []byte) (n int, err error) {
	if c.panicked != nil {
		return 0, c.panicked
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		if v := recover(); v != nil {
			c.panicked = fmt.Errorf("%w: %v", ErrWriter, v)
			n, err = 0, c.panicked
			return
		}
		// runtime.Goexit: the goroutine ends; the writer is called no more.
		c.panicked = errWriterGoexit
	}()
	n, err = c.w.Write(p)
	returned = true
	c.n.Add(uint64(max(n, 0)))
	return n, err
}

// errWriterGoexit is the error of a writer that called runtime.Goexit.
var errWriterGoexit = fmt.Errorf("%w: runtime.Goexit", ErrWriter)

// goexited returns the error of a writer that ended its goroutine by
// runtime.Goexit, called on that goroutine's way out.
func (c *countingWriter) goexited() error {
	if c.panicked != nil {
		return c.panicked
	}
	return errWriterGoexit
}

// encoder turns chunks of records into one output format. Its methods are
// called by one goroutine at a time: start by New, chunk by the writer
// goroutine, finish by Close after the writer has exited.
type encoder interface {
	start() error
	chunk(c *chunk) error
	finish() error
}

// Track is one track's recording handle: a timeline of slices, instants and
// flows, or a counter. It has a single writer: one goroutine (or a group of
// goroutines serialised by a lock of their own, as a device stream's
// launches are) records to it at a time, with timestamps that do not go
// backwards. All methods of a nil *Track, and of the zero Track (one not
// made by Recorder.Track), are no-ops.
//
// Timestamps are int64 nanoseconds on the caller's monotonic clock; they may
// lie in the future (a device's modeled start and end). A Slice must be
// recorded in start order: a parent slice before the slices nested in it.
// To record nested work as it happens, use Begin and End.
type Track struct {
	r     *Recorder
	id    int
	name  string
	kind  TrackKind
	group Group
	cur   *chunk // owned by the writer of this track
	done  bool   // Close was called; owned by the writer of this track
}

// Enabled reports whether events recorded on t are kept.
func (t *Track) Enabled() bool { return t.on() }

// on is Enabled: t was made by a Recorder (not nil, not the zero Track)
// whose events are kept.
func (t *Track) on() bool { return t != nil && t.r != nil && t.r.enabled.Load() }

// Begin opens a slice named name at ts. Pair it with End.
func (t *Track) Begin(ts int64, name Name) {
	if t.on() {
		t.put(EvBegin, name, ts, 0)
	}
}

// End closes the innermost open slice of t at ts.
func (t *Track) End(ts int64) {
	if t.on() {
		t.put(EvEnd, 0, ts, 0)
	}
}

// Slice records a complete slice named name from ts to ts+dur.
func (t *Track) Slice(ts, dur int64, name Name) {
	if t.on() {
		t.put(EvSlice, name, ts, uint64(dur))
	}
}

// Instant records a point event named name at ts.
func (t *Track) Instant(ts int64, name Name) {
	if t.on() {
		t.put(EvInstant, name, ts, 0)
	}
}

// Counter records the integer value v of counter track t at ts.
func (t *Track) Counter(ts int64, v int64) {
	if t.on() {
		t.put(EvCounter, 0, ts, uint64(v))
	}
}

// CounterFloat records the floating-point value v of counter track t at ts.
func (t *Track) CounterFloat(ts int64, v float64) {
	if t.on() {
		t.put(EvCounterFloat, 0, ts, floatBits(v))
	}
}

// FlowBegin starts flow id at the slice just recorded on t by Begin or Slice.
// Flow ids are global to the trace: the slices of one kernel on the stage
// and device tracks share one.
func (t *Track) FlowBegin(id uint64) {
	if t.on() {
		t.put(EvFlowBegin, 0, 0, id)
	}
}

// FlowStep marks the slice just recorded on t as a step of flow id.
func (t *Track) FlowStep(id uint64) {
	if t.on() {
		t.put(EvFlowStep, 0, 0, id)
	}
}

// FlowEnd terminates flow id at the slice just recorded on t.
func (t *Track) FlowEnd(id uint64) {
	if t.on() {
		t.put(EvFlowEnd, 0, 0, id)
	}
}

// SliceFlow records a complete slice named name from ts to ts+dur and, on
// it, flow event kind (EvFlowBegin, EvFlowStep or EvFlowEnd) of flow id:
// Slice followed by FlowBegin, FlowStep or FlowEnd, in one call. A kind
// that is not a flow event, or a counter track, is a misuse (ErrMisuse):
// nothing is recorded.
func (t *Track) SliceFlow(ts, dur int64, name Name, kind EventKind, id uint64) {
	if !t.on() {
		return
	}
	// The common case, kept free of calls so that it spills nothing.
	if c := t.cur; c != nil && c.n < len(c.recs) && t.kind == SliceTrack && kind.IsFlow() && uint64(dur) <= maxPackedDur {
		c.recs[c.n] = packed(kind, name, ts, dur, id)
		c.n++
		c.packed++
		return
	}
	t.sliceFlowSlow(ts, dur, name, kind, id)
}

// sliceFlowSlow is SliceFlow when t's chunk is full or absent, or on misuse.
func (t *Track) sliceFlowSlow(ts, dur int64, name Name, kind EventKind, id uint64) {
	if !kind.IsFlow() || t.kind != SliceTrack {
		t.r.misused("SliceFlow %v on %v track %q", kind, t.kind, t.name)
		return
	}
	if uint64(dur) <= maxPackedDur {
		c := t.cur
		if c == nil || c.n == len(c.recs) {
			if c = t.refill(); c == nil {
				t.r.dropped.Add(2)
				return
			}
		}
		c.recs[c.n] = packed(kind, name, ts, dur, id)
		c.n++
		c.packed++
		return
	}
	c := t.cur
	if c == nil || c.n+2 > len(c.recs) {
		if c = t.refill(); c == nil {
			t.r.dropped.Add(2)
			return
		}
	}
	c.recs[c.n] = record{head: uint32(EvSlice), name: name, ts: ts, arg: uint64(dur)}
	c.recs[c.n+1] = record{head: uint32(kind), arg: id}
	c.n += 2
}

// Flush hands t's partly filled chunk to the writer now rather than when it
// fills. Call it from t's writer, for instance at the end of a run.
func (t *Track) Flush() {
	if !t.on() || t.cur == nil || t.cur.n == 0 {
		return
	}
	t.r.x.put(t.cur)
	t.cur = nil
}

// Close ends t, from its writer, when nothing will record on it again
// (its executable closed): its partly filled chunk goes to the writer, and
// the Recorder keeps no chunk for it any more, so that a Recorder's memory
// follows the tracks in use, not every track ever registered. The track
// stays in the trace. An event recorded on t after Close is a misuse;
// closing twice, or a nil Track, does nothing.
func (t *Track) Close() {
	if t == nil || t.r == nil || t.done {
		return
	}
	t.done = true
	if c := t.cur; c != nil {
		t.cur = nil
		if c.n > 0 {
			t.r.x.put(c)
		} else {
			t.r.x.release(c)
		}
	}
	t.r.x.grow(-1, t.kind == SliceTrack)
}

// put appends one record to t's chunk, taking a new chunk when it is full.
// A kind that does not belong on t's kind of track is a misuse: nothing is
// recorded.
func (t *Track) put(kind EventKind, name Name, ts int64, arg uint64) {
	// The common case, kept free of calls so that it spills nothing.
	if c := t.cur; c != nil && c.n < len(c.recs) && kind.valid() && specs[kind].Track == t.kind {
		c.recs[c.n] = record{head: uint32(kind), name: name, ts: ts, arg: arg}
		c.n++
		return
	}
	t.putSlow(kind, name, ts, arg)
}

// putSlow is put when t's chunk is full or absent, or on misuse.
func (t *Track) putSlow(kind EventKind, name Name, ts int64, arg uint64) {
	if !kind.valid() || specs[kind].Track != t.kind {
		t.r.misused("%v event on %v track %q", kind, t.kind, t.name)
		return
	}
	c := t.cur
	if c == nil || c.n == len(c.recs) {
		if c = t.refill(); c == nil {
			t.r.dropped.Add(1)
			return
		}
	}
	c.recs[c.n] = record{head: uint32(kind), name: name, ts: ts, arg: arg}
	c.n++
}

// refill hands the current chunk (if any) to the writer and takes an empty
// one, waiting for the writer unless the Recorder drops on back-pressure. It
// returns nil when no chunk could be had.
func (t *Track) refill() *chunk {
	if t.done {
		t.r.misused("event on track %q after its Close", t.name)
		return nil
	}
	x := t.r.x
	if c := t.cur; c != nil {
		t.cur = nil
		x.put(c)
	}
	c := x.get(!t.r.opts.NoBlock, t.kind == SliceTrack)
	if c != nil {
		c.track = t.id
		t.cur = c
	}
	return c
}
