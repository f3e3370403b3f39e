package heterog_test

import (
	"testing"

	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/internal/leaktest"
)

// TestMain checks that no test leaves a goroutine behind. The process-wide
// manager's worker groups are released first, so that their workers are
// checked too.
func TestMain(m *testing.M) { leaktest.Main(m, heterog.Devices().Release) }
