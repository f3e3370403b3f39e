package swai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Figures, in the order Figures produces them. Each reproduces a figure of
// the paper's section 4.
const (
	FigAllocator  = "allocator"  // figure 8: the allocators alone, real ns per alloc+free pair
	FigMalloc     = "malloc"     // figure 9: sdaaMalloc against cudaMalloc, modeled
	FigMallocHost = "mallochost" // figure 9: sdaaMallocHost against cudaHostAlloc, modeled
	FigLaunch     = "launch"     // section 4.4 and figure 13: kernel launch, modeled
	FigH2D        = "h2d"        // figures 10 and 12: host to device
	FigD2H        = "d2h"        // figures 10 and 12: device to host
	FigD2D        = "d2d"        // figures 11 and 12: device to device, modeled
)

var figureNames = []string{FigAllocator, FigMalloc, FigMallocHost, FigLaunch, FigH2D, FigD2H, FigD2D}

// FigureNames lists the figures Figures can produce, in order.
func FigureNames() []string { return slices.Clone(figureNames) }

// PaperSizes are the block sizes of figures 8-12: 1 KB, 16 KB, 256 KB, 4 MB,
// 8 MB, 64 MB and 1 GB (binary multiples).
func PaperSizes() []int64 {
	return []int64{1 << 10, 16 << 10, 256 << 10, 4 << 20, 8 << 20, 64 << 20, 1 << 30}
}

// Row is one point of a figure.
//
// Variants: allocator: multilevel, caching, reference. malloc and
// mallochost: swai, gpu. launch: fast, traditional (SW-AI), gpu; size 0;
// Sync true is one synchronous launch of an empty kernel (KLL), false the
// mean per launch of 100 asynchronous launches and one synchronisation
// (Burst), as the paper measures. h2d and d2h: pinned, pageable-mtmc,
// pageable-single (SW-AI), gpu-pinned, gpu-pageable. d2d: mpe, cpe, dma,
// iommu, adaptive (SW-AI), gpu.
//
// Sync is false only in the rows of asynchronous launches. BandwidthGBps is
// SizeBytes over LatencyNs for the copy figures (h2d, d2h, d2d) and 0 for
// the others.
type Row struct {
	Figure        string  `json:"figure"`
	Variant       string  `json:"variant"`
	SizeBytes     int64   `json:"size_bytes"`
	Sync          bool    `json:"sync"`
	LatencyNs     float64 `json:"latency_ns"`
	BandwidthGBps float64 `json:"bandwidth_gbps"`
}

// FigureOptions configure Figures. The zero value runs every figure at
// every paper size with the default profiles and a fresh calibration.
type FigureOptions struct {
	Profile Profile  // the SW-AI card; zero Name means Default()
	GPU     Profile  // the comparison; zero Name means GPU()
	Figures []string // figures to run; nil means all
	Sizes   []int64  // nil means PaperSizes()
	// MaxSize skips larger sizes (0: none skipped). The pageable copies
	// really copy: at 1 GiB that is a real 1 GiB copy per repetition, from
	// one host buffer of the largest size kept for all of them.
	MaxSize int64
	// Repeat is how many times each copy is measured; the median is
	// reported. 0 means 3.
	Repeat int
	// AllocRepeat is how many alloc+free pairs each allocator and malloc
	// point measures (the paper: 100); the median is reported. 0 means 100.
	AllocRepeat int
	// Calibration replaces the measurement of the host when not nil.
	Calibration *Calibration
}

// Figures reproduces the paper's figures (see Row for what each holds).
// Modeled points are deterministic for a given calibration; the allocator
// figure and the pageable copies include real, measured host time.
func Figures(ctx context.Context, o FigureOptions) ([]Row, error) {
	if o.Profile.Name == "" {
		o.Profile = Default()
	}
	if o.GPU.Name == "" {
		o.GPU = GPU()
	}
	if err := errors.Join(o.Profile.Validate(), o.GPU.Validate()); err != nil {
		return nil, err
	}
	if o.Sizes == nil {
		o.Sizes = PaperSizes()
	}
	if o.Repeat <= 0 {
		o.Repeat = 3
	}
	if o.AllocRepeat <= 0 {
		o.AllocRepeat = 100
	}
	want := o.Figures
	if want == nil {
		want = figureNames
	}
	for _, f := range want {
		if !slices.Contains(figureNames, f) {
			return nil, fmt.Errorf("swai: figures: unknown figure %q (want some of %v)", f, figureNames)
		}
	}
	var sizes []int64
	for _, s := range o.Sizes {
		if s <= 0 {
			return nil, fmt.Errorf("swai: figures: size %d is not positive", s)
		}
		if o.MaxSize == 0 || s <= o.MaxSize {
			sizes = append(sizes, s)
		}
	}
	var cal Calibration
	if o.Calibration != nil {
		if err := o.Calibration.validate(); err != nil {
			return nil, err
		}
		cal = *o.Calibration
	} else {
		cal = Calibrate()
	}

	f := figures{o: o, sizes: sizes, cal: cal}
	defer f.close()
	for _, name := range figureNames {
		if !slices.Contains(want, name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		switch name {
		case FigAllocator:
			err = f.allocator(ctx)
		case FigMalloc:
			err = f.malloc(ctx)
		case FigMallocHost:
			f.mallocHost()
		case FigLaunch:
			f.launch()
		case FigH2D:
			err = f.copies(ctx, true)
		case FigD2H:
			err = f.copies(ctx, false)
		case FigD2D:
			f.d2d()
		}
		if err != nil {
			return nil, err
		}
	}
	return f.rows, nil
}

// figures is the state of one Figures call.
type figures struct {
	o     FigureOptions
	sizes []int64
	cal   Calibration
	rows  []Row

	host         []byte // the host side of every copy, the largest size
	swai, gpu    *copier
	swaiThreads  int
	copiersReady bool
}

func (f *figures) add(fig, variant string, size int64, sync bool, d time.Duration) {
	r := Row{Figure: fig, Variant: variant, SizeBytes: size, Sync: sync, LatencyNs: float64(d)}
	if (fig == FigH2D || fig == FigD2H || fig == FigD2D) && size > 0 && d > 0 {
		r.BandwidthGBps = float64(size) / float64(d) // bytes per ns = GB/s
	}
	f.rows = append(f.rows, r)
}

func (f *figures) close() {
	if f.swai != nil {
		f.swai.close()
	}
	if f.gpu != nil {
		f.gpu.close()
	}
}

// allocator: figure 8, the allocators alone, real time. Every (variant,
// size) point gets an allocator of its own and all are sampled in
// interleaved rounds, so the figure's ratios (across sizes: the flatness;
// across variants) come from one stretch of the machine's time.
func (f *figures) allocator(ctx context.Context) error {
	var (
		variants []string
		as       []kindAllocator
		sizes    []int64
	)
	for _, variant := range []string{AllocMultilevel, AllocCaching, AllocReference} {
		for _, size := range f.sizes {
			if err := ctx.Err(); err != nil {
				return err
			}
			a, err := newAllocator(variant, figureCapacity(f.o.Profile, size), f.o.Profile.segmentEntries())
			if err != nil {
				return err
			}
			variants, as, sizes = append(variants, variant), append(as, a), append(sizes, size)
		}
	}
	ds, err := measurePairs(as, sizes, f.o.AllocRepeat)
	if err != nil {
		return err
	}
	for i, d := range ds {
		f.add(FigAllocator, variants[i], sizes[i], true, d)
	}
	return nil
}

// figureCapacity is the address space of an allocator measured at size:
// the card's memory, or more for huge sizes, in whole MiB.
func figureCapacity(p Profile, size int64) int64 {
	const mib = 1 << 20
	return ceilDiv(max(p.MemoryBytes, 2*size), mib) * mib
}

// malloc: figure 9, device allocation through the API, each with its own
// allocator measured for real.
func (f *figures) malloc(ctx context.Context) error {
	for i, p := range []Profile{f.o.Profile, f.o.GPU} {
		variant := [2]string{"swai", "gpu"}[i]
		for _, size := range f.sizes {
			if err := ctx.Err(); err != nil {
				return err
			}
			a, err := newAllocator(p.Allocator, figureCapacity(p, size), p.segmentEntries())
			if err != nil {
				return err
			}
			ts := make([]time.Duration, 0, f.o.AllocRepeat)
			for range f.o.AllocRepeat {
				t0 := time.Now()
				addr, err := a.AllocKind(size, CPEMemory)
				el := time.Since(t0)
				if err == nil {
					err = a.Free(addr)
				}
				if err != nil {
					return fmt.Errorf("swai: figures: malloc %d bytes on %s: %w", size, p.Name, err)
				}
				ts = append(ts, p.MallocTime(size, CPEMemory, el))
			}
			slices.Sort(ts)
			f.add(FigMalloc, variant, size, true, ts[len(ts)/2])
		}
	}
	return nil
}

// mallocHost: figure 9, pinned host allocation, modeled.
func (f *figures) mallocHost() {
	for i, p := range []Profile{f.o.Profile, f.o.GPU} {
		for _, size := range f.sizes {
			f.add(FigMallocHost, [2]string{"swai", "gpu"}[i], size, true, p.MallocHostTime(size))
		}
	}
}

// burstLaunches is how many launches the asynchronous launch figure issues
// before synchronising (section 4.4: 100).
const burstLaunches = 100

// launch: section 4.4 and figure 13, empty kernels, modeled.
func (f *figures) launch() {
	points := []struct {
		variant string
		p       Profile
		m       Method
	}{
		{"fast", f.o.Profile, FastLaunch},
		{"traditional", f.o.Profile, TraditionalLaunch},
		{"gpu", f.o.GPU, f.o.GPU.Launch.Method},
	}
	for _, pt := range points {
		f.add(FigLaunch, pt.variant, 0, true, pt.p.KLL(pt.m, 0))
		f.add(FigLaunch, pt.variant, 0, false, pt.p.Burst(pt.m, burstLaunches, 0))
	}
}

// copies: figures 10 and 12, host-device copies in direction h2d (or d2h).
func (f *figures) copies(ctx context.Context, h2d bool) error {
	fig := FigD2H
	if h2d {
		fig = FigH2D
	}
	if len(f.sizes) == 0 {
		return nil
	}
	f.startCopiers()
	type variant struct {
		name string
		p    Profile
		c    *copier
		path Path
	}
	vs := []variant{{"pinned", f.o.Profile, nil, Pinned}}
	if f.swaiThreads > 0 {
		vs = append(vs, variant{"pageable-mtmc", f.o.Profile, f.swai, PageableMTMC})
	}
	vs = append(vs,
		variant{"pageable-single", f.o.Profile, f.swai, PageableSingle},
		variant{"gpu-pinned", f.o.GPU, nil, Pinned},
		variant{"gpu-pageable", f.o.GPU, f.gpu, Pageable},
	)
	ts := make([]time.Duration, f.o.Repeat)
	for _, v := range vs {
		for _, size := range f.sizes {
			if v.path == Pinned {
				f.add(fig, v.name, size, true, v.p.PinnedTime(size))
				continue
			}
			mtmc := v.path == PageableMTMC || v.path == Pageable && v.p.Transfer.MTMC
			for i := range ts {
				if err := ctx.Err(); err != nil {
					return err
				}
				t, err := v.c.pageable(mtmc, h2d, f.host[:size], nil)
				if err != nil {
					return fmt.Errorf("swai: figures: %s %s %d bytes: %w", fig, v.name, size, err)
				}
				ts[i] = t
			}
			slices.Sort(ts)
			f.add(fig, v.name, size, true, ts[len(ts)/2])
		}
	}
	return nil
}

// startCopiers makes the host buffer and the copy threads, once.
func (f *figures) startCopiers() {
	if f.copiersReady {
		return
	}
	f.copiersReady = true
	f.host = make([]byte, slices.Max(f.sizes))
	fillPattern(f.host)
	if f.o.Profile.Transfer.MTMC {
		f.swaiThreads = f.o.Profile.Threads(f.cal)
	}
	f.swai = newCopier(f.o.Profile, f.swaiThreads)
	gpuThreads := 0
	if f.o.GPU.Transfer.MTMC {
		gpuThreads = f.o.GPU.Threads(f.cal)
	}
	f.gpu = newCopier(f.o.GPU, gpuThreads)
}

// fillPattern writes every byte of b (so that its pages exist and reads see
// real memory) with a cheap non-constant pattern.
func fillPattern(b []byte) {
	const seed = 4096
	for i := range min(len(b), seed) {
		b[i] = byte(i*131 + i>>8)
	}
	for n := seed; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// d2d: figure 11, the engines alone and the adaptive choice, modeled.
func (f *figures) d2d() {
	t := NewD2DTable(f.o.Profile, f.cal)
	for _, e := range t.Engines() {
		for _, size := range f.sizes {
			d, _ := t.Time(e, size)
			f.add(FigD2D, e.String(), size, true, d)
		}
	}
	for _, size := range f.sizes {
		_, d := t.Choose(size)
		f.add(FigD2D, "adaptive", size, true, d)
	}
	g := NewD2DTable(f.o.GPU, f.cal)
	for _, size := range f.sizes {
		_, d := g.Choose(size)
		f.add(FigD2D, "gpu", size, true, d)
	}
}

// WriteTable writes rows as an aligned table for people.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tVARIANT\tSIZE\tSYNC\tLATENCY\tBANDWIDTH")
	for _, r := range rows {
		sync := "async"
		if r.Sync {
			sync = "sync"
		}
		bw := "-"
		if r.BandwidthGBps > 0 {
			bw = fmt.Sprintf("%.2f GB/s", r.BandwidthGBps)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Figure, r.Variant, formatSize(r.SizeBytes), sync, formatNs(r.LatencyNs), bw)
	}
	return tw.Flush()
}

// AllocatorFlatness summarises the allocator figure: for every variant, its
// slowest size's time per pair over its fastest's (the paper's flatness; 1
// is perfectly flat). The points were sampled in interleaved rounds, so the
// ratio comes from one stretch of the machine's time. It returns "" when
// the rows hold no allocator figure.
func AllocatorFlatness(rows []Row) string {
	type span struct{ lo, hi Row }
	var variants []string
	spans := map[string]*span{}
	for _, r := range rows {
		if r.Figure != FigAllocator || r.LatencyNs <= 0 {
			continue
		}
		s := spans[r.Variant]
		if s == nil {
			s = &span{r, r}
			spans[r.Variant] = s
			variants = append(variants, r.Variant)
		}
		if r.LatencyNs < s.lo.LatencyNs {
			s.lo = r
		}
		if r.LatencyNs > s.hi.LatencyNs {
			s.hi = r
		}
	}
	if len(variants) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("allocator flatness (slowest size / fastest size, ns per pair):")
	for i, v := range variants {
		s := spans[v]
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s %.2fx (%s %.0f ns / %s %.0f ns)", v, s.hi.LatencyNs/s.lo.LatencyNs,
			formatSize(s.hi.SizeBytes), s.hi.LatencyNs, formatSize(s.lo.SizeBytes), s.lo.LatencyNs)
	}
	return b.String()
}

func formatSize(n int64) string {
	switch {
	case n == 0:
		return "-"
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dG", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

func formatNs(ns float64) string {
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	}
	return fmt.Sprintf("%.3f s", ns/1e9)
}
