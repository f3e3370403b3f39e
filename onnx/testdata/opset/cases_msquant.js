// Cases for gen.js (the format of cases.js): onnxruntime's quantized
// com.microsoft ops of the QOperator format (QLinearAdd, QLinearMul,
// QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat,
// QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QGemm) and of dynamic
// quantization (MatMulIntegerToFloat, DynamicQuantizeMatMul), on uint8
// and int8, with
// numpy broadcasting
// (either operand read as a scalar over the other's innermost block, or
// both as spans), zero points at the ends of the range, the output zero
// point absent, channels first and last, pooling windows with pads,
// auto_pad, ceil_mode and count_include_pad, and scales that put results
// on rounding ties and beyond the range (saturation).
const M = 'com.microsoft';
const cases = [];
// ints returns n values spread over [lo, hi], both ends included.
const ints = (n, lo, hi) => Array.from({ length: n }, (_, i) => (n === 1 ? lo : Math.round(lo + ((hi - lo) * ((i * 7) % n)) / (n - 1))));
const prod = (s) => s.reduce((a, b) => a * b, 1);
const range = (dt) => (dt === 'uint8' ? [0, 255] : [-128, 127]);
// binary adds a QLinearAdd or QLinearMul case: shapes sa and sb, scales
// [a, b, c], zero points [a, b, c] (c null: omitted).
const binary = (op, name, dt, sa, sb, sc, zp) => {
  const [lo, hi] = range(dt);
  const ins = [['A', dt, sa, ints(prod(sa), lo, hi)], ['A_scale', 'float32', [], [sc[0]]], ['A_zero_point', dt, [], [zp[0]]],
    ['B', dt, sb, ints(prod(sb), lo, hi).reverse()], ['B_scale', 'float32', [], [sc[1]]], ['B_zero_point', dt, [], [zp[1]]],
    ['C_scale', 'float32', [], [sc[2]]]];
  if (zp[2] !== null) ins.push(['C_zero_point', dt, [], [zp[2]]]);
  cases.push({ name: `msq_${op === 'QLinearAdd' ? 'add' : 'mul'}_${name}`, opset: 17, domain: M, op, inputs: ins, outputs: [['C', dt]] });
};
for (const op of ['QLinearAdd', 'QLinearMul']) {
  const m = op === 'QLinearMul';
  binary(op, 'u8_same_shape', 'uint8', [2, 3, 5], [2, 3, 5], [0.02, 0.03, m ? 0.7 : 0.05], [128, 100, 120]);
  binary(op, 'u8_ties_saturate', 'uint8', [4, 8], [4, 8], [0.5, 0.5, m ? 64 : 1], [0, 128, 3]);
  binary(op, 'i8_broadcast_inner', 'int8', [2, 3, 4], [4], [0.1, 0.07, m ? 0.4 : 0.12], [-128, 127, 0]);
  binary(op, 'i8_scalar_b_no_c_zero', 'int8', [3, 11], [], [0.013, 0.25, m ? 0.05 : 0.02], [5, -7, null]);
  binary(op, 'u8_scalar_a_rows', 'uint8', [3, 1], [3, 17], [0.125, 0.0625, m ? 1 : 0.1875], [7, 250, 128]);
  binary(op, 'i8_both_broadcast', 'int8', [2, 1, 6], [3, 1], [0.031, 0.047, m ? 0.25 : 0.05], [10, -20, -5]);
}
// gap adds a QLinearGlobalAveragePool case: X of shape sh, channels_last
// cl, scales [x, y], zero points [x, y].
const gap = (name, dt, sh, cl, sc, zp) => {
  const [lo, hi] = range(dt);
  cases.push({ name: `msq_gap_${name}`, opset: 17, domain: M, op: 'QLinearGlobalAveragePool', attrs: { channels_last: cl },
    inputs: [['X', dt, sh, ints(prod(sh), lo, hi)], ['x_scale', 'float32', [], [sc[0]]], ['x_zero_point', dt, [], [zp[0]]],
      ['y_scale', 'float32', [], [sc[1]]], ['y_zero_point', dt, [], [zp[1]]]], outputs: [['Y', dt]] });
};
gap('u8_nchw', 'uint8', [2, 3, 4, 5], 0, [0.05, 0.04], [128, 100]);
gap('i8_nchw_3d', 'int8', [1, 5, 7], 0, [0.1, 0.02], [-3, 10]);
gap('u8_nhwc_one_channel', 'uint8', [2, 3, 3, 1], 1, [0.02, 0.01], [0, 255]);
gap('i8_nhwc_tail', 'int8', [2, 2, 3, 11], 1, [0.5, 0.25], [127, -128]);
gap('u8_nhwc_ties', 'uint8', [1, 2, 1, 9], 1, [1, 1], [0, 0]);
gap('i8_5d', 'int8', [1, 2, 2, 3, 2], 0, [0.3, 0.3], [0, 5]);
// pool adds a QLinearAveragePool case (y_zero_point omitted when zp[1] is
// null).
const pool = (name, dt, sh, attrs, sc, zp) => {
  const [lo, hi] = range(dt);
  const ins = [['X', dt, sh, ints(prod(sh), lo, hi)], ['x_scale', 'float32', [], [sc[0]]], ['x_zero_point', dt, [], [zp[0]]],
    ['y_scale', 'float32', [], [sc[1]]]];
  if (zp[1] !== null) ins.push(['y_zero_point', dt, [], [zp[1]]]);
  cases.push({ name: `msq_avgpool_${name}`, opset: 17, domain: M, op: 'QLinearAveragePool', attrs, inputs: ins, outputs: [['Y', dt]] });
};
pool('u8_pads_include', 'uint8', [1, 2, 5, 6], { kernel_shape: [3, 3], pads: [1, 1, 2, 1], strides: [2, 2], count_include_pad: 1 }, [0.1, 0.05], [128, 120]);
pool('i8_1d_ceil', 'int8', [2, 3, 9], { kernel_shape: [2], strides: [2], ceil_mode: 1 }, [0.5, 0.5], [0, -3]);
pool('u8_nhwc_same_upper', 'uint8', [1, 5, 4, 3], { kernel_shape: [2, 3], strides: [2, 1], auto_pad: 'SAME_UPPER', channels_last: 1 }, [0.02, 0.03], [10, 200]);
pool('i8_3d_same_lower', 'int8', [1, 2, 3, 4, 5], { kernel_shape: [2, 2, 3], auto_pad: 'SAME_LOWER' }, [0.07, 0.06], [-128, 127]);
pool('u8_whole_image', 'uint8', [2, 3, 3, 4], { kernel_shape: [3, 4] }, [0.25, 0.5], [100, 3]);
pool('i8_nhwc_no_y_zero_point', 'int8', [2, 4, 4, 2], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], ceil_mode: 1, channels_last: 1 }, [0.3, 0.2], [5, null]);
// concat adds a QLinearConcat case: inputs [shape, scale, zero point],
// Y's scale and zero point.
const concat = (name, dt, axis, xs, ys, yz) => {
  const [lo, hi] = range(dt);
  const ins = [['Y_scale', 'float32', [], [ys]], ['Y_zero_point', dt, [], [yz]]];
  xs.forEach(([sh, sc, zp], i) => ins.push([`X${i}`, dt, sh, ints(prod(sh), lo, hi)], [`X${i}_scale`, 'float32', [], [sc]], [`X${i}_zero_point`, dt, [], [zp]]));
  cases.push({ name: `msq_concat_${name}`, opset: 17, domain: M, op: 'QLinearConcat', attrs: { axis }, inputs: ins, outputs: [['Y', dt]] });
};
concat('u8_channels', 'uint8', 1, [[[1, 2, 3, 3], 0.02, 128], [[1, 4, 3, 3], 0.05, 100]], 0.04, 120);
concat('i8_last_axis_negative', 'int8', -1, [[[2, 3, 2], 0.1, -5], [[2, 3, 5], 0.07, 10], [[2, 3, 1], 0.2, 0]], 0.1, -5);
concat('u8_copy_and_ties', 'uint8', 0, [[[2, 8], 1, 0], [[3, 8], 0.5, 0], [[1, 8], 1.5, 3]], 1, 0);
concat('i8_saturate', 'int8', 0, [[[3, 4], 1, 0], [[2, 4], 3, -128]], 0.5, 127);
concat('u8_single', 'uint8', 2, [[[1, 2, 9], 0.3, 7]], 0.2, 250);
concat('i8_axis0_rank1', 'int8', 0, [[[5], 0.25, 1], [[7], 0.125, -1], [[3], 0.0625, 0]], 0.09375, 2);
// lookup adds a QLinearSigmoid or QLinearLeakyRelu case over every value
// of the type: scales [x, y], zero points [x, y] (null: omitted; an
// omitted Y_zero_point is named empty, as onnxruntime needs the slot).
const lookup = (op, name, dt, sh, sc, zp, attrs = {}) => {
  const [lo] = range(dt);
  const all = Array.from({ length: 256 }, (_, i) => lo + ((i * 77) % 256));
  const ins = [['X', dt, sh, all], ['X_scale', 'float32', [], [sc[0]]]];
  const names = ['X', 'X_scale', zp[0] === null ? '' : 'X_zero_point', 'Y_scale', zp[1] === null ? '' : 'Y_zero_point'];
  if (zp[0] !== null) ins.push(['X_zero_point', dt, [], [zp[0]]]);
  ins.push(['Y_scale', 'float32', [], [sc[1]]]);
  if (zp[1] !== null) ins.push(['Y_zero_point', dt, [], [zp[1]]]);
  cases.push({ name: `msq_${op === 'QLinearSigmoid' ? 'sigmoid' : 'leakyrelu'}_${name}`, opset: 17, domain: M, op, attrs, inputs: ins, nodeInputs: names, outputs: [['Y', dt]] });
};
lookup('QLinearSigmoid', 'u8', 'uint8', [256], [0.05, 1 / 256], [128, 0]);
lookup('QLinearSigmoid', 'i8', 'int8', [4, 64], [0.1, 1 / 256], [0, -128]);
lookup('QLinearSigmoid', 'u8_saturating_wide', 'uint8', [2, 128], [0.3, 1 / 255], [100, 0]);
lookup('QLinearSigmoid', 'i8_no_x_zero_point', 'int8', [256], [0.02, 0.002], [null, -100]);
lookup('QLinearSigmoid', 'u8_no_y_zero_point', 'uint8', [16, 16], [0.04, 0.005], [128, null]);
lookup('QLinearSigmoid', 'i8_fine_output', 'int8', [2, 2, 64], [0.125, 1e-7], [127, -128]);
lookup('QLinearLeakyRelu', 'u8_default_alpha', 'uint8', [256], [0.05, 0.04], [128, 20]);
lookup('QLinearLeakyRelu', 'i8_alpha', 'int8', [4, 64], [0.1, 0.08], [0, -30], { alpha: { f: 0.1 } });
lookup('QLinearLeakyRelu', 'u8_ties', 'uint8', [256], [0.5, 1], [128, 128], { alpha: { f: 0.5 } });
lookup('QLinearLeakyRelu', 'i8_no_zero_points', 'int8', [256], [0.25, 0.5], [null, null], { alpha: { f: 0.25 } });
lookup('QLinearLeakyRelu', 'u8_saturate', 'uint8', [8, 32], [0.3, 0.1], [50, 10], { alpha: { f: 0.2 } });
lookup('QLinearLeakyRelu', 'i8_negative_alpha', 'int8', [256], [0.05, 0.05], [10, 0], { alpha: { f: -0.5 } });
// softmax adds a QLinearSoftmax case: attrs (opset, axis), scales [x,
// y], y's zero point.
const softmax = (name, dt, sh, attrs, sc, yz) => {
  const [lo, hi] = range(dt);
  cases.push({ name: `msq_softmax_${name}`, opset: 17, domain: M, op: 'QLinearSoftmax', attrs,
    inputs: [['X', dt, sh, ints(prod(sh), lo, hi)], ['X_scale', 'float32', [], [sc[0]]], ['x_zero_point', dt, [], [dt === 'uint8' ? 128 : 0]],
      ['y_scale', 'float32', [], [sc[1]]], ['y_zero_point', dt, [], [yz]]], outputs: [['Y', dt]] });
};
softmax('u8_opset13_last', 'uint8', [3, 10], { opset: 13 }, [0.05, 1 / 256], 0);
softmax('i8_opset13_axis1', 'int8', [2, 4, 3], { opset: 13, axis: 1 }, [0.1, 1 / 256], -128);
softmax('u8_opset12_flatten', 'uint8', [2, 3, 4], { opset: 12, axis: 1 }, [0.02, 1 / 255], 0);
softmax('i8_opset11_default_axis', 'int8', [3, 2, 5], { opset: 11 }, [0.2, 1 / 256], -128);
softmax('u8_sharp', 'uint8', [4, 16], { opset: 13, axis: -1 }, [0.5, 1 / 256], 0);
softmax('i8_opset13_axis0', 'int8', [5, 3], { opset: 13, axis: 0 }, [0.01, 0.004], -100);
// qgemm adds a QGemm case: A [m, k] of ta (transposed with transA), B
// [k, n] of tb, b's scale and zero point [shape, values], bias C [shape]
// or null, y [scale, zero point] or null (a float32 Y).
const qgemm = (name, ta, tb, m, k, n, attrs, sc, zp, bq, c, yq) => {
  const [alo, ahi] = range(ta), [blo, bhi] = range(tb);
  const sa = attrs.transA ? [k, m] : [m, k], sb = attrs.transB ? [n, k] : [k, n];
  const ins = [['A', ta, sa, ints(m * k, alo, ahi)], ['a_scale', 'float32', [], [sc]], ['a_zero_point', ta, [], [zp]],
    ['B', tb, sb, ints(k * n, blo, bhi).reverse()], ['b_scale', 'float32', bq[0], bq[1]], ['b_zero_point', tb, bq[0], bq[2]]];
  const names = ins.map((x) => x[0]);
  if (c) {
    ins.push(['C', 'int32', c, ints(prod(c), -3000, 3000)]);
    names.push('C');
  } else if (yq) names.push('');
  if (yq) {
    ins.push(['y_scale', 'float32', [], [yq[0]]], ['y_zero_point', ta, [], [yq[1]]]);
    names.push('y_scale', 'y_zero_point');
  }
  cases.push({ name: `msq_qgemm_${name}`, opset: 17, domain: M, op: 'QGemm', attrs, inputs: ins, nodeInputs: names, outputs: [['Y', yq ? ta : 'float32']] });
};
qgemm('u8u8_quant', 'uint8', 'uint8', 3, 8, 4, {}, 0.02, 128, [[], [0.03], [120]], null, [0.5, 100]);
qgemm('u8s8_per_column_bias', 'uint8', 'int8', 4, 6, 3, { transB: 1 }, 0.05, 10, [[3], [0.01, 0.02, 0.04], [0, 5, -7]], [3], [0.8, 128]);
qgemm('s8s8_float', 'int8', 'int8', 2, 5, 5, { alpha: { f: 0.5 } }, 0.1, -3, [[], [0.07], [2]], [2, 5], null);
qgemm('s8s8_trans_quant', 'int8', 'int8', 5, 7, 2, { transA: 1, transB: 1 }, 0.03, 0, [[2], [0.02, 0.05], [0, 0]], [5, 1], [0.25, -10]);
qgemm('u8s8_float_row_bias', 'uint8', 'int8', 3, 4, 6, { transA: 1 }, 0.5, 128, [[6], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [1, 2, 3, -1, -2, -3]], [1, 6], null);
qgemm('u8u8_saturate_ties', 'uint8', 'uint8', 2, 3, 3, {}, 0.5, 0, [[1], [0.5], [0]], [], [1, 0]);
// mm adds a MatMulIntegerToFloat (a: [scale, zero point or null]) or
// DynamicQuantizeMatMul (a null: float32 A) case: shapes sa and sb, b's
// [shape, scales, zero points or null], bias.
const mm = (name, tb, sa, sb, a, bq, bias) => {
  const [blo, bhi] = range(tb);
  const n = sb[sb.length - 1];
  const ins = [a ? ['A', 'uint8', sa, ints(prod(sa), 0, 255)] : ['A', 'float32', sa, ints(prod(sa), -60, 100).map((v) => v / 16)],
    ['B', tb, sb, ints(prod(sb), blo, bhi).reverse()]];
  const names = ['A', 'B'];
  if (a) {
    ins.push(['a_scale', 'float32', [], [a[0]]]);
    names.push('a_scale');
  }
  ins.push(['b_scale', 'float32', bq[0], bq[1]]);
  names.push('b_scale');
  if (a) {
    if (a[1] !== null) ins.push(['a_zero_point', 'uint8', [], [a[1]]]);
    names.push(a[1] !== null ? 'a_zero_point' : '');
  }
  if (bq[2]) ins.push(['b_zero_point', tb, bq[0], bq[2]]);
  names.push(bq[2] ? 'b_zero_point' : '');
  if (bias) {
    ins.push(['bias', 'float32', [n], ints(n, -40, 40).map((v) => v / 8)]);
    names.push('bias');
  }
  while (names[names.length - 1] === '') names.pop();
  cases.push({ name: `msq_${a ? 'mmitf' : 'dqmm'}_${name}`, opset: 17, domain: M, op: a ? 'MatMulIntegerToFloat' : 'DynamicQuantizeMatMul', inputs: ins, nodeInputs: names, outputs: [['Y', 'float32']] });
};
mm('u8u8_bias', 'uint8', [3, 8], [8, 4], [0.02, 128], [[], [0.03], [120]], true);
mm('u8s8_per_column', 'int8', [2, 3, 6], [6, 5], [0.05, 7], [[5], [0.01, 0.02, 0.03, 0.04, 0.05], [0, 1, -1, 2, -2]], false);
mm('u8s8_batched_b', 'int8', [2, 2, 5], [2, 5, 3], [0.1, null], [[2, 1, 3], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], null], true);
mm('u8u8_vector', 'uint8', [7], [7, 3], [0.5, 3], [[1], [0.25], [2]], false);
mm('u8s8_no_zero_points', 'int8', [4, 4], [4, 2], [0.3, null], [[], [0.2], null], true);
mm('u8u8_broadcast_batch', 'uint8', [2, 1, 3, 4], [3, 4, 2], [0.04, 100], [[], [0.06], [128]], false);
mm('u8_bias', 'uint8', [3, 8], [8, 4], null, [[], [0.03], [120]], true);
mm('s8_per_column', 'int8', [2, 3, 6], [6, 5], null, [[5], [0.01, 0.02, 0.03, 0.04, 0.05], [0, 1, -1, 2, -2]], false);
mm('s8_batched_b', 'int8', [2, 2, 5], [2, 5, 3], null, [[2, 1, 3], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], null], true);
mm('u8_vector', 'uint8', [7], [7, 3], null, [[1], [0.25], [2]], false);
mm('s8_no_zero_point', 'int8', [4, 4], [4, 2], null, [[], [0.2], null], true);
mm('u8_broadcast_batch', 'uint8', [2, 1, 3, 4], [3, 4, 2], null, [[], [0.06], [128]], false);
module.exports = cases;
