// Package lines checks that the fields of a struct written with every
// task by one goroutine share no cache line with fields that other
// goroutines read or write: a line written on one core and read on another
// moves between them with every access.
package lines

import (
	"fmt"
	"reflect"
	"slices"
)

// Size is the cache line size assumed: 64 bytes on the machines pipert
// runs on (x86-64, arm64's common cores).
const Size = 64

// Apart returns an error naming the first field of struct type t outside
// group that lies within Size bytes of a field in group, so that the two
// could share a cache line however the struct is aligned. Blank fields
// (padding) are skipped. Each name in group must be a field of t.
func Apart(t reflect.Type, group ...string) error {
	type span struct {
		name       string
		start, end uintptr
	}
	var in, out []span
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "_" {
			continue
		}
		s := span{f.Name, f.Offset, f.Offset + f.Type.Size()}
		if slices.Contains(group, f.Name) {
			in = append(in, s)
		} else {
			out = append(out, s)
		}
	}
	if len(in) != len(group) {
		return fmt.Errorf("%v: %d of the fields %v found", t, len(in), group)
	}
	for _, g := range in {
		for _, o := range out {
			if o.end+Size > g.start && g.end+Size > o.start {
				return fmt.Errorf("%v: field %s [%d, %d) may share a cache line with %s [%d, %d)", t, o.name, o.start, o.end, g.name, g.start, g.end)
			}
		}
	}
	return nil
}
