package hostmem

import (
	"errors"
	"runtime"
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
