package swai

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/internal/clock"
)

var _ device.Device = (*Device)(nil)
var _ device.HostAllocator = (*Device)(nil)

type work struct {
	kind       string
	start, end int64
}

// recorder is a device.Observer keeping every piece of work.
type recorder struct {
	mu   sync.Mutex
	work []work
}

func (r *recorder) OnWork(w device.Work) {
	r.mu.Lock()
	r.work = append(r.work, work{w.Kind, w.Start, w.End})
	r.mu.Unlock()
}

func TestLaunchThroughTheCommandQueue(t *testing.T) {
	ctx := context.Background()
	p := Default()
	var rec recorder
	d, err := New(p, WithCalibration(testCal), WithObserver(&rec))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s := d.NewStream()
	before := clock.Now()
	if err := s.Launch(device.Kernel{Name: "empty", Cost: device.Cost{}}); err != nil {
		t.Fatal(err)
	}
	returned := clock.Now()
	if err := s.Synchronize(ctx); err != nil {
		t.Fatal(err)
	}
	if len(rec.work) != 1 {
		t.Fatalf("work %+v", rec.work)
	}
	w := rec.work[0]
	dp := p.Device()
	// The kernel starts LaunchLatency after the call (the buffer was
	// empty) and lasts KernelFixed; the call itself took O_cpu +
	// O_cmd-tran.
	if got := w.start - before; got < int64(dp.LaunchLatency) || got > returned-before+int64(dp.LaunchLatency) {
		t.Errorf("kernel started %v after the call, want LaunchLatency %v", time.Duration(got), dp.LaunchLatency)
	}
	if w.end-w.start != int64(dp.KernelFixed) {
		t.Errorf("empty kernel lasted %v, want %v", time.Duration(w.end-w.start), dp.KernelFixed)
	}
	if returned-before < int64(p.AsyncReturn()) {
		t.Errorf("launch returned after %v, before O_cpu + O_cmd-tran %v", time.Duration(returned-before), p.AsyncReturn())
	}
}

// Traditional launches keep the dispatcher busy for O_init each: with two
// command slots the host waits, and kernels start O_init apart.
func TestTraditionalLaunchBackPressure(t *testing.T) {
	ctx := context.Background()
	p := Default()
	p.Launch.Method = TraditionalLaunch
	// Long enough that a descheduled test goroutine still finds the
	// buffer full.
	p.Launch.Init = 3 * time.Millisecond
	p.Queue.Slots = 2
	var rec recorder
	d, err := New(p, WithCalibration(testCal), WithObserver(&rec), WithoutHostCost())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s := d.NewStream()
	for range 5 {
		if err := s.Launch(device.Kernel{Name: "k", Cost: device.Cost{}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Synchronize(ctx); err != nil {
		t.Fatal(err)
	}
	if d.Queue().Waits() == 0 {
		t.Error("five traditional launches through two slots never waited")
	}
	for i := 1; i < len(rec.work); i++ {
		if gap := rec.work[i].start - rec.work[i-1].start; gap < int64(p.Launch.Init) {
			t.Errorf("kernel %d started %v after the previous one, less than O_init", i, time.Duration(gap))
		}
	}
}

func TestNewErrors(t *testing.T) {
	p := Default()
	p.Transfer.Channels = 0
	if _, err := New(p, WithCalibration(testCal)); err == nil {
		t.Error("invalid profile accepted")
	}
	if _, err := New(Default(), WithCalibration(Calibration{})); err == nil {
		t.Error("zero calibration accepted")
	}
	if _, err := New(Default(), nil, WithCalibration(testCal), nil); err != nil {
		t.Errorf("nil options: %v, want them ignored", err)
	}
}

func TestNewCalibrates(t *testing.T) {
	d, err := New(Default())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if c := d.Calibration(); !(c.HostCopyBandwidth > 0) {
		t.Errorf("calibration %+v", c)
	}
	if d.Threads() < 1 {
		t.Errorf("%d MTMC threads", d.Threads())
	}
	if e, _ := d.ChooseD2D(1 << 30); e != CPE {
		t.Errorf("1 GiB copies use %v", e)
	}
}

func TestMemcpyD2D(t *testing.T) {
	ctx := context.Background()
	d := newTestDevice(t, Default())
	src, _ := d.Alloc(1<<20, true)
	dst, _ := d.Alloc(1<<20, true)
	for i := range src.Data {
		src.Data[i] = byte(i * 7)
	}
	e, dur, err := d.MemcpyD2D(ctx, dst, src)
	if err != nil {
		t.Fatal(err)
	}
	wantE, wantD := d.ChooseD2D(1 << 20)
	if e != wantE || dur != wantD {
		t.Errorf("MemcpyD2D = %v %v, ChooseD2D says %v %v", e, dur, wantE, wantD)
	}
	for i := range dst.Data {
		if dst.Data[i] != byte(i*7) {
			t.Fatalf("byte %d not copied", i)
		}
	}
	if d.Config().Name != "swai" || len(d.D2D().Engines()) != 4 {
		t.Errorf("config %+v", d.Config())
	}
}

// TestMemcpyRefusesBuffersNotOfTheCard checks that the synchronous copies,
// as the stream copies do, refuse another device's buffer and a freed one
// (device.ErrBadCopy), and that MallocHost refuses a size beyond
// device.MaxMemoryBytes instead of panicking.
func TestMemcpyRefusesBuffersNotOfTheCard(t *testing.T) {
	ctx := context.Background()
	d := newTestDevice(t, Default())
	other, err := device.NewSim(device.SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := other.Alloc(16, true)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := d.Alloc(16, true)
	if err != nil {
		t.Fatal(err)
	}
	freed, err := d.Alloc(4096, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Free(freed); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]device.Buffer{"another device's": theirs, "freed": freed} {
		if _, err := d.MemcpyH2D(ctx, b, []byte{5}, Pinned); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("MemcpyH2D into a %s buffer: %v, want ErrBadCopy", name, err)
		}
		if _, err := d.MemcpyD2H(ctx, make([]byte, 1), b, Pinned); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("MemcpyD2H from a %s buffer: %v, want ErrBadCopy", name, err)
		}
		if _, _, err := d.MemcpyD2D(ctx, mine, b); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("MemcpyD2D from a %s buffer: %v, want ErrBadCopy", name, err)
		}
		if _, _, err := d.MemcpyD2D(ctx, b, mine); !errors.Is(err, device.ErrBadCopy) {
			t.Errorf("MemcpyD2D into a %s buffer: %v, want ErrBadCopy", name, err)
		}
	}
	if v := theirs.Data[0]; v != 0 {
		t.Errorf("another device's buffer was written: %d", v)
	}
	if _, err := d.MemcpyH2D(ctx, mine, []byte{5}, Pinned); err != nil {
		t.Errorf("MemcpyH2D into its own buffer: %v", err)
	}
	for _, size := range []int64{-1, device.MaxMemoryBytes + 1, math.MaxInt64} {
		if _, _, err := d.MallocHost(size); !errors.Is(err, alloc.ErrBadSize) {
			t.Errorf("MallocHost(%d): %v, want alloc.ErrBadSize", size, err)
		}
	}
	// Within the bound but beyond the host's memory: refused, where the
	// allocation would end the process.
	if _, _, err := d.MallocHost(device.MaxMemoryBytes); !errors.Is(err, device.ErrHostMemory) {
		t.Errorf("MallocHost(%d): %v, want device.ErrHostMemory", int64(device.MaxMemoryBytes), err)
	}
}

// TestAllocBeyondAnyCard: a size whose rounding by the framework's
// caching layer would overflow is out of memory, as any size beyond the
// card is, directly or through the cache.
func TestAllocBeyondAnyCard(t *testing.T) {
	d, err := New(Default(), WithCalibration(PaperCalibration()))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, size := range []int64{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64 - 2<<20, 1 << 62, d.Config().MemoryBytes + 1} {
		if _, err := d.Alloc(size, false); !errors.Is(err, device.ErrOutOfMemory) {
			t.Errorf("Alloc(%d): %v, want ErrOutOfMemory", size, err)
		}
	}
	if n := d.Stats().MemInUse; n != 0 {
		t.Errorf("%d bytes in use after the refused allocations", n)
	}
}
