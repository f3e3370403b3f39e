package swai

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func smallFigures() FigureOptions {
	cal := testCal
	return FigureOptions{MaxSize: 256 << 10, Repeat: 1, AllocRepeat: 5, Calibration: &cal}
}

func TestFigures(t *testing.T) {
	rows, err := Figures(context.Background(), smallFigures())
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	index := map[[3]any]Row{}
	for _, r := range rows {
		count[r.Figure+"/"+r.Variant]++
		index[[3]any{r.Figure + "/" + r.Variant, r.SizeBytes, r.Sync}] = r
		if r.LatencyNs <= 0 {
			t.Errorf("row %+v has no latency", r)
		}
	}
	want := map[string]int{
		"allocator/multilevel": 3, "allocator/caching": 3, "allocator/reference": 3,
		"malloc/swai": 3, "malloc/gpu": 3, "mallochost/swai": 3, "mallochost/gpu": 3,
		"launch/fast": 2, "launch/traditional": 2, "launch/gpu": 2,
		"d2d/mpe": 3, "d2d/cpe": 3, "d2d/dma": 3, "d2d/iommu": 3, "d2d/adaptive": 3, "d2d/gpu": 3,
	}
	for _, dir := range []string{"h2d", "d2h"} {
		for _, v := range []string{"pinned", "pageable-mtmc", "pageable-single", "gpu-pinned", "gpu-pageable"} {
			want[dir+"/"+v] = 3
		}
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%s: %d rows, want %d", k, count[k], n)
		}
	}
	if len(count) != len(want) {
		t.Errorf("figures/variants %v, want %v", count, want)
	}

	// Modeled points are the models'.
	p := Default()
	if r := index[[3]any{"launch/fast", int64(0), true}]; r.LatencyNs != float64(p.KLL(FastLaunch, 0)) {
		t.Errorf("fast launch row %+v", r)
	}
	if r := index[[3]any{"launch/traditional", int64(0), false}]; r.LatencyNs != float64(p.Burst(TraditionalLaunch, 100, 0)) {
		t.Errorf("traditional burst row %+v", r)
	}
	if r := index[[3]any{"h2d/pinned", int64(16 << 10), true}]; r.LatencyNs != float64(p.PinnedTime(16<<10)) ||
		r.BandwidthGBps != float64(16<<10)/r.LatencyNs {
		t.Errorf("pinned row %+v", r)
	}
	// The adaptive row is never above any engine's.
	for _, size := range []int64{1 << 10, 16 << 10, 256 << 10} {
		ad := index[[3]any{"d2d/adaptive", size, true}].LatencyNs
		for _, e := range []string{"mpe", "cpe", "dma", "iommu"} {
			if r := index[[3]any{"d2d/" + e, size, true}]; ad > r.LatencyNs {
				t.Errorf("%d bytes: adaptive %.0f ns above %s %.0f ns", size, ad, e, r.LatencyNs)
			}
		}
	}

	var buf bytes.Buffer
	if err := WriteTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(rows)+1 || !strings.HasPrefix(lines[0], "FIGURE") {
		t.Fatalf("table has %d lines for %d rows:\n%s", len(lines), len(rows), buf.String())
	}
	// Aligned: every line has its LATENCY column at the header's.
	col := strings.Index(lines[0], "LATENCY")
	for _, l := range lines[1:] {
		if len(l) < col || l[col-1] != ' ' || l[col] == ' ' {
			t.Fatalf("line not aligned at column %d: %q", col, l)
		}
	}
	if !strings.Contains(buf.String(), "2.30 µs") || !strings.Contains(buf.String(), "883.60 µs") {
		t.Errorf("table lacks the launch figures:\n%s", buf.String())
	}
}

func TestFiguresOptions(t *testing.T) {
	ctx := context.Background()
	o := smallFigures()
	o.Figures = []string{FigLaunch}
	rows, err := Figures(ctx, o)
	if err != nil || len(rows) != 6 {
		t.Fatalf("launch only: %d rows, %v", len(rows), err)
	}
	o.Figures = []string{"bogus"}
	if _, err := Figures(ctx, o); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown figure: %v", err)
	}
	o = smallFigures()
	o.Sizes = []int64{0}
	if _, err := Figures(ctx, o); err == nil {
		t.Error("zero size accepted")
	}
	o = smallFigures()
	o.Profile = Default()
	o.Profile.Transfer.Channels = -1
	if _, err := Figures(ctx, o); err == nil {
		t.Error("invalid profile accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Figures(cctx, smallFigures()); err == nil {
		t.Error("cancelled context ignored")
	}
	o = smallFigures()
	o.MaxSize = 1
	o.Figures = []string{FigH2D, FigD2D}
	if rows, err := Figures(ctx, o); err != nil || len(rows) != 0 {
		t.Errorf("no sizes: %d rows, %v", len(rows), err)
	}
}

func TestRowJSON(t *testing.T) {
	b, err := json.Marshal(Row{Figure: "h2d", Variant: "pinned", SizeBytes: 1024, Sync: true, LatencyNs: 5, BandwidthGBps: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"figure":"h2d","variant":"pinned","size_bytes":1024,"sync":true,"latency_ns":5,"bandwidth_gbps":1}`
	if string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "-"}, {1 << 10, "1K"}, {1 << 30, "1G"}, {64 << 20, "64M"}, {1000, "1000B"}} {
		if got := formatSize(c.n); got != c.want {
			t.Errorf("formatSize(%d) = %s, want %s", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{500, "500 ns"}, {2300, "2.30 µs"}, {1500 * time.Microsecond, "1.50 ms"}, {2 * time.Second, "2.000 s"}} {
		if got := formatNs(float64(c.d)); got != c.want {
			t.Errorf("formatNs(%v) = %s, want %s", c.d, got, c.want)
		}
	}
}

func TestAllocatorFlatness(t *testing.T) {
	rows := []Row{
		{Figure: FigAllocator, Variant: "multilevel", SizeBytes: 1 << 10, LatencyNs: 20},
		{Figure: FigLaunch, Variant: "fast", LatencyNs: 2300},
		{Figure: FigAllocator, Variant: "multilevel", SizeBytes: 1 << 30, LatencyNs: 30},
		{Figure: FigAllocator, Variant: "multilevel", SizeBytes: 4 << 20, LatencyNs: 25},
		{Figure: FigAllocator, Variant: "caching", SizeBytes: 1 << 10, LatencyNs: 40},
		{Figure: FigAllocator, Variant: "caching", SizeBytes: 64 << 20, LatencyNs: 10},
	}
	want := "allocator flatness (slowest size / fastest size, ns per pair): " +
		"multilevel 1.50x (1G 30 ns / 1K 20 ns); caching 4.00x (1K 40 ns / 64M 10 ns)"
	if got := AllocatorFlatness(rows); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := AllocatorFlatness(rows[1:2]); got != "" {
		t.Errorf("no allocator rows: %q", got)
	}
}
