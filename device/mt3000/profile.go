package mt3000

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pipert/pipert/device"
)

// Profile is every figure of the MT-3000 model. Default is the chip of
// the document; the comment on each of its fields names the section (or
// table, equation) of the document that gives the figure, or says
// "assumed" and why. "The document" is the seed mttorch-mt3000: MTTorch, a
// PyTorch extension library for the MT-3000 (CPU+DSP) of the new Tianhe
// supercomputer, Journal of Software.
type Profile struct {
	Name string
	// Clusters is the number of DSP clusters (acceleration zones), each a
	// device of its own with its own DDR, GSM and thread groups.
	Clusters int
	// CoresPerCluster is the DSP cores of a cluster (each one control core
	// and 16 vector processing elements); a kernel runs on all of them.
	CoresPerCluster int
	// CPUCores is the general-purpose ARMv8 cores: the host.
	CPUCores int

	// PeakFLOPS is a cluster's floating-point peak, operations per second.
	PeakFLOPS float64
	// DDRBytes is the DDR one cluster may use.
	DDRBytes int64
	// DDRBandwidth is DMA between DDR regions (the copy between the CPU's
	// region and a cluster's), bytes per second.
	DDRBandwidth float64
	// DDRAMBandwidth is a cluster's DMA between its DDR and the cores'
	// array memories (AM), bytes per second: what a kernel streams its
	// operands through.
	DDRAMBandwidth float64
	// AMBandwidth is the array memory's own bandwidth, bytes per second.
	AMBandwidth float64
	// AMBytes, SMBytes and GSMBytes are a core's array and scalar memories
	// and a cluster's global shared memory.
	AMBytes, SMBytes, GSMBytes int64
	// TileBytes is the block a core moves between DDR and AM at a time:
	// one buffer of a kernel's working set in AM.
	TileBytes int64
	// PingPong: kernels double-buffer their DDR↔AM transfers (the next
	// tile loads while the core computes on this one); without it each
	// tile is loaded, computed and stored in turn.
	PingPong bool

	// GroupCreate is hthreads_group_create, a thread group made for a
	// kernel; GroupExec is hthreads_group_exec's fixed cost, paid by every
	// kernel a group runs, cached or not.
	GroupCreate, GroupExec time.Duration
	// LaunchLatency is from the host's call to the cluster starting.
	LaunchLatency time.Duration
	// DMALatency is the fixed cost of a DDR↔DDR copy.
	DMALatency time.Duration

	// CPUFLOPS and CPUBandwidth are one host core's, for kernels on
	// virtual data that the host burns (package host).
	CPUFLOPS, CPUBandwidth float64
}

// Default is the MT-3000 of the document.
//
// Figures the document gives: 4 DSP clusters of 24 cores, and 16 ARMv8
// CPU cores that run the operating system (section 2.1); DMA between DDR
// regions 16.22 GB/s, between DDR and AM 42.62 GB/s per cluster, AM
// 921.6 GB/s (section 2.1, and 16.22 GB/s again as the memcpy of section
// 3.3); AM 768 KB, SM 64 KB, GSM 6 MB (table 1, section 2.1);
// hthreads_group_create about 1.2 ms and hthreads_group_exec about 0.6 ms
// (section 3.2); ping-pong double buffering (section 3.6.3, algorithm 4);
// 518.4 GFLOP/s at 1.8 GHz (section 4.3.2).
//
// Readings and assumptions: the 518.4 GFLOP/s the document gives a "DSP
// core" is what its equation 10 normalises one cluster by against a whole
// V100S, so it is the cluster's peak here. Each cluster gets 12 GB of the
// chip's 64 GB (section 4: "about 12 GB per DSP"; table 1's 32 GB is the
// DDR both sides address). A tile is 64 KiB per core: softmax keeps five
// blocks in AM under ping-pong with fewer than 512 vectors each (section
// 3.6.3), and a vector is 32 single-precision values (section 3.4). The
// launch latency, 10 µs, is assumed: Hthreads signals the cluster by
// interrupt through shared memory (section 2.2) and the document gives no
// figure beyond the exec's 0.6 ms, which is the kernel's fixed time here.
// DMA latency 2 µs is assumed (a descriptor and its completion). A host
// core: 2 GFLOP/s, as package host's default, and 1.5 GB/s (assumed: the
// document gives no CPU figure, its CPU being "a simplified FT-2000
// Plus"; the bandwidth is calibrated so that section 4.3.1's two
// observations hold for an element-wise Add on 4 CPU cores against one
// cluster, the document's set-up in section 4: the CPU slightly better on
// 2^18 elements, the cluster 2-8 times faster on 2^28).
func Default() Profile {
	return Profile{
		Name:            "mt3000",
		Clusters:        4,                       // section 2.1
		CoresPerCluster: 24,                      // section 2.1
		CPUCores:        16,                      // section 2.1: 16 ARMv8 cores
		PeakFLOPS:       518.4e9,                 // section 4.3.2 (see above)
		DDRBytes:        12 << 30,                // section 4: about 12 GB per DSP
		DDRBandwidth:    16.22e9,                 // sections 2.1 and 3.3
		DDRAMBandwidth:  42.62e9,                 // section 2.1, per cluster
		AMBandwidth:     921.6e9,                 // section 2.1
		AMBytes:         768 << 10,               // table 1, section 2.1
		SMBytes:         64 << 10,                // table 1
		GSMBytes:        6 << 20,                 // table 1, section 2.1
		TileBytes:       64 << 10,                // section 3.6.3: < 512 vectors of 32 floats (3.4)
		PingPong:        true,                    // section 3.6.3, algorithm 4
		GroupCreate:     1200 * time.Microsecond, // section 3.2: hthreads_group_create
		GroupExec:       600 * time.Microsecond,  // section 3.2: hthreads_group_exec
		LaunchLatency:   10 * time.Microsecond,   // assumed (see above)
		DMALatency:      2 * time.Microsecond,    // assumed
		CPUFLOPS:        2e9,                     // assumed: package host's default
		CPUBandwidth:    1.5e9,                   // assumed: calibrated on section 4.3.1
	}
}

// Validate reports every field that makes p unusable, each naming the
// field, joined: the counts and sizes must be positive, the rates in
// [device.MinRate, +Inf), the durations not negative.
func (p Profile) Validate() error {
	var errs []error
	bad := func(field, msg string, v any) {
		errs = append(errs, fmt.Errorf("mt3000: profile %q: %s: %s, got %v", p.Name, field, msg, v))
	}
	if p.Name == "" {
		errs = append(errs, errors.New("mt3000: profile: Name must not be empty"))
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"Clusters", int64(p.Clusters)}, {"CoresPerCluster", int64(p.CoresPerCluster)}, {"CPUCores", int64(p.CPUCores)},
		{"DDRBytes", p.DDRBytes}, {"AMBytes", p.AMBytes}, {"SMBytes", p.SMBytes}, {"GSMBytes", p.GSMBytes}, {"TileBytes", p.TileBytes},
	} {
		if f.v <= 0 {
			bad(f.name, "must be positive", f.v)
		}
	}
	if p.TileBytes > 0 && p.AMBytes > 0 && p.TileBytes*2 > p.AMBytes {
		bad("TileBytes", fmt.Sprintf("two tiles must fit in AMBytes (%d)", p.AMBytes), p.TileBytes)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"PeakFLOPS", p.PeakFLOPS}, {"DDRBandwidth", p.DDRBandwidth}, {"DDRAMBandwidth", p.DDRAMBandwidth},
		{"AMBandwidth", p.AMBandwidth}, {"CPUFLOPS", p.CPUFLOPS}, {"CPUBandwidth", p.CPUBandwidth},
	} {
		if !(f.v >= device.MinRate) || math.IsInf(f.v, 0) {
			bad(f.name, fmt.Sprintf("must be in [%g, +Inf)", float64(device.MinRate)), f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{
		{"GroupCreate", p.GroupCreate}, {"GroupExec", p.GroupExec}, {"LaunchLatency", p.LaunchLatency}, {"DMALatency", p.DMALatency},
	} {
		if f.v < 0 {
			bad(f.name, "must not be negative", f.v)
		}
	}
	// What the clusters' and the host's device profiles take (New makes
	// them): a cluster's latencies and fixed cost within the simulated
	// device's bound, and a memory it models.
	for _, f := range []struct {
		name string
		v    time.Duration
	}{
		{"GroupExec", p.GroupExec}, {"LaunchLatency", p.LaunchLatency}, {"DMALatency", p.DMALatency},
	} {
		if f.v > device.MaxProfileDuration {
			bad(f.name, fmt.Sprintf("must be at most %v", device.MaxProfileDuration), f.v)
		}
	}
	if p.DDRBytes > 0 && p.Clusters > 0 && p.DDRBytes > device.MaxMemoryBytes/int64(p.Clusters) {
		bad("DDRBytes", fmt.Sprintf("over the %d clusters must be at most %d in all", p.Clusters, int64(device.MaxMemoryBytes)), p.DDRBytes)
	}
	return errors.Join(errs...)
}

// KernelTime is the modeled time of a kernel of cost c on one cluster:
// GroupExec, then the cores' tiles. The operands' bytes are split over the
// cores into rounds of one tile per core; a round moves its bytes between
// DDR and AM (at DDRAMBandwidth, shared by the cluster's cores) in d and
// computes in c. Without ping-pong the rounds run load-compute-store in
// turn, r × (d + c); with it the next round's transfer overlaps this
// round's compute, a two-stage pipeline, d + c + (r - 1) × max(d, c). A
// kernel of one round gains nothing from ping-pong; a large one tends to
// the roofline max(D, C).
func (p Profile) KernelTime(c device.Cost) time.Duration {
	t := p.tiles(c, p.PingPong)
	if t > math.MaxInt64-p.GroupExec {
		return time.Duration(math.MaxInt64) // saturated, not wrapped
	}
	return p.GroupExec + t
}

// tiles is KernelTime without the group's fixed cost.
func (p Profile) tiles(c device.Cost, pingPong bool) time.Duration {
	if c.Bytes <= 0 && c.FLOPs <= 0 {
		return 0
	}
	round := float64(p.TileBytes) * float64(p.CoresPerCluster)
	r := math.Max(1, math.Ceil(c.Bytes/round))
	d := c.Bytes / r / p.DDRAMBandwidth
	k := c.FLOPs / r / p.PeakFLOPS
	t := r * (d + k)
	if pingPong {
		t = d + k + (r-1)*math.Max(d, k)
	}
	if !(t*1e9 < math.MaxInt64) {
		return time.Duration(math.MaxInt64) // saturated, not wrapped
	}
	return time.Duration(t * 1e9)
}

// PingPongGain is how many times faster a kernel of cost c runs with
// ping-pong than without: 1 for a kernel of one round.
func (p Profile) PingPongGain(c device.Cost) float64 {
	with := p.GroupExec.Seconds() + p.tiles(c, true).Seconds() // in float: saturated tiles do not wrap
	without := p.GroupExec.Seconds() + p.tiles(c, false).Seconds()
	if with <= 0 {
		return 1
	}
	return without / with
}

// Cluster is the device.Profile of one DSP cluster, the Sim's cost model:
// a kernel's fixed time is GroupExec (each kernel is one
// hthreads_group_exec on a cached group), its roofline the cluster's peak
// and DDR↔AM bandwidth (ping-pong's limit; the cluster's streams give the
// Sim KernelTime exactly, see New), copies DMA between DDR regions, one
// kernel at a time (a cluster runs one thread group).
func (p Profile) Cluster() device.Profile {
	ddr := device.Link{Latency: p.DMALatency, Bandwidth: p.DDRBandwidth}
	return device.Profile{
		Name:           p.Name + "-dsp",
		MemoryBytes:    p.DDRBytes,
		LaunchLatency:  p.LaunchLatency,
		KernelFixed:    p.GroupExec,
		PeakFLOPS:      p.PeakFLOPS,
		MemBandwidth:   p.DDRAMBandwidth,
		H2D:            ddr,
		D2H:            ddr,
		D2D:            ddr,
		ComputeEngines: 1,
	}
}

// Host is the device.Profile of the general-purpose cores as a host
// device: one core's roofline (a kernel runs on the core that computes
// it), memory the chip's DDR less the clusters', copies memcpy at one
// core's bandwidth.
func (p Profile) Host() device.Profile {
	mem := device.Link{Bandwidth: p.CPUBandwidth}
	return device.Profile{
		Name:         p.Name + "-cpu",
		MemoryBytes:  int64(p.Clusters) * p.DDRBytes,
		KernelFixed:  300 * time.Nanosecond, // package host's default: a call on a few elements
		PeakFLOPS:    p.CPUFLOPS,
		MemBandwidth: p.CPUBandwidth,
		H2D:          mem,
		D2H:          mem,
		D2D:          mem,
	}
}
