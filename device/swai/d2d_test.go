package swai

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestD2DEquations(t *testing.T) {
	p := Default()
	tab := NewD2DTable(p, testCal)
	d := p.D2D
	const s = 1 << 20
	mpeBW := d.MPECopyScale * testCal.HostCopyBandwidth
	sec := func(bytes, bw float64) float64 { return bytes / bw * 1e9 }
	want := map[Engine]float64{
		MPE:   float64(d.Host) + sec(s, mpeBW),
		CPE:   float64(d.Host+d.CPEStart) + sec(s, d.CPEBandwidth),
		DMA:   float64(d.Host+2*d.DMAStart+d.Turnaround) + sec(s, d.DMARead) + sec(s, d.DMAWrite),
		IOMMU: float64(d.Host+d.DMAStart) + sec(s, (d.DMARead+d.DMAWrite)/2),
	}
	for e, w := range want {
		got, ok := tab.Time(e, s)
		if !ok || got != roundNs(w) {
			t.Errorf("%v: %v (%v), want %v", e, got, ok, roundNs(w))
		}
	}
	if _, ok := tab.Time(Engine(0), s); ok {
		t.Error("Time of the zero engine is ok")
	}
}

// The adaptive choice is never slower than any single engine, at every
// size of the paper's figures and at random sizes, with and without the
// IOMMU, on both profiles.
func TestAdaptiveNeverSlower(t *testing.T) {
	noIOMMU := Default()
	noIOMMU.D2D.Engines = []Engine{MPE, CPE, DMA}
	sizes := append(PaperSizes(), 0, 1, 4095, 4096)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		sizes = append(sizes, rng.Int64N(2<<30))
	}
	for _, p := range []Profile{Default(), noIOMMU, GPU()} {
		for _, cal := range []Calibration{testCal, {HostCopyBandwidth: 1e9}, {HostCopyBandwidth: 40e9}} {
			tab := NewD2DTable(p, cal)
			for _, s := range sizes {
				e, d := tab.Choose(s)
				if !slices.Contains(tab.Engines(), e) {
					t.Fatalf("%s: Choose(%d) = %v, not an engine of the card", p.Name, s, e)
				}
				for _, other := range tab.Engines() {
					if od, _ := tab.Time(other, s); d > od {
						t.Fatalf("%s: adaptive %v takes %v for %d bytes, %v takes %v", p.Name, e, d, s, other, od)
					}
				}
			}
		}
	}
}

// Figure 6: with the IOMMU, the MPE wins below S0, the IOMMU between S0
// and S1, the CPE above; without it, the DMA engine wins between A and B.
func TestD2DCrossovers(t *testing.T) {
	tab := NewD2DTable(Default(), testCal)
	xs := tab.Crossovers()
	var order []Engine
	for _, x := range xs {
		order = append(order, x.Engine)
	}
	if !slices.Equal(order, []Engine{MPE, IOMMU, CPE}) {
		t.Fatalf("crossovers %+v, want mpe, iommu, cpe", xs)
	}
	checkEnvelope(t, tab, xs)

	p := Default()
	p.D2D.Engines = []Engine{MPE, CPE, DMA}
	tab = NewD2DTable(p, testCal)
	xs = tab.Crossovers()
	order = order[:0]
	for _, x := range xs {
		order = append(order, x.Engine)
	}
	if !slices.Equal(order, []Engine{MPE, DMA, CPE}) {
		t.Fatalf("without IOMMU: crossovers %+v, want mpe, dma, cpe", xs)
	}
	checkEnvelope(t, tab, xs)
}

// checkEnvelope checks that Choose agrees with the crossovers a little
// away from the crossing points (close to them, rounding to whole
// nanoseconds makes ties).
func checkEnvelope(t *testing.T, tab D2DTable, xs []Crossover) {
	t.Helper()
	const margin = 256
	for i, x := range xs {
		probe := []int64{x.From + margin}
		if i+1 < len(xs) {
			probe = append(probe, (x.From+xs[i+1].From)/2, xs[i+1].From-margin)
		} else {
			probe = append(probe, 2*x.From+1<<20)
		}
		for _, s := range probe {
			if e, _ := tab.Choose(s); e != x.Engine {
				t.Errorf("Choose(%d) = %v, crossovers say %v (%+v)", s, e, x.Engine, xs)
			}
		}
	}
}

func TestD2DTablePaperSizes(t *testing.T) {
	// What the default card picks at the paper's sizes with the test
	// calibration: MPE for 1 KB, IOMMU for 16 KB, CPE from 256 KB.
	tab := NewD2DTable(Default(), testCal)
	want := []Engine{MPE, IOMMU, CPE, CPE, CPE, CPE, CPE}
	for i, s := range PaperSizes() {
		if e, _ := tab.Choose(s); e != want[i] {
			t.Errorf("Choose(%d) = %v, want %v", s, e, want[i])
		}
	}
	// Section 4.3: the adaptive copy starts faster than the GPU's and has
	// more bandwidth; with these profiles it wins at every size.
	gpu := NewD2DTable(GPU(), testCal)
	for _, s := range append(PaperSizes(), 0) {
		_, sw := tab.Choose(s)
		_, g := gpu.Choose(s)
		if sw >= g {
			t.Errorf("%d bytes: adaptive %v, gpu %v", s, sw, g)
		}
	}
	var empty D2DTable
	if e, d := empty.Choose(10); e != 0 || d != 0 || empty.Crossovers() != nil {
		t.Error("empty table chooses something")
	}
}

func TestEngineText(t *testing.T) {
	b, err := json.Marshal([]Engine{MPE, CPE, DMA, IOMMU})
	if err != nil || string(b) != `["mpe","cpe","dma","iommu"]` {
		t.Fatalf("%s %v", b, err)
	}
	var back []Engine
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, []Engine{MPE, CPE, DMA, IOMMU}) {
		t.Fatalf("%v %v", back, err)
	}
	if _, err := Engine(7).MarshalText(); err == nil {
		t.Error("invalid engine marshals")
	}
}

func TestDeviceProfileD2DLink(t *testing.T) {
	// The generic profile's D2D link is the best large-copy engine.
	p := Default()
	tab := NewD2DTable(p, testCal)
	l := p.Device().D2D
	const s = 1 << 30
	want, _ := tab.Time(CPE, s)
	if got := l.Time(s); got-want > time.Microsecond || want-got > time.Microsecond {
		t.Errorf("D2D link takes %v for 1 GiB, CPE %v", got, want)
	}
}
