package moe

import (
	"fmt"
	"slices"
	"strings"
)

// Variant is one rung of the document's ladder.
type Variant int

const (
	// VReference: the competition's reference — host loops over experts,
	// many small kernels, the all-to-all staged through the host.
	VReference Variant = iota
	// VSorted: "optimized PyTorch-only" (document: 1 311 µs) — sort the
	// flattened routing, an all-to-all of counts the host must read, then
	// of tokens and of their metadata, a second sort at the receiver, the
	// grouped GEMM over the tokens received; eager ops, each issued by the
	// host.
	VSorted
	// VP2PRank: P2P over a symmetric heap with one flag per source rank
	// (document v4: slower than sorted PyTorch; the receive kernel has one
	// block per source rank and cannot start on a rank's tokens until all
	// of them arrived).
	VP2PRank
	// VP2PToken: one flag per token (document v5: 517 µs); the receiver
	// copies each token as it arrives, on every block.
	VP2PToken
	// VFused: the grouped GEMM fused into combine-send, combine on a grid
	// of one block per compute unit (document v7: 345 µs).
	VFused
	// VFusedPipeline: VFused with every rank's host side in pipert's
	// pipeline mode: the per-kernel host work (shape inference, tiling,
	// launch, the buffers' allocation and zeroing) overlaps the device,
	// as the document's v7b removes it (303 µs).
	VFusedPipeline
	// VVarlen: VFusedPipeline with the receive work split by cumulative
	// token counts over every block (document v9: 292 µs).
	VVarlen
)

var variantNames = []string{"reference", "sorted", "p2p-rank", "p2p-token", "fused", "fused+pipeline", "varlen"}

// PaperMicros is the document's leaderboard runtime of each rung (µs).
var PaperMicros = map[Variant]float64{VReference: 93540, VSorted: 1311, VP2PToken: 517, VFused: 345, VFusedPipeline: 303, VVarlen: 292}

// Variants lists the rungs in ladder order.
func Variants() []Variant {
	return []Variant{VReference, VSorted, VP2PRank, VP2PToken, VFused, VFusedPipeline, VVarlen}
}

func (v Variant) String() string {
	if int(v) >= 0 && int(v) < len(variantNames) {
		return variantNames[v]
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// ParseVariants parses a comma-separated list of variant names ("all":
// every one); a variant named twice is listed once, where it is first
// named.
func ParseVariants(s string) ([]Variant, error) {
	if s == "all" || s == "" {
		return Variants(), nil
	}
	var out []Variant
	for _, f := range strings.Split(s, ",") {
		found := false
		for i, n := range variantNames {
			if strings.EqualFold(strings.TrimSpace(f), n) {
				found = true
				if !slices.Contains(out, Variant(i)) {
					out = append(out, Variant(i))
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: variant %q, want all or some of %s", ErrProblem, f, strings.Join(variantNames, ","))
		}
	}
	return out, nil
}

// traits are what a variant changes in the data path.
type traits struct {
	host     bool // the all-to-all is staged through host memory
	sorted   bool // tokens are sent in expert order (sort first)
	perToken bool // one flag per token (else one per source rank)
	fused    bool // the grouped GEMM runs inside combine-send
	pipeline bool // the rank's executable runs in pipeline mode
	varlen   bool // receive work split by cumulative counts
}

func (v Variant) traits() traits {
	switch v {
	case VReference:
		return traits{host: true}
	case VSorted:
		return traits{host: true, sorted: true}
	case VP2PRank:
		return traits{}
	case VP2PToken:
		return traits{perToken: true}
	case VFused:
		return traits{perToken: true, fused: true}
	case VFusedPipeline:
		return traits{perToken: true, fused: true, pipeline: true}
	case VVarlen:
		return traits{perToken: true, fused: true, pipeline: true, varlen: true}
	}
	return traits{}
}
