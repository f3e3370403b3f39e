package plan

import (
	"time"
)

// Stats describe one run. Every mode reports the same shape; a
// heterogeneous run adds a row per part.
//
// The bound is what no schedule can beat: the device's work, the busiest
// goroutine's host work, and all host work spread over the processors. It
// is computed from the same intervals the trace shows, and cannot exceed
// the makespan: each term counts only time inside the run, a goroutine's
// intervals never overlap each other, and host work is counted at most
// Procs goroutines at a time (a goroutine descheduled inside an interval
// does not count twice). Synthetic host costs are burned as calibrated CPU
// work, not wall time, so a goroutine preempted inside one still does its
// whole work.
type Stats struct {
	// Mode and Barrier are the run's stage plan; for a heterogeneous run,
	// the device parts' mode (its CPU parts run kernel by kernel).
	Mode          Mode
	Barrier       BarrierPolicy
	Heterogeneous bool
	Schedule      Schedule // heterogeneous runs only
	// Kernels is the kernels one run launches: a control-flow node
	// spliced into the stage queues counts both branches' nodes; one the
	// Serial schedule computes whole on the host (placed on the CPU)
	// counts one.
	Kernels int
	// Makespan is from the start of Run to the outputs on the host.
	Makespan time.Duration
	// Prepare, Infer, Resize and Launch are the host busy time of each
	// stage, summed over kernels (a CPU kernel's launch is its computation).
	Prepare, Infer, Resize, Launch time.Duration
	// Synthetic is the part of those stages' busy time that their
	// synthetic host costs (Config.Costs, Config.HostCost) took as they
	// burnt, measured around each burn: the burn is a calibrated amount
	// of CPU work, whose wall time drifts from the cost it stands for as
	// the machine's speed does. The stages' busy time less Synthetic and
	// Compute is pipert's own host work. Zero when the costs are.
	Synthetic time.Duration
	// Compute is the part of Launch's busy time that kernels took to
	// compute their results on real data (Kernel.Compute, in the
	// launching goroutine; a heterogeneous run's kernels computed on the
	// host CPU device are CPUBusy). Zero on virtual tensors.
	Compute time.Duration
	// Wait is the host time blocked on value and compute barriers.
	Wait time.Duration
	// Busiest is the host work of the busiest goroutine.
	Busiest time.Duration
	// HostWork is the host work of every goroutine of the run, counted at
	// most Procs at a time; Procs is GOMAXPROCS during the run.
	HostWork time.Duration
	Procs    int
	// DeviceBusy is the accelerator's modeled busy time during the run (a
	// device shared with other executables counts their work too).
	// DeviceWork is the modeled work of the run's busiest device stream.
	DeviceBusy, DeviceWork time.Duration
	// CPUBusy is the time of the kernels computed on the host CPU device;
	// Transfer the modeled transfers of virtual tensors between parts
	// waited for (heterogeneous runs).
	CPUBusy, Transfer time.Duration
	// PeakDeviceBytes is the high-water mark of the run's own accelerator
	// memory, constants included.
	PeakDeviceBytes int64
	// CrossEdges is the number of tensors handed between the parts of a
	// heterogeneous run, Activations the parts run.
	CrossEdges, Activations int
	// Cache counts the run's host-cache lookups.
	Cache CacheStats
	// Plan describes the memory plan after the run (MemoryPlan).
	Plan PlanStats
	// Replay says what mode Replay did with the run.
	Replay ReplayStats
	// Tiling counts the run's tiling data sent to the device.
	// Heterogeneous runs sum Plan, Replay and Tiling over their parts,
	// but for Replay.Launch, the longest part's.
	Tiling TilingStats
	// Parts has a row per part of a heterogeneous run, by part index.
	Parts []PartStats
}

// CacheStats count host-cache lookups by cache: hits skipped the work,
// misses did it. The global tiling cache is looked up after a local miss
// (or alone), so with both on, LocalMisses = GlobalHits + GlobalMisses
// and GlobalMisses Resizes were computed — but for nodes the global cache
// cannot key, whose attributes hold a value of a type of the caller's
// (neither a number, a bool, a string, a slice of those, a
// *kernel.Tensor nor a kernel.DType): their local misses compute Resize.
// A cache that is off counts nothing; nodes whose kernel is volatile
// (kernel.Deps.Volatile) are never looked up.
type CacheStats struct {
	LocalHits, LocalMisses   int
	GlobalHits, GlobalMisses int
	InferHits, InferMisses   int
	SetupHits, SetupMisses   int
}

// ReplayStats count what mode Replay did in runs with the graph's static
// kernel sequences (segments: see the Replay mode): Replays sequences
// replayed as one submission each, of Kernels kernels in all; Captures
// sequences captured for later runs; Fallbacks sequences that ran through
// the stages, the last one's reason in Reason. Dynamic kernels (values
// read at run time, data-dependent shapes, control flow) always run
// through the stages.
// Launch is the longest replay's modeled span on an idle device: its
// launch path (device.Profile.ReplayTime) node by node, each kernel
// starting once dispatched and once the kernel before it ended. No run
// with that replay is shorter.
type ReplayStats struct {
	Replays, Kernels, Captures, Fallbacks int
	Reason                                string
	Dynamic                               int
	Launch                                time.Duration
}

// Add adds o's counts and launch path to s (as of consecutive runs); o's
// Reason wins when it has one.
func (s *ReplayStats) Add(o ReplayStats) {
	if s == nil {
		return
	}
	s.Replays += o.Replays
	s.Kernels += o.Kernels
	s.Dynamic += o.Dynamic
	s.Captures += o.Captures
	s.Fallbacks += o.Fallbacks
	s.Launch += o.Launch
	if o.Reason != "" {
		s.Reason = o.Reason
	}
}

// PlanStats describe a memory plan: its arena, the lower bound of any
// arena (the most bytes live at once), the bytes of every tensor and
// workspace it places (what allocating each apart would take), how many
// it places, how many times it was made; and the launches of the run that
// did not fit it and went to the allocator.
type PlanStats struct {
	ArenaBytes, PeakLiveBytes, SumBytes int64
	Tensors, Replans, Fallbacks         int
}

// Add adds o's bytes and counts to s (as of the parts of a heterogeneous
// run, each with its own plan).
func (s *PlanStats) Add(o PlanStats) {
	if s == nil {
		return
	}
	s.ArenaBytes += o.ArenaBytes
	s.PeakLiveBytes += o.PeakLiveBytes
	s.SumBytes += o.SumBytes
	s.Tensors += o.Tensors
	s.Replans += o.Replans
	s.Fallbacks += o.Fallbacks
}

// Add adds o's counts to s.
func (s *CacheStats) Add(o CacheStats) {
	if s == nil {
		return
	}
	s.LocalHits += o.LocalHits
	s.LocalMisses += o.LocalMisses
	s.GlobalHits += o.GlobalHits
	s.GlobalMisses += o.GlobalMisses
	s.InferHits += o.InferHits
	s.InferMisses += o.InferMisses
	s.SetupHits += o.SetupHits
	s.SetupMisses += o.SetupMisses
}

// PartStats describe one part of a heterogeneous run.
type PartStats struct {
	Part  int
	OnCPU bool
	Mode  Mode
	// Kernels is the part's kernel count; Start and End its activation,
	// from the start of the run.
	Kernels    int
	Start, End time.Duration
	// Stage busy time, barrier wait and busiest goroutine, as in Stats.
	Prepare, Infer, Resize, Launch time.Duration
	Wait, Busiest                  time.Duration
}

// HostBusy is the host work of all stages, summed over goroutines.
func (s *Stats) HostBusy() time.Duration {
	if s == nil {
		return 0
	}
	return s.Prepare + s.Infer + s.Resize + s.Launch
}

// Bound is the makespan no schedule can beat: max(DeviceWork, Busiest,
// HostWork / Procs, Replay.Launch). It never exceeds Makespan.
func (s *Stats) Bound() time.Duration {
	if s == nil {
		return 0
	}
	return max(s.DeviceWork, s.Busiest, s.HostWork/time.Duration(max(s.Procs, 1)), s.Replay.Launch)
}

// Efficiency is Bound / Makespan, in [0, 1].
func (s *Stats) Efficiency() float64 {
	if s == nil || s.Makespan <= 0 {
		return 0
	}
	return float64(s.Bound()) / float64(s.Makespan)
}

// DeviceUtil is DeviceBusy / Makespan.
func (s *Stats) DeviceUtil() float64 {
	if s == nil || s.Makespan <= 0 {
		return 0
	}
	return float64(s.DeviceBusy) / float64(s.Makespan)
}

// Span is an interval of host work of one goroutine, in nanoseconds on the
// host's monotonic clock.
type Span struct{ Start, End int64 }

// HostWork returns the host work of goroutines whose work intervals are
// lists (one list per goroutine, each sorted and non-overlapping), counting
// at any instant at most procs goroutines at work: ∫ min(active(t), procs)
// dt. It is at most procs times the time the intervals cover. Lists that
// break the precondition (an inverted span, spans out of order) give a
// figure between 0 and that bound, never a negative one: a span that ends
// before it starts is empty, and time never runs back.
func HostWork(procs int, lists ...[]Span) time.Duration {
	procs = max(procs, 1)
	// A sweep over the span boundaries, the next one found by a linear
	// scan of the goroutines' cursors: there are a handful of goroutines,
	// and the scan allocates nothing for up to len(buf) of them.
	var buf [16]cursor
	cs := buf[:0]
	for i, l := range lists {
		if len(l) > 0 {
			cs = append(cs, cursor{list: i, t: l[0].Start, start: true})
		}
	}
	var total, last int64
	active := 0
	for len(cs) > 0 {
		m := 0
		for j := 1; j < len(cs); j++ {
			if cs[j].before(cs[m]) {
				m = j
			}
		}
		c := cs[m]
		if active > 0 && c.t > last {
			total += int64(min(active, procs)) * (c.t - last)
		}
		last = max(last, c.t)
		l := lists[c.list]
		if c.start {
			active++
			cs[m] = cursor{list: c.list, i: c.i, t: max(l[c.i].End, l[c.i].Start)}
		} else {
			active--
			if c.i+1 < len(l) {
				cs[m] = cursor{list: c.list, i: c.i + 1, t: l[c.i+1].Start, start: true}
			} else {
				cs[m] = cs[len(cs)-1]
				cs = cs[:len(cs)-1]
			}
		}
	}
	return time.Duration(total)
}

// cursor is the next event of one goroutine's span list: the start or the
// end of span i.
type cursor struct {
	list, i int
	t       int64
	start   bool
}

// before orders cursors by time, ends before starts at equal times (a span
// ending when the next begins leaves no overlap).
func (c cursor) before(d cursor) bool {
	if c.t != d.t {
		return c.t < d.t
	}
	return !c.start && d.start
}
