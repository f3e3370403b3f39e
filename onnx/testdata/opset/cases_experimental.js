// Cases for gen.js (the format of cases.js): the experimental ops ONNX
// removed at opset 10, which onnxruntime keeps for default-domain opsets
// 1 to 9 (ImageScaler, Affine, ScaledTanh, ParametricSoftplus, Crop,
// DynamicSlice), ThresholdedRelu before 10 and MeanVarianceNormalization
// before 9 (across_channels, normalize_variance). Float attributes that
// are whole numbers are given as {f: v}.
const f32 = 'float32', f16 = 'float16', i32 = 'int32', i64 = 'int64';
const F = (v) => ({ f: v });
const one = (name, opset, op, attrs, inputs, out) => ({ name: `exp_${name}`, opset, op, attrs, inputs, outputs: [['y', out || inputs[0][1]]] });
const X = (dt, shape, data) => [['x', dt, shape, data]];
const slice = (dt, shape, idx, starts, ends, axes) => [['x', dt, shape], ['starts', idx, [starts.length], starts],
  ['ends', idx, [ends.length], ends], ...(axes ? [['axes', idx, [axes.length], axes]] : [])];
// A near-constant channel (its mean not a float32: onnxruntime rounds it)
// and a constant one (0/0: NaN).
const tiny = [1, 1.00000011920928955078125, 1, 1.0000002384185791015625, 5, 5, 5, 5];

module.exports = [
  // ImageScaler: scale·x + bias[c].
  one('imagescaler_7', 7, 'ImageScaler', { scale: 2.5, bias: [1.5, -2.5, 0.25] }, X(f32, [2, 3, 4, 5])),
  one('imagescaler_9_scale_default', 9, 'ImageScaler', { bias: [0.5, -1.5, 0.125] }, X(f32, [1, 3, 3, 3])),
  one('imagescaler_8_f16', 8, 'ImageScaler', { scale: 0.75, bias: [10.5, -3.25] }, X(f16, [1, 2, 2, 3])),
  one('imagescaler_8_rank5', 8, 'ImageScaler', { scale: -1.5, bias: [0.5, 2.5] }, X(f32, [1, 2, 2, 2, 2])),
  one('imagescaler_6', 6, 'ImageScaler', { scale: 1.25, bias: [0.5, -0.5] }, X(f32, [1, 2, 3, 3])),
  // Affine: alpha·x + beta.
  one('affine_7', 7, 'Affine', { alpha: 2.5, beta: -0.75 }, X(f32, [2, 3, 4])),
  one('affine_8_defaults', 8, 'Affine', {}, X(f32, [5])),
  one('affine_9_scalar', 9, 'Affine', { alpha: -1.5 }, X(f32, [], [0.375])),
  // ScaledTanh: alpha·tanh(beta·x).
  one('scaledtanh_7', 7, 'ScaledTanh', { alpha: 1.7159, beta: 0.6666 }, X(f32, [3, 4])),
  one('scaledtanh_9_saturated', 9, 'ScaledTanh', { alpha: F(-2), beta: F(3) }, X(f32, [2, 2, 2], [-100, -3, -0.5, -0.01, 0, 0.01, 0.5, 100])),
  one('scaledtanh_8_f16', 8, 'ScaledTanh', { alpha: 0.5, beta: 1.5 }, X(f16, [2, 3])),
  // ParametricSoftplus: alpha·ln(e^(beta·x) + 1), no overflow.
  one('psoftplus_7', 7, 'ParametricSoftplus', { alpha: 0.5, beta: F(2) }, X(f32, [3, 4])),
  one('psoftplus_9_extremes', 9, 'ParametricSoftplus', { alpha: F(2), beta: F(3) }, X(f32, [8], [-100, -30, -10, -1, 0, 1, 10, 30])),
  one('psoftplus_8_negative_beta', 8, 'ParametricSoftplus', { alpha: 1.5, beta: -0.5 }, X(f32, [2, 5])),
  one('psoftplus_8_f16', 8, 'ParametricSoftplus', { alpha: 0.75, beta: 1.25 }, X(f16, [4])),
  // Crop: border (left, top, right, bottom), scale (height, width).
  one('crop_7', 7, 'Crop', { border: [1, 2, 0, 1] }, X(f32, [2, 3, 5, 6])),
  one('crop_8_scale', 8, 'Crop', { border: [2, 1, 0, 0], scale: [3, 2] }, X(f32, [1, 2, 5, 5])),
  one('crop_9_scale_ignores_far_borders', 9, 'Crop', { border: [1, 1, 7, 7], scale: [2, 3] }, X(f32, [1, 1, 4, 4])),
  one('crop_9_none', 9, 'Crop', { border: [0, 0, 0, 0] }, X(f32, [1, 2, 2, 3])),
  one('crop_8_f16', 8, 'Crop', { border: [0, 1, 2, 0] }, X(f16, [1, 1, 3, 4])),
  // DynamicSlice: Slice-10 without steps.
  one('dynslice_7_no_axes', 7, 'DynamicSlice', {}, slice(f32, [3, 4], i64, [-5, 1], [100, -1])),
  one('dynslice_8_axes_int32', 8, 'DynamicSlice', {}, slice(f32, [2, 3, 4], i32, [1, -3], [3, 10], [-1, 1])),
  one('dynslice_9_empty', 9, 'DynamicSlice', {}, slice(f32, [3, 4], i64, [2], [1], [0])),
  one('dynslice_9_int64_data', 9, 'DynamicSlice', {}, slice(i64, [6], i64, [-4], ['9223372036854775807'])),
  one('dynslice_8_bool', 8, 'DynamicSlice', {}, slice('bool', [2, 4], i32, [1, 0], [2, -2])),
  // ThresholdedRelu before 10.
  one('thresholdedrelu_7', 7, 'ThresholdedRelu', {}, X(f32, [3, 4], [-2, -1, 0, 0.5, 0.99, 1, 1.01, 1.5, 2, -0.5, 3, 1])),
  one('thresholdedrelu_9_alpha', 9, 'ThresholdedRelu', { alpha: 0.3 }, X(f32, [3, 4])),
  one('thresholdedrelu_8_f16', 8, 'ThresholdedRelu', { alpha: -0.5 }, X(f16, [2, 3])),
  // MeanVarianceNormalization before 9: all four attribute combinations.
  one('mvn_8_default', 8, 'MeanVarianceNormalization', {}, X(f32, [2, 3, 2, 2])),
  one('mvn_7_across', 7, 'MeanVarianceNormalization', { across_channels: 1 }, X(f32, [2, 3, 2, 2])),
  one('mvn_8_mean_only', 8, 'MeanVarianceNormalization', { normalize_variance: 0 }, X(f32, [2, 3, 2, 2])),
  one('mvn_7_across_mean_only', 7, 'MeanVarianceNormalization', { across_channels: 1, normalize_variance: 0 }, X(f32, [2, 2, 3, 2])),
  one('mvn_8_explicit', 8, 'MeanVarianceNormalization', { across_channels: 0, normalize_variance: 1 }, X(f32, [1, 2, 3, 4])),
  one('mvn_8_rank3', 8, 'MeanVarianceNormalization', {}, X(f32, [2, 3, 4])),
  one('mvn_8_float32_mean', 8, 'MeanVarianceNormalization', {}, X(f32, [1, 2, 2, 2], tiny)),
  one('mvn_7_f16', 7, 'MeanVarianceNormalization', {}, X(f16, [1, 2, 2, 3])),
  // Models of opsets 1 to 6.
  one('mvn_1_across', 1, 'MeanVarianceNormalization', { across_channels: 1 }, X(f32, [1, 3, 2, 2])),
  one('crop_1_scale', 1, 'Crop', { border: [1, 0, 0, 0], scale: [2, 2] }, X(f32, [1, 1, 3, 3])),
];
