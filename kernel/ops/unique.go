package ops

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Unique outputs the distinct values of its input (float32, float16, int32
// or int64, any shape, read flattened) as a 1-D tensor sorted ascending, like
// torch.unique(sorted=True). Floats order -0 before +0 but count them as one
// value (the first kept), and order NaN last, all NaNs counting as one value.
//
// It is compute dependent: InferShape reports the upper bound [N] (N input
// elements), the runtime allocates for it, Compute writes the U distinct
// values to the front of the output, and OutputShapes reports [U]. On a
// virtual input the model is U = 1 + mix(Seed) mod N (uniform in [1, N];
// 0 when N is 0), with mix the splitmix64 finalizer: reproducible per seed.
//
// Tiling (words):
//
//	0  N   1 cores   2 elements per core: each core sorts its share, the
//	   shares are merged
//
// Workspace: the sort buffer, N elements. Cost: N·⌈log2 N⌉ comparisons;
// bytes of the input and, twice, of the output bound (sorted in place).
type unique struct {
	count int64 // distinct values found by the last Compute
	have  bool  // count belongs to a Compute not yet reported
}

func newUnique(attrs kernel.Attrs) (kernel.Kernel, error) {
	for _, name := range []string{"sorted", "axis", "outputs"} {
		if _, ok := attrs[name]; ok {
			return newUniqueONNX(attrs) // ONNX's form: see uniqueONNX
		}
	}
	if err := attrs.Check(); err != nil {
		return nil, wrapAttr(err)
	}
	s := sig{op: "Unique", minIn: 1, maxIn: 1, nOut: 1, deps: kernel.Deps{Compute: true}}
	return newKernel(s, &unique{}), nil
}

func (k *unique) infer(in, out []*kernel.Tensor) error {
	x := in[0]
	if err := checkNumeric(x, "X"); err != nil {
		return err
	}
	s := shapeOf(out[0], 1)
	s[0] = x.NumElements()
	out[0].Shape, out[0].DType = s, x.DType
	return nil
}

func (k *unique) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	n := in[0].NumElements()
	if out[0].NumElements() != n {
		return 0, fmt.Errorf("output %v is not the bound [%d]", out[0].Shape, n)
	}
	cores := min(max(ceilDiv(n, tileAlign), 1), numCores)
	e.grow(3)
	e.put(n)
	e.put(cores)
	e.put(ceilDiv(n, cores))
	return n * int64(in[0].DType.Size()), nil
}

func (k *unique) cost(in, out []*kernel.Tensor) device.Cost {
	n := float64(in[0].NumElements())
	var f float64
	if n > 1 {
		f = n * math.Ceil(math.Log2(n))
	}
	return device.Cost{FLOPs: f, Bytes: float64(in[0].Bytes() + 2*out[0].Bytes())}
}

func (k *unique) compute(a *kernel.Args) error {
	x, o := a.In[0], a.Out[0]
	k.have = false
	n := x.NumElements()
	if x.DType != o.DType || o.NumElements() != n {
		return errors.New("operands differ from the inferred ones")
	}
	d := decoder{b: a.Tiling.Data}
	tn, cores, per := d.word(), d.word(), d.word()
	if d.bad || tn != n || cores < 0 || cores > numCores || per < 0 {
		return errTiling
	}
	ob := o.Data()
	copy(ob, x.Data()[:x.Bytes()])
	switch x.DType {
	case kernel.Float32:
		k.count = uniqueSorted(kernel.Float32s(ob)[:n], cmpFloat32, sameFloat32)
	case kernel.Float16:
		k.count = uniqueSorted(kernel.Uint16s(ob)[:n], cmpFloat16, sameFloat16)
	case kernel.Int32:
		k.count = uniqueSorted(kernel.Int32s(ob)[:n], cmp.Compare[int32], same[int32])
	case kernel.Int64:
		k.count = uniqueSorted(kernel.Int64s(ob)[:n], cmp.Compare[int64], same[int64])
	}
	k.have = true
	return nil
}

func (k *unique) outputShapes(a *kernel.Args) ([]kernel.Shape, error) {
	if !a.Real() {
		n := a.In[0].NumElements()
		var u int64
		if n > 0 {
			u = 1 + int64(mix(a.Seed)%uint64(n))
		}
		return []kernel.Shape{{u}}, nil
	}
	if !k.have {
		return nil, errors.New("output shapes asked before the kernel computed")
	}
	k.have = false
	return []kernel.Shape{{k.count}}, nil
}

// uniqueSorted sorts v and moves its distinct values to the front,
// returning their count.
func uniqueSorted[T any](v []T, compare func(a, b T) int, eq func(a, b T) bool) int64 {
	slices.SortFunc(v, compare)
	w := 0
	for i := range v {
		if w == 0 || !eq(v[w-1], v[i]) {
			v[w] = v[i]
			w++
		}
	}
	return int64(w)
}

func same[T comparable](a, b T) bool { return a == b }

// cmpFloat32 orders floats ascending, -0 before +0, NaN last.
func cmpFloat32(a, b float32) int {
	an, bn := a != a, b != b
	switch {
	case an || bn:
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		}
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	sa, sb := math.Signbit(float64(a)), math.Signbit(float64(b))
	switch {
	case sa == sb:
		return 0
	case sa:
		return -1
	}
	return 1
}

func sameFloat32(a, b float32) bool { return a == b || (a != a && b != b) }

func cmpFloat16(a, b uint16) int { return cmpFloat32(kernel.F16ToF32(a), kernel.F16ToF32(b)) }

func sameFloat16(a, b uint16) bool { return sameFloat32(kernel.F16ToF32(a), kernel.F16ToF32(b)) }
