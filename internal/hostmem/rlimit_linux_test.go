package hostmem

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestAddressSpaceLimit: under a limit on the process's address space
// (ulimit -v), an allocation beyond what it leaves is refused, where Go's
// failed mapping would end the process. The limit is set in a child
// process, the test binary run again, so that this one keeps its own.
func TestAddressSpaceLimit(t *testing.T) {
	if os.Getenv("HOSTMEM_RLIMIT_CHILD") == "1" {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		size, ok := meminfoField(b, "VmSize:")
		if !ok {
			t.Fatal("no VmSize")
		}
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
			t.Fatal(err)
		}
		rl.Cur = uint64(size + 1<<30)
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
			t.Fatal(err)
		}
		if err := Check(4 << 30); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Check(4 GiB) under a limit 1 GiB above the process's size = %v, want ErrTooLarge", err)
		}
		if err := Check(128 << 20); err != nil {
			t.Errorf("Check(128 MiB) = %v", err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAddressSpaceLimit$", "-test.v")
	cmd.Env = append(os.Environ(), "HOSTMEM_RLIMIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
