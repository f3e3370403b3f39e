package swai

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/mt3000"
)

// Claim is one textual claim of the papers, side by side with pipert's
// value of the metric that grades it.
//
// Ratio is Value over the paper's figure: over the claimed value for "≈ x";
// over the nearest end for a range "lo–hi" (1 inside it); over the bound
// for "< x", "> x" and "≤ x". WithinTenPct is |Ratio - 1| ≤ 0.1 for a
// value or a range, and whether the inequality holds for a bound; "≤ x
// (+n% noise)" holds when Value ≤ x × (1 + n/100), n a noise measured
// with Value. Params names the profile parameters that produce Value.
type Claim struct {
	Figure       string  `json:"figure"`
	Claim        string  `json:"claim"`
	Paper        string  `json:"paper"`
	Value        float64 `json:"value"`
	Unit         string  `json:"unit"`
	Ratio        float64 `json:"ratio"`
	WithinTenPct bool    `json:"within_10pct"`
	Params       string  `json:"params"`
}

// PaperCalibration is the host the claims are graded on: one thread copies
// 9.2 GB/s from pageable memory into a pinned buffer (S_H2B). The paper
// does not give S_H2B for its Xeon Silver 4214; 9.2 GB/s, a usual
// single-core memcpy rate of such a part, is chosen so that CUDA's
// double-buffered pageable copies, bound by that one thread, reach 1/1.6 of
// MTMC's bandwidth, the paper's "about 1.6 times" (section 4.3). Grading
// on it rather than on a measurement keeps the table the same on every
// host.
func PaperCalibration() Calibration { return Calibration{HostCopyBandwidth: 9.2e9} }

// ClaimOptions configure Claims. The zero value grades the default
// profiles on PaperCalibration.
type ClaimOptions struct {
	Profile Profile // the SW-AI card; zero Name means Default()
	GPU     Profile // the comparison; zero Name means GPU()
	// Calibration replaces PaperCalibration when not nil.
	Calibration *Calibration
	// MallocRepeat is how many real alloc+free pairs give the measured
	// t_malloc of each malloc point (the median); 0 means 30.
	MallocRepeat int
	// MallocTime, when positive, is the t_malloc every malloc point is
	// graded with instead of a measurement of the allocator (MallocRepeat
	// is then unused), so that no grade depends on the host's speed: the
	// tests grade with it. Negative is an error.
	MallocTime time.Duration
	// MT3000 is the chip the MTTorch document's claims are graded on;
	// zero Name means mt3000.Default().
	MT3000 mt3000.Profile
}

// ClaimKind is how a claim's paper figure is compared (see Claim).
type ClaimKind int

// The kinds of claims.
const (
	About  ClaimKind = iota + 1 // ≈ lo
	Within                      // lo–hi
	Below                       // < lo
	Above                       // > lo
	// AtMost is an ordering held within a measured noise: ≤ lo × (1 + hi),
	// hi the relative noise (0: exactly ≤ lo); Ratio is over lo.
	AtMost
)

// NewClaim grades value, pipert's metric of a claim of kind k against the
// paper's figure lo (and hi: a range's upper end, or AtMost's noise).
func NewClaim(figure, claim string, k ClaimKind, lo, hi, value float64, unit, params string) Claim {
	c := Claim{Figure: figure, Claim: claim, Value: value, Unit: unit, Params: params}
	grade(&c, k, lo, hi)
	return c
}

// grade fills c's Paper, Ratio and WithinTenPct for a claim of kind k.
func grade(c *Claim, k ClaimKind, lo, hi float64) {
	switch k {
	case About:
		c.Paper = "≈ " + trimFloat(lo)
		c.Ratio = c.Value / lo
		c.WithinTenPct = math.Abs(c.Ratio-1) <= 0.1
	case Within:
		c.Paper = trimFloat(lo) + "–" + trimFloat(hi)
		c.Ratio = c.Value / min(max(c.Value, lo), hi)
		c.WithinTenPct = math.Abs(c.Ratio-1) <= 0.1
	case Below:
		c.Paper = "< " + trimFloat(lo)
		c.Ratio = c.Value / lo
		c.WithinTenPct = c.Value < lo
	case Above:
		c.Paper = "> " + trimFloat(lo)
		c.Ratio = c.Value / lo
		c.WithinTenPct = c.Value > lo
	case AtMost:
		c.Paper = "≤ " + trimFloat(lo)
		if hi > 0 {
			c.Paper += fmt.Sprintf(" (+%.1f%% noise)", 100*hi)
		}
		c.Ratio = c.Value / lo
		c.WithinTenPct = c.Value <= lo*(1+hi)
	}
}

// trimFloat prints a paper's figure in at most 4 significant digits.
func trimFloat(x float64) string { return fmt.Sprintf("%.4g", x) }

// Claims grades every textual claim of the SDAA paper (sections 3-4 and
// the abstract) on the modeled figures of o's profiles at every paper size
// up to 1 GB: the copies are modeled (PinnedTime, PageableTime, the D2D
// table), so the sizes cost nothing and a noisy host cannot change a
// grade; only sdaaMalloc's t_malloc is the allocator's real time, tens of
// nanoseconds in a 10 µs call. Each metric is defined in the comment of
// the code computing it.
func Claims(o ClaimOptions) ([]Claim, error) {
	if o.Profile.Name == "" {
		o.Profile = Default()
	}
	if o.GPU.Name == "" {
		o.GPU = GPU()
	}
	if o.MT3000.Name == "" {
		o.MT3000 = mt3000.Default()
	}
	if err := errors.Join(o.Profile.Validate(), o.GPU.Validate(), o.MT3000.Validate()); err != nil {
		return nil, err
	}
	cal := PaperCalibration()
	if o.Calibration != nil {
		cal = *o.Calibration
	}
	if err := cal.validate(); err != nil {
		return nil, err
	}
	if o.MallocRepeat <= 0 {
		o.MallocRepeat = 30
	}
	if o.MallocTime < 0 {
		return nil, fmt.Errorf("swai: claims: MallocTime %v is negative", o.MallocTime)
	}
	s, g := o.Profile, o.GPU
	sizes := PaperSizes()
	large := sizes[len(sizes)-1]
	small := sizes[0]
	var out []Claim
	add := func(fig, claim string, k ClaimKind, lo, hi, value float64, unit, params string) {
		out = append(out, NewClaim(fig, claim, k, lo, hi, value, unit, params))
	}

	// Figure 9, device memory. sdaaMalloc: the largest MallocTime over the
	// paper's sizes, with the allocator's measured median t_malloc.
	measured := func(p Profile, size int64) (time.Duration, error) {
		if o.MallocTime > 0 {
			return o.MallocTime, nil
		}
		a, err := newAllocator(p.Allocator, figureCapacity(p, size), p.segmentEntries())
		if err != nil {
			return 0, err
		}
		d, err := measurePairs([]kindAllocator{a}, []int64{size}, o.MallocRepeat)
		if err != nil {
			return 0, err
		}
		return d[0], nil
	}
	var sMax time.Duration
	sAt := map[int64]time.Duration{}
	for _, size := range sizes {
		m, err := measured(s, size)
		if err != nil {
			return nil, err
		}
		t := s.MallocTime(size, CPEMemory, m)
		sAt[size] = t
		sMax = max(sMax, t)
	}
	add(FigMalloc, "sdaaMalloc costs about 10 µs at every size (largest over 1 KB-1 GB)", About, 10, 0,
		us(sMax), "µs", fmt.Sprintf("%s malloc.host_ns=%d malloc.update_ns=%d + measured t_malloc", s.Name, s.Malloc.Host, s.Malloc.Update))
	// cudaMalloc over sdaaMalloc at the largest size, 1 GB.
	gm, err := measured(g, large)
	if err != nil {
		return nil, err
	}
	add(FigMalloc, "sdaaMalloc is about 120x faster than cudaMalloc for large blocks (1 GB)", About, 120, 0,
		float64(g.MallocTime(large, CPEMemory, gm))/float64(sAt[large]), "x",
		fmt.Sprintf("%s malloc.host_ns=%d malloc.update_ns=%d malloc.page_bytes=%d + measured t_malloc", g.Name, g.Malloc.Host, g.Malloc.Update, g.Malloc.PageBytes))
	// CUDA's first allocation over a later one, both 1 KB.
	later := g.MallocTime(small, CPEMemory, 0)
	add(FigMalloc, "CUDA's first allocation costs about 10x a later one (section 1; 1 KB)", About, 10, 0,
		float64(later+g.Malloc.FirstTouch)/float64(later), "x",
		fmt.Sprintf("%s malloc.first_touch_ns=%d", g.Name, g.Malloc.FirstTouch))

	// Figure 9, pinned host memory: cudaHostAlloc over sdaaMallocHost at
	// 1 GB, and the larger of the two ratios at sizes up to 256 KB.
	add(FigMallocHost, "sdaaMallocHost is about 3x faster than cudaHostAlloc for large blocks (1 GB)", About, 3, 0,
		float64(g.MallocHostTime(large))/float64(s.MallocHostTime(large)), "x",
		fmt.Sprintf("malloc.pin_fixed_ns=%d/%d malloc.pin_page_ns=%d/%d (%s/%s)", s.Malloc.PinFixed, g.Malloc.PinFixed, s.Malloc.PinPage, g.Malloc.PinPage, s.Name, g.Name))
	var worst float64
	for _, size := range sizes {
		if size > 256<<10 {
			continue
		}
		a, b := float64(s.MallocHostTime(size)), float64(g.MallocHostTime(size))
		worst = max(worst, a/b, b/a)
	}
	add(FigMallocHost, "pinned allocation up to 256 KB: comparable (larger ratio either way; bound 2 chosen, the paper gives none)", Below, 2, 0,
		worst, "x", "malloc.pin_fixed_ns, malloc.pin_page_ns of both")

	// Figure 10: MTMC over the single thread and channel, the largest
	// bandwidth ratio at one size, each direction; and the ratio of
	// latencies at 1 KB.
	for _, h2d := range []bool{true, false} {
		fig := FigD2H
		if h2d {
			fig = FigH2D
		}
		var best, first float64
		for _, size := range sizes {
			m, err := s.PageableTime(size, PageableMTMC, h2d, cal)
			if err != nil {
				return nil, err
			}
			one, err := s.PageableTime(size, PageableSingle, h2d, cal)
			if err != nil {
				return nil, err
			}
			r := float64(one) / float64(m)
			best = max(best, r)
			if size == small {
				first = r
			}
		}
		params := fmt.Sprintf("transfer.bandwidth=%g transfer.channel_bandwidth=%g transfer.channels=%d, N_t=%d at S_H2B=%g",
			s.Transfer.Bandwidth, s.Transfer.ChannelBandwidth, s.Transfer.Channels, s.threads(cal, 0), cal.HostCopyBandwidth)
		add(fig, "MTMC: up to 2.6x the bandwidth of one thread on one channel (largest ratio over sizes)", About, 2.6, 0, best, "x", params)
		add(fig, "MTMC: small blocks take about as long as on one thread and channel (1 KB)", About, 1, 0, first, "x",
			fmt.Sprintf("transfer.min_chunk_bytes=%d", s.Transfer.MinChunkBytes))
	}

	// Figure 12, host to device. Start overhead: the latency of a 1 KB
	// copy; bandwidth: the largest over sizes.
	add(FigH2D, "pinned start overhead is 1/2 of CUDA's (1 KB latency ratio)", About, 0.5, 0,
		float64(s.PinnedTime(small))/float64(g.PinnedTime(small)), "x",
		fmt.Sprintf("transfer.latency_ns=%d/%d transfer.chunk_start_ns=%d/%d", s.Transfer.Latency, g.Transfer.Latency, s.Transfer.ChunkStart, g.Transfer.ChunkStart))
	pinnedBW := func(p Profile) float64 {
		var b float64
		for _, size := range sizes {
			b = max(b, float64(size)/float64(p.PinnedTime(size)))
		}
		return b
	}
	add(FigH2D, "pinned bandwidth is 1.4-1.7x CUDA's (largest over sizes, each side)", Within, 1.4, 1.7,
		pinnedBW(s)/pinnedBW(g), "x", fmt.Sprintf("transfer.bandwidth=%g/%g", s.Transfer.Bandwidth, g.Transfer.Bandwidth))
	pageableBW := func(p Profile) (float64, time.Duration, error) {
		var b float64
		var first time.Duration
		for _, size := range sizes {
			t, err := p.PageableTime(size, Pageable, true, cal)
			if err != nil {
				return 0, 0, err
			}
			b = max(b, float64(size)/float64(t))
			if size == small {
				first = t
			}
		}
		return b, first, nil
	}
	sb, sf, err := pageableBW(s)
	if err != nil {
		return nil, err
	}
	gb, gf, err := pageableBW(g)
	if err != nil {
		return nil, err
	}
	add(FigH2D, "pageable bandwidth is about 1.6x CUDA's (largest over sizes, each side)", About, 1.6, 0, sb/gb, "x",
		fmt.Sprintf("S_H2B=%g (PaperCalibration), transfer.bandwidth=%g/%g, transfer.mtmc=%v/%v", cal.HostCopyBandwidth, s.Transfer.Bandwidth, g.Transfer.Bandwidth, s.Transfer.MTMC, g.Transfer.MTMC))
	add(FigH2D, "pageable start overhead: CUDA's is lower (SDAA over CUDA, 1 KB latency)", Above, 1, 0, float64(sf)/float64(gf), "x",
		fmt.Sprintf("transfer.pageable_setup_ns=%d/%d", s.Transfer.PageableSetup, g.Transfer.PageableSetup))

	// Figures 11-12, device to device: the adaptive choice against the
	// GPU's copy kernel.
	st, gt := NewD2DTable(s, cal), NewD2DTable(g, cal)
	_, s1 := st.Choose(small)
	_, g1 := gt.Choose(small)
	add(FigD2D, "D2D start overhead is below CUDA's (1 KB latency ratio)", Below, 1, 0, float64(s1)/float64(g1), "x",
		fmt.Sprintf("d2d.host_ns=%d/%d, mpe_copy_scale=%g", s.D2D.Host, g.D2D.Host, s.D2D.MPECopyScale))
	var sd, gd float64
	for _, size := range sizes {
		_, a := st.Choose(size)
		_, b := gt.Choose(size)
		sd, gd = max(sd, float64(size)/float64(a)), max(gd, float64(size)/float64(b))
	}
	add(FigD2D, "D2D bandwidth is above CUDA's (largest over sizes, each side)", Above, 1, 0, sd/gd, "x",
		fmt.Sprintf("d2d.cpe_bandwidth=%g/%g", s.D2D.CPEBandwidth, g.D2D.CPEBandwidth))

	// Section 4.4 and figure 13: empty kernels.
	launchParams := func(p Profile) string {
		l := p.Launch
		return fmt.Sprintf("%s launch: cpu %v, cmd_transfer %v, command %v, start %v, query %v, serial %v", p.Name, l.CPU, l.CmdTransfer, l.Command, l.Start, l.Query, l.Serial)
	}
	add(FigLaunch, "fast launch of an empty kernel, synchronous", About, 2.3, 0, us(s.KLL(FastLaunch, 0)), "µs", launchParams(s))
	add(FigLaunch, "traditional launch of an empty kernel, synchronous", About, 883.6, 0, us(s.KLL(TraditionalLaunch, 0)), "µs",
		fmt.Sprintf("launch.init_ns=%d launch.cores=%d", s.Launch.Init, s.Launch.Cores))
	add(FigLaunch, "figure 13, sync mode: SDAA faster than CUDA (SDAA over CUDA)", Below, 1, 0,
		float64(s.KLL(FastLaunch, 0))/float64(g.KLL(g.Launch.Method, 0)), "x", launchParams(g))
	add(FigLaunch, "figure 13, async mode: CUDA faster than SDAA (SDAA over CUDA, 100 launches)", Above, 1, 0,
		float64(s.Burst(FastLaunch, burstLaunches, 0))/float64(g.Burst(g.Launch.Method, burstLaunches, 0)), "x",
		"serial MPE dispatcher (launch.serial) against a pipelined front end")
	for _, c := range mttorchClaims(o.MT3000) {
		add(c.fig, c.claim, c.kind, c.lo, c.hi, c.value, c.unit, c.params)
	}
	return out, nil
}

// FigMTTorch is the figure of the MTTorch document's claims (seed
// mttorch-mt3000), graded on package mt3000's profile.
const FigMTTorch = "mttorch"

// mttorchClaim is one MTTorch claim before grading.
type mttorchClaim struct {
	fig, claim   string
	kind         ClaimKind
	lo, hi       float64
	value        float64
	unit, params string
}

// mttorchClaims grades the MTTorch document's textual claims that the
// MT-3000 profile p reproduces, each on p's modeled times (nothing is
// measured). The CPU side is the document's set-up of section 4: 4 CPU
// cores against one DSP cluster; an element-wise kernel on them is the
// host profile's roofline with 4 times one core's FLOP rate and bandwidth.
func mttorchClaims(p mt3000.Profile) []mttorchClaim {
	dsp, cpu := p.Cluster(), p.Host()
	const cpuCores = 4 // section 4: "4 CPU cores and a single DSP cluster"
	cpuTime := func(c device.Cost) time.Duration {
		return cpu.KernelFixed + time.Duration(max(c.FLOPs/(cpuCores*cpu.PeakFLOPS), c.Bytes/(cpuCores*cpu.MemBandwidth))*1e9)
	}
	// A launch on a cluster, synchronous: the call's latency and the
	// kernel's tiled time.
	dspTime := func(c device.Cost) time.Duration { return dsp.LaunchLatency + p.KernelTime(c) }
	// add is an element-wise Add of n float32 values: one operation and
	// 12 bytes (two read, one written) an element.
	add := func(n float64) device.Cost { return device.Cost{FLOPs: n, Bytes: 12 * n} }
	// softmax is a row softmax of n float32 values: 8 bytes (read once,
	// written once) and 25 operations an element (max, exp through libvm,
	// sum, scale; the operation count is assumed).
	softmax := func(n float64) device.Cost { return device.Cost{FLOPs: 25 * n, Bytes: 8 * n} }
	groups := fmt.Sprintf("GroupCreate=%v GroupExec=%v", p.GroupCreate, p.GroupExec)
	out := []mttorchClaim{
		// Section 3.2: the modeled cost heterog's Manager pays to create a
		// thread group (heterog.GroupCosts.Create).
		{FigMTTorch, "hthreads_group_create costs about 1.2 ms (section 3.2)", About, 1.2, 0,
			ms(p.GroupCreate), "ms", groups},
		// Section 3.2: an empty kernel on a cached group, synchronous: its
		// launch latency and the group's exec.
		{FigMTTorch, "hthreads_group_exec on a cached group costs about 0.6 ms (section 3.2; empty kernel, synchronous)", About, 0.6, 0,
			ms(dspTime(device.Cost{})), "ms", fmt.Sprintf("GroupExec=%v LaunchLatency=%v", p.GroupExec, p.LaunchLatency)},
		// Section 3.2, as the document computes it: the fixed start-up
		// cost of a cached group (the exec) against that of creating one
		// (the create), 1 - 0.6/1.2. (Counting the exec a created group
		// also pays, 1 - 0.6/1.8, would give 67%.)
		{FigMTTorch, "caching thread groups cuts the fixed start-up overhead by 50% (section 3.2: exec against create)", About, 0.5, 0,
			1 - float64(p.GroupExec)/float64(p.GroupCreate), "fraction", groups},
		// Section 4.3.1: on small tensors (2^18 elements, Add) the CPU is
		// slightly better, without a multiple-fold advantage: the
		// cluster's time over the CPU's is in 1-2.
		{FigMTTorch, "2^18 elements (Add): the CPU is slightly better, no multiple-fold advantage (section 4.3.1; DSP over CPU)", Within, 1, 2,
			float64(dspTime(add(1<<18))) / float64(cpuTime(add(1<<18))), "x",
			fmt.Sprintf("CPUBandwidth=%g x %d cores, DDRAMBandwidth=%g, GroupExec=%v", p.CPUBandwidth, cpuCores, p.DDRAMBandwidth, p.GroupExec)},
		// Section 4.3.1 and the abstract: on large tensors (2^28 elements,
		// Add) one cluster is 2-8 times faster than the CPU.
		{FigMTTorch, "2^28 elements (Add): one DSP cluster 2-8x faster than the CPU (section 4.3.1, abstract; CPU over DSP)", Within, 2, 8,
			float64(cpuTime(add(1<<28))) / float64(dspTime(add(1<<28))), "x",
			fmt.Sprintf("CPUBandwidth=%g x %d cores, DDRAMBandwidth=%g", p.CPUBandwidth, cpuCores, p.DDRAMBandwidth)},
		// Figure 12: ping-pong gains nothing on a softmax of 2^18 values
		// (its tiles fit in about one round) ...
		{FigMTTorch, "ping-pong: no gain on 2^18 elements (figure 12; softmax, without over with)", About, 1, 0,
			p.PingPongGain(softmax(1 << 18)), "x", fmt.Sprintf("TileBytes=%d x %d cores, PingPong", p.TileBytes, p.CoresPerCluster)},
		// ... and gains above 2^20 (here 2^22).
		{FigMTTorch, "ping-pong gains above 2^20 elements (figure 12; softmax of 2^22, without over with; bound chosen, the figure prints no values)", Above, 1.1, 0,
			p.PingPongGain(softmax(1 << 22)), "x", fmt.Sprintf("TileBytes=%d, DDRAMBandwidth=%g, PeakFLOPS=%g", p.TileBytes, p.DDRAMBandwidth, p.PeakFLOPS)},
		// Section 3.3 and figure 9: a virtual operator on 2^22 float32
		// values costs the CPU operator's time (no copy), while the
		// memcpy implementation adds a copy each way between DDR regions
		// at 16.22 GB/s: with over without.
		{FigMTTorch, "virtual operators: no copy, unlike memcpy between DDR regions (section 3.3; Add of 2^22 floats, copied over virtual; bound chosen)", Above, 1.05, 0,
			float64(cpuTime(add(1<<22))+dsp.D2H.Time(8<<22)+dsp.H2D.Time(4<<22)) / float64(cpuTime(add(1<<22))), "x",
			fmt.Sprintf("DDRBandwidth=%g, DMALatency=%v", p.DDRBandwidth, p.DMALatency)},
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// WriteClaims writes claims as an aligned table for people.
func WriteClaims(w io.Writer, claims []Claim) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tCLAIM\tPAPER\tPIPERT\tRATIO\tWITHIN 10%\tPARAMS")
	for _, c := range claims {
		ok := "no"
		if c.WithinTenPct {
			ok = "yes"
		}
		unit := c.Unit
		if unit != "x" {
			unit = " " + unit
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.4g%s\t%.3f\t%s\t%s\n", c.Figure, c.Claim, c.Paper, c.Value, unit, c.Ratio, ok, c.Params)
	}
	return tw.Flush()
}

// ClaimsSummary is one line: how many claims hold, and which do not.
func ClaimsSummary(claims []Claim) string {
	var bad []string
	for _, c := range claims {
		if !c.WithinTenPct {
			bad = append(bad, c.Figure+": "+c.Claim)
		}
	}
	s := fmt.Sprintf("paper claims: %d of %d within 10%% (or holding, for orderings)", len(claims)-len(bad), len(claims))
	if len(bad) > 0 {
		s += "; not: " + strings.Join(slices.Clip(bad), "; ")
	}
	return s
}
