package ops

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// UnpackedAttr is the pipert attribute of GatherBlockQuantized saying that
// data and zero_points hold one 4-bit value a byte (int8 for INT4, uint8
// for UINT4), as the ONNX importer reads a model's INT4 and UINT4
// tensors; without it uint8 data packs 8/bits values a byte.
const UnpackedAttr = "pipert_unpacked"

// gatherBlockQuantized is onnxruntime's GatherBlockQuantized (domain
// com.microsoft), the embedding lookup of block-quantized language models:
//
//	GatherBlockQuantized(data, indices, scales[, zero_points]) (gather_axis
//	0, quantize_axis 1, block_size 128, bits 4) → output
//
// gathers slices of data along gather_axis, as Gather does, and
// dequantizes each value v as float32(v − zp)·scale in float32 (rounded to
// float16 for float16 scales), where scale and zp are those of v's block:
// blocks of block_size consecutive values along quantize_axis, so that
// scales has data's shape but ceil(n/block_size) along quantize_axis (n
// the values there). block_size is a power of 2 of at least 16.
//
// data is uint8 holding 8/bits values a byte (bits 2, 4 or 8; the first
// value in the low bits) along the last axis, which must be quantize_axis,
// with gather_axis 0; the output's last dimension is the unpacked count.
// Zero points are then packed alike along the scales' last axis, and
// default to 2^(bits−1). Or, with UnpackedAttr (a model's INT4 or UINT4
// data), data is int8 or uint8 of 4-bit values (bits 4), any gather and
// quantize axes, and zero points of data's dtype and the scales' shape,
// default 0. Indices are int32 or int64, negative ones counting from the
// end; an index out of range is an error (onnxruntime writes zeros).
// scales are float32 or float16, the output's dtype (bfloat16 refused, as
// onnxruntime refuses it).
type gatherBlockQuantized struct {
	gatherAxis, quantizeAxis int64
	blockSize, bits          int64
	unpacked                 bool
}

func newGatherBlockQuantized(attrs kernel.Attrs) (kernel.Kernel, error) {
	if err := attrs.Check("gather_axis", "quantize_axis", "block_size", "bits", UnpackedAttr); err != nil {
		return nil, wrapAttr(err)
	}
	k := &gatherBlockQuantized{}
	var err error
	if k.gatherAxis, err = attrs.Int("gather_axis", 0); err != nil {
		return nil, wrapAttr(err)
	}
	if k.quantizeAxis, err = attrs.Int("quantize_axis", 1); err != nil {
		return nil, wrapAttr(err)
	}
	if k.blockSize, err = attrs.Int("block_size", 128); err != nil {
		return nil, wrapAttr(err)
	}
	if k.bits, err = attrs.Int("bits", 4); err != nil {
		return nil, wrapAttr(err)
	}
	unpacked, err := attrs.Int(UnpackedAttr, 0)
	if err != nil {
		return nil, wrapAttr(err)
	}
	k.unpacked = unpacked != 0
	if k.blockSize < 16 || k.blockSize&(k.blockSize-1) != 0 {
		return nil, fmt.Errorf("ops: GatherBlockQuantized: block_size %d: want a power of 2 of at least 16", k.blockSize)
	}
	switch {
	case k.unpacked && k.bits != 4:
		return nil, fmt.Errorf("ops: GatherBlockQuantized: bits %d: 4-bit data takes bits 4", k.bits)
	case !k.unpacked && k.bits != 2 && k.bits != 4 && k.bits != 8:
		return nil, fmt.Errorf("ops: GatherBlockQuantized: bits %d: want 2, 4 or 8", k.bits)
	}
	return newKernel(sig{op: "GatherBlockQuantized", minIn: 3, maxIn: 4, nOut: 1}, k), nil
}

// gbqGeometry is a call's layout: the axes, the values per byte along the
// quantize axis, and the sizes the output and the block indices need.
type gbqGeometry struct {
	g, q       int   // gather and quantize axes
	per        int64 // values a byte of data along the quantize axis (1 unpacked)
	axisLen    int64 // data's values along the gather axis
	outer      int64 // values before the gather axis (product of the logical dims)
	inner      int64 // values after it: one gathered slice
	qLen, qN   int64 // values along the quantize axis, and after it
	blocks     int64 // blocks along the quantize axis
	zpPer      int64 // zero points a byte along the scales' last axis (packed)
	zpRowBytes int64 // bytes a row of packed zero points
}

// check validates the operands and returns their geometry and the
// output's shape.
func (k *gatherBlockQuantized) check(in []*kernel.Tensor) (gbqGeometry, kernel.Shape, error) {
	var geo gbqGeometry
	data, indices, scales, zp := in[0], in[1], in[2], optional(in, 3)
	if k.unpacked {
		if err := dtypeIn(data, "data", kernel.Int4, kernel.Uint4, kernel.Int8, kernel.Uint8); err != nil {
			return geo, nil, err
		}
	} else if err := dtypeIn(data, "data", kernel.Uint8); err != nil {
		return geo, nil, err
	}
	if err := dtypeIn(indices, "indices", kernel.Int32, kernel.Int64); err != nil {
		return geo, nil, err
	}
	if err := dtypeIn(scales, "scales", kernel.Float32, kernel.Float16); err != nil {
		return geo, nil, err
	}
	if zp != nil {
		if err := checkSameDType(zp, "zero_points", data, "data"); err != nil {
			return geo, nil, err
		}
	}
	r := data.Shape.Rank()
	g, err := kernel.NormAxis(k.gatherAxis, r)
	if err != nil {
		return geo, nil, fmt.Errorf("gather_axis: %w", err)
	}
	q, err := kernel.NormAxis(k.quantizeAxis, r)
	if err != nil {
		return geo, nil, fmt.Errorf("quantize_axis: %w", err)
	}
	geo.g, geo.q, geo.per = g, q, 1
	if !k.unpacked {
		if g != 0 || q != r-1 || g == q {
			return geo, nil, fmt.Errorf("uint8 data %v: gather_axis (%d) must be 0 and quantize_axis (%d) the last axis, another", data.Shape, g, q)
		}
		geo.per = 8 / k.bits
	}
	logical := make(kernel.Shape, r)
	copy(logical, data.Shape)
	logical[q] *= geo.per
	geo.axisLen = logical[g]
	geo.outer = logical[:g].NumElements()
	geo.inner = logical[g+1:].NumElements()
	geo.qLen, geo.qN = logical[q], logical[q+1:].NumElements()
	geo.blocks = (geo.qLen + k.blockSize - 1) / k.blockSize
	if scales.Shape.Rank() != r {
		return geo, nil, fmt.Errorf("scales %v: want the rank of data %v", scales.Shape, data.Shape)
	}
	for i, d := range scales.Shape {
		want := data.Shape[i]
		if i == q {
			want = geo.blocks
		}
		if d != want {
			return geo, nil, fmt.Errorf("scales %v do not fit data %v: dimension %d is %d, want %d (blocks of %d along axis %d)", scales.Shape, data.Shape, i, d, want, k.blockSize, q)
		}
	}
	if zp != nil {
		want := scales.Shape
		if geo.per > 1 {
			want = make(kernel.Shape, r)
			copy(want, scales.Shape)
			want[q] = (geo.blocks + geo.per - 1) / geo.per
			geo.zpPer, geo.zpRowBytes = geo.per, want[q]
		}
		if !zp.Shape.Equal(want) {
			return geo, nil, fmt.Errorf("zero_points %v: want %v for scales %v", zp.Shape, want, scales.Shape)
		}
	}
	out := make(kernel.Shape, 0, r-1+indices.Shape.Rank())
	out = append(out, logical[:g]...)
	out = append(out, indices.Shape...)
	out = append(out, logical[g+1:]...)
	if err := checkElems(out); err != nil {
		return geo, nil, err
	}
	return geo, out, nil
}

func (k *gatherBlockQuantized) infer(in, out []*kernel.Tensor) error {
	_, shape, err := k.check(in)
	if err != nil {
		return err
	}
	setShape(out[0], shape, in[2].DType)
	return nil
}

func (k *gatherBlockQuantized) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	if _, _, err := k.check(in); err != nil {
		return 0, err
	}
	e.grow(splitWords)
	splitElems(out[0].NumElements(), out[0].DType.Size(), 4).put(e)
	return 0, nil
}

func (k *gatherBlockQuantized) cost(in, out []*kernel.Tensor) device.Cost {
	return device.Cost{FLOPs: 2 * float64(out[0].NumElements()), Bytes: ioBytes(in, out)}
}

// value is the logical value i of data: a byte, a 4-bit or 2-bit field of
// one (packed), or a widened 4-bit value.
func (k *gatherBlockQuantized) value(data *kernel.Tensor, b []byte, i int64) int32 {
	switch {
	case k.unpacked:
		return int32(loadI(data.DType, b, i))
	case k.bits == 8:
		return int32(b[i])
	case k.bits == 4:
		return int32(b[i>>1]>>(4*(i&1))) & 0xf
	default:
		return int32(b[i>>2]>>(2*(i&3))) & 0x3
	}
}

func (k *gatherBlockQuantized) compute(a *kernel.Args) error {
	d := decoder{b: a.Tiling.Data}
	if err := readSplit(&d, a.Out[0].NumElements()); err != nil {
		return err
	}
	geo, shape, err := k.check(a.In)
	if err != nil {
		return err
	}
	data, indices, scales, zp, o := a.In[0], a.In[1], a.In[2], optional(a.In, 3), a.Out[0]
	if !o.Shape.Equal(shape) || o.DType != scales.DType {
		return errors.New("operands differ from the inferred ones")
	}
	db, ib, sb, ob := data.Data(), indices.Data(), scales.Data(), o.Data()
	var zb []byte
	if zp != nil {
		zb = zp.Data()
	}
	n := indices.NumElements()
	qBlock := geo.qLen * geo.qN // values of one index before the quantize axis
	scaleBlock := geo.blocks * geo.qN
	// Validate the indices first: an error leaves no partial output.
	for j := range n {
		if idx := loadI(indices.DType, ib, j); idx < -geo.axisLen || idx >= geo.axisLen {
			return fmt.Errorf("index %d (indices element %d) is out of range [%d, %d) on gather_axis %d", idx, j, -geo.axisLen, geo.axisLen, geo.g)
		}
	}
	var pos int64
	for outer := range geo.outer {
		for j := range n {
			idx := loadI(indices.DType, ib, j)
			if idx < 0 {
				idx += geo.axisLen
			}
			base := (outer*geo.axisLen + idx) * geo.inner
			for e := range geo.inner {
				li := base + e
				// li's block: (before the quantize axis, block along it,
				// after it).
				x, y, z := li/qBlock, li%qBlock/geo.qN, li%geo.qN
				si := x*scaleBlock + y/k.blockSize*geo.qN + z
				var zv int32
				switch {
				case zp == nil && !k.unpacked:
					zv = 1 << (k.bits - 1)
				case zp == nil:
				case geo.zpPer > 1:
					// Packed zero points: the quantize axis is the last,
					// so si is (row, block) with blocks per row.
					row, blk := si/geo.blocks, si%geo.blocks
					shift := (8 / geo.zpPer) * (blk % geo.zpPer)
					zv = int32(zb[row*geo.zpRowBytes+blk/geo.zpPer]>>shift) & (1<<(8/geo.zpPer) - 1)
				default:
					zv = int32(loadI(zp.DType, zb, si))
				}
				s := float32(loadF(scales.DType, sb, si))
				storeF(o.DType, ob, pos, float64(float32(k.value(data, db, li)-zv)*s))
				pos++
			}
		}
	}
	return nil
}
