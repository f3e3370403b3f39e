package fabric_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device/fabric"
)

// TestHeapTooLargeIsAnError: a materialized heap larger than the host can
// hold is an ErrConfig error, not a failed allocation; an unmaterialized
// one (a model's) may be as large as an int64 counts.
func TestHeapTooLargeIsAnError(t *testing.T) {
	for _, c := range []struct {
		ranks int
		size  int64
	}{{64, math.MaxInt64}, {2, 1 << 40}, {8, 1 << 32}} {
		if _, err := fabric.NewHeap(c.ranks, c.size, true); !errors.Is(err, fabric.ErrConfig) {
			t.Errorf("NewHeap(%d, %d, materialized) = %v, want ErrConfig", c.ranks, c.size, err)
		}
	}
	if _, err := fabric.NewHeap(64, math.MaxInt64, false); err != nil {
		t.Errorf("NewHeap(64, MaxInt64, not materialized) = %v", err)
	}
}

// TestFlagsMisuse: a flag index out of range is an ErrConfig error of
// Wait; a negative count makes no flags; without a setter function the
// watchdog's error still comes.
func TestFlagsMisuse(t *testing.T) {
	f := fabric.NewFlags("f", 0, 2, func(int) int { return 1 }, time.Second)
	for _, i := range []int{-1, 2, math.MaxInt} {
		if _, err := f.Wait(context.Background(), i, "w"); !errors.Is(err, fabric.ErrConfig) {
			t.Errorf("Wait(%d) = %v, want ErrConfig", i, err)
		}
	}
	if n := fabric.NewFlags("f", 0, -1, nil, 0).Len(); n != 0 {
		t.Errorf("NewFlags(-1) has %d flags", n)
	}
	g := fabric.NewFlags("g", 0, 1, nil, 10*time.Millisecond)
	if _, err := g.Wait(context.Background(), 0, "w"); !errors.Is(err, fabric.ErrWatchdog) {
		t.Errorf("Wait without setter function = %v, want ErrWatchdog", err)
	}
}

// TestHeapBytesOutside: a Ptr outside the heap (another rank, past the
// end, negative) reads as nil, not a panic.
func TestHeapBytesOutside(t *testing.T) {
	h, err := fabric.NewHeap(2, 1<<12, true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Alloc(0, "x", 64)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Bytes(p)) != 64 || len(h.Float32s(p)) != 16 {
		t.Fatal("a valid Ptr does not read")
	}
	for _, q := range []fabric.Ptr{{Rank: 2, Size: 4}, {Rank: -1, Size: 4}, {Off: 1 << 12, Size: 4}, {Off: 1<<12 - 4, Size: 8}, {Off: -4, Size: 4}, {Size: -1}, {Off: 8, Size: math.MaxInt64}} {
		if b := h.Bytes(q); b != nil {
			t.Errorf("Bytes(%+v) = %d bytes, want nil", q, len(b))
		}
		if f := h.Float32s(q); f != nil {
			t.Errorf("Float32s(%+v) not nil", q)
		}
	}
}

// TestHeapFullNamesItsOffset: a virtual heap filled to the last byte an
// int64 counts refuses the next allocation with ErrHeapFull at the
// offset its objects end, not at one an aligning overflow made negative.
func TestHeapFullNamesItsOffset(t *testing.T) {
	h, err := fabric.NewHeap(1, math.MaxInt64, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Alloc(0, "all", math.MaxInt64-5); err != nil {
		t.Fatal(err)
	}
	_, err = h.Alloc(0, "more", 1)
	if !errors.Is(err, fabric.ErrHeapFull) || !strings.Contains(err.Error(), fmt.Sprintf("at offset %d ", int64(math.MaxInt64-5))) {
		t.Errorf("Alloc after the heap's end = %v, want ErrHeapFull at offset %d", err, int64(math.MaxInt64-5))
	}
}

// TestHeapTranslateRankOutside: translating to a rank the heap does not
// have is an ErrConfig error naming the rank and the range, not a Ptr
// that reads as nil.
func TestHeapTranslateRankOutside(t *testing.T) {
	h, err := fabric.NewHeap(3, 1<<12, true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Alloc(0, "x", 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, rank := range []int{-1, 3, math.MaxInt} {
		q, err := h.Translate(p, rank)
		want := fmt.Sprintf("rank %d, want 0 to 2", rank)
		if !errors.Is(err, fabric.ErrConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("Translate(rank %d) = %+v, %v; want ErrConfig naming %q", rank, q, err, want)
		}
	}
	q, err := h.Translate(p, 2)
	if err != nil || q != (fabric.Ptr{Rank: 2, Off: p.Off, Size: p.Size}) || len(h.Bytes(q)) != 64 {
		t.Errorf("Translate(rank 2) = %+v, %v", q, err)
	}
}
