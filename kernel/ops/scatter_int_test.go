package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestScatterIntegersExact: ScatterND and ScatterElements with reduction add
// and mul combine int64 elements in int64, exactly where float64 rounds:
// 2^53 + 1 + 2 is 2^53 + 3 (float64: 2^53 + 4), and 3037000499² is
// 9223372030926249001 (float64: 9223372030926249216).
func TestScatterIntegersExact(t *testing.T) {
	const big = int64(1)<<53 + 1
	const root = int64(3037000499)
	for _, c := range []struct {
		red      string
		data, up int64
		want     int64
	}{
		{"add", big, 2, big + 2},
		{"mul", root, root, root * root},
	} {
		data := kernel.New(kernel.Int64, 2)
		kernel.Int64s(data.Data())[0], kernel.Int64s(data.Data())[1] = c.data, 7
		up := kernel.New(kernel.Int64, 1)
		kernel.Int64s(up.Data())[0] = c.up
		for _, op := range []string{"ScatterElements", "ScatterND"} {
			ix := i64(shp(1), 0)
			if op == "ScatterND" {
				ix = i64(shp(1, 1), 0)
			}
			got := mustRun(t, op, formAttrs(16, "reduction", c.red), data, ix, up)
			if v := kernel.Int64s(got.Data()); v[0] != c.want || v[1] != 7 {
				t.Errorf("%s %s: %v, want [%d 7]", op, c.red, v[:2], c.want)
			}
		}
	}
}
