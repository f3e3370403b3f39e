// Package moe is an expert-parallel mixture-of-experts layer on a fabric of
// simulated devices: a router (Softmax and ONNX TopK), dispatch of every
// token to the ranks that hold its experts, the experts' "grouped GEMM",
// and the top-k weighted combine back at the token's rank. It implements
// the ladder of the all-to-all document (seed moe-all-to-all-mi300x: from
// the reference kernel through sorted PyTorch, P2P symmetric memory with
// per-rank and per-token flags, the grouped GEMM fused into combine, the
// host's overheads removed, and the varlen work split) as Variants.
//
// Every variant runs in two ways. Run computes real data at small sizes:
// one pipert executable per rank, ranks on goroutines coordinated by an
// errgroup, tokens moving through a fabric.Heap and fabric.Flags; its
// results equal Reference, a single-device MoE computed with plain loops,
// bit for bit. Model gives the modeled time of the same variant at any
// size (DeepSeek-V3's: 256 experts, top-8, hidden 7168, 256 tokens per
// rank, 8 ranks) from a deterministic discrete-event run on a
// fabric.Model.
//
// As in the document's competition problem, each expert's "grouped GEMM"
// is a pointwise multiply by the expert's weight vector.
package moe

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/pipert/pipert/device/fabric"
)

// Errors, matchable with errors.Is.
var (
	// ErrProblem: a problem or option out of range.
	ErrProblem = errors.New("moe: bad problem")
)

// Routing is how the router's logits favour experts.
type Routing int

const (
	// Uniform: independent logits, every expert equally likely.
	Uniform Routing = iota
	// Skewed: the experts of rank 0 are favoured (logit +skewBias, 0.75),
	// so rank 0 receives about three times its share and the other ranks
	// wait for it.
	Skewed
	// Zipf: expert e's logit is lowered by zipfS·log(e+1): a few popular
	// experts, many rarely chosen.
	Zipf
)

// skewBias is Skewed's logit bonus for rank 0's experts.
const skewBias = 0.75

// zipfS is Zipf's exponent: expert e is chosen about (e+1)^-zipfS as often.
const zipfS = 0.5

var routingNames = []string{"uniform", "skewed", "zipf"}

func (r Routing) String() string {
	if int(r) >= 0 && int(r) < len(routingNames) {
		return routingNames[r]
	}
	return fmt.Sprintf("Routing(%d)", int(r))
}

// ParseRouting parses a Routing's name.
func ParseRouting(s string) (Routing, error) {
	for i, n := range routingNames {
		if strings.EqualFold(s, n) {
			return Routing(i), nil
		}
	}
	return 0, fmt.Errorf("%w: routing %q, want one of %s", ErrProblem, s, strings.Join(routingNames, ", "))
}

// Problem is one MoE layer's shape and routing.
type Problem struct {
	Ranks   int // devices, one expert shard each
	Experts int // experts in all; a multiple of Ranks
	TopK    int // experts per token
	Hidden  int // elements per token
	// Tokens is the most tokens a rank holds (max_num_tokens): the
	// symmetric buffers are sized for it. A rank may hold fewer.
	Tokens  int
	Routing Routing
	Seed    uint64
}

// Full is DeepSeek-V3's layer as the document's largest shape: 256
// experts, top-8, hidden 7168, 256 tokens per rank, 8 ranks.
var Full = Problem{Ranks: 8, Experts: 256, TopK: 8, Hidden: 7168, Tokens: 256}

// Small is a size at which real data runs quickly.
var Small = Problem{Ranks: 8, Experts: 32, TopK: 4, Hidden: 64, Tokens: 24}

// ExpertsPerRank is the experts each rank holds: 0 for a problem of no
// ranks (which Check rejects).
func (p Problem) ExpertsPerRank() int {
	if p.Ranks <= 0 {
		return 0
	}
	return p.Experts / p.Ranks
}

// Check rejects a problem the fabric f cannot hold.
func (p Problem) Check(f fabric.Config) error {
	if err := f.Check(); err != nil {
		return err
	}
	switch {
	case p.Ranks < 1 || p.Ranks > f.Ranks:
		return fmt.Errorf("%w: %d ranks on a fabric of %d devices", ErrProblem, p.Ranks, f.Ranks)
	case p.Experts < p.Ranks || p.Experts%p.Ranks != 0:
		return fmt.Errorf("%w: %d experts do not split evenly over %d ranks", ErrProblem, p.Experts, p.Ranks)
	case p.TopK < 1 || p.TopK > p.Experts:
		return fmt.Errorf("%w: top-k %d with %d experts (want 1 to %d)", ErrProblem, p.TopK, p.Experts, p.Experts)
	case p.Hidden < 1:
		return fmt.Errorf("%w: hidden size %d", ErrProblem, p.Hidden)
	case p.Tokens < 0:
		return fmt.Errorf("%w: %d tokens per rank", ErrProblem, p.Tokens)
	case p.Routing < Uniform || p.Routing > Zipf:
		return fmt.Errorf("%w: routing %d", ErrProblem, int(p.Routing))
	}
	if !within(maxElements, p.Ranks, p.Tokens, p.TopK, p.Hidden) {
		return fmt.Errorf("%w: %d×%d×%d×%d elements of dispatch buffer per rank exceed 2^31", ErrProblem, p.Ranks, p.Tokens, p.TopK, p.Hidden)
	}
	if !within(maxElements, p.Experts, p.Hidden) {
		return fmt.Errorf("%w: %d×%d expert weights exceed 2^31", ErrProblem, p.Experts, p.Hidden)
	}
	if !within(maxElements, p.Tokens, p.Experts) {
		return fmt.Errorf("%w: %d×%d router logits per rank exceed 2^31", ErrProblem, p.Tokens, p.Experts)
	}
	return nil
}

// maxElements bounds every buffer a Problem sizes, in elements.
const maxElements = 1 << 31

// within reports whether the product of the non-negative factors xs is at
// most limit, without overflowing.
func within(limit int64, xs ...int) bool {
	prod := int64(1)
	for _, x := range xs {
		if x == 0 {
			return true
		}
	}
	for _, x := range xs {
		if int64(x) > limit/prod {
			return false
		}
		prod *= int64(x)
	}
	return prod <= limit
}

// Input is one layer's data: each rank's tokens and their routing, and the
// experts' weights.
type Input struct {
	P      Problem
	Counts []int       // tokens on each rank, at most P.Tokens
	X      [][]float32 // per rank, Counts[r] × Hidden
	Idx    [][]int32   // per rank, Counts[r] × TopK expert indices (distinct per token)
	W      [][]float32 // per rank, Counts[r] × TopK routing weights
	// Experts is Experts × Hidden: expert e multiplies a token by its row.
	Experts []float32
}

// Check rejects an input inconsistent with its problem: wrong lengths, a
// rank over the symmetric buffers' worst case (more than P.Tokens tokens),
// an expert index out of range or repeated within a token.
func (in *Input) Check() error {
	if in == nil {
		return fmt.Errorf("%w: no input", ErrProblem)
	}
	p := in.P
	if len(in.X) != p.Ranks || len(in.W) != p.Ranks {
		return fmt.Errorf("%w: input has tokens for %d ranks and weights for %d, want %d", ErrProblem, len(in.X), len(in.W), p.Ranks)
	}
	if len(in.Experts) != p.Experts*p.Hidden {
		return fmt.Errorf("%w: %d expert weights, want %d×%d", ErrProblem, len(in.Experts), p.Experts, p.Hidden)
	}
	if err := in.checkRouting(); err != nil {
		return err
	}
	for r, n := range in.Counts {
		if len(in.X[r]) != n*p.Hidden || len(in.W[r]) != n*p.TopK {
			return fmt.Errorf("%w: rank %d: tensors do not match its %d tokens", ErrProblem, r, n)
		}
	}
	return nil
}

// checkRouting is Check of the routing alone (Counts and Idx), all that
// Model reads.
func (in *Input) checkRouting() error {
	if in == nil {
		return fmt.Errorf("%w: no input", ErrProblem)
	}
	p := in.P
	if len(in.Counts) != p.Ranks || len(in.Idx) != p.Ranks {
		return fmt.Errorf("%w: input has counts for %d ranks and expert indices for %d, want %d", ErrProblem, len(in.Counts), len(in.Idx), p.Ranks)
	}
	for r, n := range in.Counts {
		if n < 0 || n > p.Tokens {
			return fmt.Errorf("%w: rank %d holds %d tokens, over the symmetric buffers' worst case of %d", ErrProblem, r, n, p.Tokens)
		}
		if len(in.Idx[r]) != n*p.TopK {
			return fmt.Errorf("%w: rank %d: %d expert indices for its %d tokens, want %d", ErrProblem, r, len(in.Idx[r]), n, n*p.TopK)
		}
		for t := range n {
			row := in.Idx[r][t*p.TopK : (t+1)*p.TopK]
			for k, e := range row {
				if e < 0 || int(e) >= p.Experts {
					return fmt.Errorf("%w: rank %d token %d: expert %d out of range [0, %d)", ErrProblem, r, t, e, p.Experts)
				}
				for _, prev := range row[:k] {
					if prev == e {
						return fmt.Errorf("%w: rank %d token %d: expert %d chosen twice", ErrProblem, r, t, e)
					}
				}
			}
		}
	}
	return nil
}

// Generate makes a problem's input from its seed: normal tokens and
// expert weights, router logits by p.Routing, routed by Route (Softmax and
// ONNX TopK run by pipert). counts gives each rank's tokens (nil: P.Tokens
// each).
func Generate(p Problem, counts []int) (*Input, error) {
	return generate(p, counts, true)
}

// Routes is Generate without the tokens and expert weights: only the
// routing, enough for Model at full size.
func Routes(p Problem, counts []int) (*Input, error) {
	return generate(p, counts, false)
}

func generate(p Problem, counts []int, data bool) (*Input, error) {
	if err := p.Check(fabric.Config{Ranks: max(p.Ranks, 1)}); err != nil {
		return nil, err
	}
	if counts == nil {
		counts = make([]int, p.Ranks)
		for r := range counts {
			counts[r] = p.Tokens
		}
	}
	if len(counts) != p.Ranks {
		return nil, fmt.Errorf("%w: token counts for %d ranks, want %d", ErrProblem, len(counts), p.Ranks)
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0x6d6f65))
	in := &Input{P: p, Counts: counts, X: make([][]float32, p.Ranks), Idx: make([][]int32, p.Ranks), W: make([][]float32, p.Ranks)}
	if data {
		in.Experts = normals(rng, p.Experts*p.Hidden)
	}
	bias := make([]float32, p.Experts)
	for e := range bias {
		switch p.Routing {
		case Skewed:
			if e < p.ExpertsPerRank() {
				bias[e] = skewBias
			}
		case Zipf:
			bias[e] = -zipfS * float32(math.Log(float64(e+1)))
		}
	}
	for r := range p.Ranks {
		n := counts[r]
		if n < 0 || n > p.Tokens {
			return nil, fmt.Errorf("%w: rank %d holds %d tokens, over the symmetric buffers' worst case of %d", ErrProblem, r, n, p.Tokens)
		}
		if data {
			in.X[r] = normals(rng, n*p.Hidden)
		}
		logits := normals(rng, n*p.Experts)
		for i := range logits {
			logits[i] += bias[i%p.Experts]
		}
		var err error
		if in.Idx[r], in.W[r], err = Route(logits, n, p.Experts, p.TopK); err != nil {
			return nil, fmt.Errorf("moe: rank %d: %w", r, err)
		}
	}
	if !data {
		return in, nil
	}
	return in, in.Check()
}

func normals(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}
