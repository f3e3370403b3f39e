package onnx_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestCompareAfterEqualInfinities checks that outputs starting with the
// same infinity (log of 0, masked attention scores) are still compared
// element by element: a mismatch after them fails the case, and equal
// infinities and NaNs compare equal.
func TestCompareAfterEqualInfinities(t *testing.T) {
	want := kernel.FromFloat32([]float32{float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.NaN()), 1, 2}, 5)
	c := onnx.Case{Name: "inf", Outputs: map[string]*kernel.Tensor{"y": want}}
	bad := kernel.FromFloat32([]float32{float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.NaN()), 1, 200}, 5)
	if d, err := c.Compare(map[string]*kernel.Tensor{"y": bad}, 1e-5); err == nil {
		t.Fatalf("an output 198 off after equal infinities compared equal (max error %g)", d)
	}
	if d, err := c.Compare(map[string]*kernel.Tensor{"y": want}, 1e-5); err != nil || d != 0 {
		t.Fatalf("an output compared with itself: %g, %v", d, err)
	}
	other := kernel.FromFloat32([]float32{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.NaN()), 1, 2}, 5)
	if _, err := c.Compare(map[string]*kernel.Tensor{"y": other}, 1e-5); err == nil {
		t.Fatal("+Inf compared equal to -Inf")
	}
}

// TestDecodeGoldenRefusesWrappingShapes checks that a shape whose element
// count wraps around int64 (to 0 here) is too large, not an empty tensor.
func TestDecodeGoldenRefusesWrappingShapes(t *testing.T) {
	doc := `{"cases": [{"name": "c", "inputs": {}, "outputs": {"y": {"dtype": "float32", "shape": [4294967296, 4294967296], "data": []}}}]}`
	if _, err := onnx.DecodeGolden(strings.NewReader(doc)); err == nil {
		t.Fatal("a 2^64-element shape with no data was read")
	}
}

// TestCompareRel: CompareRel accepts an error up to atol + rtol·|want|
// per element, so that an output of large magnitude is compared at its own
// precision, and names the element furthest beyond its tolerance; rtol 0
// is Compare; integers stay exact.
func TestCompareRel(t *testing.T) {
	want := kernel.FromFloat32([]float32{1e5, 1, 0}, 3)
	c := onnx.Case{Name: "rel", Outputs: map[string]*kernel.Tensor{"y": want}}
	got := kernel.FromFloat32([]float32{1e5 + 0.5, 1, 0}, 3)
	if _, err := c.Compare(map[string]*kernel.Tensor{"y": got}, 1e-4); err == nil {
		t.Fatal("Compare: 0.5 off at 1e5 within an absolute 1e-4")
	}
	if d, err := c.CompareRel(map[string]*kernel.Tensor{"y": got}, 1e-4, 1e-5); err != nil || d != 0.5 {
		t.Fatalf("CompareRel rtol 1e-5: %g, %v; want 0.5 accepted (tolerance 1.0001)", d, err)
	}
	got = kernel.FromFloat32([]float32{1e5 + 0.5, 1.01, 0}, 3)
	_, err := c.CompareRel(map[string]*kernel.Tensor{"y": got}, 1e-4, 1e-5)
	if err == nil || !strings.Contains(err.Error(), "element 1") {
		t.Fatalf("CompareRel: %v, want element 1 (0.01 off at 1) named, not element 0 (the largest error, within its tolerance)", err)
	}
	ints := onnx.Case{Name: "ints", Outputs: map[string]*kernel.Tensor{"y": kernel.FromInt64([]int64{1 << 40}, 1)}}
	if _, err := ints.CompareRel(map[string]*kernel.Tensor{"y": kernel.FromInt64([]int64{1<<40 + 1}, 1)}, 0, 0.5); err == nil {
		t.Fatal("CompareRel: an integer one off accepted by a relative tolerance")
	}
}

// TestCompareNamesIntegersExactly: a mismatch of a 64-bit integer output
// names both values in full (beyond 2^53 too) and says integers compare
// exactly, rather than giving an infinite error.
func TestCompareNamesIntegersExactly(t *testing.T) {
	c := onnx.Case{Name: "ints", Outputs: map[string]*kernel.Tensor{"y": kernel.FromInt64([]int64{1, 9007199254740995}, 2)}}
	_, err := c.Compare(map[string]*kernel.Tensor{"y": kernel.FromInt64([]int64{1, 9007199254740996}, 2)}, 1e-5)
	if err == nil || !strings.Contains(err.Error(), "element 1 is 9007199254740996, want 9007199254740995 (int64 compares exactly)") {
		t.Fatalf("Compare: %v", err)
	}
}

// TestCompareNamesInt32Exactly: an int32 mismatch is written as integers.
func TestCompareNamesInt32Exactly(t *testing.T) {
	c := onnx.Case{Name: "ints", Outputs: map[string]*kernel.Tensor{"y": kernel.FromInt32([]int32{2147483647}, 1)}}
	_, err := c.Compare(map[string]*kernel.Tensor{"y": kernel.FromInt32([]int32{-2}, 1)}, 1e-5)
	if err == nil || !strings.Contains(err.Error(), "element 0 is -2, want 2147483647 (int32 compares exactly)") {
		t.Fatalf("Compare: %v", err)
	}
}
