package heterog_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/pipert/pipert/heterog"
)

// TestMain checks that no test leaves a goroutine behind. The ants package
// starts a default pool when it is initialised, before any test: those
// goroutines are ignored. The process-wide manager's worker groups are
// released first, so that their workers are checked too.
func TestMain(m *testing.M) {
	ignore := goleak.IgnoreCurrent()
	code := m.Run()
	if err := heterog.Devices().Release(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(ignore); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
