// Cases for gen.js (the format of cases.js): CenterCropPad (opset 18),
// AffineGrid (20), TensorScatter (24) and DeformConv (19, 2-D), at their
// first opset and at 25.
const f = 'float32';
const one = (name, opset, op, attrs, inputs, outDt = f) => ({ name, opset, op, attrs, inputs, outputs: [['y', outDt]] });
const shape = (v, dt = 'int64', isConst = true) => ['s', dt, [v.length], v, isConst];

const cases = [];
for (const o of [18, 25]) {
  const c = (n, attrs, inputs, dt) => cases.push(one(`centercroppad_${o}_${n}`, o, 'CenterCropPad', attrs, inputs, dt));
  c('crop_pad', {}, [['x', f, [3, 4]], shape([2, 7])]); // crop by 1 (odd), pad by 3 (odd)
  c('even', {}, [['x', f, [6, 2]], shape([2, 6])]); // crop by 4, pad by 4
  c('axes', { axes: [-1, 1] }, [['x', f, [2, 5, 6]], shape([3, 8])]);
  c('axes_one', { axes: [0] }, [['x', f, [5, 3]], shape([2])]);
  c('same', {}, [['x', f, [2, 3]], shape([2, 3])]);
  c('to_empty', {}, [['x', f, [2, 3]], shape([0, 3])]);
  c('dynamic', { axes: [1] }, [['x', f, [3, 4]], shape([7], 'int64', false)]);
  c('int64', {}, [['x', 'int64', [3, 3, 2]], shape([4, 1, 5])], 'int64');
  c('bool', {}, [['x', 'bool', [3, 4]], shape([4, 1])], 'bool');
  c('float16', { axes: [2, 3] }, [['x', 'float16', [1, 2, 5, 4]], shape([3, 5])], 'float16');
  c('float64', {}, [['x', 'float64', [5]], shape([2])], 'float64');
}
for (const o of [20, 25]) {
  const c = (n, attrs, inputs, dt) => cases.push(one(`affinegrid_${o}_${n}`, o, 'AffineGrid', attrs, inputs, dt));
  c('2d', {}, [['t', f, [2, 2, 3]], shape([2, 3, 4, 5])]);
  c('2d_align', { align_corners: 1 }, [['t', f, [2, 2, 3]], shape([2, 1, 4, 5])]);
  c('2d_ones', { align_corners: 1 }, [['t', f, [1, 2, 3]], shape([1, 1, 1, 3])]);
  c('2d_ones_noalign', {}, [['t', f, [1, 2, 3]], shape([1, 1, 3, 1])]);
  c('3d', {}, [['t', f, [2, 3, 4]], shape([2, 1, 2, 3, 4])]);
  c('3d_align', { align_corners: 1 }, [['t', f, [1, 3, 4]], shape([1, 2, 3, 2, 4])]);
  c('3d_ones', { align_corners: 1 }, [['t', f, [1, 3, 4]], shape([1, 2, 1, 2, 1])]);
  c('dynamic', {}, [['t', f, [1, 2, 3]], shape([1, 1, 2, 3], 'int64', false)]);
  c('float64', { align_corners: 1 }, [['t', 'float64', [1, 2, 3]], shape([1, 1, 3, 2])], 'float64');
}
for (const o of [24, 25]) {
  const c = (n, attrs, inputs, dt, nodeInputs) => cases.push({ ...one(`tensorscatter_${o}_${n}`, o, 'TensorScatter', attrs, inputs, dt), nodeInputs });
  const w = (v) => ['w', 'int64', [v.length], v];
  c('prefill', {}, [['p', f, [2, 2, 5, 3]], ['u', f, [2, 2, 3, 3]]]);
  c('linear', {}, [['p', f, [2, 2, 5, 3]], ['u', f, [2, 2, 2, 3]], w([3, 1])]);
  c('linear_full', {}, [['p', f, [1, 1, 4, 2]], ['u', f, [1, 1, 4, 2]], w([0])]);
  c('linear_empty', {}, [['p', f, [2, 1, 4, 2]], ['u', f, [2, 1, 0, 2]], w([4, 1])]);
  c('circular', { mode: 'circular' }, [['p', f, [2, 2, 5, 3]], ['u', f, [2, 2, 3, 3]], w([4, 7])]);
  c('circular_full', { mode: 'circular' }, [['p', f, [1, 4, 2]], ['u', f, [1, 4, 2]], w([3])]);
  c('axis1', { axis: 1 }, [['p', f, [2, 6, 2, 3]], ['u', f, [2, 2, 2, 3]], w([0, 4])]);
  c('axis_last', { axis: -1, mode: 'circular' }, [['p', f, [3, 2, 4]], ['u', f, [3, 2, 3]], w([2, 0, 5])]);
  c('axis_neg3', { axis: -3 }, [['p', f, [2, 5, 2, 2]], ['u', f, [2, 1, 2, 2]], w([4, 0])]);
  c('float16', { mode: 'circular' }, [['p', 'float16', [2, 3, 2]], ['u', 'float16', [2, 2, 2]], w([2, 1])], 'float16');
  c('int64', { axis: 1 }, [['p', 'int64', [2, 4]], ['u', 'int64', [2, 2]], w([1, 2])], 'int64');
  c('bool', { axis: 1 }, [['p', 'bool', [2, 4]], ['u', 'bool', [2, 3]], w([0, 1])], 'bool');
  c('uint8_const', {}, [['p', 'uint8', [2, 3, 2]], ['u', 'uint8', [2, 1, 2]], ['w', 'int64', [2], [2, 0], true]], 'uint8');
}
for (const o of [19, 25]) {
  const c = (n, attrs, inputs, nodeInputs, dt = f) => cases.push({ ...one(`deformconv_${o}_${n}`, o, 'DeformConv', attrs, inputs, dt), nodeInputs });
  // Offsets of up to ±2 pixels move samples across the edges and outside.
  const off = (shape) => ['off', f, shape, Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => Math.fround(((i * 37) % 17) / 4 - 2))];
  c('basic', {}, [['x', f, [1, 1, 3, 3]], ['w', f, [1, 1, 2, 2]], off([1, 8, 2, 2])]);
  c('bias_mask', {}, [['x', f, [2, 2, 4, 4]], ['w', f, [3, 2, 2, 2]], ['off', f, [2, 8, 3, 3]], ['b', f, [3]], ['m', f, [2, 4, 3, 3]]]);
  c('mask_no_bias', {}, [['x', f, [1, 2, 4, 4]], ['w', f, [2, 2, 3, 3]], ['off', f, [1, 18, 2, 2]], ['', f, []], ['m', f, [1, 9, 2, 2]]], ['x', 'w', 'off', '', 'm']);
  c('groups', { group: 2, offset_group: 2 }, [['x', f, [1, 4, 5, 5]], ['w', f, [4, 2, 2, 2]], ['off', f, [1, 16, 4, 4]], ['b', f, [4]]]);
  c('offset_group', { offset_group: 2 }, [['x', f, [1, 4, 4, 4]], ['w', f, [2, 4, 2, 2]], ['off', f, [1, 16, 3, 3]]]);
  c('strides_pads_dilations', { strides: [2, 1], pads: [1, 0, 1, 2], dilations: [1, 2], kernel_shape: [2, 2] }, [['x', f, [1, 2, 5, 6]], ['w', f, [2, 2, 2, 2]], ['off', f, [1, 8, 3, 6]]]);
  c('zero_offset', {}, [['x', f, [1, 2, 4, 4]], ['w', f, [2, 2, 3, 3]], ['off', f, [1, 18, 2, 2], new Array(72).fill(0)]]);
  c('float64', {}, [['x', 'float64', [1, 1, 3, 3]], ['w', 'float64', [1, 1, 2, 2]], ['off', 'float64', [1, 8, 2, 2]], ['b', 'float64', [1]]], undefined, 'float64');
}
module.exports = cases;
