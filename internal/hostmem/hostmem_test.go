package hostmem

import (
	"errors"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestMeminfoField(t *testing.T) {
	b := []byte("MemTotal:       24590000 kB\nMemFree:        1000 kB\nMemAvailable:   2048 kB\n")
	if v, ok := meminfoField(b, "MemAvailable:"); !ok || v != 2048<<10 {
		t.Errorf("MemAvailable = %d, %v; want %d", v, ok, 2048<<10)
	}
	for _, bad := range []string{"", "MemAvailable:\n", "MemAvailable: x kB\n", "MemAvailable: -5 kB\n", "MemFree: 3 kB\n"} {
		if v, ok := meminfoField([]byte(bad), "MemAvailable:"); ok {
			t.Errorf("meminfoField(%q) = %d, true; want false", bad, v)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, n := range []int64{0, 1, checkFrom - 1} {
		if err := Check(n); err != nil {
			t.Errorf("Check(%d) = %v", n, err)
		}
	}
	if _, ok := systemAvailable(); !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("no available memory read on Linux")
		}
		t.Skip("the available memory is not known on " + runtime.GOOS)
	}
	const exabyte = 1 << 60
	if err := Check(exabyte); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Check(1 EiB) = %v, want ErrTooLarge", err)
	}
	if _, err := Make(exabyte); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Make(1 EiB) = %v, want ErrTooLarge", err)
	}
	if _, err := Make(-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Make(-1) = %v, want ErrTooLarge", err)
	}
	if b, err := Make(checkFrom); err != nil || len(b) != checkFrom {
		t.Errorf("Make(%d) = %d bytes, %v", checkFrom, len(b), err)
	}
}

// TestCheckMemoryLimit: under a runtime memory limit, Check refuses what
// the limit does not leave, on every system, and takes what it does.
func TestCheckMemoryLimit(t *testing.T) {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	mapped := int64(s[0].Value.Uint64())
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(mapped + 4*checkFrom))
	if err := Check(64 * checkFrom); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Check(%d) under a limit of %d more than mapped = %v, want ErrTooLarge", 64*checkFrom, 4*checkFrom, err)
	}
	if err := Check(checkFrom); err != nil {
		t.Errorf("Check(%d) under a limit of %d more than mapped = %v", checkFrom, 4*checkFrom, err)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if avail, ok := available(); !ok || avail > 128*checkFrom {
		if err := Check(64 * checkFrom); err != nil {
			t.Errorf("Check(%d) with the limit lifted = %v", 64*checkFrom, err)
		}
	}
}
