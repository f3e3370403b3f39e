package ops

import (
	"testing"
	"unsafe"

	"github.com/pipert/pipert/kernel"
)

// TestSizeof keeps the built-in kernel small: a graph holds one a node
// (64-bit platforms).
func TestSizeof(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit platforms")
	}
	if got := unsafe.Sizeof(opKernel{}); got > 48 {
		t.Errorf("opKernel is %d bytes, want at most 48", got)
	}
}

// TestDepsOfAKernel: a kernel that declares no dependencies reports the
// zero Deps; one that does reports them.
func TestDepsOfAKernel(t *testing.T) {
	add, err := Builtins().New("Add", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := add.Deps(); d.Compute || d.ShapeOnly || d.Volatile || len(d.Value) > 0 {
		t.Errorf("Add's deps %+v, want none", d)
	}
	for op, check := range map[string]func(d kernel.Deps) bool{
		"Reshape": func(d kernel.Deps) bool { return len(d.Value) == 1 && d.Value[0] == 1 },
		"Unique":  func(d kernel.Deps) bool { return d.Compute },
		"Shape":   func(d kernel.Deps) bool { return d.ShapeOnly },
	} {
		k, err := Builtins().New(op, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := k.Deps(); !check(d) {
			t.Errorf("%s's deps %+v", op, d)
		}
	}
}

// TestSplitOfManyOutputs: Split's num_outputs fits the kernel's counts or
// is refused, never a panic.
func TestSplitOfManyOutputs(t *testing.T) {
	for _, n := range []int64{32767, 32768, 1 << 16, 1 << 40} {
		_, err := Builtins().New("Split", kernel.Attrs{"num_outputs": n, kernel.OpsetAttr: int64(18)})
		if (err != nil) != (n > 32767) {
			t.Errorf("num_outputs %d: %v", n, err)
		}
	}
}
