package main

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestStoreScalar: -const parses a value of each dtype into its bytes,
// and refuses one the dtype cannot hold.
func TestStoreScalar(t *testing.T) {
	for _, tc := range []struct {
		dt   kernel.DType
		val  string
		want []byte // little-endian; nil: refused
	}{
		{kernel.Float32, "1.5", []byte{0, 0, 0xc0, 0x3f}},
		{kernel.Float64, "-2", []byte{0, 0, 0, 0, 0, 0, 0, 0xc0}},
		{kernel.Float16, "1", []byte{0, 0x3c}},
		{kernel.BFloat16, "1", []byte{0x80, 0x3f}},
		{kernel.Int8, "-2", []byte{0xfe}},
		{kernel.Int8, "300", nil},
		{kernel.Int16, "-2", []byte{0xfe, 0xff}},
		{kernel.Int32, "16000", []byte{0x80, 0x3e, 0, 0}},
		{kernel.Int64, "-1", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{kernel.Uint8, "255", []byte{0xff}},
		{kernel.Uint8, "-1", nil},
		{kernel.Uint16, "65535", []byte{0xff, 0xff}},
		{kernel.Uint32, "4294967295", []byte{0xff, 0xff, 0xff, 0xff}},
		{kernel.Uint64, "18446744073709551615", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{kernel.Bool, "1", []byte{1}},
		{kernel.Bool, "2", nil},
		{kernel.Float32, "x", nil},
	} {
		s := kernel.New(tc.dt)
		err := storeScalar(s, tc.val)
		switch {
		case tc.want == nil && err == nil:
			t.Errorf("%v %q: stored %v, want an error", tc.dt, tc.val, s.Host)
		case tc.want != nil && err != nil:
			t.Errorf("%v %q: %v", tc.dt, tc.val, err)
		case tc.want != nil && string(s.Host) != string(tc.want):
			t.Errorf("%v %q: stored %v, want %v", tc.dt, tc.val, s.Host, tc.want)
		}
	}
}
