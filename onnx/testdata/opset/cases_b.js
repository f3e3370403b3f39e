// Cases for gen.js (the format of cases.js): Resize-18/19, AveragePool-19,
// DFT-20, QuantizeLinear-19/21 and DequantizeLinear-21.
const f32 = (name, v) => [name, 'float32', [v.length], v, true];
const i64 = (name, v) => [name, 'int64', [v.length], v, true];
const scalar = (name, v, dtype = 'int64') => [name, dtype, [], [v], true];

// resize: X float32 of shape (random values), then the node's other inputs;
// nodeInputs leaves out the absent ones.
function resize(name, opset, shape, attrs, rest, nodeInputs) {
  return { name, opset, op: 'Resize', attrs, inputs: [['x', 'float32', shape], ...rest], nodeInputs, outputs: [['y', 'float32']] };
}
const byScales = (name, opset, shape, attrs, s) => resize(name, opset, shape, attrs, [f32('scales', s)], ['x', '', 'scales']);
const bySizes = (name, opset, shape, attrs, s) => resize(name, opset, shape, attrs, [i64('sizes', s)], ['x', '', '', 'sizes']);

const resizeCases = [
  // Opset 17: the form before axes and antialias, unchanged.
  byScales('resize_17_linear_half_pixel', 17, [1, 2, 4, 5], { mode: 'linear' }, [1, 1, 0.6, 1.7]),
  byScales('resize_17_cubic_align_corners', 17, [1, 1, 4, 4], { mode: 'cubic', coordinate_transformation_mode: 'align_corners' }, [1, 1, 2, 0.5]),

  // antialias: down- and upscaling, linear and cubic, 2-D to 4-D.
  byScales('resize_18_aa_linear_down_2d', 18, [6, 8], { mode: 'linear', antialias: 1 }, [0.5, 0.4]),
  byScales('resize_18_aa_cubic_down_2d', 18, [6, 8], { mode: 'cubic', antialias: 1 }, [0.5, 0.4]),
  byScales('resize_18_aa_linear_up_2d', 18, [4, 5], { mode: 'linear', antialias: 1 }, [1.5, 2.5]),
  byScales('resize_18_aa_cubic_up_2d', 18, [4, 5], { mode: 'cubic', antialias: 1 }, [1.5, 2.2]),
  byScales('resize_18_aa_cubic_mixed_2d', 18, [6, 5], { mode: 'cubic', antialias: 1, cubic_coeff_a: -0.5 }, [0.3, 1.75]),
  byScales('resize_18_aa_linear_down_4d', 18, [1, 2, 7, 9], { mode: 'linear', antialias: 1 }, [1, 1, 0.45, 0.35]),
  byScales('resize_18_aa_cubic_down_nhwc', 18, [1, 7, 9, 2], { mode: 'cubic', antialias: 1 }, [1, 0.45, 0.35, 1]),
  byScales('resize_18_aa_linear_down_3d', 18, [5, 6, 8], { mode: 'linear', antialias: 1 }, [0.6, 0.5, 0.4]),
  byScales('resize_18_aa_cubic_exclude', 18, [6, 8], { mode: 'cubic', antialias: 1, exclude_outside: 1 }, [0.5, 0.6]),
  byScales('resize_18_aa_linear_exclude', 18, [6, 8], { mode: 'linear', antialias: 1, exclude_outside: 1 }, [0.6, 0.3]),
  byScales('resize_18_aa_linear_align_corners', 18, [7, 9], { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'align_corners' }, [0.5, 0.4]),
  byScales('resize_18_aa_cubic_asymmetric', 18, [7, 9], { mode: 'cubic', antialias: 1, coordinate_transformation_mode: 'asymmetric' }, [0.5, 0.4]),
  resize('resize_18_aa_linear_tf_crop', 18, [6, 8], { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'tf_crop_and_resize', extrapolation_value: 0.5 },
    [f32('roi', [-0.2, 0.1, 0.9, 0.9]), f32('scales', [0.5, 0.5])]),
  resize('resize_18_aa_linear_tf_crop_end', 18, [6, 8], { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'tf_crop_and_resize', extrapolation_value: 0.5 },
    [f32('roi', [0, 0.1, 1, 1.2]), f32('scales', [0.5, 0.5])]),
  byScales('resize_18_aa_linear_strong_down', 18, [1, 1, 4, 20], { mode: 'linear', antialias: 1 }, [1, 1, 1, 0.15]),
  byScales('resize_18_aa_cubic_strong_down', 18, [3, 20], { mode: 'cubic', antialias: 1 }, [1, 0.2]),
  bySizes('resize_18_aa_linear_sizes_axes', 18, [1, 2, 7, 9], { mode: 'linear', antialias: 1, axes: [2, 3] }, [3, 4]),

  // axes: subsets, negative, unsorted, with scales, sizes and roi.
  byScales('resize_18_axes_scales', 18, [1, 2, 4, 5], { mode: 'linear', axes: [2, 3] }, [0.5, 1.6]),
  byScales('resize_18_axes_negative_scales', 18, [1, 2, 4, 5], { mode: 'linear', axes: [-2, -1] }, [1.5, 0.6]),
  bySizes('resize_18_axes_last_sizes', 18, [1, 2, 4, 5], { mode: 'cubic', axes: [-1] }, [3]),
  bySizes('resize_18_axes_unsorted_nearest', 18, [2, 3, 4], { mode: 'nearest', axes: [2, 0] }, [6, 3]),
  { name: 'resize_18_axes_nearest_uint8', opset: 18, op: 'Resize', attrs: { mode: 'nearest', axes: [1, 2] },
    inputs: [['x', 'uint8', [2, 3, 5]], f32('scales', [1.7, 0.6])], nodeInputs: ['x', '', 'scales'], outputs: [['y', 'uint8']] },
  byScales('resize_18_axes_one_of_2d', 18, [3, 5], { mode: 'linear', axes: [1] }, [1.5]),
  resize('resize_18_axes_tf_crop', 18, [1, 2, 5, 6], { mode: 'linear', axes: [2, 3], coordinate_transformation_mode: 'tf_crop_and_resize' },
    [f32('roi', [0.1, -0.1, 0.8, 0.9]), f32('scales', [0.8, 1.5])]),

  // keep_aspect_ratio_policy, with and without axes; halves round up.
  bySizes('resize_18_policy_not_larger', 18, [1, 1, 6, 8], { mode: 'linear', axes: [2, 3], keep_aspect_ratio_policy: 'not_larger' }, [4, 4]),
  bySizes('resize_18_policy_not_smaller', 18, [1, 1, 6, 8], { mode: 'nearest', axes: [2, 3], keep_aspect_ratio_policy: 'not_smaller' }, [4, 4]),
  bySizes('resize_18_policy_stretch', 18, [1, 1, 6, 8], { mode: 'linear', axes: [2, 3], keep_aspect_ratio_policy: 'stretch' }, [3, 5]),
  bySizes('resize_18_policy_not_larger_all_axes', 18, [6, 8], { mode: 'cubic', keep_aspect_ratio_policy: 'not_larger' }, [5, 5]),
  bySizes('resize_18_policy_half_up', 18, [5, 8], { mode: 'linear', keep_aspect_ratio_policy: 'not_larger' }, [100, 4]),
  bySizes('resize_18_policy_not_smaller_up', 18, [1, 1, 3, 4], { mode: 'linear', axes: [2, 3], keep_aspect_ratio_policy: 'not_smaller' }, [7, 5]),

  // From opset 18 the coordinate modes use the output's extent.
  byScales('resize_18_align_corners_fraction', 18, [1, 5], { mode: 'linear', coordinate_transformation_mode: 'align_corners' }, [1, 0.7]),
  byScales('resize_18_pytorch_half_pixel_one', 18, [2, 5], { mode: 'linear', coordinate_transformation_mode: 'pytorch_half_pixel' }, [1, 0.3]),
  resize('resize_18_tf_crop_fraction', 18, [2, 5], { mode: 'linear', coordinate_transformation_mode: 'tf_crop_and_resize' },
    [f32('roi', [0, 0.1, 1, 0.9]), f32('scales', [1, 0.7])]),

  // half_pixel_symmetric (opset 19), every mode.
  byScales('resize_19_hps_linear_down', 19, [6, 8], { mode: 'linear', coordinate_transformation_mode: 'half_pixel_symmetric' }, [0.7, 0.55]),
  byScales('resize_19_hps_linear_up', 19, [4, 5], { mode: 'linear', coordinate_transformation_mode: 'half_pixel_symmetric' }, [1.7, 2.3]),
  byScales('resize_19_hps_cubic', 19, [6, 7], { mode: 'cubic', coordinate_transformation_mode: 'half_pixel_symmetric' }, [0.7, 1.45]),
  byScales('resize_19_hps_nearest', 19, [1, 1, 6, 7], { mode: 'nearest', coordinate_transformation_mode: 'half_pixel_symmetric' }, [1, 1, 0.7, 1.45]),
  byScales('resize_19_hps_nearest_ceil', 19, [1, 1, 6, 7], { mode: 'nearest', nearest_mode: 'ceil', coordinate_transformation_mode: 'half_pixel_symmetric' }, [1, 1, 0.7, 1.45]),
  byScales('resize_19_hps_nearest_floor', 19, [1, 1, 6, 7], { mode: 'nearest', nearest_mode: 'floor', coordinate_transformation_mode: 'half_pixel_symmetric' }, [1, 1, 0.7, 1.45]),
  byScales('resize_19_hps_nearest_prefer_ceil', 19, [1, 1, 6, 7], { mode: 'nearest', nearest_mode: 'round_prefer_ceil', coordinate_transformation_mode: 'half_pixel_symmetric' }, [1, 1, 0.7, 1.45]),
  bySizes('resize_19_hps_sizes_axes', 19, [1, 2, 6, 7], { mode: 'linear', axes: [2, 3], coordinate_transformation_mode: 'half_pixel_symmetric' }, [4, 10]),
  byScales('resize_19_hps_aa_linear', 19, [7, 9], { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'half_pixel_symmetric' }, [0.55, 0.35]),
  byScales('resize_19_hps_aa_cubic', 19, [7, 9], { mode: 'cubic', antialias: 1, coordinate_transformation_mode: 'half_pixel_symmetric' }, [0.55, 0.35]),

  // Opset 22.
  bySizes('resize_22_aa_cubic_axes', 22, [1, 2, 8, 9], { mode: 'cubic', antialias: 1, axes: [2, 3], keep_aspect_ratio_policy: 'not_larger' }, [5, 5]),
  byScales('resize_22_axes_negative_nearest', 22, [2, 3, 4], { mode: 'nearest', axes: [-1, 0] }, [1.5, 0.5]),
];

const pool = (name, opset, shape, attrs) => ({ name, opset, op: 'AveragePool', attrs, inputs: [['x', 'float32', shape]], outputs: [['y', 'float32']] });

const poolCases = [
  // dilations with pads, ceil_mode and count_include_pad, 1-D to 3-D.
  pool('averagepool_19_dilated_1d', 19, [1, 2, 9], { kernel_shape: [3], dilations: [2], pads: [1, 2] }),
  pool('averagepool_19_dilated_1d_include_pad', 19, [1, 2, 9], { kernel_shape: [3], dilations: [2], pads: [1, 2], count_include_pad: 1 }),
  pool('averagepool_19_dilated_1d_ceil', 19, [1, 2, 8], { kernel_shape: [3], dilations: [2], strides: [2], pads: [1, 1], ceil_mode: 1 }),
  pool('averagepool_19_dilated_1d_ceil_include_pad', 19, [1, 2, 8], { kernel_shape: [3], dilations: [2], strides: [2], pads: [1, 1], ceil_mode: 1, count_include_pad: 1 }),
  pool('averagepool_19_dilated_1d_strided', 19, [2, 1, 12], { kernel_shape: [2], dilations: [3], strides: [2], pads: [1, 0] }),
  pool('averagepool_19_dilated_2d', 19, [1, 2, 7, 8], { kernel_shape: [2, 3], dilations: [2, 2], strides: [1, 2], pads: [1, 0, 1, 2] }),
  pool('averagepool_19_dilated_2d_include_pad', 19, [1, 2, 7, 8], { kernel_shape: [2, 3], dilations: [2, 2], strides: [1, 2], pads: [1, 0, 1, 2], count_include_pad: 1 }),
  pool('averagepool_19_dilated_2d_ceil', 19, [1, 2, 6, 7], { kernel_shape: [2, 3], dilations: [2, 2], strides: [2, 2], pads: [1, 0, 1, 2], ceil_mode: 1 }),
  pool('averagepool_19_dilated_2d_ceil_include_pad', 19, [1, 2, 6, 7], { kernel_shape: [2, 3], dilations: [2, 2], strides: [2, 2], pads: [1, 0, 1, 2], ceil_mode: 1, count_include_pad: 1 }),
  pool('averagepool_19_dilated_2d_mixed', 19, [1, 1, 9, 6], { kernel_shape: [3, 2], dilations: [3, 1], strides: [2, 1], pads: [2, 1, 0, 1], count_include_pad: 1 }),
  pool('averagepool_19_dilated_3d', 19, [1, 1, 4, 5, 6], { kernel_shape: [2, 2, 2], dilations: [2, 1, 2], pads: [1, 0, 1, 0, 1, 1], count_include_pad: 1 }),
  pool('averagepool_19_dilated_valid', 19, [1, 2, 7, 7], { kernel_shape: [3, 2], dilations: [2, 3], auto_pad: 'VALID' }),
  // Windows whose dilated taps all fall in the padding.
  pool('averagepool_19_dilated_window_in_padding', 19, [1, 2, 2], { kernel_shape: [2], dilations: [3], pads: [1, 1] }),
  pool('averagepool_19_dilated_window_in_padding_2d', 19, [1, 1, 3, 2], { kernel_shape: [1, 2], dilations: [1, 3], pads: [0, 1, 0, 1], count_include_pad: 1 }),
  pool('averagepool_19_dilated_ones', 19, [1, 2, 5, 6], { kernel_shape: [2, 2], dilations: [1, 1], pads: [1, 1, 0, 0] }),
  // ceil_mode: a last window starting in the trailing padding is dropped.
  pool('averagepool_19_ceil_last_window', 19, [1, 1, 6], { kernel_shape: [2], strides: [2], pads: [0, 1], ceil_mode: 1 }),
  pool('averagepool_19_ceil_last_window_2d', 19, [1, 1, 5, 5], { kernel_shape: [3, 3], strides: [3, 3], pads: [1, 1, 1, 1], ceil_mode: 1, count_include_pad: 1 }),
  pool('averagepool_19_undilated', 19, [1, 3, 5, 5], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] }),
  // Opset 22.
  pool('averagepool_22_dilated_2d_ceil', 22, [1, 2, 7, 8], { kernel_shape: [2, 2], dilations: [2, 3], strides: [2, 2], pads: [0, 1, 1, 1], ceil_mode: 1 }),
];

// dft: input, then dft_length and axis (absent ones named '').
function dft(name, opset, x, attrs, len, axis, dtype = 'float32') {
  const inputs = [['x', dtype, x]];
  if (len !== undefined) inputs.push(typeof len === 'object' ? len : scalar('len', len));
  if (axis !== undefined) inputs.push(scalar('axis', axis));
  const nodeInputs = ['x', len === undefined ? '' : 'len', ...(axis === undefined ? [] : ['axis'])];
  return { name, opset, op: 'DFT', attrs, inputs, nodeInputs, outputs: [['y', dtype]] };
}

const dftCases = [
  // axis absent (−2, the last signal axis) and given.
  dft('dft_20_default_axis_real', 20, [2, 5, 1], {}),
  dft('dft_20_default_axis_complex', 20, [3, 2, 6, 2], {}),
  dft('dft_20_axis_0', 20, [4, 3, 2], {}, undefined, 0),
  dft('dft_20_axis_1', 20, [2, 5, 3, 1], {}, undefined, 1),
  dft('dft_20_axis_negative', 20, [2, 3, 4, 2], {}, 5, -3),
  dft('dft_20_rank2_real', 20, [6, 1], {}),
  dft('dft_20_rank2_complex_inverse', 20, [5, 2], { inverse: 1 }),
  // dft_length: zero-padding and truncation, int64 and int32.
  dft('dft_20_length_pad', 20, [2, 5, 2], {}, 7, 1),
  dft('dft_20_length_truncate', 20, [2, 6, 1], {}, 4),
  dft('dft_20_length_int32', 20, [2, 3, 2], {}, scalar('len', 8, 'int32'), 1),
  // onesided (real input) and inverse.
  dft('dft_20_onesided', 20, [2, 7, 1], { onesided: 1 }, undefined, 1),
  dft('dft_20_onesided_length', 20, [3, 5, 1], { onesided: 1 }, 8),
  dft('dft_20_onesided_axis_0', 20, [6, 2, 1], { onesided: 1 }, undefined, 0),
  dft('dft_20_inverse', 20, [1, 6, 2], { inverse: 1 }, undefined, -2),
  dft('dft_20_inverse_length', 20, [2, 6, 2], { inverse: 1 }, 4),
  dft('dft_20_inverse_real', 20, [2, 5, 1], { inverse: 1 }),
  // inverse onesided (IRFFT): the default length 2·(m − 1), and 2·m − 1.
  dft('dft_20_irfft_default', 20, [2, 4, 2], { inverse: 1, onesided: 1 }),
  dft('dft_20_irfft_power_of_two', 20, [1, 5, 2], { inverse: 1, onesided: 1 }),
  dft('dft_20_irfft_odd_length', 20, [2, 4, 2], { inverse: 1, onesided: 1 }, 7),
  dft('dft_20_irfft_axis_0', 20, [3, 2, 2], { inverse: 1, onesided: 1 }, undefined, 0),
  dft('dft_20_float64', 20, [2, 5, 2], {}, undefined, 1, 'float64'),
  // Opset 22.
  dft('dft_22_axis_given', 22, [3, 4, 2], { inverse: 1 }, 6, 0),
];

// Scales in [0.01, 0.05) and zero points by index, so the quantized values
// spread over the range and some saturate.
const scalesOf = (n) => Array.from({ length: n }, (_, i) => 0.01 + 0.04 * ((i * 7919) % 97) / 97);
const zerosOf = (n, dtype) => Array.from({ length: n }, (_, i) => (dtype === 'int8' ? (i * 37) % 61 - 30 : (i * 53) % 201 + 20));
const count = (shape) => shape.reduce((a, b) => a * b, 1);

function quantize(name, opset, x, attrs, scaleShape, zp, outType) {
  const inputs = [['x', 'float32', x], ['scale', 'float32', scaleShape, scalesOf(count(scaleShape)), true]];
  if (zp) inputs.push(['zp', zp, scaleShape, zerosOf(count(scaleShape), zp), true]);
  return { name, opset, op: 'QuantizeLinear', attrs, inputs, outputs: [['y', outType || zp || 'uint8']] };
}

function dequantize(name, opset, x, xType, attrs, scaleShape, zp) {
  const inputs = [['x', xType, x], ['scale', 'float32', scaleShape, scalesOf(count(scaleShape)), true]];
  if (zp) inputs.push(['zp', xType, scaleShape, zerosOf(count(scaleShape), xType), true]);
  return { name, opset, op: 'DequantizeLinear', attrs, inputs, outputs: [['y', 'float32']] };
}

const quantCases = [
  // saturate (float8 only): accepted, no effect.
  quantize('quantizelinear_19_saturate_1', 19, [2, 3, 4], { saturate: 1 }, [], 'uint8'),
  quantize('quantizelinear_19_saturate_0_per_axis', 19, [2, 3, 4], { saturate: 0, axis: 1 }, [3], 'int8'),
  // Per tensor and per axis at opset 21.
  quantize('quantizelinear_21_per_tensor', 21, [3, 5], {}, [], 'int8'),
  quantize('quantizelinear_21_per_tensor_no_zero_point', 21, [3, 5], {}, []),
  quantize('quantizelinear_21_per_axis', 21, [2, 3, 4], { axis: -1 }, [4], 'uint8'),
  // Blocked: block sizes dividing the axis and not.
  quantize('quantizelinear_21_blocked_divides', 21, [4, 6], { axis: 1, block_size: 2 }, [4, 3], 'uint8'),
  quantize('quantizelinear_21_blocked_remainder', 21, [5, 4], { axis: 0, block_size: 2 }, [3, 4], 'int8'),
  quantize('quantizelinear_21_blocked_middle_axis', 21, [2, 7, 3], { axis: -2, block_size: 3 }, [2, 3, 3], 'int8'),
  quantize('quantizelinear_21_blocked_whole_axis', 21, [3, 5], { axis: 1, block_size: 5 }, [3, 1], 'uint8'),
  quantize('quantizelinear_21_blocked_no_zero_point', 21, [6, 4], { axis: 0, block_size: 4 }, [2, 4]),
  quantize('quantizelinear_21_blocked_rank1', 21, [10], { axis: 0, block_size: 4 }, [3], 'int8'),
  // output_dtype: alone, and with a zero point of that type.
  quantize('quantizelinear_21_output_dtype_int8', 21, [3, 4], { output_dtype: 3 }, [], undefined, 'int8'),
  quantize('quantizelinear_21_output_dtype_uint8_zero_point', 21, [3, 4], { output_dtype: 2, axis: 1 }, [4], 'uint8'),
  quantize('quantizelinear_21_output_dtype_int8_blocked', 21, [4, 5], { output_dtype: 3, axis: 1, block_size: 2 }, [4, 3], undefined, 'int8'),
  // Opset 22.
  quantize('quantizelinear_22_blocked', 22, [3, 7], { axis: 1, block_size: 3 }, [3, 3], 'int8'),

  dequantize('dequantizelinear_21_per_tensor', 21, [3, 5], 'uint8', {}, [], true),
  dequantize('dequantizelinear_21_per_axis', 21, [2, 3, 4], 'int8', { axis: 1 }, [3], true),
  dequantize('dequantizelinear_21_per_axis_int32', 21, [2, 3], 'int32', { axis: 0 }, [2]),
  dequantize('dequantizelinear_21_blocked_divides', 21, [4, 6], 'int8', { axis: 1, block_size: 3 }, [4, 2], true),
  dequantize('dequantizelinear_21_blocked_remainder', 21, [5, 3], 'uint8', { axis: 0, block_size: 2 }, [3, 3], true),
  dequantize('dequantizelinear_21_blocked_no_zero_point', 21, [2, 7, 3], 'int8', { axis: -2, block_size: 4 }, [2, 2, 3]),
  dequantize('dequantizelinear_21_blocked_int32', 21, [3, 4], 'int32', { axis: 1, block_size: 3 }, [3, 2]),
  // Opset 22.
  dequantize('dequantizelinear_22_blocked', 22, [6, 5], 'uint8', { axis: 0, block_size: 4 }, [2, 5], true),
];

module.exports = [...resizeCases, ...poolCases, ...dftCases, ...quantCases];
