package lines

import (
	"reflect"
	"strings"
	"testing"
)

func TestApart(t *testing.T) {
	type padded struct {
		a int64
		_ [Size]byte
		b int64
		c int64
		_ [Size]byte
		d int64
	}
	_ = padded{a: 1, b: 2, c: 3, d: 4} // the fields are read by reflection
	if err := Apart(reflect.TypeFor[padded](), "b", "c"); err != nil {
		t.Errorf("padded group: %v", err)
	}
	type near struct {
		a int64
		_ [Size - 8]byte
		b int64
	}
	_ = near{a: 1, b: 2}
	err := Apart(reflect.TypeFor[near](), "b")
	if err == nil || !strings.Contains(err.Error(), "field a") {
		t.Errorf("a group 56 bytes from another field: got %v, want an error naming a", err)
	}
	if err := Apart(reflect.TypeFor[padded](), "b", "nonesuch"); err == nil {
		t.Error("a group naming no field: no error")
	}
}
