package swai

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testCal is a fixed calibration, so that modeled quantities are
// deterministic in tests.
var testCal = Calibration{HostCopyBandwidth: 20e9}
