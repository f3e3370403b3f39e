package ops

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// matMulNBits is MatMulNBits's impl state: its attributes and the scratch
// it keeps from run to run (the dequantized B, A's quantized blocks).
type matMulNBits struct {
	k, n, bits, blockSize, accuracy int64
	kBlocks, blob                   int64
	w                               []float32 // dequantized B, [N, K]
	qa                              []int8    // A's row quantized to int8 (accuracy_level 4)
	qs                              []float32 // the scales of qa's blocks
	qb                              []int32   // B's quantized values less their zero points, [N, K] (accuracy_level 4)
}

// fma32 is a·b + c rounded once to float32, computed in float64 (a·b is
// exact there) with explicit roundings, so that no fused instruction is
// emitted.
func fma32(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b))
	return float32(p + float64(c))
}

// newMatMulNBits builds MatMulNBits; see contribOps.
func newMatMulNBits(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("K", "N", "bits", "block_size", "accuracy_level"); err != nil {
		return nil, wrapAttr(err)
	}
	m := &matMulNBits{}
	for _, p := range []struct {
		name string
		def  int64
		v    *int64
	}{{"K", -1, &m.k}, {"N", -1, &m.n}, {"bits", 4, &m.bits}, {"block_size", -1, &m.blockSize}, {"accuracy_level", 0, &m.accuracy}} {
		v, err := attrs.Int(p.name, p.def)
		if err != nil {
			return nil, wrapAttr(err)
		}
		*p.v = v
	}
	switch {
	case m.k < 1 || m.n < 1:
		return nil, fmt.Errorf("ops: MatMulNBits: attributes \"K\" %d and \"N\" %d: want both given, ≥ 1", m.k, m.n)
	case m.bits != 4 && m.bits != 8:
		return nil, fmt.Errorf("ops: MatMulNBits: attribute \"bits\" is %d: only 4 and 8 are implemented", m.bits)
	case m.blockSize < 16 || m.blockSize&(m.blockSize-1) != 0:
		return nil, fmt.Errorf("ops: MatMulNBits: attribute \"block_size\" is %d: want a power of 2, ≥ 16", m.blockSize)
	case m.accuracy < 0 || m.accuracy > 4:
		return nil, fmt.Errorf("ops: MatMulNBits: attribute \"accuracy_level\" is %d: want 0 to 4", m.accuracy)
	}
	m.kBlocks = (m.k + m.blockSize - 1) / m.blockSize
	m.blob = m.blockSize * m.bits / 8
	k := &simple{}
	k.inferF = func(in, out []*kernel.Tensor) error {
		if err := m.check(in); err != nil {
			return err
		}
		a := in[0]
		shape := shapeOf(out[0], a.Shape.Rank())
		copy(shape, a.Shape)
		shape[len(shape)-1] = m.n
		out[0].Shape, out[0].DType = shape, a.DType
		return nil
	}
	k.computeF = func(a *kernel.Args) error {
		if err := m.check(a.In); err != nil {
			return err
		}
		if y := a.Out[0]; y.DType != a.In[0].DType || y.NumElements() != a.In[0].NumElements()/m.k*m.n {
			return errors.New("operands differ from the inferred ones")
		}
		m.run(a.In, a.Out[0])
		return nil
	}
	return newKernel(sig{op: "MatMulNBits", minIn: 3, maxIn: 6, nOut: 1}, &nbitsCost{k, m}), nil
}

// nbitsCost is MatMulNBits's impl: simple's, with the product's cost.
type nbitsCost struct {
	*simple
	m *matMulNBits
}

func (c *nbitsCost) cost(in, out []*kernel.Tensor) device.Cost {
	rows := float64(in[0].NumElements() / c.m.k)
	return device.Cost{FLOPs: 2 * rows * float64(c.m.k*c.m.n), Bytes: float64(in[0].Bytes() + in[1].Bytes() + out[0].Bytes())}
}

// check validates MatMulNBits's operands.
func (m *matMulNBits) check(in []*kernel.Tensor) error {
	a, b, scales := in[0], in[1], in[2]
	if err := dtypeIn(a, "A", kernel.Float32, kernel.Float16); err != nil {
		return err
	}
	if a.Shape.Rank() == 0 || a.Shape[a.Shape.Rank()-1] != m.k {
		return fmt.Errorf("input A %v: want its last dimension K = %d", a.Shape, m.k)
	}
	if err := dtypeIn(b, "B", kernel.Uint8); err != nil {
		return err
	}
	if !b.Shape.Equal(kernel.Shape{m.n, m.kBlocks, m.blob}) {
		return fmt.Errorf("input B %v: want [N, ⌈K/block_size⌉, block_size·bits/8] = [%d, %d, %d]", b.Shape, m.n, m.kBlocks, m.blob)
	}
	if err := checkSameDType(scales, "scales", a, "A"); err != nil {
		return err
	}
	if scales.NumElements() != m.n*m.kBlocks || scales.Shape.Rank() > 2 {
		return fmt.Errorf("input scales %v: want [N·⌈K/block_size⌉] or [N, ⌈K/block_size⌉] (%d·%d elements)", scales.Shape, m.n, m.kBlocks)
	}
	if zp := optional(in, 3); zp != nil {
		switch zp.DType {
		case kernel.Uint8:
			if per := (m.kBlocks*m.bits + 7) / 8; zp.NumElements() != m.n*per || zp.Shape.Rank() > 2 {
				return fmt.Errorf("input zero_points %v (uint8, packed): want [N·%d] or [N, %d] (N = %d)", zp.Shape, per, per, m.n)
			}
		case a.DType:
			if m.bits != 4 {
				return fmt.Errorf("input zero_points of dtype %v needs bits 4 (bits is %d), as onnxruntime's CPU kernel", zp.DType, m.bits)
			}
			if zp.NumElements() != m.n*m.kBlocks || zp.Shape.Rank() > 2 {
				return fmt.Errorf("input zero_points %v: want scales' shape (%d·%d elements)", zp.Shape, m.n, m.kBlocks)
			}
		default:
			return fmt.Errorf("input zero_points has dtype %v, want uint8 or A's dtype %v", zp.DType, a.DType)
		}
	}
	if g := optional(in, 4); g != nil {
		if err := dtypeIn(g, "g_idx", kernel.Int32); err != nil {
			return err
		}
		if m.bits != 4 {
			return fmt.Errorf("input g_idx needs bits 4 (bits is %d), as onnxruntime's CPU kernel", m.bits)
		}
		if !g.Shape.Equal(kernel.Shape{m.k}) {
			return fmt.Errorf("input g_idx %v: want [K] = [%d]", g.Shape, m.k)
		}
		for i, v := range kernel.Int32s(g.Data()) {
			if v < 0 || int64(v) >= m.kBlocks {
				return fmt.Errorf("input g_idx[%d] is %d, outside [0, %d)", i, v, m.kBlocks)
			}
		}
	}
	if bias := optional(in, 5); bias != nil {
		if err := checkSameDType(bias, "bias", a, "A"); err != nil {
			return err
		}
		if !bias.Shape.Equal(kernel.Shape{m.n}) {
			return fmt.Errorf("input bias %v: want [N] = [%d]", bias.Shape, m.n)
		}
	}
	return nil
}

// quant returns B's quantized value at row n, column k.
func (m *matMulNBits) quant(b []byte, n, k int64) int32 {
	base := (n*m.kBlocks + k/m.blockSize) * m.blob
	p := k % m.blockSize
	if m.bits == 8 {
		return int32(b[base+p])
	}
	v := b[base+p/2]
	if p%2 == 1 {
		v >>= 4
	}
	return int32(v & 0xf)
}

// zeroPoint returns the packed uint8 zero point of block kb of row n, or
// the default 2^(bits−1) without zero_points.
func (m *matMulNBits) zeroPoint(zp []byte, n, kb int64) int32 {
	if zp == nil {
		return 1 << (m.bits - 1)
	}
	if m.bits == 8 {
		return int32(zp[n*m.kBlocks+kb])
	}
	v := zp[n*((m.kBlocks+1)/2)+kb/2]
	if kb%2 == 1 {
		v >>= 4
	}
	return int32(v & 0xf)
}

func (m *matMulNBits) run(in []*kernel.Tensor, y *kernel.Tensor) {
	a, b, scales := in[0], in[1], in[2]
	dt := a.DType
	zp, gidx, bias := optional(in, 3), optional(in, 4), optional(in, 5)
	rows := a.NumElements() / m.k
	ab, bb, sb, yb := a.Data(), b.Data(), scales.Data(), y.Data()
	scale := func(n, kb int64) float32 { return float32(loadF(dt, sb, n*m.kBlocks+kb)) }
	var zpU8 []byte
	if zp != nil && zp.DType == kernel.Uint8 {
		zpU8 = zp.Data()
	}
	unquantized := gidx != nil || zp != nil && zp.DType != kernel.Uint8
	if m.accuracy == 4 && !unquantized {
		m.runInt8(ab, dt, bb, zpU8, scale, bias, rows, yb)
		return
	}
	m.w = grownF32(m.w, int(m.n*m.k))
	if unquantized {
		// onnxruntime's 4-bit dequantization with g_idx or zero points of
		// A's type: w = q·scale + (−scale·zp), each product rounded, where
		// column k takes the scale (and zero point) of block g_idx[k];
		// uint8 zero points with g_idx are read as 8 (onnxruntime's kernel
		// does not apply them).
		var fzp []byte
		if zp != nil && zp.DType != kernel.Uint8 {
			fzp = zp.Data()
		}
		var g []int32
		if gidx != nil {
			g = kernel.Int32s(gidx.Data())
		}
		for n := range m.n {
			for k := range m.k {
				kb := k / m.blockSize
				rid := kb
				if g != nil {
					rid = int64(g[k])
				}
				s := scale(n, rid)
				z := float32(8)
				if fzp != nil {
					z = float32(loadF(dt, fzp, n*m.kBlocks+rid))
				}
				adj := float32(-s * z)
				m.w[n*m.k+k] = float32(float32(float32(m.quant(bb, n, k))*s) + adj)
			}
		}
	} else {
		for n := range m.n {
			for k := range m.k {
				kb := k / m.blockSize
				q := m.quant(bb, n, k) - m.zeroPoint(zpU8, n, kb)
				m.w[n*m.k+k] = float32(float32(q) * scale(n, kb))
			}
		}
	}
	for r := range rows {
		for n := range m.n {
			var acc float32
			w := m.w[n*m.k : (n+1)*m.k]
			for k := range m.k {
				acc = fma32(float32(loadF(dt, ab, r*m.k+k)), w[k], acc)
			}
			if bias != nil {
				acc += float32(loadF(dt, bias.Data(), n))
			}
			storeF(dt, yb, r*m.n+n, float64(acc))
		}
	}
}

// runInt8 is accuracy_level 4: each block of a row of A is quantized to
// int8 (scale max|a|/127, values rounded half to even), multiplied with
// B's quantized values less their zero points in integers, and the block
// sums accumulate in float32 scaled by both blocks' scales.
func (m *matMulNBits) runInt8(ab []byte, dt kernel.DType, bb, zp []byte, scale func(n, kb int64) float32, bias *kernel.Tensor, rows int64, yb []byte) {
	m.qa = grownI8(m.qa, int(m.kBlocks*m.blockSize))
	m.qs = grownF32(m.qs, int(m.kBlocks))
	m.qb = grownI32(m.qb, int(m.n*m.k))
	for n := range m.n {
		for k := range m.k {
			m.qb[n*m.k+k] = m.quant(bb, n, k) - m.zeroPoint(zp, n, k/m.blockSize)
		}
	}
	for r := range rows {
		for kb := range m.kBlocks {
			lo, hi := kb*m.blockSize, min((kb+1)*m.blockSize, m.k)
			var amax float32
			for k := lo; k < hi; k++ {
				amax = max(amax, float32(math.Abs(loadF(dt, ab, r*m.k+k))))
			}
			s := amax / 127
			var inv float32
			if amax != 0 {
				inv = 1 / s
			}
			m.qs[kb] = s
			for k := lo; k < hi; k++ {
				v := float32(float32(loadF(dt, ab, r*m.k+k)) * inv)
				m.qa[k] = int8(math.RoundToEven(float64(v)))
			}
		}
		for n := range m.n {
			var acc float32
			for kb := range m.kBlocks {
				lo, hi := kb*m.blockSize, min((kb+1)*m.blockSize, m.k)
				var isum int32
				for k := lo; k < hi; k++ {
					isum += int32(m.qa[k]) * m.qb[n*m.k+k]
				}
				sa, sbb := m.qs[kb], scale(n, kb)
				acc = fma32(float32(isum), float32(sa*sbb), acc)
			}
			if bias != nil {
				acc += float32(loadF(dt, bias.Data(), n))
			}
			storeF(dt, yb, r*m.n+n, float64(acc))
		}
	}
}

func grownI8(s []int8, n int) []int8 {
	if cap(s) < n {
		return make([]int8, n)
	}
	return s[:n]
}

func grownI32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}
