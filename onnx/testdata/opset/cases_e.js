// Cases for gen.js (the format of cases.js): LpNormalization, LpPool,
// GlobalLpPool and MaxRoiPool. onnxruntime runs GlobalLpPool and
// MaxRoiPool up to opset 21, and LpPool, GlobalLpPool and MaxRoiPool for
// float32 only (LpPool and MaxRoiPool float16 too, through a cast it
// inserts).
const f = 'float32';
const one = (name, opset, op, attrs, inputs, outDt = f) => ({ name, opset, op, attrs, inputs, outputs: [['y', outDt]] });
const N = NaN, I = Infinity;

const cases = [];
// LpNormalization.
for (const o of [11, 17, 22, 25]) {
  cases.push(one(`lpnormalization_${o}_default`, o, 'LpNormalization', {}, [['x', f, [2, 3, 4]]]));
  cases.push(one(`lpnormalization_${o}_p1_axis1`, o, 'LpNormalization', { p: 1, axis: 1 }, [['x', f, [2, 3, 4]]]));
}
{
  const c = (n, attrs, inputs, dt) => cases.push(one(`lpnormalization_22_${n}`, 22, 'LpNormalization', attrs, inputs, dt));
  c('axis0', { axis: 0 }, [['x', f, [3, 4]]]);
  c('axis_neg2_p1', { axis: -2, p: 1 }, [['x', f, [2, 3, 2]]]);
  c('rank1', {}, [['x', f, [5]]]);
  c('zero_lane', { axis: 1 }, [['x', f, [3, 3], [0, 0, 0, 1, -2, 2, -0, 0, -0]]]);
  c('zero_lane_p1', { axis: 1, p: 1 }, [['x', f, [3, 3], [0, 0, 0, 1, -2, 2, -0, 0, -0]]]);
  // (Not subnormals: onnxruntime sums their squares in float32, to 0.)
  c('special', { axis: 0 }, [['x', f, [2, 5], [N, I, -I, 0.5, 3, 1, 2, 1, 0.5, -4]]]);
  c('special_p1', { axis: 0, p: 1 }, [['x', f, [2, 5], [N, I, -I, 1e-40, 3, 1, 2, 1, 1e-40, -4]]]);
  c('float16', {}, [['x', 'float16', [2, 3, 4]]], 'float16');
  c('float64', { p: 1 }, [['x', 'float64', [3, 4]]], 'float64');
}
// LpPool.
{
  const x5 = [1, -2, 3, -4, 5];
  const c = (n, o, attrs, inputs, dt) => cases.push(one(`lppool_${n}`, o, 'LpPool', attrs, inputs, dt));
  c('2_2d', 2, { kernel_shape: [2, 2] }, [['x', f, [1, 2, 4, 5]]]);
  c('2_strided_p1', 2, { kernel_shape: [3], strides: [2], p: 1 }, [['x', f, [2, 2, 7]]]);
  for (const o of [11, 17, 18, 22, 25]) {
    c(`${o}_2d_pads`, o, { kernel_shape: [3, 2], strides: [2, 1], pads: [1, 0, 2, 1] }, [['x', f, [1, 3, 5, 4]]]);
    c(`${o}_p3`, o, { kernel_shape: [2, 2], p: 3 }, [['x', f, [1, 2, 3, 3]]]);
  }
  for (const o of [11, 18]) {
    c(`${o}_same_upper`, o, { kernel_shape: [2, 3], strides: [2, 2], auto_pad: 'SAME_UPPER' }, [['x', f, [1, 1, 5, 6]]]);
    c(`${o}_same_lower`, o, { kernel_shape: [2, 3], auto_pad: 'SAME_LOWER' }, [['x', f, [1, 1, 4, 5]]]);
    c(`${o}_valid`, o, { kernel_shape: [2], strides: [2], auto_pad: 'VALID' }, [['x', f, [1, 2, 7]]]);
    c(`${o}_3d`, o, { kernel_shape: [2, 2, 2], pads: [1, 0, 0, 0, 1, 1] }, [['x', f, [1, 2, 3, 3, 3]]]);
    c(`${o}_p1_1d`, o, { kernel_shape: [2], p: 1 }, [['x', f, [1, 1, 5], x5]]);
    c(`${o}_p4`, o, { kernel_shape: [3], strides: [2], p: 4 }, [['x', f, [1, 1, 7]]]);
  }
  c('18_window_in_padding', 18, { kernel_shape: [2], dilations: [3], pads: [1, 1] }, [['x', f, [1, 2, 2]]]);
  c('17_float16', 17, { kernel_shape: [2, 2] }, [['x', 'float16', [1, 2, 3, 3]]], 'float16');
  c('18_float16', 18, { kernel_shape: [2], dilations: [2] }, [['x', 'float16', [1, 2, 6]]], 'float16');
  for (const o of [18, 22, 25]) {
    c(`${o}_ceil`, o, { kernel_shape: [2], strides: [2], ceil_mode: 1 }, [['x', f, [1, 1, 5], x5]]);
    c(`${o}_ceil_last_window`, o, { kernel_shape: [2], strides: [2], ceil_mode: 1, pads: [1, 1] }, [['x', f, [1, 1, 5], x5]]);
    c(`${o}_ceil_2d`, o, { kernel_shape: [3, 2], strides: [2, 3], ceil_mode: 1, pads: [0, 1, 1, 0] }, [['x', f, [1, 2, 6, 7]]]);
    c(`${o}_dilations`, o, { kernel_shape: [2], dilations: [2] }, [['x', f, [1, 1, 5], x5]]);
    c(`${o}_dilations_2d`, o, { kernel_shape: [2, 2], dilations: [2, 3], strides: [1, 2], pads: [1, 1, 0, 1] }, [['x', f, [2, 1, 5, 7]]]);
    c(`${o}_dilations_ceil`, o, { kernel_shape: [2], dilations: [2], strides: [2], ceil_mode: 1, pads: [1, 1] }, [['x', f, [1, 2, 8]]]);
    c(`${o}_dilations_valid`, o, { kernel_shape: [2, 2], dilations: [2, 2], auto_pad: 'VALID' }, [['x', f, [1, 1, 5, 5]]]);
    c(`${o}_dilations_3d`, o, { kernel_shape: [2, 2, 2], dilations: [2, 1, 2], p: 1 }, [['x', f, [1, 1, 4, 3, 4]]]);
  }
  c('18_special', 18, { kernel_shape: [2] }, [['x', f, [1, 1, 8], [N, 1, I, -I, 0, -0, 1e-40, 2]]]);
  c('18_special_p1', 18, { kernel_shape: [2], p: 1 }, [['x', f, [1, 1, 8], [N, 1, I, -I, 0, -0, 1e-40, 2]]]);
}
// GlobalLpPool.
for (const o of [11, 17, 21]) {
  const c = (n, attrs, inputs) => cases.push(one(`globallppool_${o}_${n}`, o, 'GlobalLpPool', attrs, inputs));
  c('default', {}, [['x', f, [2, 3, 4, 5]]]);
  c('p1', { p: 1 }, [['x', f, [1, 2, 6]]]);
  c('p3', { p: 3 }, [['x', f, [1, 2, 2, 2, 3]]]);
}
cases.push(one('globallppool_2_default', 2, 'GlobalLpPool', {}, [['x', f, [1, 3, 3, 3]]]));
cases.push(one('globallppool_21_special', 21, 'GlobalLpPool', {}, [['x', f, [1, 4, 2], [N, 1, I, -I, 0, -0, 1e-40, 2]]]));
// MaxRoiPool.
{
  const rois = (v, dt = f) => ['rois', dt, [v.length / 5, 5], v];
  for (const o of [1, 11, 17, 21]) {
    const c = (n, attrs, inputs, dt) => cases.push(one(`maxroipool_${o}_${n}`, o, 'MaxRoiPool', attrs, inputs, dt));
    c('basic', { pooled_shape: [2, 2] }, [['x', f, [2, 3, 6, 5]], rois([0, 0, 0, 4, 5, 1, 1, 2, 3, 4])]);
    c('scale', { pooled_shape: [3, 2], spatial_scale: 0.5 }, [['x', f, [1, 2, 8, 8]], rois([0, 1, 1, 9, 13, 0, 3, 5, 15, 12, 0, 2.5, 0.5, 7, 7])]);
  }
  const c = (n, attrs, inputs, dt) => cases.push(one(`maxroipool_21_${n}`, 21, 'MaxRoiPool', attrs, inputs, dt));
  c('out_of_image', { pooled_shape: [2, 2] }, [['x', f, [1, 1, 4, 4]], rois([0, 5, 5, 9, 9, 0, -8, -8, -5, -5, 0, 3, -2, 6, 1, 0, -3, 2, 1, 8])]);
  c('malformed', { pooled_shape: [2, 3] }, [['x', f, [1, 2, 5, 5]], rois([0, 3, 3, 1, 1, 0, 2, 4, 2, 0, 0, 4, 4, 4, 4])]);
  c('more_bins', { pooled_shape: [4, 5] }, [['x', f, [1, 1, 6, 6]], rois([0, 1, 2, 3, 4])]);
  c('fractional', { pooled_shape: [3, 3], spatial_scale: 0.3 }, [['x', f, [2, 1, 7, 7]], rois([1.9, 1.7, 5, 15, 16.7, 0.2, -2.5, 2.5, 12.5, 17.4, 1, 8.3, 1.6, 18, 18])]);
  c('special', { pooled_shape: [1, 4] }, [['x', f, [1, 1, 2, 8], [N, 1, -I, -I, 2, N, N, 1, 0.5, N, -I, -I, N, 3, N, -I]], rois([0, 0, 0, 7, 1])]);
  c('float16', { pooled_shape: [2, 2] }, [['x', 'float16', [1, 2, 4, 4]], rois([0, 0, 0, 3, 3, 0, 1, 0, 3, 2], 'float16')], 'float16');
}
module.exports = cases;
