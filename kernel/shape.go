package kernel

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Shape is the list of a tensor's dimensions, outermost first. A nil or empty
// Shape is a scalar. Dimensions are never negative in a tensor; graph inputs
// may declare Dynamic dimensions, which a run resolves from the real inputs.
type Shape []int64

// Dynamic marks a dimension unknown until run time in a declared input shape.
const Dynamic int64 = -1

// Rank is the number of dimensions.
func (s Shape) Rank() int { return len(s) }

// NumElements is the product of the dimensions (1 for a scalar). It returns
// -1 if a dimension is Dynamic. A product beyond int64 is math.MaxInt64
// (saturated), a count no allocation meets: Validate, the runtime and the
// ONNX importer refuse such shapes before a kernel sees them, and
// Broadcast refuses to make one.
func (s Shape) NumElements() int64 {
	n, _ := s.product(1)
	return n
}

// product is size times the product of s's dimensions: -1 if a dimension
// is negative, 0 if one is 0, and math.MaxInt64 and false if it is beyond
// int64.
func (s Shape) product(size int64) (int64, bool) {
	n := size
	for _, d := range s {
		if d < 0 {
			return -1, true
		}
		if d == 0 {
			n = 0
		}
	}
	if n == 0 {
		return 0, true
	}
	for _, d := range s {
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return math.MaxInt64, false
		}
		n = int64(lo)
	}
	return n, true
}

// Known reports whether no dimension is Dynamic.
func (s Shape) Known() bool {
	for _, d := range s {
		if d < 0 {
			return false
		}
	}
	return true
}

// Equal reports whether s and t have the same dimensions.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy of s that shares no memory with it.
func (s Shape) Clone() Shape {
	if s == nil {
		return nil
	}
	return append(Shape(make([]int64, 0, len(s))), s...)
}

// Strides returns the row-major element strides of s.
func (s Shape) Strides() []int64 {
	st := make([]int64, len(s))
	acc := int64(1)
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

func (s Shape) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		if d == Dynamic {
			b.WriteByte('?')
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(']')
	return b.String()
}

// Broadcast returns the numpy broadcast of a and b: shapes are aligned on
// their last dimension, and each pair of dimensions must be equal or one of
// them 1. A zero-size dimension broadcasts with 1 to 0. A negative (or
// Dynamic) dimension is an error, and so is a broadcast of more elements
// than an int64 counts.
func Broadcast(a, b Shape) (Shape, error) {
	if !a.Known() || !b.Known() {
		return nil, fmt.Errorf("shapes %v and %v: a dimension is negative or dynamic", a, b)
	}
	n := max(len(a), len(b))
	out := make(Shape, n)
	for i := 0; i < n; i++ {
		da, db := int64(1), int64(1)
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast (dimension %d: %d vs %d)", a, b, i, da, db)
		}
	}
	if _, ok := out.product(1); !ok {
		return nil, fmt.Errorf("shapes %v and %v broadcast to %v, more elements than an int64 counts", a, b, out)
	}
	return out, nil
}

// NormAxis turns a possibly negative axis into an index in [0, rank).
func NormAxis(axis int64, rank int) (int, error) {
	if axis < -int64(rank) || axis >= int64(rank) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis), nil
}
