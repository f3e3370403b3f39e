// Cases for gen.js (the format of cases.js): Resize in linear and cubic
// modes (with antialias) on uint8, int8 and int32 X, across the layouts
// onnxruntime has integer kernels for.
const f32 = (name, v) => [name, 'float32', [v.length], v, true];
const i64 = (name, v) => [name, 'int64', [v.length], v, true];

// ints: deterministic values spanning dtype's range, its ends included.
const RANGE = { uint8: [0, 255], int8: [-128, 127], int32: [-2147483648, 2147483647] };
// (Cubic's overshoot takes int32 values near the ends out of range, which
// onnxruntime refuses: its cases stay within ±2^24.)
function ints(dtype, shape, seed, narrow) {
  const n = shape.reduce((a, b) => a * b, 1), [lo, hi] = narrow ? [-(1 << 24), 1 << 24] : RANGE[dtype];
  let s = seed >>> 0 || 1;
  const r = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
  return Array.from({ length: n }, (_, i) => (i % 7 === 0 ? hi : i % 11 === 0 ? lo : lo + Math.floor(r() * (hi - lo + 1))));
}
// resize: X of dtype and shape, then the node's other inputs.
function resize(name, opset, dtype, shape, attrs, rest, nodeInputs) {
  return { name, opset, op: 'Resize', attrs, inputs: [['x', dtype, shape, ints(dtype, shape, name.length * 7919, dtype === 'int32' && attrs.mode === 'cubic')], ...rest], nodeInputs, outputs: [['y', dtype]] };
}
const byScales = (name, opset, dtype, shape, attrs, s) => resize(name, opset, dtype, shape, attrs, [f32('scales', s)], ['x', '', 'scales']);
const bySizes = (name, opset, dtype, shape, attrs, s) => resize(name, opset, dtype, shape, attrs, [i64('sizes', s)], ['x', '', '', 'sizes']);
const crop = (name, opset, dtype, shape, attrs, roi, s) => resize(name, opset, dtype, shape, { coordinate_transformation_mode: 'tf_crop_and_resize', ...attrs },
  [f32('roi', roi), f32('scales', s)], ['x', 'roi', 'scales']);

module.exports = [
  // Bilinear on [N,C,H,W] and 2-D: float32 weights, the sum truncated.
  byScales('resize_int_linear_nchw_uint8', 19, 'uint8', [1, 2, 4, 5], { mode: 'linear' }, [1, 1, 1.5, 0.6]),
  bySizes('resize_int_linear_nchw_int8_align', 13, 'int8', [2, 1, 3, 4], { mode: 'linear', coordinate_transformation_mode: 'align_corners' }, [2, 1, 5, 7]),
  byScales('resize_int_linear_2d_int32', 13, 'int32', [3, 4], { mode: 'linear', coordinate_transformation_mode: 'asymmetric' }, [2, 1.5]),
  byScales('resize_int_linear_2d_int8_pytorch', 13, 'int8', [4, 3], { mode: 'linear', coordinate_transformation_mode: 'pytorch_half_pixel' }, [0.3, 2.5]),
  crop('resize_int_linear_crop_uint8', 13, 'uint8', [1, 1, 4, 5], { mode: 'linear', extrapolation_value: { f: -1 } }, [0, 0, -0.2, 0.1, 1, 1, 1.1, 0.8], [1, 1, 1.5, 1.7]),
  // Bilinear on [N,H,W,C]: 10-bit fixed point for 8-bit data.
  byScales('resize_int_linear_nhwc_uint8', 19, 'uint8', [1, 4, 5, 3], { mode: 'linear' }, [1, 1.7, 0.6, 1]),
  crop('resize_int_linear_nhwc_int8_crop', 13, 'int8', [2, 3, 4, 2], { mode: 'linear', extrapolation_value: { f: 300 } }, [0, 0.1, -0.15, 0, 1, 0.9, 1.2, 1], [1, 2, 1.5, 1]),
  byScales('resize_int_linear_nhwc_int32', 19, 'int32', [1, 3, 4, 2], { mode: 'linear', coordinate_transformation_mode: 'half_pixel_symmetric' }, [1, 2.5, 0.75, 1]),
  // Trilinear.
  byScales('resize_int_linear_3d_int8', 13, 'int8', [3, 4, 2], { mode: 'linear' }, [1.5, 0.5, 2]),
  bySizes('resize_int_linear_5d_uint8', 19, 'uint8', [1, 2, 2, 3, 4], { mode: 'linear', coordinate_transformation_mode: 'half_pixel_symmetric' }, [1, 2, 3, 5, 3]),
  // Antialiasing: separable passes in 2^22 fixed point (8-bit) or float32 (int32).
  byScales('resize_int_aa_linear_uint8', 18, 'uint8', [1, 2, 7, 9], { mode: 'linear', antialias: 1 }, [1, 1, 0.45, 0.35]),
  byScales('resize_int_aa_cubic_int8', 18, 'int8', [6, 8], { mode: 'cubic', antialias: 1 }, [0.5, 1.5]),
  byScales('resize_int_aa_cubic_nhwc_uint8', 18, 'uint8', [1, 7, 9, 2], { mode: 'cubic', antialias: 1, cubic_coeff_a: -0.5, exclude_outside: 1 }, [1, 0.45, 1.6, 1]),
  byScales('resize_int_aa_linear_int32', 18, 'int32', [1, 1, 6, 8], { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'align_corners' }, [1, 1, 0.5, 0.4]),
  byScales('resize_int_aa_linear_3d_uint8', 18, 'uint8', [5, 6, 8], { mode: 'linear', antialias: 1 }, [0.6, 0.5, 1.4]),
  crop('resize_int_aa_linear_crop_nhwc_uint8', 18, 'uint8', [1, 6, 8, 2], { mode: 'linear', antialias: 1, extrapolation_value: { f: 7.6 } }, [0, -0.1, 0.2, 0, 1, 0.7, 1.1, 1], [1, 0.5, 0.75, 1]),
  resize('resize_int_aa_cubic_axes_uint8', 18, 'uint8', [1, 2, 7, 9], { mode: 'cubic', antialias: 1, axes: [2, 3], keep_aspect_ratio_policy: 'not_larger' },
    [i64('sizes', [3, 5])], ['x', '', '', 'sizes']),
  // Cubic without antialias: onnxruntime's integer kernel is the [N,H,W,C] enlarging one.
  byScales('resize_int_cubic_nhwc_up_uint8', 13, 'uint8', [1, 3, 4, 2], { mode: 'cubic' }, [1, 2, 1.5, 1]),
  bySizes('resize_int_cubic_nhwc_up_int32', 19, 'int32', [2, 2, 3, 1], { mode: 'cubic', coordinate_transformation_mode: 'asymmetric', cubic_coeff_a: -0.5 }, [2, 5, 4, 1]),
  // An unchanged shape is copied.
  byScales('resize_int_cubic_same_shape_int8', 13, 'int8', [1, 1, 4, 3], { mode: 'cubic', coordinate_transformation_mode: 'align_corners' }, [1, 1, 1, 1.1]),
];
