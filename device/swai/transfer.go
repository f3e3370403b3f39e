package swai

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/pipert/pipert/internal/clock"
)

// Path is how a host-device copy moves its bytes.
type Path int

// Copy paths.
const (
	// Pinned: the host memory is pinned (MallocHost), so the DMA reads or
	// writes it directly; the copy is split over the channels.
	Pinned Path = 1
	// Pageable: pageable host memory through the profile's path,
	// PageableMTMC if Transfer.MTMC, PageableSingle otherwise.
	Pageable Path = 2
	// PageableMTMC: N_t host threads copy between the pageable memory and
	// their pinned staging buffers while the chunks go over all DMA
	// channels (section 3.2, figure 5).
	PageableMTMC Path = 3
	// PageableSingle: one thread, one channel, double buffering, as
	// CUDA does with two 1 MiB pinned buffers (section 1).
	PageableSingle Path = 4
)

func (p Path) String() string {
	switch p {
	case Pinned:
		return "pinned"
	case Pageable:
		return "pageable"
	case PageableMTMC:
		return "pageable-mtmc"
	case PageableSingle:
		return "pageable-single"
	}
	return fmt.Sprintf("Path(%d)", int(p))
}

// ErrNoMTMC is returned for an MTMC copy on a device whose profile has no
// MTMC path.
var ErrNoMTMC = errors.New("swai: profile has no MTMC path")

// PinnedTime is the modeled duration of a copy of size bytes between pinned
// host memory and the device: Latency, then the bytes split into as many
// pieces of at least MinChunkBytes as there are channels (at most), all
// started at once on separate channels of the DMA model.
func (p Profile) PinnedTime(size int64) time.Duration {
	t := p.Transfer
	n := int(min(int64(t.Channels), max(1, ceilDiv(size, t.MinChunkBytes))))
	jobs := make([]dmaJob, n)
	split(size, n, func(i int, _, l int64) { jobs[i] = dmaJob{bytes: l, ch: i} })
	return t.Latency + roundNs(p.dmaModel(t.Channels).schedule(jobs, nil))
}

// PageableTime is the modeled duration of a copy of size bytes between
// pageable host memory and the device by path (PageableMTMC,
// PageableSingle, or Pageable: the profile's), with no thread running: the
// host copies into the staging buffers are taken to move
// c.HostCopyBandwidth bytes per second each (S_H2B), on N_t threads as
// equations 4-5 give them without the bound of the host's processors, and
// they meet the DMA model on the chunk schedule of the real copies
// (staged): Latency + PageableSetup + the time until the last byte has
// arrived. It is deterministic for a given calibration: the device's run
// path and the claims use it.
func (p Profile) PageableTime(size int64, path Path, h2d bool, c Calibration) (time.Duration, error) {
	if err := c.validate(); err != nil {
		return 0, err
	}
	if size < 0 {
		return 0, fmt.Errorf("swai: pageable copy of %d bytes", size)
	}
	t := p.Transfer
	var mtmc bool
	switch path {
	case Pageable:
		mtmc = t.MTMC
	case PageableMTMC:
		if !t.MTMC {
			return 0, ErrNoMTMC
		}
		mtmc = true
	case PageableSingle:
	default:
		return 0, fmt.Errorf("swai: %v is not a pageable path", path)
	}
	chunk, channels, stride, nbuf := t.StagingBytes, 1, 1, t.StagingBuffers
	if mtmc {
		chunk, channels = p.mtmcChunk(size), t.Channels
	}
	n := int(ceilDiv(size, chunk))
	if mtmc && n > 1 {
		threads := p.threads(c, 0)
		stride, nbuf = min(threads, n), p.mtmcBuffers(threads)
	}
	end, dur := make([]int64, n), make([]int64, n)
	for k := range dur {
		l := min(chunk, size-int64(k)*chunk)
		dur[k] = int64(math.Ceil(float64(l) / c.HostCopyBandwidth * 1e9))
	}
	st := staged{h2d: h2d, size: size, chunk: chunk, channels: channels, stride: stride, nbuf: nbuf, end: end, dur: dur}
	return t.Latency + t.PageableSetup + roundNs(st.makespan(p.dmaModel(channels))), nil
}

// mtmcBuffers is how many staging buffers each of threads MTMC threads
// owns: StagingBuffers, or more so that every channel can be moving one
// buffer while every thread fills another, ⌈(Channels + N_t) / N_t⌉ (the
// paper allocates "several pinned buffers as needed", section 3.2).
func (p Profile) mtmcBuffers(threads int) int {
	t := p.Transfer
	threads = max(threads, 1)
	return max(t.StagingBuffers, (t.Channels+threads+threads-1)/threads)
}

// mtmcChunk is the chunk of an MTMC copy of size bytes: enough chunks to
// give every channel two, so that host copies overlap DMA from the start,
// each between MinChunkBytes and StagingBytes.
func (p Profile) mtmcChunk(size int64) int64 {
	t := p.Transfer
	return min(max(ceilDiv(size, 2*int64(t.Channels)), t.MinChunkBytes), t.StagingBytes)
}

// copier is the host side of pageable copies: N_t worker goroutines, each
// owning mtmcBuffers pinned staging buffers, for MTMC, and the
// StagingBuffers staging buffers of the single-thread path, which the
// calling goroutine uses.
//
// A pageable copy really copies: every chunk goes through a staging buffer
// with copy(), timed with the host clock; the threads run flat out. The DMA
// side is modeled, and the copy's modeled duration comes from the chunk
// schedule (staged), which puts the measured host copies and the modeled
// DMA commands on one timeline, chunk by chunk: the result is max(host copy
// pipeline, DMA pipeline) with the staging buffers as the coupling. The
// device-side effect of the DMA (staging buffer to device memory and back)
// is done with copy() too when the device buffer is materialized, and is not
// timed.
//
// Hand-off: an MTMC copy sends its pass to the first stride workers over
// their unbuffered channels and waits on pass.done; each worker writes only
// its own chunks' entries of the pass, and the caller reads them after the
// wait. One pageable copy runs at a time (mu): they share the staging
// buffers. close stops the workers after the copy in progress.
type copier struct {
	prof    Profile
	mu      sync.Mutex // guards closed and the staging buffers
	closed  bool
	single  [][]byte // staging of the single-thread path
	workers []worker
	wg      sync.WaitGroup // running workers
}

type worker struct {
	staging [][]byte
	work    chan *pass
}

// newCopier returns a copier of threads MTMC workers (none for a
// single-path copier); its staging buffers and workers come with the first
// copy (start).
func newCopier(p Profile, threads int) *copier {
	return &copier{prof: p, workers: make([]worker, threads)}
}

// start makes the staging buffers and starts the workers, once. Called
// with c.mu held.
func (c *copier) start() {
	if c.single != nil {
		return
	}
	p, t, threads := c.prof, c.prof.Transfer, len(c.workers)
	c.single = pinnedBuffers(t.StagingBuffers, t.StagingBytes)
	for i := range c.workers {
		w := &c.workers[i]
		w.staging = pinnedBuffers(p.mtmcBuffers(threads), t.StagingBytes)
		w.work = make(chan *pass)
		c.wg.Add(1)
		go w.loop(i, &c.wg)
	}
}

// pinnedBuffers returns n buffers of size bytes whose pages exist, as
// pinned memory's do.
func pinnedBuffers(n int, size int64) [][]byte {
	bs := make([][]byte, n)
	for i := range bs {
		bs[i] = make([]byte, size)
		for j := 0; j < len(bs[i]); j += 4096 {
			bs[i][j] = 1
		}
	}
	return bs
}

func (w *worker) loop(i int, wg *sync.WaitGroup) {
	defer wg.Done()
	for p := range w.work {
		p.run(i, w.staging)
		p.done.Done()
	}
}

// close stops the workers and waits for them.
func (c *copier) close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		if c.single != nil {
			for i := range c.workers {
				close(c.workers[i].work)
			}
		}
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// pass is one pageable copy: chunk k of host (and dev, if materialized) is
// copied by thread k mod stride. Each thread writes only its chunks' end
// and dur; done counts the threads still working.
type pass struct {
	h2d    bool
	host   []byte
	dev    []byte // nil when the device buffer is virtual
	chunk  int64
	n      int
	stride int
	t0     int64   // start of the copy (Now scale)
	end    []int64 // when chunk k's host copy really ended, from t0
	dur    []int64 // how long it took
	done   sync.WaitGroup
}

// run copies the chunks of thread first through its staging buffers, in
// rotation.
func (p *pass) run(first int, staging [][]byte) {
	b := 0
	for k := first; k < p.n; k += p.stride {
		off := int64(k) * p.chunk
		l := min(p.chunk, int64(len(p.host))-off)
		st := staging[b][:l]
		b = (b + 1) % len(staging)
		if !p.h2d && p.dev != nil {
			copy(st, p.dev[off:off+l]) // the DMA's effect
		}
		s := clock.Now()
		if p.h2d {
			copy(st, p.host[off:off+l])
		} else {
			copy(p.host[off:off+l], st)
		}
		e := clock.Now()
		p.end[k], p.dur[k] = e-p.t0, e-s
		if p.h2d && p.dev != nil {
			copy(p.dev[off:off+l], st) // the DMA's effect
		}
	}
}

// pageable copies between host (pageable) and dev (the device buffer's
// contents, or nil when virtual; len(dev) == len(host) otherwise) and
// returns the modeled duration of the copy call.
func (c *copier) pageable(mtmc, h2d bool, host, dev []byte) (time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, ErrClosed
	}
	c.start()
	t := c.prof.Transfer
	size := int64(len(host))
	chunk, channels := t.StagingBytes, 1
	if mtmc {
		if len(c.workers) == 0 {
			return 0, ErrNoMTMC
		}
		chunk, channels = c.prof.mtmcChunk(size), t.Channels
	}
	n := int(ceilDiv(size, chunk))
	p := &pass{h2d: h2d, host: host, dev: dev, chunk: chunk, n: n, end: make([]int64, n), dur: make([]int64, n)}
	nbuf := len(c.single)
	if !mtmc || n <= 1 {
		// The single path, and MTMC copies of one chunk: the calling
		// goroutine copies.
		p.stride = 1
		p.t0 = clock.Now()
		p.run(0, c.single)
	} else {
		nbuf = len(c.workers[0].staging)
		p.stride = min(len(c.workers), n)
		p.done.Add(p.stride)
		p.t0 = clock.Now()
		for i := range p.stride {
			c.workers[i].work <- p
		}
		p.done.Wait()
	}

	st := staged{h2d: h2d, size: size, chunk: chunk, channels: channels, stride: p.stride, nbuf: nbuf, end: p.end, dur: p.dur}
	last := st.makespan(c.prof.dmaModel(channels))
	return t.Latency + t.PageableSetup + roundNs(last), nil
}

// staged is the chunk schedule of one pageable copy: size bytes in chunks of
// chunk, chunk k copied on the host by thread k mod stride through that
// thread's nbuf staging buffers in rotation (so chunk k reuses the buffer of
// chunk k - stride × nbuf) and moved by the DMA on channel k mod channels.
// end and dur are what the host copies measured: when each really ended,
// from the start of the copy, and how long it took.
//
// Host to device, chunk k's host copy starts when its thread finished the
// previous chunk and the DMA has emptied its buffer, and its DMA command is
// ready when the host copy ends. Device to host, chunk k's DMA command is
// ready when the host has emptied its buffer, and its host copy starts when
// the DMA has filled it and the thread finished the previous chunk. A host
// copy lasts what it measured, and never ends before it really did.
type staged struct {
	h2d      bool
	size     int64
	chunk    int64
	channels int
	stride   int
	nbuf     int
	end, dur []int64
}

// makespan returns the modeled time from the start of the copy until its
// last byte arrived (ns).
func (s staged) makespan(m dmaModel) float64 {
	n := len(s.end)
	jobs := make([]dmaJob, n)
	for k := range jobs {
		jobs[k] = dmaJob{bytes: min(s.chunk, s.size-int64(k)*s.chunk), ch: k % s.channels}
	}
	host := make([]float64, n) // modeled end of chunk k's host copy
	known := make([]bool, n)
	var hostEnd func(k int) (float64, bool)
	hostEnd = func(k int) (float64, bool) {
		if known[k] {
			return host[k], true
		}
		var start float64
		if prev := k - s.stride; prev >= 0 {
			e, ok := hostEnd(prev)
			if !ok {
				return 0, false
			}
			start = e
		}
		if s.h2d {
			if reuse := k - s.stride*s.nbuf; reuse >= 0 {
				if !jobs[reuse].finished {
					return 0, false
				}
				start = max(start, jobs[reuse].done)
			}
		} else {
			if !jobs[k].finished {
				return 0, false
			}
			start = max(start, jobs[k].done)
		}
		host[k] = max(start+float64(s.dur[k]), float64(s.end[k]))
		known[k] = true
		return host[k], true
	}
	ready := hostEnd
	if !s.h2d {
		ready = func(k int) (float64, bool) {
			if reuse := k - s.stride*s.nbuf; reuse >= 0 {
				return hostEnd(reuse)
			}
			return 0, true
		}
	}
	last := m.schedule(jobs, ready)
	if !s.h2d {
		for k := range n {
			e, _ := hostEnd(k)
			last = max(last, e)
		}
	}
	return last
}
