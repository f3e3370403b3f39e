// Cases for gen.js (see cases.js for the format): Pad 18/19, Split 18,
// ScatterND and ScatterElements 18, Cast and CastLike 19, ReduceMax and
// ReduceMin 20 on bool, GridSample 20.
const f = 'float32';

function pad(name, opset, mode, x, pads, more = {}) {
  const inputs = [x, ['pads', 'int64', [pads.length], pads, !more.padsInput]];
  if (more.value !== undefined || more.axes) inputs.push(more.value !== undefined ? ['value', x[1], [], [more.value], true] : ['', f, [0]]);
  if (more.axes) inputs.push(['axes', more.axesType || 'int64', [more.axes.length], more.axes, !more.axesInput]);
  return {
    name, opset, op: 'Pad', attrs: mode ? { mode } : {}, inputs, outputs: [['y', x[1]]],
    nodeInputs: inputs.map((i) => i[0]),
  };
}

function split(name, opset, x, n, more = {}) {
  const inputs = [x];
  if (more.split) inputs.push(['split', 'int64', [more.split.length], more.split, !more.splitInput]);
  const attrs = { ...(more.axis !== undefined ? { axis: more.axis } : {}), ...(more.num ? { num_outputs: n } : {}) };
  return { name, opset, op: 'Split', attrs, inputs, outputs: Array.from({ length: n }, (_, i) => [`y${i}`, x[1]]) };
}

function scatter(name, opset, op, reduction, data, indices, updates, axis) {
  const attrs = reduction ? { reduction } : {};
  if (axis !== undefined) attrs.axis = axis;
  return { name, opset, op, attrs, inputs: [data, indices, updates], outputs: [['y', data[1]]] };
}

function reduce(name, opset, op, x, more = {}) {
  const inputs = [x];
  if (more.axes) inputs.push(['axes', 'int64', [more.axes.length], more.axes, !more.axesInput]);
  const attrs = {};
  if (more.keepdims !== undefined) attrs.keepdims = more.keepdims;
  if (more.noop !== undefined) attrs.noop_with_empty_axes = more.noop;
  return { name, opset, op, attrs, inputs, outputs: [['y', x[1]]] };
}

function grid(name, opset, x, g, attrs) {
  return { name, opset, op: 'GridSample', attrs, inputs: [['x', x[0], x[1], x[2]], ['grid', g[0], g[1], g[2]]], outputs: [['y', x[0]]] };
}

const bools23 = [1, 0, 1, 1, 1, 1];
const bools234 = [1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0];

const cases = [
  // Pad-18: the axes input.
  pad('pad_18_constant_axes_neg', 18, 'constant', ['x', f, [2, 3, 4]], [1, 2], { value: 5, axes: [-1] }),
  pad('pad_18_constant_axes_subset', 18, 'constant', ['x', f, [2, 3, 4]], [1, 0, 2, 1], { value: -1.5, axes: [0, 2] }),
  pad('pad_18_constant_axes_crop', 18, 'constant', ['x', f, [3, 4, 5]], [-1, 2, 1, -2], { value: 7, axes: [2, 0] }),
  pad('pad_18_constant_axes_novalue', 18, 'constant', ['x', f, [2, 3]], [2, 1], { axes: [1] }),
  pad('pad_18_constant_axes_empty', 18, 'constant', ['x', f, [2, 3]], [], { value: 3, axes: [] }),
  pad('pad_18_constant_noaxes', 18, 'constant', ['x', f, [2, 3]], [1, -1, 0, 2], { value: 4 }),
  pad('pad_18_reflect_axes', 18, 'reflect', ['x', f, [2, 3, 4]], [1, 3, 0, 2], { axes: [-3, -1] }),
  pad('pad_18_reflect_axes_crop', 18, 'reflect', ['x', f, [3, 5]], [-1, 2], { axes: [1] }),
  pad('pad_18_edge_axes', 18, 'edge', ['x', f, [2, 3, 4]], [2, -1, 1, 3], { axes: [1, 2] }),
  pad('pad_18_edge_axes_int64data', 18, 'edge', ['x', 'int64', [3, 4]], [1, 2, 2, 0], { axes: [0, 1] }),
  pad('pad_18_constant_axes_int32data', 18, 'constant', ['x', 'int32', [3, 4]], [1, 2], { value: -9, axes: [0] }),
  pad('pad_18_constant_axes_input', 18, 'constant', ['x', f, [2, 3, 4]], [1, 2, 0, 1], { value: 2, axes: [0, -1], axesInput: true, padsInput: true }),
  pad('pad_18_reflect_axes_int32_input', 18, 'reflect', ['x', f, [3, 4]], [2, 1], { axes: [-1], axesType: 'int32', axesInput: true }),
  // Pad-19: wrap.
  pad('pad_19_wrap', 19, 'wrap', ['x', f, [3, 4]], [2, 1, 1, 3]),
  pad('pad_19_wrap_whole', 19, 'wrap', ['x', f, [2, 3]], [2, 3, 2, 3]),
  pad('pad_19_wrap_crop', 19, 'wrap', ['x', f, [4, 5]], [-1, 2, 3, -2]),
  pad('pad_19_wrap_crop_only', 19, 'wrap', ['x', f, [4, 5]], [-1, 0, -2, -1]),
  pad('pad_19_wrap_inner', 19, 'wrap', ['x', f, [2, 3, 4]], [2, 3], { axes: [1] }),
  pad('pad_19_wrap_axes', 19, 'wrap', ['x', f, [2, 3, 4]], [1, 4, 2, 0], { axes: [-3, -1] }),
  pad('pad_19_wrap_int64', 19, 'wrap', ['x', 'int64', [3, 2]], [1, 2, 3, 1]),
  pad('pad_19_wrap_uint8', 19, 'wrap', ['x', 'uint8', [2, 5]], [0, 4, 1, 5]),
  pad('pad_19_constant', 19, 'constant', ['x', f, [2, 3]], [1, 1, 1, 1], { value: 0.5 }),
  pad('pad_19_reflect', 19, 'reflect', ['x', f, [3, 4]], [2, 3, 1, 0]),
  pad('pad_19_edge', 19, 'edge', ['x', f, [3, 4]], [0, 5, 4, -1]),
  pad('pad_22_wrap_axes', 22, 'wrap', ['x', f, [3, 4, 2]], [1, 1, 2, 1], { axes: [1, 0] }),

  // Split-18: num_outputs.
  split('split_18_num_uneven', 18, ['x', f, [2, 7]], 3, { num: true, axis: 1 }),
  split('split_18_num_uneven_8', 18, ['x', f, [8]], 3, { num: true }),
  split('split_18_num_uneven_10', 18, ['x', 'int64', [10, 2]], 4, { num: true }),
  split('split_18_num_even', 18, ['x', f, [2, 3, 6]], 3, { num: true, axis: -1 }),
  split('split_18_num_one', 18, ['x', f, [3, 2]], 1, { num: true }),
  split('split_18_num_all_ones', 18, ['x', 'int32', [4, 3]], 4, { num: true }),
  split('split_18_input', 18, ['x', f, [6, 2]], 3, { split: [1, 0, 5] }),
  split('split_18_input_graph', 18, ['x', f, [2, 6]], 2, { split: [4, 2], splitInput: true, axis: 1 }),
  split('split_17_even', 17, ['x', f, [6]], 3),
  split('split_17_input', 17, ['x', f, [7]], 2, { split: [3, 4] }),
  split('split_22_num_uneven', 22, ['x', f, [3, 5]], 2, { num: true, axis: 1 }),

  // ScatterND-18 and ScatterElements-18: max and min.
  scatter('scatternd_18_max_dup', 18, 'ScatterND', 'max',
    ['d', f, [6], [1, NaN, 3, 4, -2, 0]], ['i', 'int64', [7, 1], [0, 0, 1, 2, 0, -2, 5]], ['u', f, [7], [5, NaN, 0, -1, 2, -3, 1.5]]),
  scatter('scatternd_18_min_dup', 18, 'ScatterND', 'min',
    ['d', f, [6], [1, NaN, 3, 4, -2, 0]], ['i', 'int64', [7, 1], [0, 0, 1, 2, 0, -2, 5]], ['u', f, [7], [5, NaN, 0, -1, 2, -3, 1.5]]),
  scatter('scatternd_18_max_slices', 18, 'ScatterND', 'max', ['d', f, [3, 4]], ['i', 'int64', [4, 1], [2, 0, 2, -1]], ['u', f, [4, 4]]),
  scatter('scatternd_18_min_elements', 18, 'ScatterND', 'min', ['d', f, [2, 3, 2]], ['i', 'int64', [2, 2, 3], [0, 1, 1, 1, 2, 0, 0, 1, 1, 0, 0, 0]], ['u', f, [2, 2]]),
  scatter('scatternd_18_max_int64', 18, 'ScatterND', 'max',
    ['d', 'int64', [4], [1, -5, 123456789012, 2]], ['i', 'int64', [4, 1], [0, 0, 2, 1]], ['u', 'int64', [4], [7, 3, 123456789011, -6]]),
  scatter('scatternd_18_min_int32', 18, 'ScatterND', 'min', ['d', 'int32', [5]], ['i', 'int64', [6, 1], [0, 4, 0, 1, 4, 4]], ['u', 'int32', [6]]),
  scatter('scatternd_18_max_uint8', 18, 'ScatterND', 'max', ['d', 'uint8', [4, 2]], ['i', 'int64', [3, 1], [1, 1, 3]], ['u', 'uint8', [3, 2]]),
  scatter('scatternd_18_min_int8', 18, 'ScatterND', 'min', ['d', 'int8', [4, 2]], ['i', 'int64', [3, 1], [1, 1, 3]], ['u', 'int8', [3, 2]]),
  scatter('scatternd_18_max_float64', 18, 'ScatterND', 'max', ['d', 'float64', [3, 2]], ['i', 'int64', [3, 1], [2, 2, 0]], ['u', 'float64', [3, 2]]),
  scatter('scatternd_18_add', 18, 'ScatterND', 'add', ['d', f, [5]], ['i', 'int64', [3, 1], [1, 1, 4]], ['u', f, [3]]),
  scatter('scatternd_18_none', 18, 'ScatterND', '', ['d', f, [5]], ['i', 'int64', [2, 1], [1, 3]], ['u', f, [2]]),
  scatter('scatternd_22_min', 22, 'ScatterND', 'min', ['d', f, [3, 3]], ['i', 'int64', [3, 2], [0, 0, 0, 0, 2, 1]], ['u', f, [3]]),
  scatter('scatterelements_18_max_dup', 18, 'ScatterElements', 'max',
    ['d', f, [2, 3], [1, NaN, 3, 4, 5, 6]], ['i', 'int64', [2, 3], [0, 0, 1, 1, 1, -1]], ['u', f, [2, 3], [5, NaN, -7, NaN, 2, 0]], 1),
  scatter('scatterelements_18_min_dup', 18, 'ScatterElements', 'min',
    ['d', f, [2, 3], [1, NaN, 3, 4, 5, 6]], ['i', 'int64', [2, 3], [0, 0, 1, 1, 1, -1]], ['u', f, [2, 3], [5, NaN, -7, NaN, 2, 0]], 1),
  scatter('scatterelements_18_max_axis0', 18, 'ScatterElements', 'max', ['d', f, [3, 4]], ['i', 'int32', [4, 4], [0, 1, 2, 0, 0, 1, 2, 0, -1, 1, 1, 0, 2, 2, 2, 0]], ['u', f, [4, 4]], 0),
  scatter('scatterelements_18_min_int64', 18, 'ScatterElements', 'min', ['d', 'int64', [2, 4]], ['i', 'int64', [2, 3], [3, 3, 0, 1, 1, 1]], ['u', 'int64', [2, 3]], -1),
  scatter('scatterelements_18_max_int32', 18, 'ScatterElements', 'max', ['d', 'int32', [3, 2, 2]], ['i', 'int64', [2, 2, 2], [2, 0, 2, 2, 1, 1, 0, 2]], ['u', 'int32', [2, 2, 2]], 0),
  scatter('scatterelements_18_mul', 18, 'ScatterElements', 'mul', ['d', f, [2, 3]], ['i', 'int64', [2, 2], [0, 0, 2, 2]], ['u', f, [2, 2]], 1),
  scatter('scatterelements_22_max', 22, 'ScatterElements', 'max', ['d', f, [4]], ['i', 'int64', [5], [0, 3, 0, 3, 1]], ['u', f, [5]], 0),

  // Cast-19 and CastLike-19: saturate (no effect outside float 8).
  { name: 'cast_19_saturate1_float_int32', opset: 19, op: 'Cast', attrs: { to: 6, saturate: 1 }, inputs: [['x', f, [8], [1.5, -2.7, 0.49, -0.5, 1e9, -1e9, 2147483520, -2147483648]]], outputs: [['y', 'int32']] },
  { name: 'cast_19_default_float_int8', opset: 19, op: 'Cast', attrs: { to: 3 }, inputs: [['x', f, [6], [1.5, -2.7, 127.9, -128.9, 0, -0.1]]], outputs: [['y', 'int8']] },
  { name: 'cast_19_saturate1_float_uint8', opset: 19, op: 'Cast', attrs: { to: 2, saturate: 1 }, inputs: [['x', f, [5], [0.9, 1.5, 254.6, 255.9, 37]]], outputs: [['y', 'uint8']] },
  { name: 'cast_19_saturate1_double_float', opset: 19, op: 'Cast', attrs: { to: 1, saturate: 1 }, inputs: [['x', 'float64', [4], [1e300, -1e300, 0.1, NaN]]], outputs: [['y', f]] },
  { name: 'cast_19_saturate1_int64_int8', opset: 19, op: 'Cast', attrs: { to: 3, saturate: 1 }, inputs: [['x', 'int64', [4], [200, -200, 127, 1000]]], outputs: [['y', 'int8']] },
  { name: 'cast_19_float_bool', opset: 19, op: 'Cast', attrs: { to: 9, saturate: 1 }, inputs: [['x', f, [5], [0, -0, 0.1, NaN, -3]]], outputs: [['y', 'bool']] },
  { name: 'cast_21_int32_float64', opset: 21, op: 'Cast', attrs: { to: 11 }, inputs: [['x', 'int32', [3, 2]]], outputs: [['y', 'float64']] },
  { name: 'cast_22_float_int64', opset: 22, op: 'Cast', attrs: { to: 7, saturate: 1 }, inputs: [['x', f, [2, 3]]], outputs: [['y', 'int64']] },
  { name: 'castlike_19_saturate1', opset: 19, op: 'CastLike', attrs: { saturate: 1 }, inputs: [['x', f, [2, 3]], ['like', 'int32', [1], [0], true]], outputs: [['y', 'int32']] },
  { name: 'castlike_19_default', opset: 19, op: 'CastLike', inputs: [['x', 'int64', [4]], ['like', 'float64', [0], [], true]], outputs: [['y', 'float64']] },
  { name: 'castlike_22_bool', opset: 22, op: 'CastLike', attrs: { saturate: 1 }, inputs: [['x', f, [4], [0, 1, -0, 2]], ['like', 'bool', [1], [1], true]], outputs: [['y', 'bool']] },

  // ReduceMax-20 and ReduceMin-20 on bool.
  reduce('reducemax_20_bool_axis_keep', 20, 'ReduceMax', ['x', 'bool', [2, 3], bools23], { axes: [1] }),
  reduce('reducemin_20_bool_axis_keep', 20, 'ReduceMin', ['x', 'bool', [2, 3], bools23], { axes: [1] }),
  reduce('reducemax_20_bool_axes_nokeep', 20, 'ReduceMax', ['x', 'bool', [2, 3, 4], bools234], { axes: [-1, 0], keepdims: 0 }),
  reduce('reducemin_20_bool_axes_nokeep', 20, 'ReduceMin', ['x', 'bool', [2, 3, 4], bools234], { axes: [-1, 0], keepdims: 0 }),
  reduce('reducemax_20_bool_all', 20, 'ReduceMax', ['x', 'bool', [2, 3], [0, 0, 0, 0, 0, 0]], { keepdims: 0 }),
  reduce('reducemin_20_bool_all', 20, 'ReduceMin', ['x', 'bool', [2, 3], [1, 1, 1, 1, 1, 1]]),
  reduce('reducemax_20_bool_empty_axes', 20, 'ReduceMax', ['x', 'bool', [2, 3, 4], bools234], { axes: [], keepdims: 1 }),
  reduce('reducemin_20_bool_empty_axes', 20, 'ReduceMin', ['x', 'bool', [2, 3, 4], bools234], { axes: [], keepdims: 0 }),
  reduce('reducemax_20_bool_noop', 20, 'ReduceMax', ['x', 'bool', [2, 3], bools23], { noop: 1, keepdims: 0 }),
  reduce('reducemin_20_bool_noop_empty_axes', 20, 'ReduceMin', ['x', 'bool', [2, 3], bools23], { noop: 1, axes: [] }),
  reduce('reducemin_20_bool_noop_axes', 20, 'ReduceMin', ['x', 'bool', [2, 3, 4], bools234], { noop: 1, axes: [1], keepdims: 0 }),
  reduce('reducemax_20_bool_scalar', 20, 'ReduceMax', ['x', 'bool', [], [1]]),
  reduce('reducemax_20_bool_axes_input', 20, 'ReduceMax', ['x', 'bool', [2, 3, 4], bools234], { axes: [1], axesInput: true, keepdims: 0 }),
  reduce('reducemax_20_float', 20, 'ReduceMax', ['x', f, [3, 4]], { axes: [0] }),
  reduce('reducemin_20_int32', 20, 'ReduceMin', ['x', 'int32', [3, 4]], { axes: [1], keepdims: 0 }),
  reduce('reducemax_22_bool', 22, 'ReduceMax', ['x', 'bool', [3, 4]], { axes: [0], keepdims: 0 }),
  reduce('reducemin_22_bool', 22, 'ReduceMin', ['x', 'bool', [3, 4]], { axes: [-1] }),

  // GridSample-20: the new mode names, and 5-D input.
  grid('gridsample_20_default', 20, [f, [1, 2, 3, 4]], [f, [1, 2, 3, 2]], {}),
  grid('gridsample_20_nearest_halfway', 20, [f, [1, 1, 2, 4]], [f, [1, 1, 4, 2], [-0.5, -0.5, 0, -0.5, 0.5, 0.5, 0.25, 0.5]], { mode: 'nearest' }),
  grid('gridsample_20_5d_nearest_halfway', 20, [f, [1, 1, 2, 2, 4]], [f, [1, 1, 1, 3, 3], [-0.5, -0.5, -0.5, 0, 0.5, 0.5, 0.5, 0, -0.5]], { mode: 'nearest' }),
  grid('gridsample_20_float64', 20, ['float64', [2, 2, 3, 3]], ['float64', [2, 3, 2, 2]], { mode: 'cubic', padding_mode: 'border' }),
  grid('gridsample_20_5d_float64', 20, ['float64', [1, 2, 2, 3, 3]], ['float64', [1, 2, 2, 2, 3]], { mode: 'linear', padding_mode: 'reflection', align_corners: 1 }),
  grid('gridsample_19_bicubic', 19, [f, [1, 2, 3, 4]], [f, [1, 2, 3, 2]], { mode: 'bicubic', padding_mode: 'reflection' }),
  grid('gridsample_22_linear', 22, [f, [1, 2, 3, 4]], [f, [1, 2, 3, 2]], { mode: 'linear', padding_mode: 'border' }),
  grid('gridsample_22_5d_nearest', 22, [f, [1, 2, 3, 3, 2]], [f, [1, 2, 3, 2, 3]], { mode: 'nearest', padding_mode: 'zeros' }),
];

for (const mode of ['linear', 'nearest', 'cubic']) {
  for (const pm of ['zeros', 'border', 'reflection']) {
    for (const ac of [0, 1]) {
      cases.push(grid(`gridsample_20_${mode}_${pm}_ac${ac}`, 20, [f, [2, 2, 4, 5]], [f, [2, 3, 4, 2]], { mode, padding_mode: pm, align_corners: ac }));
      if (mode !== 'cubic') {
        cases.push(grid(`gridsample_20_5d_${mode}_${pm}_ac${ac}`, 20, [f, [2, 2, 3, 4, 5]], [f, [2, 2, 3, 4, 3]], { mode, padding_mode: pm, align_corners: ac }));
      }
    }
  }
}

module.exports = cases;
