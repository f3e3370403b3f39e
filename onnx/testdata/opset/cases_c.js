// Cases for gen.js (the format of cases.js): the forms of opsets 23 to 25:
// Cast-24 and CastLike-24 (round_mode), QuantizeLinear-23 (precision),
// DequantizeLinear-23 (output_dtype), and the new ops RMSNormalization-23,
// Swish-24 and RotaryEmbedding-23.
const f = 'float32', h = 'float16', d = 'float64';
const konst = (name, dtype, shape, v) => [name, dtype, shape, v, true];

const castCases = [];
// round_mode concerns float8e8m0 only, saturate float 8 types only.
// onnxruntime's Cast refuses round_mode down and nearest and saturate 0 for
// any other target type (its CastLike takes the round_modes).
for (const opset of [24, 25]) {
  castCases.push(
    { name: `cast_${opset}_round_mode_up_float_int32`, opset, op: 'Cast', attrs: { to: 6, round_mode: 'up', saturate: 1 },
      inputs: [['x', f, [8], [1.5, -2.7, 0.49, -0.5, 1e9, -1e9, 2147483520, -2147483648]]], outputs: [['y', 'int32']] },
    { name: `cast_${opset}_default_double_float16`, opset, op: 'Cast', attrs: { to: 10 },
      inputs: [['x', d, [7], [1e-8, 65504, 65520, -70000, 0.1, 1 / 3, NaN]]], outputs: [['y', h]] },
    { name: `cast_${opset}_float16_int8`, opset, op: 'Cast', attrs: { to: 3, round_mode: 'up' },
      inputs: [['x', h, [6], [1.5, -2.75, 127.9, -128.9, 0, -0.1]]], outputs: [['y', 'int8']] },
    { name: `cast_${opset}_int64_float`, opset, op: 'Cast', attrs: { to: 1, saturate: 1 },
      inputs: [['x', 'int64', [2, 3]]], outputs: [['y', f]] },
    { name: `cast_${opset}_float_bool`, opset, op: 'Cast', attrs: { to: 9 },
      inputs: [['x', f, [5], [0, -0, 0.1, NaN, -3]]], outputs: [['y', 'bool']] },
  );
  for (const mode of ['up', 'down', 'nearest']) {
    castCases.push({ name: `castlike_${opset}_round_mode_${mode}`, opset, op: 'CastLike', attrs: { round_mode: mode },
      inputs: [['x', f, [6], [1.5, -2.5, 3.7, 0, 127.9, -128.9]], konst('like', 'int8', [1], [0])], outputs: [['y', 'int8']] });
  }
  castCases.push(
    { name: `castlike_${opset}_float16_saturate`, opset, op: 'CastLike', attrs: { saturate: 1, round_mode: 'nearest' },
      inputs: [['x', f, [5], [1e-8, 65504, 1e5, 0.1, -3]], konst('like', h, [0], [])], outputs: [['y', h]] },
    { name: `castlike_${opset}_default_uint8_float64`, opset, op: 'CastLike',
      inputs: [['x', 'uint8', [2, 3]], konst('like', d, [1], [0])], outputs: [['y', d]] },
  );
}

// Scales in [0.01, 0.05) and zero points by index (as cases_b.js), so the
// quantized values spread over the range and some saturate.
const scalesOf = (n) => Array.from({ length: n }, (_, i) => 0.01 + 0.04 * ((i * 7919) % 97) / 97);
const zerosOf = (n, dtype) => Array.from({ length: n }, (_, i) => (dtype === 'int8' ? (i * 37) % 61 - 30 : (i * 53) % 201 + 20));
const count = (shape) => shape.reduce((a, b) => a * b, 1);

function quantize(name, opset, x, attrs, scaleShape, zp, outType, xType = f, xData) {
  const inputs = [['x', xType, x, xData], konst('scale', xType, scaleShape, scalesOf(count(scaleShape)))];
  if (zp) inputs.push(konst('zp', zp, scaleShape, zerosOf(count(scaleShape), zp)));
  return { name, opset, op: 'QuantizeLinear', attrs, inputs, outputs: [['y', outType || zp || 'uint8']] };
}

function dequantize(name, opset, x, xType, attrs, scaleShape, zp, scaleType = f) {
  const inputs = [['x', xType, x], konst('scale', scaleType, scaleShape, scalesOf(count(scaleShape)))];
  if (zp) inputs.push(konst('zp', xType, scaleShape, zerosOf(count(scaleShape), xType)));
  return { name, opset, op: 'DequantizeLinear', attrs, inputs, outputs: [['y', scaleType]] };
}

// x / 0.1 near k + 0.5 in float16: a division rounded in float16 and one
// rounded in float32 round some of these to different integers.
const ties16 = [10.146, 10.246, 10.346, 10.446, 10.546, 10.646, 10.746, 10.846, 12.1, 12.15, 12.2, 12.25, 12.3, 12.35, 12.4, 12.45];
// 10.050000190734863 / 0.1f is 100.5 in float32 and above it in float64.
const ties32 = [10.050000190734863, 10.05, 0.25, -0.25, 0.35, -0.35];
const quantCases = [];
for (const opset of [23, 24, 25]) {
  quantCases.push(
    quantize(`quantizelinear_${opset}_precision_0`, opset, [3, 5], { precision: 0 }, [], 'int8'),
    quantize(`quantizelinear_${opset}_precision_float32`, opset, [2, 3, 4], { precision: 1, axis: 1 }, [3], 'uint8'),
    quantize(`quantizelinear_${opset}_precision_float32_blocked`, opset, [4, 6], { precision: 1, axis: 1, block_size: 2, output_dtype: 3 }, [4, 3], undefined, 'int8'),
    quantize(`quantizelinear_${opset}_float16`, opset, [3, 4], {}, [], 'uint8', undefined, h),
    quantize(`quantizelinear_${opset}_float16_precision_float16_per_axis`, opset, [3, 4], { precision: 10, axis: 0 }, [3], 'int8', undefined, h),
    quantize(`quantizelinear_${opset}_float16_precision_float32`, opset, [2, 6], { precision: 1, axis: -1 }, [6], 'uint8', undefined, h),
    { name: `quantizelinear_${opset}_float16_ties`, opset, op: 'QuantizeLinear', attrs: { precision: 10 },
      inputs: [['x', h, [ties16.length], ties16], konst('scale', h, [], [0.1])], outputs: [['y', 'uint8']] },
    { name: `quantizelinear_${opset}_float16_ties_precision_float32`, opset, op: 'QuantizeLinear', attrs: { precision: 1 },
      inputs: [['x', h, [ties16.length], ties16], konst('scale', h, [], [0.1])], outputs: [['y', 'uint8']] },
    { name: `quantizelinear_${opset}_float32_ties`, opset, op: 'QuantizeLinear', attrs: { precision: 1 },
      inputs: [['x', f, [ties32.length], ties32], konst('scale', f, [], [0.1]), konst('zp', 'int8', [], [-1])], outputs: [['y', 'int8']] },
    quantize(`quantizelinear_${opset}_no_precision`, opset, [5, 4], { axis: 0, block_size: 2 }, [3, 4], 'int8'),

    dequantize(`dequantizelinear_${opset}_output_dtype_0`, opset, [3, 5], 'uint8', { output_dtype: 0 }, [], true),
    dequantize(`dequantizelinear_${opset}_output_dtype_float32`, opset, [2, 3, 4], 'int8', { output_dtype: 1, axis: 1 }, [3], true),
    dequantize(`dequantizelinear_${opset}_output_dtype_float32_blocked`, opset, [4, 6], 'int32', { output_dtype: 1, axis: 1, block_size: 4 }, [4, 2]),
    dequantize(`dequantizelinear_${opset}_float16`, opset, [3, 4], 'int8', { axis: 1 }, [4], true, h),
    dequantize(`dequantizelinear_${opset}_float16_output_dtype_float16`, opset, [5, 3], 'uint8', { output_dtype: 10, axis: 0, block_size: 2 }, [3, 3], true, h),
    dequantize(`dequantizelinear_${opset}_no_output_dtype`, opset, [2, 5], 'int8', {}, [], true),
  );
}

const rms = (name, opset, x, scale, attrs = {}, t = f, xData, scaleData) => ({
  name, opset, op: 'RMSNormalization', attrs,
  inputs: [['x', t, x, xData], ['scale', t, scale, scaleData]], outputs: [['y', t]],
});
const rmsCases = [];
for (const opset of [23, 24, 25]) {
  rmsCases.push(
    rms(`rmsnormalization_${opset}_default`, opset, [2, 3, 4], [4]),
    rms(`rmsnormalization_${opset}_float16`, opset, [3, 8], [8], {}, h),
    rms(`rmsnormalization_${opset}_float64`, opset, [2, 2, 5], [5], { epsilon: 1e-3 }, d),
  );
}
rmsCases.push(
  rms('rmsnormalization_23_axis_0', 23, [2, 3, 4], [2, 3, 4], { axis: 0 }),
  rms('rmsnormalization_23_axis_1', 23, [2, 3, 4], [3, 4], { axis: 1 }),
  rms('rmsnormalization_23_axis_minus_2', 23, [2, 3, 4], [3, 1], { axis: -2 }),
  rms('rmsnormalization_23_axis_last_4d', 23, [2, 2, 3, 4], [4], { axis: 3 }),
  rms('rmsnormalization_23_scale_row', 23, [2, 3, 4], [1, 4], { axis: 1 }),
  rms('rmsnormalization_23_scale_per_sample', 23, [2, 3, 4], [2, 3, 4], { axis: 1 }),
  rms('rmsnormalization_23_scale_batch_broadcast', 23, [2, 3, 4], [2, 1, 1], { axis: 2 }),
  rms('rmsnormalization_23_scale_scalar', 23, [3, 5], [], { axis: -1 }),
  rms('rmsnormalization_23_rank_1', 23, [7], [7]),
  rms('rmsnormalization_23_epsilon', 23, [2, 6], [6], { epsilon: 0.5 }),
  rms('rmsnormalization_23_stash_type_1', 23, [4, 3], [3], { stash_type: 1 }),
  rms('rmsnormalization_23_zeros_and_large', 23, [3, 4], [4], {}, f,
    [0, 0, 0, 0, 1e4, -1e4, 3e4, 1, -0, 1e-3, 2e-3, -5e-4], [1, -1, 0.5, 2]),
  rms('rmsnormalization_23_float16_axis_0', 23, [2, 3, 4], [3, 4], { axis: 0 }, h),
);

// onnxruntime runs Swish at opset 24 only (at 25 it finds no kernel).
const swishCases = [];
const special = [-1e4, -100, -20, -1, -0.5, -0, 0, 1e-6, 0.5, 1, 20, 100, 1e4, Infinity, -Infinity, NaN];
for (const opset of [24]) {
  swishCases.push(
    { name: `swish_${opset}_default`, opset, op: 'Swish', inputs: [['x', f, [3, 5]]], outputs: [['y', f]] },
    { name: `swish_${opset}_alpha`, opset, op: 'Swish', attrs: { alpha: 1.702 }, inputs: [['x', f, [2, 3, 4]]], outputs: [['y', f]] },
    { name: `swish_${opset}_float16`, opset, op: 'Swish', attrs: { alpha: 1.5 }, inputs: [['x', h, [4, 6]]], outputs: [['y', h]] },
    { name: `swish_${opset}_float64`, opset, op: 'Swish', attrs: { alpha: 0.25 }, inputs: [['x', d, [10]]], outputs: [['y', d]] },
  );
}
swishCases.push(
  { name: 'swish_24_special', op: 'Swish', opset: 24, inputs: [['x', f, [special.length], special]], outputs: [['y', f]] },
  { name: 'swish_24_special_alpha_negative', op: 'Swish', opset: 24, attrs: { alpha: -0.5 }, inputs: [['x', f, [special.length], special]], outputs: [['y', f]] },
  { name: 'swish_24_alpha_0', op: 'Swish', opset: 24, attrs: { alpha: { f: 0 } }, inputs: [['x', f, [6], [-3, -1, 0, 1, 2, 5]]], outputs: [['y', f]] },
  { name: 'swish_24_float16_special', op: 'Swish', opset: 24, inputs: [['x', h, [special.length], special]], outputs: [['y', h]] },
);

// RotaryEmbedding: X, then caches of the shape given (random values, or
// with position_ids [batch, seq] of the values given).
function rope(name, opset, x, cache, attrs = {}, pos, t = f) {
  const inputs = [['x', t, x], ['cos', t, cache], ['sin', t, cache]];
  if (pos) inputs.push(['pos', 'int64', [x[0], x.length === 4 ? x[2] : x[1]], pos]);
  return { name, opset, op: 'RotaryEmbedding', attrs, inputs, outputs: [['y', t]] };
}
const ropeCases = [];
for (const opset of [23, 24, 25]) {
  ropeCases.push(
    rope(`rotaryembedding_${opset}_4d`, opset, [2, 2, 3, 4], [2, 3, 2]),
    rope(`rotaryembedding_${opset}_3d`, opset, [2, 3, 8], [2, 3, 2], { num_heads: 2 }),
    rope(`rotaryembedding_${opset}_interleaved_position_ids`, opset, [1, 3, 4, 6], [7, 3], { interleaved: 1 }, [6, 0, 3, 1]),
  );
}
ropeCases.push(
  rope('rotaryembedding_23_interleaved', 23, [1, 2, 3, 8], [1, 3, 4], { interleaved: 1 }),
  rope('rotaryembedding_23_interleaved_3d', 23, [2, 2, 12], [2, 2, 3], { interleaved: 1, num_heads: 2 }),
  rope('rotaryembedding_23_partial', 23, [1, 2, 3, 8], [1, 3, 2], { rotary_embedding_dim: 4 }),
  rope('rotaryembedding_23_partial_interleaved', 23, [1, 2, 3, 8], [1, 3, 3], { rotary_embedding_dim: 6, interleaved: 1 }),
  rope('rotaryembedding_23_partial_3d_position_ids', 23, [2, 3, 12], [5, 2], { rotary_embedding_dim: 4, num_heads: 2 }, [4, 0, 2, 1, 1, 3]),
  rope('rotaryembedding_23_partial_odd_head', 23, [1, 2, 3, 5], [1, 3, 2], { rotary_embedding_dim: 4 }),
  rope('rotaryembedding_23_position_ids', 23, [2, 2, 3, 4], [5, 2], {}, [0, 1, 2, 4, 3, 0]),
  rope('rotaryembedding_23_position_ids_3d', 23, [2, 3, 12], [4, 3], { num_heads: 2 }, [3, 2, 1, 0, 0, 0]),
  rope('rotaryembedding_23_num_heads_4d', 23, [1, 2, 3, 4], [1, 3, 2], { num_heads: 2 }),
  // A 4-D X has its own head count: onnxruntime (and ONNX's reference)
  // ignore num_heads there.
  rope('rotaryembedding_23_num_heads_4d_ignored', 23, [1, 2, 3, 4], [1, 3, 2], { num_heads: 3 }),
  rope('rotaryembedding_23_one_head_3d', 23, [1, 4, 6], [1, 4, 3], { num_heads: 1 }),
  rope('rotaryembedding_23_float16', 23, [1, 2, 3, 8], [1, 3, 4], {}, undefined, h),
  rope('rotaryembedding_23_float16_interleaved_position_ids', 23, [2, 2, 8], [4, 2], { interleaved: 1, num_heads: 2 }, [3, 1, 0, 2], h),
  rope('rotaryembedding_24_partial_interleaved_3d', 24, [1, 2, 16], [1, 2, 2], { rotary_embedding_dim: 4, interleaved: 1, num_heads: 2 }),
  rope('rotaryembedding_25_partial_4d_position_ids', 25, [1, 2, 2, 6], [3, 1], { rotary_embedding_dim: 2 }, [2, 0]),
);

module.exports = [...castCases, ...quantCases, ...rmsCases, ...swishCases, ...ropeCases];
