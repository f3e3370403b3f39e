package swai

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Calibration is what the device measures on the host at start-up instead
// of taking it from the profile.
type Calibration struct {
	// HostCopyBandwidth is S_H2B of equation 4: the bytes per second one
	// goroutine copies from pageable memory into a pinned staging buffer
	// with copy(). It sizes MTMC's thread count and, scaled by
	// D2DParams.MPECopyScale, stands in for the MPE's memcpy speed
	// (mpe_cpy_bw, equation 7).
	HostCopyBandwidth float64 `json:"host_copy_bandwidth"`
}

func (c Calibration) validate() error {
	if !(c.HostCopyBandwidth > 0) || math.IsInf(c.HostCopyBandwidth, 0) {
		return fmt.Errorf("swai: calibration: host copy bandwidth must be positive and finite, got %g", c.HostCopyBandwidth)
	}
	return nil
}

// Calibration sizes: a source beyond the caches of usual hosts, copied
// chunk by chunk into one staging buffer as the pageable paths do.
const (
	calibrationSource = 16 << 20
	calibrationChunk  = 1 << 20
)

// Calibrate measures the host once per process and returns that
// measurement ever after: one goroutine copies a 16 MiB pageable buffer,
// written first so that its pages exist, into a 1 MiB staging buffer, and
// the median over the 1 MiB chunks is taken. The first call takes some
// milliseconds.
func Calibrate() Calibration { return calibrated() }

var calibrated = sync.OnceValue(measureHost)

func measureHost() Calibration {
	src := make([]byte, calibrationSource)
	for i := 0; i < len(src); i += 4096 {
		src[i] = byte(i >> 12)
	}
	staging := make([]byte, calibrationChunk)
	clear(staging)
	rates := make([]float64, 0, calibrationSource/calibrationChunk)
	for off := 0; off < len(src); off += calibrationChunk {
		t0 := time.Now()
		copy(staging, src[off:off+calibrationChunk])
		el := time.Since(t0)
		rates = append(rates, calibrationChunk/max(el.Seconds(), 1e-9))
	}
	slices.Sort(rates)
	runtime.KeepAlive(staging)
	return Calibration{HostCopyBandwidth: rates[len(rates)/2]}
}

// Threads is N_t, the host threads of MTMC copies: Transfer.Threads if set;
// otherwise the fewest threads whose copies feed all channels, N_t × S_H2B ≥
// S_B2D (equation 4), but no more than host memory bandwidth allows,
// S_B2D + N_t × S_H2B ≤ B_MEM (equation 5), nor than GOMAXPROCS; at least
// 1. Without MTMC it is 1.
func (p Profile) Threads(c Calibration) int {
	return p.threads(c, runtime.GOMAXPROCS(0))
}

// threads is Threads with at most procs threads (procs ≤ 0: no such
// bound, for the model, which runs none).
func (p Profile) threads(c Calibration, procs int) int {
	t := p.Transfer
	if t.Threads > 0 {
		return t.Threads
	}
	if !t.MTMC || !(c.HostCopyBandwidth > 0) {
		return 1
	}
	n := math.Ceil(t.Bandwidth / c.HostCopyBandwidth)
	n = min(n, math.Floor((t.HostMemBandwidth-t.Bandwidth)/c.HostCopyBandwidth))
	if procs > 0 {
		n = min(n, float64(procs))
	}
	return max(int(n), 1)
}
