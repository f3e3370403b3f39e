package actor_test

import (
	"testing"

	"github.com/pipert/pipert/internal/leaktest"
)

// The test binary links ants through the scenarios; see leaktest.
func TestMain(m *testing.M) { leaktest.Main(m) }
