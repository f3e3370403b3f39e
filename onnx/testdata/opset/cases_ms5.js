// Cases for gen.js (the format of cases.js): onnxruntime's contrib op
// GatherBlockQuantized (domain com.microsoft), the embedding lookup of
// int4-quantized language models: data, scales and zero points are
// initializers, as in exported models; the indices a graph input.
const M = 'com.microsoft', f = 'float32', h = 'float16';
const cases = [];
// gbq adds a case: data [dtype, shape] (uint8 packed by bits, or uint4 and
// int4 one element a value), indices [dtype, shape, values], scales of
// dtype sdt and shape ss, zero points [dtype, shape] or none, and the
// attributes.
const gbq = (name, { data, idx, sdt = f, ss, zp, attrs }) => {
  const ins = [['data', data[0], data[1], null, true], ['indices', idx[0], idx[1], idx[2]], ['scales', sdt, ss, null, true]];
  if (zp) ins.push(['zp', zp[0], zp[1], null, true]);
  cases.push({ name: `ms5_gbq_${name}`, opset: 21, ir: 10, domain: M, op: 'GatherBlockQuantized', attrs,
    inputs: ins, outputs: [['y', sdt]] });
};
const i64 = 'int64', i32 = 'int32';

// uint8 data packs 8/bits values a byte along the last axis (the quantize
// axis; gather_axis 0), the default zero point 2^(bits−1); packed zero
// points likewise along the scales' last axis.
gbq('u8_4bit', { data: ['uint8', [10, 16]], idx: [i64, [2, 3], [0, 9, -1, 3, 3, -10]], ss: [10, 2], attrs: { block_size: 16 } });
gbq('u8_4bit_zp', { data: ['uint8', [10, 16]], idx: [i64, [4], [1, 0, 7, -3]], ss: [10, 2], zp: ['uint8', [10, 1]], attrs: { block_size: 16 } });
gbq('u8_4bit_zp_odd_blocks', { data: ['uint8', [4, 24]], idx: [i64, [3], [3, 0, 2]], ss: [4, 3], zp: ['uint8', [4, 2]], attrs: { block_size: 16 } });
gbq('u8_4bit_f16', { data: ['uint8', [6, 32]], idx: [i32, [2, 2], [5, 0, -2, 1]], sdt: h, ss: [6, 2], attrs: { block_size: 32, quantize_axis: -1 } });
gbq('u8_4bit_rank3', { data: ['uint8', [3, 4, 16]], idx: [i64, [2], [2, 0]], ss: [3, 4, 2], zp: ['uint8', [3, 4, 1]], attrs: { block_size: 16, quantize_axis: 2 } });
gbq('u8_8bit', { data: ['uint8', [6, 40]], idx: [i64, [3], [5, 0, 2]], ss: [6, 3], attrs: { block_size: 16, bits: 8 } });
gbq('u8_8bit_zp', { data: ['uint8', [6, 40]], idx: [i32, [2], [-1, 4]], ss: [6, 3], zp: ['uint8', [6, 3]], attrs: { block_size: 16, bits: 8 } });
gbq('u8_2bit', { data: ['uint8', [5, 8]], idx: [i64, [3], [4, 1, 1]], ss: [5, 2], attrs: { block_size: 16, bits: 2 } });
gbq('u8_2bit_zp', { data: ['uint8', [5, 12]], idx: [i64, [2], [0, 4]], ss: [5, 3], zp: ['uint8', [5, 1]], attrs: { block_size: 16, bits: 2 } });
// uint4 and int4 data: one logical element a value, any gather and
// quantize axes, zero points of data's type (default 0).
gbq('uint4', { data: ['uint4', [8, 32]], idx: [i64, [2, 2], [7, 0, 3, -8]], ss: [8, 2], zp: ['uint4', [8, 2]], attrs: { block_size: 16 } });
gbq('uint4_nozp_f16', { data: ['uint4', [4, 32]], idx: [i32, [3], [3, 1, 0]], sdt: h, ss: [4, 1], attrs: { block_size: 32 } });
gbq('int4_axis1', { data: ['int4', [4, 6, 32]], idx: [i64, [2], [5, -6]], ss: [4, 6, 1], zp: ['int4', [4, 6, 1]], attrs: { gather_axis: 1, quantize_axis: 2, block_size: 32 } });
gbq('int4_quantize_axis0', { data: ['int4', [32, 6]], idx: [i64, [3], [5, 0, 2]], ss: [2, 6], attrs: { gather_axis: 1, quantize_axis: 0, block_size: 16 } });
gbq('int4_kpad', { data: ['int4', [5, 40]], idx: [i64, [2, 1], [4, 0]], ss: [5, 3], zp: ['int4', [5, 3]], attrs: { block_size: 16 } });
gbq('int4_same_axes', { data: ['int4', [32, 3]], idx: [i64, [2], [17, 2]], ss: [2, 3], attrs: { gather_axis: 0, quantize_axis: 0, block_size: 16 } });

// com.microsoft's GridSample (version 1), which PyTorch exporters wrote
// before ONNX had GridSample: GridSample-16's attributes and computation,
// whatever the model's default-domain opset (here 21, where the default
// domain's GridSample names its modes otherwise).
const msgrid = (name, attrs, x = [1, 2, 3, 4], g = [1, 2, 3, 2]) => cases.push({ name: `ms5_gridsample_${name}`, opset: 21, domain: M, op: 'GridSample', attrs,
  inputs: [['x', f, x], ['grid', f, g]], outputs: [['y', f]] });
msgrid('default', {});
msgrid('nearest_border_align', { mode: 'nearest', padding_mode: 'border', align_corners: 1 });
msgrid('bicubic_reflection', { mode: 'bicubic', padding_mode: 'reflection' }, [2, 1, 4, 5], [2, 3, 2, 2]);
msgrid('bicubic_border', { mode: 'bicubic', padding_mode: 'border' }, [1, 2, 3, 4], [1, 4, 5, 2]);
msgrid('bilinear_zeros_align', { mode: 'bilinear', padding_mode: 'zeros', align_corners: 1 });

module.exports = cases;
