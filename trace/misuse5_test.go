package trace

import (
	"errors"
	"io"
	"testing"
)

// TestReleaseWithoutHold: a Release with no span open neither makes Close
// wait for ever nor hides a later span from it: Close returns, with an
// ErrMisuse error. A nil Recorder's Release does nothing.
func TestReleaseWithoutHold(t *testing.T) {
	(*Recorder)(nil).Release()
	r, err := New(io.Discard, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Release()
	if !r.Hold() {
		t.Fatal("Hold of an open recorder reported false")
	}
	done := make(chan error, 1)
	go func() { done <- r.Close() }()
	r.Release()
	if err := <-done; !errors.Is(err, ErrMisuse) {
		t.Errorf("Close = %v, want ErrMisuse", err)
	}
}

// TestNilValidationError: a nil *ValidationError prints "<nil>" and has
// no problem; neither panics.
func TestNilValidationError(t *testing.T) {
	var e *ValidationError
	if e.Error() != "<nil>" || e.Has(ProblemKind(0)) {
		t.Errorf("nil ValidationError: %q", e.Error())
	}
}
