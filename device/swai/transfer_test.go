package swai

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/clock"
)

// smallCopies is a card whose pageable copies use many small chunks and
// three MTMC threads, so that small test buffers exercise every path.
func smallCopies() Profile {
	p := Default()
	p.Transfer.Threads = 3
	p.Transfer.StagingBytes = 64 << 10
	p.Transfer.MinChunkBytes = 4 << 10
	return p
}

func newTestDevice(t *testing.T, p Profile) *Device {
	t.Helper()
	d, err := New(p, WithCalibration(testCal), WithoutHostCost())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Real data goes through the staging buffers into a materialized device
// buffer and back, by every path, at sizes that do and do not divide into
// chunks.
func TestCopiesMoveTheRightBytes(t *testing.T) {
	ctx := context.Background()
	d := newTestDevice(t, smallCopies())
	if d.Threads() != 3 {
		t.Fatalf("Threads = %d, want 3", d.Threads())
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, size := range []int{0, 1, 4095, 4096, 64<<10 + 3, 1<<20 + 17, 3 << 20} {
		for _, path := range []Path{Pinned, Pageable, PageableMTMC, PageableSingle} {
			src := make([]byte, size)
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			// A device buffer larger than the copy: the rest stays zero.
			buf, err := d.Alloc(int64(size)+100, true)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.MemcpyH2D(ctx, buf, src, path); err != nil {
				t.Fatalf("%v %d: h2d: %v", path, size, err)
			}
			if !bytes.Equal(buf.Data[:size], src) || !bytes.Equal(buf.Data[size:], make([]byte, 100)) {
				t.Fatalf("%v %d: device buffer does not hold the source", path, size)
			}
			back := make([]byte, size)
			if _, err := d.MemcpyD2H(ctx, back, buf, path); err != nil {
				t.Fatalf("%v %d: d2h: %v", path, size, err)
			}
			if !bytes.Equal(back, src) {
				t.Fatalf("%v %d: round trip changed the data", path, size)
			}
			if err := d.Free(buf); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Modeled durations never beat the hardware: the fixed costs plus the
// bytes over the DMA engine's bandwidth, whatever the host measured.
func TestCopyModelBounds(t *testing.T) {
	ctx := context.Background()
	p := smallCopies()
	d := newTestDevice(t, p)
	tp := p.Transfer
	for _, size := range []int64{1, 100 << 10, 2 << 20} {
		buf, err := d.Alloc(size, false)
		if err != nil {
			t.Fatal(err)
		}
		src := make([]byte, size)
		floor := func(bw float64) time.Duration {
			return tp.Latency + tp.PageableSetup + tp.ChunkStart + time.Duration(float64(size)/bw*1e9)
		}
		mtmc, err := d.MemcpyH2D(ctx, buf, src, PageableMTMC)
		if err != nil {
			t.Fatal(err)
		}
		if mtmc < floor(tp.Bandwidth) {
			t.Errorf("%d bytes: MTMC %v beats the bus, %v", size, mtmc, floor(tp.Bandwidth))
		}
		single, err := d.MemcpyH2D(ctx, buf, src, PageableSingle)
		if err != nil {
			t.Fatal(err)
		}
		if single < floor(tp.ChannelBandwidth) {
			t.Errorf("%d bytes: single %v beats one channel, %v", size, single, floor(tp.ChannelBandwidth))
		}
		d.Free(buf)
	}
}

func TestPinnedTime(t *testing.T) {
	p := Default()
	tp := p.Transfer
	ns := func(bytes int64, bw float64) time.Duration { return roundNs(float64(bytes) / bw * 1e9) }
	// Below MinChunkBytes: one piece on one channel at its own speed.
	if got, want := p.PinnedTime(1<<10), tp.Latency+tp.ChunkStart+ns(1<<10, tp.ChannelBandwidth); got != want {
		t.Errorf("1 KiB: %v, want %v", got, want)
	}
	// Large: all eight channels, limited by the bus.
	if got, want := p.PinnedTime(64<<20), tp.Latency+tp.ChunkStart+ns(64<<20, tp.Bandwidth); got-want > 2 || want-got > 2 {
		t.Errorf("64 MiB: %v, want %v", got, want)
	}
	if got := p.PinnedTime(0); got != tp.Latency+tp.ChunkStart {
		t.Errorf("0 bytes: %v", got)
	}
	// The paper's claims (section 4.3): start-up half of CUDA's, bandwidth
	// 1.4-1.7 times.
	g := GPU()
	if r := float64(p.PinnedTime(1)) / float64(g.PinnedTime(1)); r < 0.4 || r > 0.6 {
		t.Errorf("pinned start-up ratio to the gpu = %.2f, want about 0.5", r)
	}
	if r := float64(g.PinnedTime(1<<30)) / float64(p.PinnedTime(1<<30)); r < 1.4 || r > 1.7 {
		t.Errorf("pinned 1 GiB speed-up over the gpu = %.2f, want 1.4-1.7", r)
	}
}

func TestMTMCChunk(t *testing.T) {
	p := Default()
	for _, c := range []struct{ size, want int64 }{
		{1, 64 << 10}, {1 << 20, 64 << 10}, {4 << 20, 256 << 10}, {8 << 20, 512 << 10}, {64 << 20, 1 << 20}, {1 << 30, 1 << 20},
	} {
		if got := p.mtmcChunk(c.size); got != c.want {
			t.Errorf("mtmcChunk(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}

func TestThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	p := Default() // S_B2D 14.7 GB/s, B_MEM 115.2 GB/s
	cases := []struct {
		hostCopy float64
		memBW    float64
		want     int
	}{
		{20e9, 115.2e9, 1}, // one thread outruns the bus
		{5e9, 115.2e9, 3},  // equation 4: ⌈14.7 / 5⌉
		{1e9, 115.2e9, 8},  // capped by GOMAXPROCS
		{2e9, 20e9, 2},     // equation 5: ⌊(20 - 14.7) / 2⌋
		{2e9, 15e9, 1},     // at least one
	}
	for _, c := range cases {
		p.Transfer.HostMemBandwidth = c.memBW
		if got := p.Threads(Calibration{c.hostCopy}); got != c.want {
			t.Errorf("S_H2B %g, B_MEM %g: %d threads, want %d", c.hostCopy, c.memBW, got, c.want)
		}
	}
	p.Transfer.Threads = 5
	if p.Threads(testCal) != 5 {
		t.Error("explicit Threads ignored")
	}
	if g := GPU(); g.Threads(testCal) != 1 {
		t.Error("a profile without MTMC has more than one thread")
	}
}

func TestCopyErrors(t *testing.T) {
	ctx := context.Background()
	d := newTestDevice(t, smallCopies())
	buf, _ := d.Alloc(10, false)
	if _, err := d.MemcpyH2D(ctx, buf, make([]byte, 11), Pinned); !errors.Is(err, device.ErrBadCopy) {
		t.Errorf("oversized h2d: %v", err)
	}
	if _, err := d.MemcpyD2H(ctx, make([]byte, 11), buf, Pinned); !errors.Is(err, device.ErrBadCopy) {
		t.Errorf("oversized d2h: %v", err)
	}
	if _, err := d.MemcpyD2H(ctx, make([]byte, 4), buf, Pinned); !errors.Is(err, device.ErrNotBacked) {
		t.Errorf("d2h from a virtual buffer: %v", err)
	}
	if _, err := d.MemcpyH2D(ctx, buf, make([]byte, 4), Path(0)); err == nil {
		t.Error("invalid path accepted")
	}
	small := make([]byte, 4)
	if _, _, err := d.MemcpyD2D(ctx, buf, device.Buffer{Addr: 1, Size: 11}); !errors.Is(err, device.ErrBadCopy) {
		t.Errorf("oversized d2d: %v", err)
	}

	g := newTestDevice(t, GPU())
	gbuf, _ := g.Alloc(4, false)
	if _, err := g.MemcpyH2D(ctx, gbuf, small, PageableMTMC); !errors.Is(err, ErrNoMTMC) {
		t.Errorf("MTMC on the gpu: %v", err)
	}
	if _, err := g.MemcpyH2D(ctx, gbuf, small, Pageable); err != nil {
		t.Errorf("pageable on the gpu: %v", err)
	}

	d.Close()
	if _, err := d.MemcpyH2D(ctx, buf, small, Pageable); !errors.Is(err, ErrClosed) {
		t.Errorf("h2d after Close: %v", err)
	}
	if _, _, err := d.Malloc(4, CPEMemory, false); !errors.Is(err, ErrClosed) {
		t.Errorf("malloc after Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCopiesWaitForTheModel(t *testing.T) {
	// With host cost, a call returns no earlier than its modeled end.
	ctx := context.Background()
	d, err := New(Default(), WithCalibration(testCal))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	buf, _ := d.Alloc(1<<20, false)
	start := clock.Now()
	dur, err := d.MemcpyH2D(ctx, buf, make([]byte, 1<<20), Pinned)
	if err != nil {
		t.Fatal(err)
	}
	if el := clock.Now() - start; el < int64(dur) {
		t.Errorf("returned after %v, before the modeled %v", time.Duration(el), dur)
	}
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d.MemcpyH2D(ctx, buf, make([]byte, 1<<20), Pinned); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled copy: %v", err)
	}
}
