package ops

import (
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestWhereNamesItsInputs: Where's dtype errors name X and Y, not their
// positions among the data inputs.
func TestWhereNamesItsInputs(t *testing.T) {
	c := kernel.New(kernel.Bool, 2)
	wantErr(t, "Where", nil, []*kernel.Tensor{c, kernel.New(kernel.Float8E4M3FN, 2), kernel.New(kernel.Float8E4M3FN, 2)}, "input X has dtype float8e4m3fn")
	wantErr(t, "Where", nil, []*kernel.Tensor{c, kernel.New(kernel.Float32, 2), kernel.New(kernel.Int32, 2)}, "Y", "X")
}
