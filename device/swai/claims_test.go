package swai

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device/mt3000"
)

// Every claim of the paper holds on the default profiles, graded on the
// fixed PaperCalibration and a fixed allocator time t_malloc (no host
// measurement enters a grade): at the tens of nanoseconds the allocator
// takes, and at ten times that.
func TestClaims(t *testing.T) {
	for _, tm := range []time.Duration{50 * time.Nanosecond, 500 * time.Nanosecond} {
		t.Run(tm.String(), func(t *testing.T) { testClaims(t, tm) })
	}
}

func testClaims(t *testing.T, mallocTime time.Duration) {
	claims, err := Claims(ClaimOptions{MallocTime: mallocTime})
	if err != nil {
		t.Fatal(err)
	}
	mt := 0
	for _, c := range claims {
		if c.Figure == FigMTTorch {
			mt++
		}
	}
	if mt < 3 {
		t.Fatalf("%d MTTorch claims", mt)
	}
	if len(claims) < 18 {
		t.Fatalf("%d claims", len(claims))
	}
	for _, c := range claims {
		if !c.WithinTenPct {
			t.Errorf("%s: %s: paper %s, pipert %.4g %s (ratio %.3f)", c.Figure, c.Claim, c.Paper, c.Value, c.Unit, c.Ratio)
		}
		if c.Params == "" || c.Unit == "" {
			t.Errorf("%s: %s: no params or unit", c.Figure, c.Claim)
		}
	}
	if testing.Verbose() {
		WriteClaims(os.Stdout, claims)
	}
}

func TestGrade(t *testing.T) {
	for _, tc := range []struct {
		k      ClaimKind
		lo, hi float64
		v      float64
		ratio  float64
		ok     bool
	}{
		{About, 10, 0, 10.9, 1.09, true},
		{About, 10, 0, 8.9, 0.89, false},
		{Within, 1.4, 1.7, 1.5, 1, true},
		{Within, 1.4, 1.7, 1.2, 1.2 / 1.4, false},
		{Within, 1.4, 1.7, 1.8, 1.8 / 1.7, true},
		{Below, 1, 0, 0.99, 0.99, true},
		{Below, 1, 0, 1, 1, false},
		{Above, 1, 0, 1.01, 1.01, true},
		{AtMost, 1, 0, 1, 1, true},
		{AtMost, 1, 0, 1.01, 1.01, false},
		{AtMost, 1, 0.05, 1.04, 1.04, true},
		{AtMost, 1, 0.05, 1.06, 1.06, false},
	} {
		c := Claim{Value: tc.v}
		grade(&c, tc.k, tc.lo, tc.hi)
		if c.WithinTenPct != tc.ok || c.Ratio-tc.ratio > 1e-12 || tc.ratio-c.Ratio > 1e-12 {
			t.Errorf("grade(%v, %g, %g) of %g: ratio %g within %v, want %g %v", tc.k, tc.lo, tc.hi, tc.v, c.Ratio, c.WithinTenPct, tc.ratio, tc.ok)
		}
	}
}

func TestClaimsRejectBadInput(t *testing.T) {
	p := Default()
	p.Transfer.Bandwidth = -1
	if _, err := Claims(ClaimOptions{Profile: p}); err == nil {
		t.Error("negative bandwidth accepted")
	}
	m := mt3000.Default()
	m.Clusters = 0
	if _, err := Claims(ClaimOptions{MT3000: m}); err == nil || !strings.Contains(err.Error(), "Clusters") {
		t.Errorf("MT-3000 of zero clusters: %v", err)
	}
	if _, err := Claims(ClaimOptions{Calibration: &Calibration{}}); err == nil {
		t.Error("zero calibration accepted")
	}
	if _, err := Claims(ClaimOptions{MallocTime: -time.Nanosecond}); err == nil || !strings.Contains(err.Error(), "MallocTime") {
		t.Errorf("negative MallocTime: %v", err)
	}
}

// Without MallocTime the allocator is measured: the sdaaMalloc claim is at
// least its modeled part, t_host + t_update, and says it holds a measurement.
func TestClaimsMeasureTheAllocator(t *testing.T) {
	claims, err := Claims(ClaimOptions{MallocRepeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	p := Default()
	floor := float64(p.Malloc.Host+p.Malloc.Update) / 1e3
	for _, c := range claims {
		if c.Figure == FigMalloc && strings.HasPrefix(c.Claim, "sdaaMalloc costs") {
			if !(c.Value > floor) || !strings.Contains(c.Params, "measured t_malloc") {
				t.Errorf("%+v: want a value above %g µs and a measured t_malloc", c, floor)
			}
			return
		}
	}
	t.Error("no sdaaMalloc claim")
}

// NewClaim grades like Claims, and AtMost shows its noise in the paper's
// column.
func TestNewClaim(t *testing.T) {
	c := NewClaim("atb", "ordering", AtMost, 1, 0.031, 1.02, "x", "p")
	if c.Figure != "atb" || c.Claim != "ordering" || c.Unit != "x" || c.Params != "p" || c.Value != 1.02 {
		t.Errorf("%+v", c)
	}
	if c.Paper != "≤ 1 (+3.1% noise)" || !c.WithinTenPct || c.Ratio != 1.02 {
		t.Errorf("%+v", c)
	}
	if c := NewClaim("moe", "ratio", About, 517.0/1311, 0, 0.55, "x", "p"); c.Paper != "≈ 0.3944" || c.WithinTenPct {
		t.Errorf("%+v", c)
	}
	if c := NewClaim("atb", "ordering", AtMost, 1, 0, 0.9, "x", "p"); c.Paper != "≤ 1" || !c.WithinTenPct {
		t.Errorf("%+v", c)
	}
}
