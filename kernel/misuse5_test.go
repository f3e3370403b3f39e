package kernel_test

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestBroadcastBeyondInt64IsAnError: a broadcast of more elements than an
// int64 counts is an error, not a shape whose element count wraps; one
// with a zero dimension has none.
func TestBroadcastBeyondInt64IsAnError(t *testing.T) {
	for _, c := range []struct{ a, b kernel.Shape }{
		{kernel.Shape{1 << 62, 1}, kernel.Shape{1, 4}},
		{kernel.Shape{math.MaxInt64}, kernel.Shape{2, 1}},
		{kernel.Shape{1 << 32, 1, 1}, kernel.Shape{1 << 32, 1}},
	} {
		if out, err := kernel.Broadcast(c.a, c.b); err == nil {
			t.Errorf("Broadcast(%v, %v) = %v (%d elements), want an error", c.a, c.b, out, out.NumElements())
		}
	}
	out, err := kernel.Broadcast(kernel.Shape{1 << 62, 1, 0}, kernel.Shape{1, 4, 1})
	if err != nil || out.NumElements() != 0 {
		t.Errorf("Broadcast with a zero dimension = %v (%d elements), %v", out, out.NumElements(), err)
	}
}

// TestSizesBeyondInt64Saturate: NumElements and Bytes of a shape beyond
// int64 are math.MaxInt64, never a wrapped count; a zero dimension makes
// 0 wherever it is.
func TestSizesBeyondInt64Saturate(t *testing.T) {
	for _, c := range []struct {
		shape        kernel.Shape
		elems, bytes int64
	}{
		{kernel.Shape{1 << 62, 4}, math.MaxInt64, math.MaxInt64},
		{kernel.Shape{1 << 62, 2}, math.MaxInt64, math.MaxInt64},
		{kernel.Shape{1 << 61, 2}, 1 << 62, math.MaxInt64},
		{kernel.Shape{1 << 60, 2}, 1 << 61, math.MaxInt64},
		{kernel.Shape{1 << 59, 2}, 1 << 60, 1 << 62},
		{kernel.Shape{1 << 62, 4, 0}, 0, 0},
		{kernel.Shape{3, -1}, -1, -1},
	} {
		v := kernel.Virtual(kernel.Float32, c.shape...)
		if n := c.shape.NumElements(); n != c.elems {
			t.Errorf("%v: NumElements %d, want %d", c.shape, n, c.elems)
		}
		if n := v.Bytes(); n != c.bytes {
			t.Errorf("%v: Bytes %d, want %d", c.shape, n, c.bytes)
		}
	}
}

// TestNilArgsAndKernel: a nil Args has no inputs, so its run is real, and
// OutputsReal of a nil kernel reads its inputs; neither panics.
func TestNilArgsAndKernel(t *testing.T) {
	var a *kernel.Args
	if !a.Real() || a.Err() != nil {
		t.Errorf("nil Args: Real %v, Err %v", a.Real(), a.Err())
	}
	if !kernel.OutputsReal(nil, nil) || kernel.OutputsReal(nil, []*kernel.Tensor{kernel.Virtual(kernel.Float32, 2)}) {
		t.Error("OutputsReal of a nil kernel does not follow its inputs")
	}
}
