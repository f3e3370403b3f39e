package fabric_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pipert/pipert/device/fabric"
)

// TestFlagsSetterPanicIsAnError: a panic of NewFlags's setter function
// does not escape NewFlags; Set and Wait report it as an ErrConfig error.
func TestFlagsSetterPanicIsAnError(t *testing.T) {
	f := fabric.NewFlags("f", 0, 4, func(i int) int {
		if i == 2 {
			panic("no rank")
		}
		return 1
	}, time.Second)
	if err := f.Set(0, 1); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("Set = %v, want ErrConfig", err)
	}
	if _, err := f.Wait(context.Background(), 0, "w"); !errors.Is(err, fabric.ErrConfig) {
		t.Errorf("Wait = %v, want ErrConfig", err)
	}
}
