// Cases for gen.js (the format of cases.js): edges where pipert once
// differed from onnxruntime, and neighbouring edges that agree.
//   - Slice with a negative step and an end of INT32_MAX or INT64_MAX:
//     onnxruntime reads those ends as "to the end", so the slice walks
//     down through index 0 where the clamping alone would leave it empty.
//   - ReduceLogSum and ReduceLogSumExp of int32 and int64, which ONNX
//     admits: computed in the type (the exponentials and the logarithm
//     truncate), a logarithm of zero or of a negative sum giving the
//     type's minimum.
//   - Resize of opsets 11 to 17: the resized length in the coordinate
//     transformations is the output dimension (not in·scale unrounded).
//   - Integer arithmetic, comparisons and casts at their edges.
const f = 'float32';
const cases = [];
const ints = (name, v, isConst = true) => [name, 'int64', [v.length], v.map(String), isConst];

// Slice.
const sliceCase = (name, opset, x, starts, ends, axes, steps, consts = true) =>
  cases.push({ name: `slice_${opset}_${name}`, opset, op: 'Slice',
    inputs: [x, ints('starts', starts, consts), ints('ends', ends, consts), ints('axes', axes), ints('steps', steps, consts)], outputs: [['y', x[1]]] });
const x5 = ['x', f, [5], [0, 1, 2, 3, 4]];
sliceCase('neg_step_end_int64_max', 13, x5, [-2], ['9223372036854775807'], [0], [-1]);
sliceCase('neg_step_end_int32_max', 13, x5, [3], [2147483647], [0], [-2]);
sliceCase('neg_step_end_int64_max_from_max', 13, x5, ['9223372036854775807'], ['9223372036854775807'], [0], [-1], false);
sliceCase('neg_step_end_int32_max_2d', 18, ['x', 'int64', [3, 4]], [-1, 2], [2147483647, '9223372036854775807'], [1, 0], [-3, -1]);
// Ends just past those values clamp as usual (an empty slice).
sliceCase('neg_step_end_int32_max_plus_1', 13, x5, [3], [2147483648], [0], [-1]);
sliceCase('neg_step_end_int64_min', 13, x5, [-1], ['-9223372036854775808'], [0], [-2]);
sliceCase('pos_step_end_int32_max', 11, x5, [1], [2147483647], [-1], [2]);

// ReduceLogSum and ReduceLogSumExp of integers: rows of equal maxima,
// a zero sum and a negative one.
const rows = [2, 1, 1, 1, 1, 1, 3, 3, 3, -5, -5, 7, 0, 0, 0, 2, 1, 1, 1, 1];
for (const op of ['ReduceLogSum', 'ReduceLogSumExp']) {
  for (const dt of ['int32', 'int64']) {
    const x = ['x', dt, [4, 5], rows];
    const lower = op.toLowerCase();
    cases.push({ name: `${lower}_13_${dt}`, opset: 13, op, attrs: { axes: [1], keepdims: 0 }, inputs: [x], outputs: [['y', dt]] });
    cases.push({ name: `${lower}_18_${dt}_axis0`, opset: 18, op, attrs: {}, inputs: [x, ints('axes', [0])], outputs: [['y', dt]] });
  }
}
cases.push({ name: 'reducelogsumexp_18_int32_all', opset: 18, op: 'ReduceLogSumExp', attrs: { keepdims: 0 },
  inputs: [['x', 'int32', [2, 3], [4, 4, 4, 4, 1, -3]]], outputs: [['y', 'int32']] });
cases.push({ name: 'reducelogsum_18_int64_noop', opset: 18, op: 'ReduceLogSum', attrs: { noop_with_empty_axes: 1 },
  inputs: [['x', 'int64', [2, 3], [1, 3, 8, 20, 0, -2]], ints('axes', [])], outputs: [['y', 'int64']] });

// Resize, opsets 11 and 13: output dimensions of 1 and fractional scales.
const resize = (name, opset, attrs, x, scales) => cases.push({ name: `resize_${opset}_${name}`, opset, op: 'Resize', attrs,
  inputs: [x, ['roi', f, [0], [], true], ['scales', f, [4], scales, true]], outputs: [['y', f]] });
const x24 = ['x', f, [1, 1, 2, 4], [1, 2, 3, 4, 5, 6, 7, 8]];
resize('linear_align_corners_down', 11, { mode: 'linear', coordinate_transformation_mode: 'align_corners' }, x24, [1, 1, 0.6, 0.6]);
resize('cubic_align_corners_down', 13, { mode: 'cubic', coordinate_transformation_mode: 'align_corners' }, x24, [1, 1, 0.6, 0.6]);
resize('cubic_pytorch_one_row', 13, { mode: 'cubic', coordinate_transformation_mode: 'pytorch_half_pixel', cubic_coeff_a: -0.5 },
  ['x', f, [1, 2, 2, 4]], [1, 1, 0.6, 3]);
resize('linear_align_corners_frac_up', 13, { mode: 'linear', coordinate_transformation_mode: 'align_corners' }, ['x', f, [1, 1, 3, 5]], [1, 1, 1.5, 1.5]);
resize('linear_pytorch_one', 17, { mode: 'linear', coordinate_transformation_mode: 'pytorch_half_pixel' }, ['x', f, [1, 1, 3, 3]], [1, 1, 0.5, 0.4]);

// Integer edges (these agree): Div and Mod of negatives, Mod with fmod,
// BitShift by the width or more, Clip with min above max, ArgMax ties
// and NaN with select_last_index, Cast of in-range floats to narrow
// unsigned types.
const bin = (name, opset, op, attrs, dt, a, b, outDt = dt) => cases.push({ name: `${op.toLowerCase()}_${opset}_${name}`, opset, op, attrs,
  inputs: [['a', dt, [a.length], a], ['b', dt, [b.length], b]], outputs: [['y', outDt]] });
bin('int32_negatives', 14, 'Div', {}, 'int32', [7, -7, 7, -7, -2147483648, 0], [2, 2, -2, -2, 3, 5]);
bin('int8_negatives', 13, 'Mod', {}, 'int8', [7, -7, 7, -7, -128, 0], [3, 3, -3, -3, 3, -5]);
bin('int64_fmod', 13, 'Mod', { fmod: 1 }, 'int64', [7, -7, 7, -7, 0, 9], [3, 3, -3, -3, -5, 4]);
bin('float_fmod_specials', 13, 'Mod', { fmod: 1 }, f, [5.5, -5.5, Infinity, 3, -0, 2], [2, 2, 2, Infinity, 3, -0]);
bin('uint8_wide', 11, 'BitShift', { direction: 'LEFT' }, 'uint8', [1, 255, 3, 128], [7, 1, 8, 9]);
bin('uint32_wide', 11, 'BitShift', { direction: 'RIGHT' }, 'uint32', [4294967295, 1024, 7, 8], [31, 32, 40, 1]);
cases.push({ name: 'clip_13_int32_min_above_max', opset: 13, op: 'Clip',
  inputs: [['x', 'int32', [5], [-5, 0, 3, 7, 10]], ['lo', 'int32', [], [6], true], ['hi', 'int32', [], [2], true]], outputs: [['y', 'int32']] });
cases.push({ name: 'argmax_13_ties_nan_last', opset: 13, op: 'ArgMax', attrs: { axis: 1, select_last_index: 1, keepdims: 0 },
  inputs: [['x', f, [3, 4], [1, 3, 3, 2, NaN, 1, NaN, 0, -1, -1, -1, -1]]], outputs: [['y', 'int64']] });
// A NaN compares false with the extreme so far: passed over unless first.
for (const [op, last] of [['ArgMax', 0], ['ArgMin', 0], ['ArgMin', 1]]) {
  cases.push({ name: `${op.toLowerCase()}_13_nan_rows${last ? '_last' : ''}`, opset: 13, op, attrs: { axis: 1, select_last_index: last },
    inputs: [['x', f, [6, 4], [1, NaN, 3, 2, NaN, 1, NaN, 0, 1, NaN, 3, 3, 2, 2, 1, NaN, -1, -1, -1, -1, NaN, NaN, 5, 5]]], outputs: [['y', 'int64']] });
}
cases.push({ name: 'argmax_12_nan_columns', opset: 12, op: 'ArgMax', attrs: { axis: 0 },
  inputs: [['x', f, [6, 4], [1, NaN, 3, 2, NaN, 1, NaN, 0, 1, NaN, 3, 3, 2, 2, 1, NaN, -1, -1, -1, -1, NaN, NaN, 5, 5]]], outputs: [['y', 'int64']] });
cases.push({ name: 'argmin_13_ties_first', opset: 13, op: 'ArgMin', attrs: { axis: 0 },
  inputs: [['x', 'int8', [3, 3], [1, -3, 2, 1, -3, 2, 0, 5, 2]]], outputs: [['y', 'int64']] });
cases.push({ name: 'cast_13_float_uint16_in_range', opset: 13, op: 'Cast', attrs: { to: 4 },
  inputs: [['x', 'float64', [6], [0.9, 65535.9, 1.5, 2.5, 300.7, 0]]], outputs: [['y', 'uint16']] });

module.exports = cases;
