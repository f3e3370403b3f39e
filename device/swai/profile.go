package swai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
)

// Profile is every parameter of the card's cost models. Default is the SW-AI
// card of the paper; GPU is a CUDA-like V100 to compare with. The comment on
// each default names its source: a section, equation or figure of the paper
// ("the paper" is the seed sdaa-swai-runtime: Zhao et al., SDAA: Runtime
// System for Shenwei AI Acceleration Card, Journal of Software 35(12), 2024),
// a published number, or "assumed" when neither fixes it.
//
// Durations are integer nanoseconds in JSON (the _ns fields); bandwidths are
// bytes per second.
type Profile struct {
	Name         string  `json:"name"`
	MemoryBytes  int64   `json:"memory_bytes"`  // device memory capacity
	PeakFLOPS    float64 `json:"peak_flops"`    // operations per second (roofline)
	MemBandwidth float64 `json:"mem_bandwidth"` // device memory bytes per second (roofline)
	// Allocator names the device memory allocator: AllocMultilevel,
	// AllocCaching or AllocReference.
	Allocator string `json:"allocator"`
	// SegmentEntries is the size of the multi-level allocator's CPE segment
	// table, hence the most CPE blocks live at once (0 with another
	// allocator means alloc.DefaultSegmentEntries where one is needed).
	SegmentEntries int `json:"segment_entries"`

	// ComputeEngines and CopyEngines bound the kernels and the copies
	// running at once across streams (device.Profile's fields; 0: no
	// bound, the default, as the paper gives neither).
	ComputeEngines int `json:"compute_engines"`
	CopyEngines    int `json:"copy_engines"`

	Queue    QueueParams    `json:"queue"`
	Launch   LaunchParams   `json:"launch"`
	Replay   ReplayParams   `json:"replay"`
	Malloc   MallocParams   `json:"malloc"`
	Transfer TransferParams `json:"transfer"`
	D2D      D2DParams      `json:"d2d"`
}

// QueueParams describe the command buffers between the host runtime and the
// device's dispatcher (section 2.2; the GPU's in section 1). See Ring.
type QueueParams struct {
	// Levels is 1 for SDAA's single-level command buffer, or 2 for the
	// GPU's ring buffer of pointers in front of a command buffer.
	Levels int `json:"levels"`
	// Slots is how many commands the command buffer holds.
	Slots int `json:"slots"`
	// RingSlots is how many entries the pointer ring holds (Levels 2 only).
	RingSlots int `json:"ring_slots"`
	// RingFetch is the time the device takes to read a ring entry before
	// it can fetch the command it points to (Levels 2 only); it is part of
	// O_command.
	RingFetch time.Duration `json:"ring_fetch_ns"`
}

// LaunchParams are the terms of the kernel launch overhead (section 3.3,
// equations 12-14):
//
//	KLL      = T_exec + KLO
//	KLO      = O_cpu + O_cmd-tran + O_device
//	O_device = O_command + O_init + Num × (O_start + O_query)
//
// A fast launch has O_init = 0 and Num = 1; a traditional one has Init and
// Cores.
type LaunchParams struct {
	// Method is how the device starts kernels: FastLaunch or
	// TraditionalLaunch ("fast" or "traditional" in JSON).
	Method      Method        `json:"method"`
	CPU         time.Duration `json:"cpu_ns"`          // O_cpu: the runtime prepares the command
	CmdTransfer time.Duration `json:"cmd_transfer_ns"` // O_cmd-tran: the command reaches the command buffer
	Command     time.Duration `json:"command_ns"`      // O_command: the dispatcher reads and parses it
	Init        time.Duration `json:"init_ns"`         // O_init of a traditional launch
	Cores       int           `json:"cores"`           // Num of a traditional launch
	Start       time.Duration `json:"start_ns"`        // O_start: start one core
	Query       time.Duration `json:"query_ns"`        // O_query: query one core's completion
	// Serial: the dispatcher handles one command at a time, from parsing
	// it to the kernel's completion (the SW-AI card's MPE, software, polls
	// the cores, section 3.3); false: a hardware command engine whose ring
	// fetch, parse and start stages overlap successive commands (the
	// GPU's). See Ring.
	Serial bool `json:"serial"`
}

// ReplayParams are the launch cost of replaying a captured kernel sequence
// as one submission (device.Replayer): Fixed once, then Node per kernel.
// Zero values are derived from the launch model (Device): the recorded
// commands stay in the command buffer, so a replay costs one command's
// preparation and doorbell (O_cpu + O_cmd-tran) and, per kernel, the
// dispatcher's parse and start (O_command, with a two-level queue's ring
// fetch, + O_init + Num × O_start).
type ReplayParams struct {
	Fixed time.Duration `json:"fixed_ns"`
	Node  time.Duration `json:"node_ns"`
}

// MallocParams are the terms of device and pinned host allocation (section
// 3.1, equations 1-3 and algorithm 1). Device allocation costs
//
//	T = t_host + t_malloc + t_update
//
// where t_malloc is the allocator's real, measured time. With PageBytes 0,
// t_update is one segment-table entry, Update, for CPE memory only
// (equation 3, algorithm 2 lines 11-12); with PageBytes > 0 it is Update per
// page of PageBytes (equation 2), whatever the kind.
type MallocParams struct {
	Host      time.Duration `json:"host_ns"`    // t_host: request and reply between host and device
	Update    time.Duration `json:"update_ns"`  // t_1 per segment-table entry, or t_0 per page
	PageBytes int64         `json:"page_bytes"` // 0: equation 3; > 0: equation 2 with this page size
	// FirstTouch is the extra cost of a device's first allocation, which
	// makes the driver set up its first pool (the GPU's: "the first
	// allocation costs about 10 times the later ones", section 1).
	FirstTouch time.Duration `json:"first_touch_ns"`
	// Pinned host memory costs PinFixed plus PinPage per host page of
	// HostPageBytes (algorithm 1's loop over pages).
	PinFixed      time.Duration `json:"pin_fixed_ns"`
	PinPage       time.Duration `json:"pin_page_ns"`
	HostPageBytes int64         `json:"host_page_bytes"`
}

// TransferParams describe host-device copies (section 3.2, equations 4-5,
// figure 5). The DMA engine has Channels channels; one alone moves
// ChannelBandwidth, all together share Bandwidth (S_B2D), so with k busy
// each moves min(ChannelBandwidth, Bandwidth/k): with all 8 busy that is
// equation 4's S_c = S_B2D / 8.
type TransferParams struct {
	// Latency is the fixed cost of a copy call: the command, programming
	// the DMA, and the completion reaching the host.
	Latency time.Duration `json:"latency_ns"`
	// PageableSetup is the extra host-side cost of a pageable copy:
	// choosing the staging buffers and splitting the work.
	PageableSetup    time.Duration `json:"pageable_setup_ns"`
	Channels         int           `json:"channels"`
	Bandwidth        float64       `json:"bandwidth"`         // S_B2D: all channels together
	ChannelBandwidth float64       `json:"channel_bandwidth"` // one channel alone
	ChunkStart       time.Duration `json:"chunk_start_ns"`    // start-up of one DMA command (T_dma_oh)
	// MTMC selects the multi-thread multi-channel path for pageable
	// memory; without it pageable copies take the single-thread
	// single-channel path with double buffering.
	MTMC bool `json:"mtmc"`
	// Threads is N_t, the host threads of MTMC; 0 derives it from
	// equations 4-5 and the calibrated host copy speed.
	Threads int `json:"threads"`
	// StagingBytes is the size of one pinned staging buffer, the largest
	// chunk of a pageable copy. The single-thread path owns StagingBuffers
	// of them; each MTMC thread owns as many, or more when that is needed
	// for every channel to be busy while every thread fills a buffer:
	// ⌈(Channels + N_t) / N_t⌉.
	StagingBytes   int64 `json:"staging_bytes"`
	StagingBuffers int   `json:"staging_buffers"`
	// MinChunkBytes is the smallest piece MTMC and pinned copies are split
	// into to spread them over the channels.
	MinChunkBytes int64 `json:"min_chunk_bytes"`
	// HostMemBandwidth is B_MEM, the host's memory bandwidth (equation 5).
	HostMemBandwidth float64 `json:"host_mem_bandwidth"`
}

// D2DParams are the engines of device-to-device copies and their costs
// (section 3.2, table 1, equations 6-11). A copy of S bytes costs
// T = T_h + T_d with
//
//	T_d-mpe   = S / mpe_cpy_bw
//	T_d-cpe   = T_cpe_oh + S / cpe_cpy_bw
//	T_d-dma   = (T_dma_oh + S / dmar_bw) + (T_dma_oh + S / dmaw_bw) + T_0
//	T_d-iommu = T_dma_oh + S / dma_bw,  dma_bw = (dmaw_bw + dmar_bw) / 2
//
// mpe_cpy_bw is measured at start-up: MPECopyScale times the host's own
// copy speed (Calibration.HostCopyBandwidth).
type D2DParams struct {
	Engines      []Engine      `json:"engines"`             // engines present
	Host         time.Duration `json:"host_ns"`             // T_h
	MPECopyScale float64       `json:"mpe_copy_scale"`      // mpe_cpy_bw / host copy speed
	CPEStart     time.Duration `json:"cpe_start_ns"`        // T_cpe_oh
	CPEBandwidth float64       `json:"cpe_bandwidth"`       // cpe_cpy_bw
	DMAStart     time.Duration `json:"dma_start_ns"`        // T_dma_oh
	DMARead      float64       `json:"dma_read_bandwidth"`  // dmar_bw
	DMAWrite     float64       `json:"dma_write_bandwidth"` // dmaw_bw
	Turnaround   time.Duration `json:"turnaround_ns"`       // T_0
}

// Default is the SW-AI card.
//
// Card: MemoryBytes 32 GiB, PeakFLOPS 100 TFLOP/s and MemBandwidth 900 GB/s
// as in device.Default ("computing power comparable to the mainstream GPU",
// abstract; the paper compares a V100). Allocator: the multi-level
// allocator (section 3.1, algorithm 2), with 65536 segment-table entries
// (assumed: the paper does not size the table; enough for the live tensors
// of a large model).
//
// Queue: one level (section 2.2); 1024 slots (assumed: the paper gives no
// size).
//
// Launch: fast (section 3.3), on a serial dispatcher: O_device is the MPE's
// software, which polls core 0 for completion before it takes the next
// command (section 3.3; see Ring). Only sums are published: a fast launch
// of an empty kernel, synchronous, takes 2.3 µs and a traditional one
// 883.6 µs (section 4.4); Num = 32 and O_start + O_query ≈ 0.5 µs (section
// 3.3). Hence O_cpu + O_cmd-tran + O_command = 2.3 - 0.5 = 1.8 µs, split
// (assumed) as 0.5 µs preparing the command (O_cpu, "not much different"
// from the GPU's, section 3.3), 0.3 µs writing it into the BAR0-mapped
// buffer with its doorbell (faster than the GPU's two levels), 1.0 µs for
// the MPE to parse it; 0.5 µs split 0.2 start (doorbell) + 0.3 query; and
// O_init = 883.6 - 1.8 - 32 × 0.5 = 865.8 µs ("hundreds of µs", section
// 3.3). Figure 13 prints no values, only the ordering: synchronous SDAA
// faster, asynchronous CUDA faster. With this split and the serial MPE an
// asynchronous launch costs the MPE's O_command + O_start + O_query = 1.5
// µs each against the GPU's 1.2 µs host side; the split between O_cpu,
// O_cmd-tran and O_command is the parameter the paper does not give, chosen
// so that the ordering holds.
//
// Malloc: sdaaMalloc is flat at about 10 µs (section 4.2, figure 9), so
// t_host = 9.8 µs leaves room for the measured t_malloc; t_1 = 50 ns ("ns
// level", equation 3). Pinned memory: 20 µs fixed and 0.35 µs per 4 KiB page
// (assumed; calibrated so that sdaaMallocHost is about 3 times faster than
// cudaHostAlloc for large blocks and within 2 times for blocks up to 256 KB,
// figure 9).
//
// Transfer: 8 DMA channels (section 3.2). Pinned start-up is half of CUDA's
// and bandwidth 1.4-1.7 times (section 4.3, figure 12): latency 5 µs (plus
// 0.5 µs per DMA command) against the GPU's 10 µs, and S_B2D = 14.7 GB/s =
// 1.4 × the GPU's 10.5 GB/s, 93% of PCIe 3.0 x16's 15.75 GB/s (the test host
// is a Xeon Silver 4214, a PCIe 3.0 part). One channel alone: 5.65 GB/s =
// 14.7 / 2.6, so that MTMC gains the paper's 2.6 times over one channel when
// the host keeps up (figure 10). Pageable setup 10 µs (assumed; pageable
// start-up is worse than CUDA's, section 4.3). Staging buffers of 1 MiB, two
// per thread, as CUDA's double buffering (section 1); chunks of at least
// 64 KiB (assumed). B_MEM = 115.2 GB/s: six channels of DDR4-2400 on the
// Xeon Silver 4214 of table 2 (Intel's specification).
//
// D2D: all four engines (table 1): T_h 1.5 µs (assumed, about O_cpu +
// O_cmd-tran); the MPE copies at 0.15 of the host's measured memcpy speed
// (assumed: one RISC core; table 1 says "low" bandwidth, "small" start-up);
// CPE start 5 µs (assumed; "large": a fast launch of a copy kernel on the
// core groups plus the cores' setup) at 450 GB/s (half of MemBandwidth, as
// a copy reads and writes each byte; "high"); DMA start 0.5 µs per DMA
// operation ("medium", assumed) at S_B2D each way and a 1 µs turnaround T_0
// (assumed), which gives the DMA path half the PCIe bandwidth and the IOMMU
// path all of it (table 1). With these, the engines take turns as in figure
// 6 (MPE, IOMMU, CPE; without the IOMMU, MPE, DMA, CPE), and the adaptive
// copy starts faster than the GPU's and ends with more bandwidth (section
// 4.3).
func Default() Profile {
	return Profile{
		Name:           "swai",
		MemoryBytes:    32 << 30,        // device.Default
		PeakFLOPS:      100e12,          // abstract: comparable to the V100
		MemBandwidth:   900e9,           // abstract: comparable to the V100
		Allocator:      AllocMultilevel, // section 3.1, algorithm 2
		SegmentEntries: 1 << 16,         // assumed
		Queue: QueueParams{
			Levels: 1,    // section 2.2: single-level command buffer
			Slots:  1024, // assumed
		},
		Launch: LaunchParams{
			Method:      FastLaunch,               // section 3.3
			CPU:         500 * time.Nanosecond,    // split of 1.8 µs, assumed
			CmdTransfer: 300 * time.Nanosecond,    // split of 1.8 µs, assumed
			Command:     1000 * time.Nanosecond,   // split of 1.8 µs, assumed
			Init:        865800 * time.Nanosecond, // section 4.4: 883.6 µs traditional
			Cores:       32,                       // section 3.3: Num = 32
			Start:       200 * time.Nanosecond,    // section 3.3: start + query ≈ 0.5 µs
			Query:       300 * time.Nanosecond,    // section 3.3: start + query ≈ 0.5 µs
			Serial:      true,                     // section 3.3: O_device is the MPE's software
		},
		Malloc: MallocParams{
			Host:          9800 * time.Nanosecond, // figure 9: sdaaMalloc ≈ 10 µs
			Update:        50 * time.Nanosecond,   // equation 3: t_1 is ns level
			PinFixed:      20 * time.Microsecond,  // figure 9, calibrated
			PinPage:       350 * time.Nanosecond,  // figure 9, calibrated
			HostPageBytes: 4 << 10,                // algorithm 1: host pages
		},
		Transfer: TransferParams{
			Latency:          5 * time.Microsecond,  // section 4.3: half of CUDA's
			PageableSetup:    10 * time.Microsecond, // section 4.3, assumed
			Channels:         8,                     // section 3.2
			Bandwidth:        14.7e9,                // section 4.3: 1.4 × the GPU's
			ChannelBandwidth: 5.65e9,                // figure 10: MTMC gains 2.6 times
			ChunkStart:       500 * time.Nanosecond, // assumed
			MTMC:             true,                  // section 3.2
			StagingBytes:     1 << 20,               // section 1: CUDA's 1 MB buffers
			StagingBuffers:   2,                     // section 1: double buffering
			MinChunkBytes:    64 << 10,              // assumed
			HostMemBandwidth: 115.2e9,               // table 2: Xeon Silver 4214, 6 × DDR4-2400
		},
		D2D: D2DParams{
			Engines:      []Engine{MPE, CPE, DMA, IOMMU}, // table 1
			Host:         1500 * time.Nanosecond,         // assumed: ≈ O_cpu + O_cmd-tran
			MPECopyScale: 0.15,                           // table 1: low; assumed
			CPEStart:     5 * time.Microsecond,           // table 1: large; assumed
			CPEBandwidth: 450e9,                          // table 1: high; MemBandwidth / 2
			DMAStart:     500 * time.Nanosecond,          // table 1: medium; assumed
			DMARead:      14.7e9,                         // S_B2D
			DMAWrite:     14.7e9,                         // S_B2D
			Turnaround:   1 * time.Microsecond,           // assumed
		},
	}
}

// GPU is a CUDA-like V100 (PCIe, 32 GB) on the paper's host, for comparison.
//
// Card: 112 TFLOP/s tensor, 900 GB/s HBM2, 32 GiB (NVIDIA V100 PCIe
// datasheet). Allocator: a caching allocator (the GPU's segregated free
// lists over 2 MB pools, section 1).
//
// Queue: two levels, a ring of pointers (GPFIFO) in front of the command
// (push) buffer (section 1, from the Nouveau driver); 1024 command slots and
// 128 ring entries (assumed); reading a ring entry is a PCIe read from host
// memory, about 1 µs (order of the PCIe read latencies measured by
// Neugebauer et al., SIGCOMM 2018, the paper's reference [17]).
//
// Launch: hardware command engine, so no initialisation and one completion
// (section 3.3), and its stages overlap successive commands (not Serial).
// O_cpu 0.5 µs (as the SW-AI's: "not much different", section 3.3),
// O_cmd-tran 0.7 µs (command, ring entry, PUT register: two levels, slower
// than the SW-AI's one), ring fetch 1 µs, O_command 1 µs, O_start 1 µs
// (configuring and launching the grid), O_query 0.8 µs (completion written
// to host memory and seen by the host): 5 µs for a synchronous empty
// launch, the low end of the 5-8 µs usually measured on V100-class GPUs.
// Back to back, asynchronous launches cost the host side, 1.2 µs each. The
// split is assumed; the paper prints no figure-13 values.
//
// Malloc: cudaMalloc costs t_host = 25 µs (driver round trip, assumed; old
// measurements put small cudaMalloc calls at tens of µs) plus t_0 = 2.3 µs
// per 2 MiB page (equation 2; t_0 is "µs level", the page is the 2 MB pool
// of section 1): a 1 GiB block then costs about 1.2 ms, 120 times
// sdaaMalloc's 10 µs (figure 9). The first allocation of a device costs
// 246 µs more, 10 times a later small one (section 1: "about 10 times"). cudaHostAlloc: 10 µs fixed and 1.05 µs per
// 4 KiB page (pinning plus mapping into the GPU's page table; three times
// the SW-AI's per-page cost, figure 9).
//
// Transfer: one copy engine per copy, 10.5 GB/s pinned (PCIe 3.0 x16; the
// SW-AI's 14.7 GB/s is 1.4 times this, figure 12), 10 µs latency (the
// constant ~10 µs of a cudaMemcpy: M. Boyer's CUDA overhead measurements,
// University of Virginia; twice the SW-AI's, section 4.3), pageable copies
// single-threaded through two 1 MiB pinned buffers (section 1), 2 µs setup.
//
// D2D: one engine, the copy kernel on the SMs (reported as "cpe"): 3 µs on
// the host, 5 µs start, 380 GB/s (below the SW-AI's, section 4.3; assumed).
//
// Replay: a CUDA graph launch, 15 µs plus 0.58 µs per node (from outside
// the seeds).
func GPU() Profile {
	return Profile{
		Name:         "gpu",
		MemoryBytes:  32 << 30,     // V100 datasheet
		PeakFLOPS:    112e12,       // V100 PCIe datasheet, tensor cores
		MemBandwidth: 900e9,        // V100 datasheet, HBM2
		Allocator:    AllocCaching, // section 1: segregated lists, 2 MB pools
		Queue: QueueParams{
			Levels:    2,                    // section 1: ring buffer + command buffer
			Slots:     1024,                 // assumed
			RingSlots: 128,                  // assumed
			RingFetch: 1 * time.Microsecond, // a PCIe read, reference [17]
		},
		Launch: LaunchParams{
			Method:      FastLaunch,            // hardware: no init, one completion
			CPU:         500 * time.Nanosecond, // section 3.3: as the SW-AI's
			CmdTransfer: 700 * time.Nanosecond, // assumed split of ≈ 5 µs
			Command:     1 * time.Microsecond,  // assumed split of ≈ 5 µs
			Cores:       1,                     // unused: no traditional launch
			Start:       1 * time.Microsecond,  // assumed split of ≈ 5 µs
			Query:       800 * time.Nanosecond, // assumed split of ≈ 5 µs
			Serial:      false,                 // hardware command engine, pipelined
		},
		// CUDA graphs: a graph launch costs about 15 µs plus 0.58 µs per
		// kernel node (measurements published outside the seeds, e.g. the
		// CUDA graph launch-overhead studies of NVIDIA's developer blog).
		Replay: ReplayParams{Fixed: 15 * time.Microsecond, Node: 580 * time.Nanosecond},
		Malloc: MallocParams{
			Host:          25 * time.Microsecond,  // assumed; tens of µs measured
			Update:        2300 * time.Nanosecond, // equation 2; figure 9: 120 × at 1 GB
			PageBytes:     2 << 20,                // section 1: 2 MB pools
			FirstTouch:    246 * time.Microsecond, // section 1: first allocation ≈ 10 × later ones
			PinFixed:      10 * time.Microsecond,  // figure 9, calibrated
			PinPage:       1050 * time.Nanosecond, // figure 9: 3 × sdaaMallocHost
			HostPageBytes: 4 << 10,                // host pages
		},
		Transfer: TransferParams{
			Latency:          10 * time.Microsecond, // Boyer's cudaMemcpy measurements
			PageableSetup:    2 * time.Microsecond,  // section 4.3: better than SDAA's; assumed
			Channels:         1,                     // one copy engine per copy
			Bandwidth:        10.5e9,                // PCIe 3.0 x16; figure 12
			ChannelBandwidth: 10.5e9,                // one channel
			ChunkStart:       500 * time.Nanosecond, // assumed
			MTMC:             false,                 // section 1: double buffering
			StagingBytes:     1 << 20,               // section 1: two 1 MB buffers
			StagingBuffers:   2,                     // section 1
			MinChunkBytes:    64 << 10,              // assumed
			HostMemBandwidth: 115.2e9,               // table 2: the same host
		},
		D2D: D2DParams{
			Engines:      []Engine{CPE},        // the copy kernel on the SMs
			Host:         3 * time.Microsecond, // ≈ O_cpu + O_cmd-tran
			CPEStart:     5 * time.Microsecond, // assumed
			CPEBandwidth: 380e9,                // section 4.3: below SDAA's; assumed
		},
	}
}

// LoadProfile reads a profile from a JSON file. Fields the file leaves out
// keep their Default values; unknown fields and trailing data are errors,
// and the result is validated.
func LoadProfile(path string) (Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("swai: load profile: %w", err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return Profile{}, fmt.Errorf("swai: load profile %s: %w", path, err)
	}
	return p, nil
}

// ParseProfile is LoadProfile on the contents of a file: a JSON object
// (null, an array or a number is refused, not read as Default).
func ParseProfile(data []byte) (Profile, error) {
	if tok, err := json.NewDecoder(bytes.NewReader(data)).Token(); err == nil && tok != json.Delim('{') {
		if tok == nil {
			tok = "null"
		}
		return Profile{}, fmt.Errorf("parse: want a JSON object of profile fields, got %v", tok)
	}
	p := Default()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Profile{}, fmt.Errorf("parse: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Profile{}, errors.New("parse: trailing data after the profile object")
	}
	if err := p.Validate(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// Validate reports every field that makes p unusable, joined.
func (p Profile) Validate() error {
	v := validator{name: p.Name}
	if p.Name == "" {
		v.add("name", "must not be empty")
	}
	v.posInt("memory_bytes", p.MemoryBytes)
	v.rate("peak_flops", p.PeakFLOPS)
	v.rate("mem_bandwidth", p.MemBandwidth)
	if !knownAllocator(p.Allocator) {
		v.add("allocator", fmt.Sprintf("unknown allocator %q (want one of %v)", p.Allocator, allocatorNames))
	}
	if p.Allocator == AllocMultilevel {
		v.posInt("segment_entries", int64(p.SegmentEntries))
		if p.MemoryBytes > 0 && p.MemoryBytes%alloc.DefaultPageSize != 0 {
			v.add("memory_bytes", fmt.Sprintf("must be a multiple of the multilevel allocator's page, %d bytes, got %d", alloc.DefaultPageSize, p.MemoryBytes))
		}
	} else {
		v.nonNegInt("segment_entries", int64(p.SegmentEntries))
	}
	v.atMost("segment_entries", int64(p.SegmentEntries), maxTable)

	q := p.Queue
	if q.Levels != 1 && q.Levels != 2 {
		v.add("queue.levels", fmt.Sprintf("must be 1 or 2, got %d", q.Levels))
	}
	v.posInt("queue.slots", int64(q.Slots))
	v.atMost("queue.slots", int64(q.Slots), maxTable)
	if q.Levels == 2 {
		v.posInt("queue.ring_slots", int64(q.RingSlots))
	} else {
		v.nonNegInt("queue.ring_slots", int64(q.RingSlots))
	}
	v.atMost("queue.ring_slots", int64(q.RingSlots), maxTable)
	v.dur("queue.ring_fetch_ns", q.RingFetch)

	l := p.Launch
	if !l.Method.valid() {
		v.add("launch.method", fmt.Sprintf("unknown launch method %d", int(l.Method)))
	}
	v.dur("launch.cpu_ns", l.CPU)
	v.dur("launch.cmd_transfer_ns", l.CmdTransfer)
	v.dur("launch.command_ns", l.Command)
	v.dur("launch.init_ns", l.Init)
	v.posInt("launch.cores", int64(l.Cores))
	v.atMost("launch.cores", int64(l.Cores), maxUnits)
	v.dur("launch.start_ns", l.Start)
	v.dur("launch.query_ns", l.Query)
	v.nonNegInt("compute_engines", int64(p.ComputeEngines))
	v.atMost("compute_engines", int64(p.ComputeEngines), device.MaxEngines)
	v.nonNegInt("copy_engines", int64(p.CopyEngines))
	v.atMost("copy_engines", int64(p.CopyEngines), device.MaxEngines)
	v.dur("replay.fixed_ns", p.Replay.Fixed)
	v.dur("replay.node_ns", p.Replay.Node)

	m := p.Malloc
	v.dur("malloc.host_ns", m.Host)
	v.dur("malloc.update_ns", m.Update)
	v.nonNegInt("malloc.page_bytes", m.PageBytes)
	v.dur("malloc.first_touch_ns", m.FirstTouch)
	v.dur("malloc.pin_fixed_ns", m.PinFixed)
	v.dur("malloc.pin_page_ns", m.PinPage)
	v.posInt("malloc.host_page_bytes", m.HostPageBytes)

	t := p.Transfer
	v.dur("transfer.latency_ns", t.Latency)
	v.dur("transfer.pageable_setup_ns", t.PageableSetup)
	v.posInt("transfer.channels", int64(t.Channels))
	v.atMost("transfer.channels", int64(t.Channels), maxUnits)
	v.rate("transfer.bandwidth", t.Bandwidth)
	v.rate("transfer.channel_bandwidth", t.ChannelBandwidth)
	if t.ChannelBandwidth > t.Bandwidth {
		v.add("transfer.channel_bandwidth", "must not exceed transfer.bandwidth, the channels' total")
	}
	v.dur("transfer.chunk_start_ns", t.ChunkStart)
	v.nonNegInt("transfer.threads", int64(t.Threads))
	v.atMost("transfer.threads", int64(t.Threads), maxUnits)
	v.posInt("transfer.staging_bytes", t.StagingBytes)
	v.atMost("transfer.staging_bytes", t.StagingBytes, maxStagingBytes)
	v.posInt("transfer.staging_buffers", int64(t.StagingBuffers))
	v.atMost("transfer.staging_buffers", int64(t.StagingBuffers), maxUnits)
	v.posInt("transfer.min_chunk_bytes", t.MinChunkBytes)
	if t.MinChunkBytes > t.StagingBytes {
		v.add("transfer.min_chunk_bytes", "must not exceed transfer.staging_bytes")
	}
	v.rate("transfer.host_mem_bandwidth", t.HostMemBandwidth)
	if t.Bandwidth >= t.HostMemBandwidth {
		v.add("transfer.bandwidth", "must be below transfer.host_mem_bandwidth (equation 5)")
	}

	d := p.D2D
	if len(d.Engines) == 0 {
		v.add("d2d.engines", "must name at least one engine")
	}
	if len(d.Engines) > 0 && !slices.ContainsFunc(d.Engines, func(e Engine) bool { return e != MPE }) {
		v.add("d2d.engines", "must name an engine other than mpe (the mpe's speed is only known after calibration)")
	}
	var seen [nEngines]bool
	for _, e := range d.Engines {
		switch {
		case !e.valid():
			v.add("d2d.engines", fmt.Sprintf("unknown engine %d", int(e)))
		case seen[e]:
			v.add("d2d.engines", fmt.Sprintf("engine %v listed twice", e))
		default:
			seen[e] = true
		}
	}
	v.dur("d2d.host_ns", d.Host)
	v.dur("d2d.cpe_start_ns", d.CPEStart)
	v.dur("d2d.dma_start_ns", d.DMAStart)
	v.dur("d2d.turnaround_ns", d.Turnaround)
	// Bandwidths of absent engines may be 0; those of present ones must be
	// rates (the MPE's scale of the host's copy speed at least
	// minMPECopyScale).
	need := func(field string, x float64, present func(string, float64), engines ...Engine) {
		for _, e := range engines {
			if seen[e] {
				present(field, x)
				return
			}
		}
		v.nonNegFloat(field, x)
	}
	need("d2d.mpe_copy_scale", d.MPECopyScale, v.copyScale, MPE)
	need("d2d.cpe_bandwidth", d.CPEBandwidth, v.rate, CPE)
	need("d2d.dma_read_bandwidth", d.DMARead, v.rate, DMA, IOMMU)
	need("d2d.dma_write_bandwidth", d.DMAWrite, v.rate, DMA, IOMMU)
	return errors.Join(v.errs...)
}

// segmentEntries is SegmentEntries, or the allocator's default when 0.
func (p Profile) segmentEntries() int {
	if p.SegmentEntries > 0 {
		return p.SegmentEntries
	}
	return alloc.DefaultSegmentEntries
}

// validator collects the problems of one profile.
type validator struct {
	name string
	errs []error
}

func (v *validator) add(field, msg string) {
	v.errs = append(v.errs, fmt.Errorf("swai: profile %q: %s: %s", v.name, field, msg))
}

func (v *validator) posInt(field string, x int64) {
	if x <= 0 {
		v.add(field, fmt.Sprintf("must be positive, got %d", x))
	}
}

// The largest counts a profile may give: each is a table, a set of
// workers or staging memory the simulator makes, and beyond these a
// profile describes no card but exhausts the host (a queue of 2^40
// slots, 10^9 copy threads).
const (
	maxTable        = 1 << 20   // queue slots, ring slots, segment-table entries
	maxUnits        = 1024      // launch cores, DMA channels, copy threads, staging buffers
	maxStagingBytes = 256 << 20 // one staging buffer
)

// atMost adds a problem if x exceeds hi.
func (v *validator) atMost(field string, x, hi int64) {
	if x > hi {
		v.add(field, fmt.Sprintf("must be at most %d, got %d", hi, x))
	}
}

func (v *validator) nonNegInt(field string, x int64) {
	if x < 0 {
		v.add(field, fmt.Sprintf("must not be negative, got %d", x))
	}
}

// minMPECopyScale bounds D2DParams.MPECopyScale from below: the MPE copies
// at least a millionth of the host's speed. Below it the figures' modeled
// copy times overflowed (a gigabyte at a scale of 1e-300 read as a
// negative time); at it, a gigabyte takes hours, and a profile scaled as
// far as its latencies allow (device.scale) still validates.
const minMPECopyScale = 1e-6

// copyScale adds a problem unless x is in [minMPECopyScale, +Inf).
func (v *validator) copyScale(field string, x float64) {
	if !(x >= minMPECopyScale) || math.IsInf(x, 0) {
		v.add(field, fmt.Sprintf("must be in [%g, +Inf), got %g", minMPECopyScale, x))
	}
}

// rate adds a problem unless x is a rate the simulated device models, in
// [device.MinRate, +Inf).
func (v *validator) rate(field string, x float64) {
	if !(x >= device.MinRate) || math.IsInf(x, 0) {
		v.add(field, fmt.Sprintf("must be in [%g, +Inf), got %g", float64(device.MinRate), x))
	}
}

func (v *validator) nonNegFloat(field string, x float64) {
	if !(x >= 0) || math.IsInf(x, 0) {
		v.add(field, fmt.Sprintf("must be finite and not negative, got %g", x))
	}
}

func (v *validator) dur(field string, d time.Duration) {
	switch {
	case d < 0:
		v.add(field, fmt.Sprintf("must not be negative, got %d", int64(d)))
	case d > device.MaxProfileDuration:
		v.add(field, fmt.Sprintf("%d ns (%v) outside [0, %v]", int64(d), d, device.MaxProfileDuration))
	}
}

// Device derives the generic cost model that device.Sim runs on:
//
//   - LaunchLatency: from the launch call to the earliest start, O_cpu +
//     O_cmd-tran + O_command + O_init + Num × O_start (no queueing);
//   - KernelFixed: Num × O_query, the completion the host waits for;
//   - H2D and D2H: a large pinned copy, Latency + ChunkStart then S_B2D;
//   - ReplayFixed and ReplayNode: Replay's, derived when zero (see
//     ReplayParams);
//   - D2D: the engine with the highest bandwidth other than the MPE (whose
//     speed is only known after calibration): on the SW-AI the CPE, the
//     adaptive choice for large copies; Device.MemcpyD2D chooses per size.
//
// So a synchronous empty kernel on the Sim costs KLL(Method, 0).
func (p Profile) Device() device.Profile {
	oinit, num := p.launchTerms(p.Launch.Method)
	l := p.Launch
	pinned := device.Link{Latency: p.Transfer.Latency + p.Transfer.ChunkStart, Bandwidth: p.Transfer.Bandwidth}
	e := p.largeCopyEngine()
	d := device.Profile{
		Name:          p.Name,
		MemoryBytes:   p.MemoryBytes,
		LaunchLatency: l.CPU + l.CmdTransfer + p.command() + oinit + time.Duration(num)*l.Start,
		KernelFixed:   time.Duration(num) * l.Query,
		PeakFLOPS:     p.PeakFLOPS,
		MemBandwidth:  p.MemBandwidth,
		H2D:           pinned,
		D2H:           pinned,
		D2D:           device.Link{Latency: roundNs(e.fixed), Bandwidth: 1e9 / e.perByte},
		ReplayFixed:   p.Replay.Fixed,
		ReplayNode:    p.Replay.Node,

		ComputeEngines: p.ComputeEngines,
		CopyEngines:    p.CopyEngines,
	}
	if p.Replay == (ReplayParams{}) {
		d.ReplayFixed = l.CPU + l.CmdTransfer
		d.ReplayNode = p.command() + oinit + time.Duration(num)*l.Start
	}
	return d
}
