package fabric_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/pipert/pipert/device/fabric"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConfigDefaultsAndErrors(t *testing.T) {
	var c fabric.Config
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if c.Ranks != 8 || c.Link.Bandwidth != 64e9 || c.Links() != 64 {
		t.Fatalf("defaults: %+v, %d links", c, c.Links())
	}
	if c.LinkOf(2, 5) == c.LinkOf(5, 2) {
		t.Fatal("xgmi: the two directions of a pair share a link")
	}
	p := fabric.Config{Topology: fabric.PCIe}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	if p.LinkOf(3, 1) != p.LinkOf(3, 6) {
		t.Fatal("pcie: a device's transfers do not share its port")
	}
	for _, bad := range []fabric.Config{{Ranks: -1}, {Ranks: fabric.MaxRanks + 1}, {Topology: 7}} {
		if err := bad.Check(); !errors.Is(err, fabric.ErrConfig) {
			t.Errorf("%+v: got %v, want ErrConfig", bad, err)
		}
	}
	bad := fabric.Config{}
	bad.Link.Bandwidth = -1
	if err := bad.Check(); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("negative bandwidth: %v", err)
	}
}

func TestHeapSymmetric(t *testing.T) {
	h, err := fabric.NewHeap(4, 1<<16, true)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	ptrs := make([][2]fabric.Ptr, 4)
	errs := make([]error, 4)
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := h.Alloc(r, "a", 100)
			if err != nil {
				errs[r] = err
				return
			}
			b, err := h.Alloc(r, "b", 256)
			errs[r] = err
			ptrs[r] = [2]fabric.Ptr{a, b}
		}()
	}
	wg.Wait()
	for r := range 4 {
		if errs[r] != nil {
			t.Fatal(errs[r])
		}
		if ptrs[r][0].Off != ptrs[0][0].Off || ptrs[r][1].Off != ptrs[0][1].Off {
			t.Fatalf("rank %d offsets %v differ from rank 0's %v", r, ptrs[r], ptrs[0])
		}
		if ptrs[r][1].Off%fabric.HeapAlign != 0 {
			t.Fatalf("offset %d not aligned", ptrs[r][1].Off)
		}
	}
	// A write through a translated pointer lands in the peer's object.
	p, err := h.Translate(ptrs[1][1], 3)
	if err != nil {
		t.Fatal(err)
	}
	h.Float32s(p)[5] = 2.5
	if got := h.Float32s(ptrs[3][1])[5]; got != 2.5 {
		t.Fatalf("peer sees %v", got)
	}
	if got := h.Float32s(ptrs[1][1])[5]; got != 0 {
		t.Fatalf("source rank's own object changed: %v", got)
	}
}

func TestHeapAsymmetricNamesBothRanks(t *testing.T) {
	h, _ := fabric.NewHeap(3, 4096, false)
	if _, err := h.Alloc(0, "tokens", 512); err != nil {
		t.Fatal(err)
	}
	_, err := h.Alloc(2, "tokens", 1024)
	if !errors.Is(err, fabric.ErrAsymmetric) || !strings.Contains(err.Error(), "rank 0") || !strings.Contains(err.Error(), "rank 2") {
		t.Fatalf("got %v", err)
	}
	if _, err := h.Alloc(1, "other", 512); !errors.Is(err, fabric.ErrAsymmetric) {
		t.Fatalf("different name: %v", err)
	}
	if _, err := h.Alloc(0, "big", 1<<20); !errors.Is(err, fabric.ErrHeapFull) {
		t.Fatalf("over the heap: %v", err)
	}
	if _, err := h.Alloc(5, "x", 1); !errors.Is(err, fabric.ErrConfig) {
		t.Fatalf("rank out of range: %v", err)
	}
	if _, err := fabric.NewHeap(0, 1, false); !errors.Is(err, fabric.ErrConfig) {
		t.Fatalf("no ranks: %v", err)
	}
	if h.Bytes(fabric.Ptr{Size: 4}) != nil {
		t.Fatal("virtual heap has bytes")
	}
}

func TestFlagsPublishAndCount(t *testing.T) {
	f := fabric.NewFlags("recv", 1, 16, func(i int) int { return i % 4 }, time.Minute)
	data := make([]int, 16)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data[i] = 100 + i // published by Set's release
			if err := f.Set(i, uint64(i)); err != nil {
				t.Error(err)
			}
		}()
	}
	for i := range 16 {
		n, err := f.Wait(context.Background(), i, "test")
		if err != nil || n != uint64(i) || data[i] != 100+i {
			t.Fatalf("flag %d: count %d, data %d, %v", i, n, data[i], err)
		}
	}
	wg.Wait()
	// count 0 still signals (flag = count + 1)
	g := fabric.NewFlags("zero", 0, 1, func(int) int { return 0 }, 0)
	if err := g.Set(0, 0); err != nil {
		t.Fatal(err)
	}
	if !g.IsSet(0) {
		t.Fatal("count 0 did not set the flag")
	}
	for _, i := range []int{-1, 1} {
		if err := g.Set(i, 0); !errors.Is(err, fabric.ErrConfig) {
			t.Errorf("Set(%d): %v, want ErrConfig", i, err)
		}
	}
	if err := g.Set(0, math.MaxUint64); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("Set(0, MaxUint64): %v, want ErrConfig", err)
	}
}

func TestFlagsWatchdogAndCancel(t *testing.T) {
	f := fabric.NewFlags("tokflag", 2, 4, func(i int) int { return 6 }, 5*time.Millisecond)
	_, err := f.Wait(context.Background(), 3, "combine-recv")
	if !errors.Is(err, fabric.ErrWatchdog) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"tokflag[3]", "rank 2", "combine-recv", "rank 6"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Wait(ctx, 0, "x"); !errors.Is(err, context.Canceled) || errors.Is(err, fabric.ErrWatchdog) {
		t.Fatalf("cancelled wait: %v", err)
	}
}
