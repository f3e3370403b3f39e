package account

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/pipert/pipert/device/alloc"
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
