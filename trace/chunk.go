package trace

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"unsafe"
)

// record is one event as a Track stores it: a fixed-size binary record whose
// fields mean what the kind's Spec says. A record is 24 bytes.
//
// A slice carrying a flow event (Track.SliceFlow), the most frequent pair
// of a traced kernel, is packed into one record when its duration fits in
// 24 bits (16.7 ms): the head holds the packed kind (evPacked plus the flow
// kind's offset from EvFlowBegin) and the duration, arg the flow id. The
// encoders see the two events again through expand. Packing halves the
// bytes a traced kernel writes, and the cache lines the writer goroutine
// later reads from the tracks' cores.
type record struct {
	head uint32 // the kind, and for a packed record the slice's duration << 8
	name Name   // interned name; 0 when the kind is not Named
	ts   int64  // ns on the caller's clock
	arg  uint64 // Spec.Arg: a duration, a counter value or a flow id
}

// The packed slice-and-flow kinds follow the exported ones; they never
// leave the package.
const (
	evPacked      = numEventKinds
	evPackedEnd   = evPacked + EvFlowEnd - EvFlowBegin + 1
	maxPackedDur  = 1<<24 - 1
	packedDurBits = 8
)

// kind returns the record's event kind, which may be a packed one.
func (r *record) kind() EventKind { return EventKind(r.head) }

// packed returns the record of a slice from ts lasting dur ns that carries
// flow event kind (a flow kind) of flow id, for 0 <= dur <= maxPackedDur.
func packed(kind EventKind, name Name, ts, dur int64, id uint64) record {
	return record{head: uint32(evPacked+kind-EvFlowBegin) | uint32(dur)<<packedDurBits, name: name, ts: ts, arg: id}
}

// expand returns the events r stands for: r itself, or for a packed record
// the slice and its flow event, in buf.
func (r *record) expand(buf *[2]record) []record {
	k := r.kind()
	if k < evPacked || k >= evPackedEnd {
		buf[0] = *r
		return buf[:1]
	}
	buf[0] = record{head: uint32(EvSlice), name: r.name, ts: r.ts, arg: uint64(r.head >> packedDurBits)}
	buf[1] = record{head: uint32(EvFlowBegin + k - evPacked), arg: r.arg}
	return buf[:]
}

const recordSize = int(unsafe.Sizeof(record{}))

// chunk is a fixed-size buffer of records, all of one track. A chunk is owned
// by exactly one party at a time: the exchange's free list, the goroutine
// writing its track, or the writer goroutine.
type chunk struct {
	track  int // index of the track in Recorder.tracks
	n      int // records in use
	packed int // how many of them are packed (two events each)
	recs   []record
	own    bool // a counter track's first chunk, not the exchange's (see exchange)
	// The header is written with every record: padded to two cache
	// lines, so that it shares none with another track's header,
	// written from another core.
	_ [128 - 56]byte
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
//
// The writer makes chunks ahead: whenever it has nothing queued to write
// and fewer chunks exist than open slice tracks plus one (ahead), it makes one
// (its pages mapped) and frees it, so that a track taking its first
// chunk, or its next one while the writer has the full one, finds one
// free instead of making it. A chunk's making is its pages' first touch
// — about 1 ms for 256 KiB on a virtual machine whose page faults exit
// to the hypervisor — and on the traced goroutine it landed in the first
// traced runs (pipebench ocr in replay mode, 2 cores: the first traced
// run 8.9 ms against 0.5 untraced, its tracks' chunks made as it
// recorded). Tracks registered before the runs (an executable's, at
// Compile) have theirs made by the time the runs begin, rather than when
// they first record. The other spares are made as they are needed, by
// the track that needs one, so that a Recorder made and closed (tests do
// so by the hundred) maps one chunk more than its tracks use, not every
// spare.
//
// A counter track samples a few times a run (an executable has ten and
// more: cache counts, memory, utilisation, queue depths), so none is made
// ahead for it: its first chunk is a small one of its own (firstCounter),
// made with the track, outside the limit, dropped when the writer is done
// with it, and only a track that fills that one takes chunks from the
// exchange. Making a chunk ahead for every track, a traced heterogeneous
// executable of the hetero scenario (150 tracks, 110 of them counters,
// 256 KiB chunks) had 27.0 MiB in use two seconds after Compile, against
// 19.6 MiB, and its writer spent the difference touching pages while the
// first runs went.
type exchange struct {
	mu     sync.Mutex
	freed  sync.Cond // signalled when a chunk returns to free
	queued sync.Cond // signalled when a chunk is queued or the exchange closes
	free   []*chunk
	queue  []*chunk // handed-over chunks, oldest first
	spare  []*chunk // the writer's previous batch, recycled as queue's storage
	made   int
	limit  int
	spares int // how much of limit is spares: limit - spares tracks are open
	slices int // open slice tracks: the writer makes chunks ahead for them
	closed bool
	size   int // records per chunk
}

func newExchange(records, spares int) *exchange {
	x := &exchange{size: records, limit: spares, spares: spares}
	x.freed.L = &x.mu
	x.queued.L = &x.mu
	return x
}

// firstCounter is the size in records of a counter track's first chunk:
// one 4 KiB page (or the exchange's chunks' size, if smaller).
const firstCounter = 4096 / recordSize

// grow raises the chunk limit by n, or lowers it for n < 0, for tracks
// registered or closed, slice tracks if slice is set: free chunks beyond
// the limit are dropped now, chunks in use when they come back.
func (x *exchange) grow(n int, slice bool) {
	x.mu.Lock()
	x.limit += n
	if slice {
		x.slices += n
	}
	if n > 0 && slice {
		x.queued.Signal() // the writer makes the chunks ahead
	}
	for x.made > x.limit && len(x.free) > 0 {
		x.free[len(x.free)-1] = nil
		x.free = x.free[:len(x.free)-1]
		x.made--
	}
	x.mu.Unlock()
}

// get returns an empty chunk. When none is free and the limit is reached it
// waits for the writer to release one if block is set, and returns nil if
// not. It returns nil once the exchange is closed. A chunk it makes has
// its pages mapped if mapped is set (newChunk).
func (x *exchange) get(block, mapped bool) *chunk {
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
			return newChunk(x.size, mapped)
		}
		if !block {
			x.mu.Unlock()
			return nil
		}
		x.freed.Wait()
	}
}

// newChunk makes a chunk of size records, its pages mapped if mapped is
// set (populate). The chunks the writer makes ahead are mapped, whatever
// track takes them; a track that makes its own maps it if it is a slice
// track, which records with every kernel, so that a page's first write
// does not cost the traced goroutine, and not if it is a counter track,
// which samples a few times a run. One call maps
// a chunk: on this kind of machine a call costs about 20 µs whether it
// maps 16 pages or 64, so mapping a window at a time as a track fills its
// chunk cost the traced goroutines more than the faults it saved
// (zerocost pipeline, 2 cores: 186–562 ns a kernel against 45–115 with
// whole chunks).
//
// A mapped chunk's pages are then written once (touch): on a virtual
// machine a page the guest has mapped may still have no memory behind
// it on the host, which backs it at its first write, about 10 µs later.
// Go reuses the memory of freed chunks and other freed objects, which
// the guest has returned, and madvise maps such pages without writing
// them: pipebench decode then zerocost, 2 cores, every 170th record of
// a traced KBK run (a page's first) took about 10 µs in the first five
// traced runs, and tracing cost 440–480 ns a kernel against 30–150 with
// the pages written ahead.
func newChunk(size int, mapped bool) *chunk {
	c := &chunk{recs: make([]record, size)}
	if mapped {
		b := recordBytes(c.recs)
		populate(b)
		touch(b)
	}
	return c
}

// touch writes a zero into every 4 KiB of b (every page, for pages of 4
// KiB and more), which holds zeros already: the bytes stay as they are.
func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
}

// put queues c for the writer. After close, c is freed instead.
func (x *exchange) put(c *chunk) {
	x.mu.Lock()
	if x.closed {
		x.drop(c)
	} else {
		x.queue = append(x.queue, c)
		x.queued.Signal()
	}
	x.mu.Unlock()
}

// take returns the queued chunks, oldest first, waiting until there is one,
// and meanwhile makes chunks ahead, one per open track and a spare. It returns nil when the
// exchange is closed and drained. Called only by the writer goroutine; the
// batch stays valid until its next call to take.
func (x *exchange) take() []*chunk {
	x.mu.Lock()
	defer x.mu.Unlock()
	for len(x.queue) == 0 {
		if x.closed {
			return nil
		}
		if x.made < min(x.slices+1, x.limit) {
			x.made++
			x.mu.Unlock()
			c := newChunk(x.size, true)
			x.mu.Lock()
			if x.made > x.limit {
				x.made-- // the limit was lowered meanwhile: drop it
				continue
			}
			x.free = append(x.free, c)
			x.freed.Signal()
			continue
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
	c.n, c.packed = 0, 0
	x.mu.Lock()
	x.drop(c)
	x.freed.Signal()
	x.mu.Unlock()
}

// drop puts c, empty, back on the free list, or lets it go: a counter
// track's first chunk (its own, never counted in made), or any chunk
// while made is above a lowered limit. Called with mu held.
func (x *exchange) drop(c *chunk) {
	switch {
	case c.own:
	case x.made > x.limit:
		x.made--
	default:
		x.free = append(x.free, c)
	}
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

// The spill file of Options.Defer is a sequence of chunks as the writer
// received them: a header (the track index and the record count, two
// little-endian uint32) and the records' bytes as they are in memory. It
// is read back by the process that wrote it, so the records' layout needs
// no encoding.
const spillHeader = 8

// recordBytes is the memory of recs as bytes.
func recordBytes(recs []record) []byte {
	if len(recs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&recs[0])), len(recs)*recordSize)
}

// spillChunk appends c to w.
func spillChunk(w io.Writer, c *chunk) error {
	var h [spillHeader]byte
	binary.LittleEndian.PutUint32(h[:4], uint32(c.track))
	binary.LittleEndian.PutUint32(h[4:], uint32(c.n))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(recordBytes(c.recs[:c.n]))
	return err
}

// unspill encodes the spill file's chunks in order, through one chunk of
// the pool's size.
func (r *Recorder) unspill() error {
	if _, err := r.spill.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("trace: spill: %w", err)
	}
	br := bufio.NewReaderSize(r.spill, 1<<20)
	c := &chunk{recs: make([]record, r.x.size)}
	var h [spillHeader]byte
	for {
		if _, err := io.ReadFull(br, h[:]); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("trace: spill: %w", err)
		}
		c.track = int(binary.LittleEndian.Uint32(h[:4]))
		c.n = int(binary.LittleEndian.Uint32(h[4:]))
		if c.n > len(c.recs) || c.track >= r.numTracks() {
			return fmt.Errorf("trace: spill: chunk of %d records on track %d: file damaged", c.n, c.track)
		}
		if _, err := io.ReadFull(br, recordBytes(c.recs[:c.n])); err != nil {
			return fmt.Errorf("trace: spill: %w", err)
		}
		if err := r.enc.chunk(c); err != nil {
			return fmt.Errorf("trace: write: %w", err)
		}
	}
}
