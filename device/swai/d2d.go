package swai

import (
	"fmt"
	"math"
	"time"
)

// Engine is a part of the card that can copy device memory (table 1).
type Engine int

// Copy engines.
const (
	MPE   Engine = 1 // the management core: small start-up, low bandwidth
	CPE   Engine = 2 // the compute core groups: large start-up, high bandwidth
	DMA   Engine = 3 // PCIe DMA through a host buffer: half the PCIe bandwidth
	IOMMU Engine = 4 // PCIe DMA remapped by the root complex's IOMMU: the PCIe bandwidth

	nEngines = 5 // one past the last engine, for tables indexed by Engine
)

var engineNames = [nEngines]string{MPE: "mpe", CPE: "cpe", DMA: "dma", IOMMU: "iommu"}

func (e Engine) valid() bool { return e >= MPE && e <= IOMMU }

func (e Engine) String() string {
	if e.valid() {
		return engineNames[e]
	}
	return fmt.Sprintf("Engine(%d)", int(e))
}

// MarshalText implements encoding.TextMarshaler.
func (e Engine) MarshalText() ([]byte, error) {
	if !e.valid() {
		return nil, fmt.Errorf("swai: invalid engine %d", int(e))
	}
	return []byte(e.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (e *Engine) UnmarshalText(b []byte) error {
	for i := MPE; i <= IOMMU; i++ {
		if string(b) == engineNames[i] {
			*e = i
			return nil
		}
	}
	return fmt.Errorf("swai: unknown engine %q (want mpe, cpe, dma or iommu)", b)
}

// line is the cost of one engine: fixed + S × perByte nanoseconds, host
// side included.
type line struct {
	fixed   float64 // ns
	perByte float64 // ns per byte
}

func (l line) at(size int64) float64 { return l.fixed + float64(size)*l.perByte }

// engineLine is equation 6 with 7-11 for engine e of p; mpeBW is the
// calibrated mpe_cpy_bw (bytes per second).
func (p Profile) engineLine(e Engine, mpeBW float64) line {
	d := p.D2D
	host := float64(d.Host)
	switch e {
	case MPE:
		return line{host, 1e9 / mpeBW}
	case CPE:
		return line{host + float64(d.CPEStart), 1e9 / d.CPEBandwidth}
	case DMA:
		return line{host + 2*float64(d.DMAStart) + float64(d.Turnaround), 1e9/d.DMARead + 1e9/d.DMAWrite}
	case IOMMU:
		return line{host + float64(d.DMAStart), 1e9 / ((d.DMARead + d.DMAWrite) / 2)}
	}
	panic("swai: engineLine of invalid engine")
}

// largeCopyEngine is the cost line of the non-MPE engine with the lowest
// cost per byte (Validate guarantees there is one).
func (p Profile) largeCopyEngine() line {
	best := line{perByte: math.Inf(1)}
	for _, e := range p.D2D.Engines {
		if e == MPE || !e.valid() {
			continue
		}
		if l := p.engineLine(e, 0); l.perByte < best.perByte {
			best = l
		}
	}
	return best
}

// D2DTable is the per-engine cost table of device-to-device copies, built
// at start-up (section 3.2): each present engine's start-up overhead and
// bandwidth, the MPE's measured on the host. Choose picks the cheapest
// engine for a size, so the adaptive copy is by construction never slower
// than any single engine. The zero value has no engines; build one with
// NewD2DTable.
type D2DTable struct {
	lines   [nEngines]line
	present [nEngines]bool
}

// NewD2DTable builds the table of p's engines with c's host copy speed
// standing in for the MPE's memcpy.
func NewD2DTable(p Profile, c Calibration) D2DTable {
	var t D2DTable
	mpeBW := p.D2D.MPECopyScale * c.HostCopyBandwidth
	for _, e := range p.D2D.Engines {
		if !e.valid() || (e == MPE && !(mpeBW > 0)) {
			continue
		}
		t.lines[e] = p.engineLine(e, mpeBW)
		t.present[e] = true
	}
	return t
}

// Engines lists the engines in the table, in Engine order.
func (t D2DTable) Engines() []Engine {
	var es []Engine
	for e := MPE; e <= IOMMU; e++ {
		if t.present[e] {
			es = append(es, e)
		}
	}
	return es
}

// Time is the modeled duration of copying size bytes with engine e (host
// side included); ok is false when the card has no such engine.
func (t D2DTable) Time(e Engine, size int64) (d time.Duration, ok bool) {
	if !e.valid() || !t.present[e] {
		return 0, false
	}
	return roundNs(t.lines[e].at(size)), true
}

// Choose returns the engine with the smallest modeled time for size bytes
// and that time (ties go to the lower Engine). It is 0, 0 for an empty
// table.
func (t D2DTable) Choose(size int64) (Engine, time.Duration) {
	var best Engine
	var bestD time.Duration
	for e := MPE; e <= IOMMU; e++ {
		if !t.present[e] {
			continue
		}
		if d := roundNs(t.lines[e].at(size)); best == 0 || d < bestD {
			best, bestD = e, d
		}
	}
	return best, bestD
}

// Crossover is where the adaptive choice changes: from From bytes on,
// Engine is the cheapest (until the next Crossover).
type Crossover struct {
	From   int64
	Engine Engine
}

// Crossovers returns the lower envelope of the engines' cost lines: the
// sizes S0, S1, ... of figure 6 at which the cheapest engine changes,
// starting with the engine cheapest for a 0-byte copy.
func (t D2DTable) Crossovers() []Crossover {
	first, _ := t.Choose(0)
	if first == 0 {
		return nil
	}
	out := []Crossover{{0, first}}
	cur, at := first, 0.0
	for {
		// The next engine to take over is the one with a lower cost per
		// byte whose line crosses cur's first after at.
		var next Engine
		cross := math.Inf(1)
		lc := t.lines[cur]
		for e := MPE; e <= IOMMU; e++ {
			le := t.lines[e]
			if !t.present[e] || le.perByte >= lc.perByte {
				continue
			}
			x := (le.fixed - lc.fixed) / (lc.perByte - le.perByte)
			if x >= at && (x < cross || x == cross && le.perByte < t.lines[next].perByte) {
				next, cross = e, x
			}
		}
		if next == 0 {
			return out
		}
		out = append(out, Crossover{int64(math.Ceil(cross)), next})
		cur, at = next, cross
	}
}

func roundNs(ns float64) time.Duration { return time.Duration(math.Round(ns)) }
