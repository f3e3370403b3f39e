package fabric

import (
	"fmt"
	"math"
	"time"

	"github.com/pipert/pipert/internal/minheap"
)

// FlagID names a modeled flag of a Model; the zero FlagID is "no flag".
type FlagID int32

// Kernel is one kernel of a rank's modeled program. Its blocks are Lanes,
// all resident at once (a grid no larger than the device's compute units);
// each lane does its items in order. The kernel starts when the host has
// issued it and the kernel before it on the rank's stream has ended, and
// ends when its last lane does.
type Kernel struct {
	Name string
	// Host is the host time to issue the kernel: the rank's host clock
	// advances by it, and the kernel cannot start before it plus the
	// launch latency.
	Host time.Duration
	// Sync makes the host wait for the kernel's end before it issues the
	// next (a device-to-host read the host needs: a count, a size).
	Sync  bool
	Lanes [][]Item
}

// Item is one piece of a lane's work: wait for a flag (acquire), compute,
// send bytes to a peer over the fabric, set a flag (release) when the bytes
// have arrived.
type Item struct {
	Wait FlagID        // flag to wait for first (0: none)
	Work time.Duration // device time on the lane
	// Bytes sent to rank Dst after Work; Dst equal to the lane's own rank
	// (or Bytes 0) sends nothing. The lane is busy until its bytes have
	// crossed the link, at the link's bandwidth shared first come first
	// served, and no faster than Rate (bytes per second; 0: no limit),
	// the store bandwidth of one block.
	Dst   int
	Bytes int64
	Rate  float64
	Set   FlagID // flag set once the item's bytes arrived (0: none)
}

// Model is a deterministic discrete-event run of modeled device work on a
// fabric: each rank has a host clock that issues kernels, a stream whose
// kernels run one after another in lanes, and links that transfers share;
// flags order lanes across ranks. It never reads the wall clock: the same
// programs give the same figures bit for bit.
//
// Build it with Flag and Add, then Run (again after changing a setting:
// each Run starts from the programs alone). NewModel makes one: the zero
// Model has no rank (Add fails with ErrConfig, Run runs nothing), and a
// nil *Model (NewModel's on an error) answers as the zero Model.
type Model struct {
	cfg Config
	// LaunchLatency is the delay from a kernel's issue on the host to its
	// earliest start on the device.
	LaunchLatency time.Duration
	// Watchdog bounds a lane's wait on a flag (0: DefaultWatchdog).
	Watchdog time.Duration
	// Trace keeps the spans of kernels, lanes and links and the flag flows
	// in the Result.
	Trace bool

	flags []mflag
	progs [][]Kernel
	// total sums the modeled times Add took (host, work, transfers at
	// their rates), in ns: bounded so that no sum of Run's overflows.
	total int64
}

type mflag struct {
	name          string
	owner, setter int
	set           bool
	at            int64
	setBy         Where
	waiters       []waiter
}

type waiter struct {
	rank, lane int
	since      int64
}

// NewModel makes an empty model of the fabric cfg (checked).
func NewModel(cfg Config) (*Model, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	return &Model{cfg: cfg, progs: make([][]Kernel, cfg.Ranks)}, nil
}

// Config returns the model's fabric.
func (m *Model) Config() Config {
	if m == nil {
		return Config{}
	}
	return m.cfg
}

// Flag declares a flag on rank owner that rank setter will set; a rank
// outside the fabric fails Run.
func (m *Model) Flag(name string, owner, setter int) FlagID {
	if m == nil {
		m = new(Model) // the zero Model's answer
	}
	m.flags = append(m.flags, mflag{name: name, owner: owner, setter: setter})
	return FlagID(len(m.flags))
}

// maxItemSeconds bounds a kernel's host time, an item's work and its
// transfer (at its Rate, and over its link), a day: a modeled time beyond it is a mistake, and
// its nanoseconds would overflow.
const maxItemSeconds = 24 * 60 * 60

// maxTotal bounds the sum of a model's times, 2^62 ns (146 years), so
// that Run's clocks, which add them (with the links' latencies, each
// bounded by Config.Check), do not overflow.
const maxTotal = int64(1) << 62

// Add appends k to rank's program.
func (m *Model) Add(rank int, k Kernel) error {
	if m == nil {
		m = new(Model) // the zero Model's answer
	}
	if err := m.cfg.CheckRank(rank); err != nil {
		return fmt.Errorf("fabric: kernel %s: %w", k.Name, err)
	}
	if k.Host < 0 || k.Host > maxItemSeconds*time.Second {
		return fmt.Errorf("%w: rank %d kernel %s: host time %v: want 0 to a day", ErrConfig, rank, k.Name, k.Host)
	}
	total := m.total + int64(k.Host)
	overTotal := func() error {
		return fmt.Errorf("%w: rank %d kernel %s: the model's times add up to more than %v", ErrConfig, rank, k.Name, time.Duration(maxTotal))
	}
	for j, lane := range k.Lanes {
		for i, it := range lane {
			if it.Work < 0 || it.Bytes < 0 || it.Rate < 0 {
				return fmt.Errorf("%w: rank %d kernel %s lane %d item %d: negative cost", ErrConfig, rank, k.Name, j, i)
			}
			if math.IsNaN(it.Rate) || math.IsInf(it.Rate, 0) {
				return fmt.Errorf("%w: rank %d kernel %s lane %d item %d: rate %v: want a finite number of bytes per second (0: no limit)", ErrConfig, rank, k.Name, j, i, it.Rate)
			}
			var secs float64 // the transfer at its rate and over its link
			if it.Rate > 0 {
				secs = float64(it.Bytes) / it.Rate
			}
			if secs > maxItemSeconds {
				return fmt.Errorf("%w: rank %d kernel %s lane %d item %d: %d bytes at %g bytes per second take more than a day", ErrConfig, rank, k.Name, j, i, it.Bytes, it.Rate)
			}
			if it.Bytes > 0 && it.Dst != rank {
				link := float64(it.Bytes) / m.cfg.Link.Bandwidth
				if link > maxItemSeconds {
					return fmt.Errorf("%w: rank %d kernel %s lane %d item %d: %d bytes over a link of %g bytes per second take more than a day", ErrConfig, rank, k.Name, j, i, it.Bytes, m.cfg.Link.Bandwidth)
				}
				secs = max(secs, link)
			}
			if it.Work > maxItemSeconds*time.Second {
				return fmt.Errorf("%w: rank %d kernel %s lane %d item %d: work %v: want at most a day", ErrConfig, rank, k.Name, j, i, it.Work)
			}
			// Checked item by item: each adds at most two days, so the
			// sum cannot overflow before the check sees it.
			if total += int64(it.Work) + int64(secs*1e9); total > maxTotal {
				return overTotal()
			}
			if it.Bytes > 0 {
				if err := m.cfg.CheckRank(it.Dst); err != nil {
					return fmt.Errorf("fabric: rank %d kernel %s lane %d item %d: %w", rank, k.Name, j, i, err)
				}
			}
			if int(it.Wait) > len(m.flags) || int(it.Set) > len(m.flags) || it.Wait < 0 || it.Set < 0 {
				return fmt.Errorf("%w: rank %d kernel %s lane %d item %d: undeclared flag", ErrConfig, rank, k.Name, j, i)
			}
		}
	}
	if total > maxTotal { // the host time of a kernel of no items
		return overTotal()
	}
	m.total = total
	m.progs[rank] = append(m.progs[rank], k)
	return nil
}

// Where is a place in a model's programs.
type Where struct{ Rank, Kernel, Lane int }

// Span is an interval of modeled time, in nanoseconds from the run's start.
type Span struct {
	Where
	Name       string
	Start, End int64
}

// Flow is a flag set on one rank and the wait it ended on another.
type Flow struct {
	Flag     string
	Set      Where
	SetAt    int64
	Waiter   Where
	WaitFrom int64
}

// RankResult is one rank's figures.
type RankResult struct {
	End        time.Duration // its last kernel's end
	HostBusy   time.Duration // host time issuing kernels
	DeviceBusy time.Duration // time its stream had a kernel
	FlagWait   time.Duration // lane time spent waiting for flags, summed
}

// Result is a modeled run's figures.
type Result struct {
	Makespan time.Duration
	Ranks    []RankResult
	// LinkBusy is each link's busy time; LinkUtilization the busiest
	// link's share of the makespan.
	LinkBusy        []time.Duration
	LinkUtilization float64
	// Spans of kernels (Lane -1), lanes and links (Rank -1, Lane the link)
	// and the flag flows, when the model traces.
	Spans []Span
	Flows []Flow
}

// FlagWait is the flag wait summed over ranks.
func (r Result) FlagWait() time.Duration {
	var d time.Duration
	for _, x := range r.Ranks {
		d += x.FlagWait
	}
	return d
}

type event struct {
	t          int64
	rank, lane int
}

// Less orders events by (t, rank, lane): the run's deterministic order.
func (e event) Less(o event) bool {
	if e.t != o.t {
		return e.t < o.t
	}
	if e.rank != o.rank {
		return e.rank < o.rank
	}
	return e.lane < o.lane
}

// lane phases
const (
	phaseWait = iota // before the item's flag wait
	phaseWork        // the wait is over: compute
	phaseSend        // the work is done: send and set
)

type rankState struct {
	k        int   // current kernel
	host     int64 // host clock
	start    int64 // current kernel's start
	end      int64 // latest lane end of the current kernel
	left     int   // lanes not done
	pos      []int // per lane, its item
	phase    []int
	laneFrom []int64
}

// Run runs the programs and returns the figures, or an ErrWatchdog error
// for a wait on a flag that is never set or set too late.
func (m *Model) Run() (Result, error) {
	if m == nil {
		m = new(Model) // the zero Model's answer
	}
	for i := range m.flags {
		f := &m.flags[i]
		f.set, f.at, f.setBy, f.waiters = false, 0, Where{}, nil
	}
	if m.LaunchLatency < 0 || m.Watchdog < 0 || m.LaunchLatency > maxItemSeconds*time.Second {
		return Result{}, fmt.Errorf("%w: launch latency %v (want 0 to a day) and watchdog %v (want 0 or more)", ErrConfig, m.LaunchLatency, m.Watchdog)
	}
	for _, f := range m.flags {
		for _, r := range []int{f.owner, f.setter} {
			if err := m.cfg.CheckRank(r); err != nil {
				return Result{}, fmt.Errorf("fabric: flag %q: %w", f.name, err)
			}
		}
	}
	wd := m.Watchdog
	if wd == 0 {
		wd = DefaultWatchdog
	}
	wdNs := int64(wd)
	lat := int64(m.cfg.Link.Latency)
	bw := m.cfg.Link.Bandwidth
	res := Result{Ranks: make([]RankResult, m.cfg.Ranks), LinkBusy: make([]time.Duration, m.cfg.Links())}
	linkFree := make([]int64, m.cfg.Links())
	st := make([]rankState, m.cfg.Ranks)
	q := &minheap.Heap[event]{}
	var err error

	launch := func(r int, now int64) {
		s := &st[r]
		for s.k < len(m.progs[r]) {
			k := &m.progs[r][s.k]
			s.host += int64(k.Host)
			res.Ranks[r].HostBusy += k.Host
			s.start = max(s.host+int64(m.LaunchLatency), now)
			s.end = s.start
			s.left = 0
			s.pos = resize(s.pos, len(k.Lanes))
			s.phase = resize(s.phase, len(k.Lanes))
			s.laneFrom = resize(s.laneFrom, len(k.Lanes))
			for j := range k.Lanes {
				s.pos[j], s.phase[j], s.laneFrom[j] = 0, phaseWait, s.start
				if len(k.Lanes[j]) > 0 {
					s.left++
					q.Push(event{t: s.start, rank: r, lane: j})
				}
			}
			if s.left > 0 {
				return
			}
			m.finish(&res, r, s) // an empty kernel
			s.k++
			now = s.end
		}
	}

	for r := range st {
		launch(r, 0)
	}
	for q.Len() > 0 && err == nil {
		e := q.Pop()
		r, j := e.rank, e.lane
		s := &st[r]
		k := &m.progs[r][s.k]
		lane := k.Lanes[j]
		if s.pos[j] == len(lane) {
			s.end = max(s.end, e.t)
			if m.Trace {
				res.Spans = append(res.Spans, Span{Where: Where{r, s.k, j}, Name: k.Name, Start: s.laneFrom[j], End: e.t})
			}
			if s.left--; s.left == 0 {
				m.finish(&res, r, s)
				s.k++
				launch(r, s.end)
			}
			continue
		}
		it := &lane[s.pos[j]]
		switch s.phase[j] {
		case phaseWait:
			s.phase[j] = phaseWork
			if it.Wait != 0 {
				f := &m.flags[it.Wait-1]
				if !f.set {
					f.waiters = append(f.waiters, waiter{rank: r, lane: j, since: e.t})
					continue
				}
				if f.at > e.t {
					err = m.waited(&res, f, Where{r, s.k, j}, e.t, f.at, wdNs)
					q.Push(event{t: f.at, rank: r, lane: j})
					continue
				}
			}
			fallthrough
		case phaseWork:
			s.phase[j] = phaseSend
			q.Push(event{t: e.t + int64(it.Work), rank: r, lane: j})
		case phaseSend:
			t, arrive := e.t, e.t
			if it.Bytes > 0 && it.Dst != r {
				l := m.cfg.LinkOf(r, it.Dst)
				busy := int64(float64(it.Bytes) / bw * 1e9)
				start := max(t, linkFree[l])
				linkFree[l] = start + busy
				res.LinkBusy[l] += time.Duration(busy)
				if m.Trace {
					res.Spans = append(res.Spans, Span{Where: Where{-1, 0, l}, Name: m.cfg.LinkName(l), Start: start, End: start + busy})
				}
				t = start + busy
				if it.Rate > 0 {
					t = max(t, e.t+int64(float64(it.Bytes)/it.Rate*1e9))
				}
				arrive = t + lat
			}
			if it.Set != 0 {
				f := &m.flags[it.Set-1]
				if !f.set { // a flag set twice keeps its first setting
					f.set, f.at, f.setBy = true, arrive, Where{r, s.k, j}
				}
				for _, w := range f.waiters {
					wk := st[w.rank].k
					if e := m.waited(&res, f, Where{w.rank, wk, w.lane}, w.since, max(w.since, f.at), wdNs); e != nil && err == nil {
						err = e
					}
					q.Push(event{t: max(w.since, f.at), rank: w.rank, lane: w.lane})
				}
				f.waiters = f.waiters[:0]
			}
			s.pos[j]++
			s.phase[j] = phaseWait
			q.Push(event{t: t, rank: r, lane: j})
		}
	}
	if err != nil {
		return res, err
	}
	for i := range m.flags {
		f := &m.flags[i]
		for _, w := range f.waiters {
			k := m.progs[w.rank][st[w.rank].k]
			return res, fmt.Errorf("%w: %s on rank %d never set: kernel %s (rank %d, lane %d) waited from %v; rank %d should have set it",
				ErrWatchdog, f.name, f.owner, k.Name, w.rank, w.lane, time.Duration(w.since), f.setter)
		}
	}
	var mk int64
	for r := range res.Ranks {
		mk = max(mk, int64(res.Ranks[r].End))
	}
	res.Makespan = time.Duration(mk)
	if mk > 0 {
		for _, b := range res.LinkBusy {
			res.LinkUtilization = max(res.LinkUtilization, float64(b)/float64(mk))
		}
	}
	return res, nil
}

// waited accounts a lane's wait on f from from to until, and checks it
// against the watchdog.
func (m *Model) waited(res *Result, f *mflag, w Where, from, until, wd int64) error {
	res.Ranks[w.Rank].FlagWait += time.Duration(until - from)
	if m.Trace {
		res.Flows = append(res.Flows, Flow{Flag: f.name, Set: f.setBy, SetAt: f.at, Waiter: w, WaitFrom: from})
	}
	if until-from > wd {
		return fmt.Errorf("%w: kernel %s (rank %d, lane %d) waited %v for %s on rank %d, set by rank %d",
			ErrWatchdog, m.progs[w.Rank][w.Kernel].Name, w.Rank, w.Lane, time.Duration(until-from), f.name, f.owner, f.setter)
	}
	return nil
}

// finish closes rank r's current kernel.
func (m *Model) finish(res *Result, r int, s *rankState) {
	k := &m.progs[r][s.k]
	res.Ranks[r].DeviceBusy += time.Duration(s.end - s.start)
	res.Ranks[r].End = time.Duration(s.end)
	if k.Sync {
		s.host = max(s.host, s.end)
	}
	if m.Trace {
		res.Spans = append(res.Spans, Span{Where: Where{r, s.k, -1}, Name: k.Name, Start: s.start, End: s.end})
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
