package actor_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind. The test binary
// links the ants package (through the scenarios), which starts a default
// pool when it is initialised: goroutines alive before the tests are
// ignored.
func TestMain(m *testing.M) {
	ignore := goleak.IgnoreCurrent()
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(ignore); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
