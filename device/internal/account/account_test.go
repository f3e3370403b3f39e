package account

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/pipert/pipert/device/alloc"
	"github.com/pipert/pipert/internal/hostmem"
)

// TestCheckAgainstLiveList: after random Allocs and Frees, Check of random
// ranges agrees with a plain list of the live blocks, scanned.
func TestCheckAgainstLiveList(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 7))
		m := NewMemory(alloc.NewReference(1 << 20))
		other := NewMemory(alloc.NewReference(1 << 20))
		type blk struct {
			addr uint64
			size int64
		}
		var live, freed []blk
		for step := range 200 {
			if len(live) == 0 || rng.IntN(3) > 0 {
				size := rng.Int64N(4096) + 1
				addr, n, _, err := m.Alloc(size, false)
				if errors.Is(err, alloc.ErrOutOfMemory) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				live = append(live, blk{addr, n})
			} else {
				i := rng.IntN(len(live))
				b := live[i]
				if err := m.Free(b.addr, b.size, nil); err != nil {
					t.Fatalf("seed %d step %d: Free: %v", seed, step, err)
				}
				live = append(live[:i], live[i+1:]...)
				freed = append(freed, b)
			}
			// Probe ranges near live and freed blocks.
			var probes []blk
			for _, b := range append(append([]blk(nil), live...), freed...) {
				off := uint64(rng.Int64N(b.size + 8))
				probes = append(probes, blk{b.addr + off, rng.Int64N(b.size + 8)}, b)
			}
			for _, p := range probes {
				want := false
				for _, b := range live {
					if p.addr >= b.addr && p.addr+uint64(p.size) <= b.addr+uint64(b.size) {
						want = true
					}
				}
				err := m.Check(p.addr, p.size)
				if (err == nil) != want {
					t.Fatalf("seed %d step %d: Check(%#x, %d) = %v, live blocks say %v", seed, step, p.addr, p.size, err, want)
				}
				if err != nil && !errors.Is(err, ErrNotLive) {
					t.Fatalf("Check(%#x, %d) of this device's window: %v, want ErrNotLive", p.addr, p.size, err)
				}
				if err := other.Check(p.addr, p.size); !errors.Is(err, ErrForeign) {
					t.Fatalf("another Memory's Check(%#x, %d): %v, want ErrForeign", p.addr, p.size, err)
				}
			}
		}
		if err := m.Check(m.base, -1); !errors.Is(err, ErrForeign) {
			t.Errorf("Check of a negative size: %v", err)
		}
	}
}

// TestHostBacking: a materialized buffer the host cannot hold is refused
// before anything is reserved (a virtual one of that size is not), and a
// large backing is made to its size, not rounded up to a power of two.
func TestHostBacking(t *testing.T) {
	m := NewMemory(alloc.NewReference(1 << 50))
	_, _, _, err := m.Alloc(1<<49, true)
	if !errors.Is(err, hostmem.ErrTooLarge) || !errors.Is(err, alloc.ErrOutOfMemory) {
		t.Fatalf("Alloc(2^49, materialized) = %v, want ErrTooLarge and ErrOutOfMemory", err)
	}
	var c Counts
	if m.Snapshot(&c); c.MemInUse != 0 || c.Allocs != 0 {
		t.Errorf("a refused allocation left %d bytes in use, %d allocations", c.MemInUse, c.Allocs)
	}
	addr, n, data, err := m.Alloc(1<<49, false)
	if err != nil || data != nil {
		t.Fatalf("Alloc(2^49, virtual) = %d bytes of data, %v", len(data), err)
	}
	if err := m.Free(addr, n, nil); err != nil {
		t.Fatal(err)
	}
	size := int64(exactFrom + 1)
	addr, n, data, err = m.Alloc(size, true)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != size || int64(cap(data)) != size {
		t.Errorf("backing of %d bytes: len %d cap %d, want both %d", size, len(data), cap(data), size)
	}
	data[0] = 1
	if err := m.Free(addr, n, data); err != nil {
		t.Fatal(err)
	}
	// Reused, zeroed, when large enough; a larger request in its class is
	// made anew.
	addr, n, again, err := m.Alloc(size, true)
	if err != nil || &again[0] != &data[0] || again[0] != 0 {
		t.Fatalf("second Alloc(%d): reused %v, first byte %d, %v", size, err == nil && &again[0] == &data[0], again[0], err)
	}
	if err := m.Free(addr, n, again); err != nil {
		t.Fatal(err)
	}
	if _, _, big, err := m.Alloc(size+1, true); err != nil || int64(len(big)) != size+1 || &big[0] == &data[0] {
		t.Fatalf("Alloc(%d) after a free of %d: %d bytes, reused %v, %v", size+1, size, len(big), len(big) > 0 && &big[0] == &data[0], err)
	}
}

// TestConcurrentBackings: goroutines allocating and freeing materialized
// buffers at once each get zeroed backing of their own (a backing is
// reused once freed, and zeroed outside the lock): each fills its
// buffer with its mark and finds it intact before the free.
func TestConcurrentBackings(t *testing.T) {
	m := NewMemory(alloc.NewReference(1 << 30))
	const workers, rounds = 4, 300
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			mark := byte(w + 1)
			for range rounds {
				size := rng.Int64N(16<<10) + 1
				addr, n, data, err := m.Alloc(size, true)
				if err != nil {
					errs <- err
					return
				}
				if int64(len(data)) != size {
					errs <- fmt.Errorf("Alloc(%d): %d bytes of backing", size, len(data))
					return
				}
				for i, b := range data {
					if b != 0 {
						errs <- fmt.Errorf("Alloc(%d): byte %d of the backing is %d, want 0", size, i, b)
						return
					}
					data[i] = mark
				}
				runtime.Gosched()
				for i, b := range data {
					if b != mark {
						errs <- fmt.Errorf("worker %d: byte %d of its buffer became %d: shared with another", w, i, b)
						return
					}
				}
				if err := m.Free(addr, n, data); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var c Counts
	if m.Snapshot(&c); c.MemInUse != 0 || c.Allocs != workers*rounds || c.Frees != workers*rounds {
		t.Errorf("after the frees: %d bytes in use, %d allocations, %d frees; want 0, %d, %d", c.MemInUse, c.Allocs, c.Frees, workers*rounds, workers*rounds)
	}
}
