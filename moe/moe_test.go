package moe_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device/fabric"
	"github.com/pipert/pipert/internal/leaktest"
	"github.com/pipert/pipert/moe"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

// randomProblem draws a small problem: ranks, experts, top-k, hidden size,
// per-rank token counts (some ranks empty), a routing.
func randomProblem(rng *rand.Rand, i int) (moe.Problem, []int) {
	ranks := 1 + rng.IntN(8)
	p := moe.Problem{
		Ranks:   ranks,
		Experts: ranks * (1 + rng.IntN(4)),
		Hidden:  1 + rng.IntN(9),
		Tokens:  rng.IntN(7),
		Routing: moe.Routing(i % 3),
		Seed:    rng.Uint64(),
	}
	p.TopK = 1 + rng.IntN(p.Experts)
	counts := make([]int, ranks)
	for r := range counts {
		counts[r] = rng.IntN(p.Tokens + 1)
	}
	return p, counts
}

// allToExpert routes every token's first choice to expert e (the others
// stay distinct).
func allToExpert(in *moe.Input, e int32) {
	p := in.P
	for r := range p.Ranks {
		for t := range in.Counts[r] {
			row := in.Idx[r][t*p.TopK : (t+1)*p.TopK]
			for k := range row {
				if row[k] == e {
					row[k] = row[0]
				}
			}
			row[0] = e
		}
	}
}

func same(a, b [][]float32) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d ranks vs %d", len(a), len(b))
	}
	for r := range a {
		if len(a[r]) != len(b[r]) {
			return fmt.Errorf("rank %d: %d vs %d elements", r, len(a[r]), len(b[r]))
		}
		for i := range a[r] {
			if math.Float32bits(a[r][i]) != math.Float32bits(b[r][i]) {
				return fmt.Errorf("rank %d element %d: %v vs reference %v", r, i, a[r][i], b[r][i])
			}
		}
	}
	return nil
}

// TestVariantsExact runs every variant on random routings, all tokens to
// one expert and empty experts included, against Reference bit for bit.
func TestVariantsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	n := 100
	if testing.Short() {
		n = 20
	}
	for i := range n {
		p, counts := randomProblem(rng, i)
		in, err := moe.Generate(p, counts)
		if err != nil {
			t.Fatalf("case %d %+v: %v", i, p, err)
		}
		if i%4 == 3 {
			allToExpert(in, int32(rng.IntN(p.Experts)))
		}
		want := moe.Reference(in)
		for _, v := range moe.Variants() {
			got, err := moe.Run(context.Background(), v, in, moe.Options{})
			if err != nil {
				t.Fatalf("case %d %+v, %s: %v", i, p, v, err)
			}
			if err := same(got, want); err != nil {
				t.Fatalf("case %d %+v, %s: %v", i, p, v, err)
			}
		}
	}
}

func TestReferenceByHand(t *testing.T) {
	p := moe.Problem{Ranks: 2, Experts: 2, TopK: 2, Hidden: 2, Tokens: 1}
	in := &moe.Input{P: p, Counts: []int{1, 0},
		X: [][]float32{{1, 2}, {}}, Idx: [][]int32{{1, 0}, {}}, W: [][]float32{{0.5, 0.25}, {}},
		Experts: []float32{2, 3, 10, 20}}
	got := moe.Reference(in)
	// 0.5·(1·10, 2·20) + 0.25·(1·2, 2·3) = (5.5, 21.5)
	if got[0][0] != 5.5 || got[0][1] != 21.5 || len(got[1]) != 0 {
		t.Fatalf("got %v", got)
	}
}

func TestRouterIsTopKOfSoftmax(t *testing.T) {
	// Ties go to the lower index (ONNX TopK); weights are softmax values.
	logits := []float32{0, 1, 1, -1, 3, 2, 2, 2}
	idx, w, err := moe.Route(logits, 2, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(idx) != "[1 2 0 1]" {
		t.Fatalf("indices %v", idx)
	}
	den := math.Exp(0) + 2*math.Exp(1) + math.Exp(-1)
	if math.Abs(float64(w[0])-math.Exp(1)/den) > 1e-6 || w[0] != w[1] {
		t.Fatalf("weights %v", w)
	}
}

func TestBadProblems(t *testing.T) {
	f := fabric.Config{}
	for _, p := range []moe.Problem{
		{Ranks: 0, Experts: 8, TopK: 1, Hidden: 1},
		{Ranks: 9, Experts: 9, TopK: 1, Hidden: 1},
		{Ranks: 2, Experts: 3, TopK: 1, Hidden: 1},
		{Ranks: 2, Experts: 4, TopK: 5, Hidden: 1},
		{Ranks: 2, Experts: 4, TopK: 0, Hidden: 1},
		{Ranks: 2, Experts: 4, TopK: 1, Hidden: 0},
		{Ranks: 2, Experts: 4, TopK: 1, Hidden: 1, Tokens: -1},
	} {
		if err := p.Check(f); !errors.Is(err, moe.ErrProblem) {
			t.Errorf("%+v: %v", p, err)
		}
	}
	p := moe.Problem{Ranks: 2, Experts: 4, TopK: 2, Hidden: 3, Tokens: 2}
	if _, err := moe.Generate(p, []int{3, 0}); !errors.Is(err, moe.ErrProblem) || !strings.Contains(err.Error(), "worst case") {
		t.Errorf("over the buffers' worst case: %v", err)
	}
	in, err := moe.Generate(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Idx[1][1] = in.Idx[1][0]
	if _, err := moe.Run(context.Background(), moe.VFused, in, moe.Options{}); !errors.Is(err, moe.ErrProblem) {
		t.Errorf("expert chosen twice: %v", err)
	}
	if _, err := moe.ParseRouting("gauss"); !errors.Is(err, moe.ErrProblem) {
		t.Errorf("routing: %v", err)
	}
	if _, err := moe.ParseVariants("fused,fast"); !errors.Is(err, moe.ErrProblem) {
		t.Errorf("variant: %v", err)
	}
}

// TestParseVariantsOnce: a variant named twice runs once (its rows and its
// trace's track groups would otherwise be two of one name), where it is
// first named.
func TestParseVariantsOnce(t *testing.T) {
	vs, err := moe.ParseVariants("fused,sorted,Fused, fused")
	if err != nil {
		t.Fatal(err)
	}
	if want := []moe.Variant{moe.VFused, moe.VSorted}; !slices.Equal(vs, want) {
		t.Errorf("ParseVariants = %v, want %v", vs, want)
	}
}

// TestRankFailureCancelsAll: a rank failing mid-dispatch returns its error
// with its rank, and every other rank returns promptly (none waits on a
// flag for the watchdog).
func TestRankFailureCancelsAll(t *testing.T) {
	in, err := moe.Generate(moe.Small, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range moe.Variants() {
		_, err := moe.Run(context.Background(), v, in, moe.Options{Fail: &moe.Failure{Rank: 3, After: 5}, Watchdog: time.Hour})
		if !errors.Is(err, moe.ErrInjected) || !strings.Contains(err.Error(), "rank 3") {
			t.Fatalf("%s: got %v", v, err)
		}
	}
}

// TestWatchdogNamesTheSetter: a rank that stops sending without an error
// (a hung peer) never sets its flags; the waiters' watchdog names the flag,
// the waiting kernel and the rank that should have set it.
func TestWatchdogNamesTheSetter(t *testing.T) {
	in, err := moe.Generate(moe.Small, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []moe.Variant{moe.VP2PRank, moe.VP2PToken} {
		_, err = moe.Run(context.Background(), v, in, moe.Options{Fail: &moe.Failure{Rank: 5, After: 0, Silent: true}, Watchdog: 50 * time.Millisecond})
		if !errors.Is(err, fabric.ErrWatchdog) {
			t.Fatalf("%s: %v", v, err)
		}
		for _, want := range []string{"dispatch_", "dispatch-recv on rank", "rank 5 should have set it"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", v, err, want)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := moe.Run(ctx, moe.VP2PToken, in, moe.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled run: %v", err)
	}
}
