package ops

import (
	"math"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// TestLossesByHand checks the losses on a case worked out by hand: two
// samples of three classes, one target ignored, class weights.
func TestLossesByHand(t *testing.T) {
	x := kernel.FromFloat32([]float32{-1, -2, -3, -0.5, -1.5, -2.5}, 2, 3)
	target := kernel.FromInt64([]int64{2, 1}, 2)
	w := kernel.FromFloat32([]float32{1, 2, 4}, 3)
	// Losses: −x[0,2]·w[2] = 12, −x[1,1]·w[1] = 3.
	for _, c := range []struct {
		attrs kernel.Attrs
		want  []float64
	}{
		{kernel.Attrs{"reduction": "none"}, []float64{12, 3}},
		{kernel.Attrs{"reduction": "sum"}, []float64{15}},
		{kernel.Attrs{}, []float64{15.0 / 6}},
		{kernel.Attrs{"ignore_index": int64(1)}, []float64{12.0 / 4}},
	} {
		got := values(mustRun(t, "NegativeLogLikelihoodLoss", c.attrs, x, target, w))
		for i, v := range c.want {
			if math.Abs(got[i]-v) > 1e-6 {
				t.Fatalf("%v: loss %v, want %v", c.attrs, got, c.want)
			}
		}
	}
	// Softmax cross entropy: the NLL of log_softmax, which is its second
	// output.
	out, err := runOp("SoftmaxCrossEntropyLoss", kernel.Attrs{"reduction": "none"}, x, target)
	if err != nil {
		t.Fatal(err)
	}
	lp := values(out[1])
	for n := range 2 {
		var s float64
		for c := range 3 {
			s += math.Exp(values(x)[3*n+c])
		}
		for c := range 3 {
			if want := values(x)[3*n+c] - math.Log(s); math.Abs(lp[3*n+c]-want) > 1e-6 {
				t.Fatalf("log_prob[%d,%d] = %g, want %g", n, c, lp[3*n+c], want)
			}
		}
	}
	if l := values(out[0]); math.Abs(l[0]+lp[2]) > 1e-6 || math.Abs(l[1]+lp[4]) > 1e-6 {
		t.Fatalf("loss %v from log_prob %v", l, lp)
	}
	wantErr(t, "NegativeLogLikelihoodLoss", nil, []*kernel.Tensor{x, kernel.FromInt64([]int64{3, 0}, 2)}, "target 3")
	wantErr(t, "NegativeLogLikelihoodLoss", kernel.Attrs{"reduction": "avg"}, nil, "reduction")
	wantErr(t, "NegativeLogLikelihoodLoss", nil, []*kernel.Tensor{x, kernel.FromInt64([]int64{1, 0, 1}, 3)}, "target")
}
