package moe

import (
	"math"

	"github.com/pipert/pipert/device/fabric"
)

// Phase is one column of the document's per-rank profile at its largest
// shape (Full; CUDA events around each kernel, µs): the range over the
// eight ranks, and the modeled kernels that make it up.
type Phase struct {
	Variant Variant
	Name    string
	Kernels []string
	// PaperLo and PaperHi are the document's fastest and slowest rank.
	PaperLo, PaperHi float64
}

// Profile is the document's per-rank tables: v6 (per-token flags, the
// grouped GEMM a pass of its own: our p2p-token) and v7 with the combine
// grid tuned to 304 blocks (our fused).
var Profile = []Phase{
	{VP2PToken, "dispatch", []string{"dispatch-send", "dispatch-recv"}, 314.84, 377.98},
	{VP2PToken, "grouped GEMM", []string{"grouped-gemm"}, 115.02, 115.98},
	{VP2PToken, "combine", []string{"combine-send", "combine-recv"}, 317.28, 349.44},
	{VFused, "dispatch-send", []string{"dispatch-send"}, 211.08, 304.65},
	{VFused, "dispatch-recv", []string{"dispatch-recv"}, 32.27, 106.96},
	{VFused, "combine-send", []string{"combine-send"}, 97.66, 126.17},
	{VFused, "combine-recv", []string{"combine-recv"}, 43.06, 60.02},
}

// PhaseRange is the fastest and slowest rank's modeled time (µs) in
// phase ph of a traced result: per rank, the summed span of its kernels.
// ok is false when the result holds none of them (not traced, or another
// variant).
func PhaseRange(res fabric.Result, ph Phase) (lo, hi float64, ok bool) {
	per := map[int]int64{}
	for _, s := range res.Spans {
		if s.Lane != -1 || s.Rank < 0 {
			continue
		}
		for _, k := range ph.Kernels {
			if s.Name == k {
				per[s.Rank] += s.End - s.Start
			}
		}
	}
	if len(per) == 0 {
		return 0, 0, false
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, ns := range per {
		lo, hi = math.Min(lo, float64(ns)/1e3), math.Max(hi, float64(ns)/1e3)
	}
	return lo, hi, true
}
