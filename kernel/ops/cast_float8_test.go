package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestCastFloat8Modes: Cast's saturate and round_mode reach the float 8
// conversions, and a float rounds to nearest even into a 4-bit integer
// before it wraps.
func TestCastFloat8Modes(t *testing.T) {
	x := kernel.FromFloat32([]float32{1e6, -1e6, 3, 2.5, -9, 15}, 6)
	for _, c := range []struct {
		to    kernel.DType
		attrs kernel.Attrs
		want  []byte
	}{
		{kernel.Float8E4M3FN, kernel.Attrs{kernel.OpsetAttr: int64(19)}, []byte{0x7e, 0xfe, 0x44, 0x42, 0xd1, 0x57}},
		{kernel.Float8E4M3FN, kernel.Attrs{kernel.OpsetAttr: int64(19), "saturate": int64(0)}, []byte{0x7f, 0xff, 0x44, 0x42, 0xd1, 0x57}},
		{kernel.Float8E5M2, kernel.Attrs{kernel.OpsetAttr: int64(19), "saturate": int64(0)}, []byte{0x7c, 0xfc, 0x42, 0x41, 0xc8, 0x4c}},
		{kernel.Float8E8M0, kernel.Attrs{kernel.OpsetAttr: int64(24)}, []byte{147, 147, 129, 129, 131, 131}},
		{kernel.Float8E8M0, kernel.Attrs{kernel.OpsetAttr: int64(24), "round_mode": "down"}, []byte{146, 146, 128, 128, 130, 130}},
		{kernel.Int4, nil, []byte{0, 0, 3, 2, 7, 0xff}}, // 1e6 and −1e6 keep their low 4 bits (0); 2.5 to even; −9 wraps to 7; 15 to −1
		{kernel.Uint2, nil, []byte{0, 0, 3, 2, 3, 3}},
	} {
		attrs := kernel.Attrs{"to": c.to}
		for k, v := range c.attrs {
			attrs[k] = v
		}
		got, err := hostRun(t, "Cast", attrs, x)
		if err != nil {
			t.Fatalf("to %v %v: %v", c.to, c.attrs, err)
		}
		if string(got.Host) != string(c.want) {
			t.Errorf("to %v %v: % x, want % x", c.to, c.attrs, got.Host, c.want)
		}
	}
}
