package scenarios

import (
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
)

func init() {
	register(Scenario{
		Name: "decode-steps",
		Description: "consecutive decode steps, the KV length growing by one a step: per layer the 4 attention kernels " +
			"change shape every step, the other 13 do not (the host caches' case)",
		Costs:      StepCosts(),
		Steps:      8,
		CacheStudy: true,
		Build:      func(c Config) (*Workload, error) { return buildDecode(c, true) },
		Params: func(c Config) ([]Param, error) {
			s, err := decodeSizeOf("decode-steps", c)
			return listParams(s.params()), err
		},
	})
}

// StepCosts are decode-steps' synthetic host costs per kernel, each stage
// with what a host cache saves of it: prepare 2 µs, all of it Setup
// (SetupReuse); InferShape 5 µs (InferReuse); Resize 6 µs, of which 5 µs
// compute the tiling (a tiling cache hit); Launch 8 µs, of which 3 µs
// allocate (a memory plan); and at Compile, 20 µs to create each kernel
// (ATB's Runner; a runner-pool hit), an assumed figure.
func StepCosts() pipert.Costs {
	c := DefaultCosts()
	c.Tiling, c.Alloc = 5*time.Microsecond, 3*time.Microsecond
	c.Create = 20 * time.Microsecond
	return c
}

// kvTensor is a KV cache of layer l (which 0: K, 1: V): virtual, or real
// values drawn from the layer's own stream, so that the same step gets the
// same values whichever run asks.
func (d *data) kvTensor(dt kernel.DType, l, which int, shape ...int64) *kernel.Tensor {
	if !d.real {
		return kernel.Virtual(dt, shape...)
	}
	sub := newData(Config{Real: true, Seed: uint64(l*2+which) + 1})
	return sub.float(dt, 1, shape...)
}
