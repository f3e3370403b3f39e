// Cases for gen.js (the format of cases.js): more of onnxruntime's
// contrib ops of domain com.microsoft: EmbedLayerNormalization (BERT and
// DistilBERT forms, mask, position ids of [batch, S] and [1, S], constant
// tables), FusedConv (every MLAS activation, the Z input, groups, pads and
// strides) and FusedGemm (the element-wise activations with their
// parameters, transposes, alpha, beta and C).
const M = 'com.microsoft', f = 'float32', i32 = 'int32';
const cases = [];
// node adds a case of one com.microsoft node; ins are the graph inputs,
// nodeIns the node's inputs ('' for an omitted one).
const node = (name, op, attrs, ins, nodeIns, outs) =>
  cases.push({ name: `msm_${name}`, opset: 17, domain: M, op, attrs, inputs: ins, nodeInputs: nodeIns, outputs: outs });
// ids returns n integers in [0, hi), deterministic.
const ids = (n, hi, seed = 1) => Array.from({ length: n }, (_, i) => (i * 7 + seed * 3 + ((i * i) % 5)) % hi);
// mask returns a [b, s] mask of ones, the last `pad[b]` of each row 0.
const mask = (b, s, pad) => Array.from({ length: b * s }, (_, i) => (i % s < s - pad[Math.floor(i / s)] ? 1 : 0));

// EmbedLayerNormalization.
{
  const b = 2, s = 5, h = 16;
  node('embedlayernorm_bert', 'EmbedLayerNormalization', { epsilon: 1e-12 },
    [['input_ids', i32, [b, s], ids(b * s, 30)], ['segment_ids', i32, [b, s], ids(b * s, 2, 2)], ['word', f, [30, h]], ['pos', f, [8, h]],
      ['seg', f, [2, h]], ['gamma', f, [h]], ['beta', f, [h]], ['mask', i32, [b, s], mask(b, s, [0, 2])]],
    ['input_ids', 'segment_ids', 'word', 'pos', 'seg', 'gamma', 'beta', 'mask'],
    [['output', f], ['mask_index', i32], ['embedding_sum', f]]);
  node('embedlayernorm_distilbert', 'EmbedLayerNormalization', { epsilon: 1e-5 },
    [['input_ids', i32, [b, s], ids(b * s, 20, 3)], ['word', f, [20, h]], ['pos', f, [6, h]], ['gamma', f, [h]], ['beta', f, [h]]],
    ['input_ids', '', 'word', 'pos', '', 'gamma', 'beta'],
    [['output', f], ['mask_index', i32]]);
  node('embedlayernorm_position_ids', 'EmbedLayerNormalization', { epsilon: 1e-6, mask_index_type: 1 },
    [['input_ids', i32, [3, 4], ids(12, 10, 4)], ['segment_ids', i32, [3, 4], ids(12, 3, 5)], ['word', f, [10, 8]], ['pos', f, [9, 8]],
      ['seg', f, [3, 8]], ['gamma', f, [8]], ['beta', f, [8]], ['mask', i32, [3, 4], [1, 1, 1, 1, 1, 0, 0, 0, 1, 2, 1, 0]],
      ['position_ids', i32, [3, 4], ids(12, 9, 6)]],
    ['input_ids', 'segment_ids', 'word', 'pos', 'seg', 'gamma', 'beta', 'mask', 'position_ids'],
    [['output', f], ['mask_index', i32], ['embedding_sum', f]]);
  // (mask_index not asked for: the node's second output is omitted.)
  cases.push({ name: 'msm_embedlayernorm_position_ids_broadcast', opset: 17,
    nodes: [{ domain: M, op: 'EmbedLayerNormalization', inputs: ['input_ids', 'segment_ids', 'word', 'pos', 'seg', 'gamma', 'beta', '', 'position_ids'],
      outputs: ['output', '', 'embedding_sum'] }],
    inputs: [['input_ids', i32, [2, 3], ids(6, 12, 7)], ['segment_ids', i32, [2, 3], [0, 0, 1, 1, 1, 0]], ['word', f, [12, 32]], ['pos', f, [4, 32]],
      ['seg', f, [2, 32]], ['gamma', f, [32]], ['beta', f, [32]], ['position_ids', i32, [1, 3], [3, 0, 2]]],
    outputs: [['output', f], ['embedding_sum', f]] });
  node('embedlayernorm_const_tables', 'EmbedLayerNormalization', { epsilon: 1e-3 },
    [['input_ids', i32, [1, 7], ids(7, 50, 8)], ['segment_ids', i32, [1, 7], [0, 0, 0, 1, 1, 1, 1]], ['word', f, [50, 24], null, true],
      ['pos', f, [7, 24], null, true], ['seg', f, [2, 24], null, true], ['gamma', f, [24], null, true], ['beta', f, [24], null, true],
      ['mask', i32, [1, 7], [1, 1, 1, 1, 1, 1, 0]]],
    ['input_ids', 'segment_ids', 'word', 'pos', 'seg', 'gamma', 'beta', 'mask'],
    [['output', f], ['mask_index', i32], ['embedding_sum', f]]);
  // float16 tables: onnxruntime's CPU provider casts around its float32
  // kernel, rounding output and embedding_sum once.
  const hf = 'float16';
  node('embedlayernorm_float16', 'EmbedLayerNormalization', { epsilon: 1e-5 },
    [['input_ids', i32, [b, s], ids(b * s, 30, 9)], ['segment_ids', i32, [b, s], ids(b * s, 2, 4)], ['word', hf, [30, h]], ['pos', hf, [8, h]],
      ['seg', hf, [2, h]], ['gamma', hf, [h]], ['beta', hf, [h]], ['mask', i32, [b, s], mask(b, s, [1, 0])]],
    ['input_ids', 'segment_ids', 'word', 'pos', 'seg', 'gamma', 'beta', 'mask'],
    [['output', hf], ['mask_index', i32], ['embedding_sum', hf]]);
}

// FusedConv: every activation, Z, groups, pads, strides, 1-D.
{
  const conv = (name, attrs, x, w, bias, z) => {
    const ins = [['X', f, x], ['W', f, w]], nodeIns = ['X', 'W'];
    const m = w[0], out = [x[0], m, ...x.slice(2).map((d, i) => d - w[2 + i] + 1 + (attrs.pads ? attrs.pads[i] + attrs.pads[i + x.length - 2] : 0))];
    if (bias) { ins.push(['B', f, [m]]); nodeIns.push('B'); } else if (z) nodeIns.push('');
    if (z) { ins.push(['Z', f, attrs.strides ? z : out]); nodeIns.push('Z'); }
    node(`fusedconv_${name}`, 'FusedConv', attrs, ins, nodeIns, [['Y', f]]);
  };
  conv('relu', { activation: 'Relu', pads: [1, 1, 1, 1] }, [1, 3, 5, 5], [4, 3, 3, 3], true, false);
  conv('leakyrelu_z', { activation: 'LeakyRelu', activation_params: [0.2] }, [2, 2, 4, 5], [3, 2, 2, 2], true, true);
  conv('clip_group', { activation: 'Clip', activation_params: [-0.5, 1], group: 2 }, [1, 4, 4, 4], [6, 2, 3, 3], true, false);
  conv('hardsigmoid_z_nobias', { activation: 'HardSigmoid', activation_params: [0.3, 0.4] }, [1, 2, 5, 4], [2, 2, 2, 3], false, true);
  conv('sigmoid_strides', { activation: 'Sigmoid', strides: [2, 2], pads: [1, 0, 1, 0] }, [1, 3, 7, 6], [5, 3, 3, 2], true, [1, 5, 4, 3]);
  conv('tanh_1d', { activation: 'Tanh', dilations: [2] }, [2, 3, 9], [4, 3, 3], true, false);
  conv('identity_z_3d', {}, [1, 2, 3, 4, 4], [3, 2, 2, 2, 2], true, true);
}

// FusedGemm: the activations with their parameters; transA, transB,
// alpha, beta; C of [N], [M, N], a scalar, or none.
{
  const gemm = (name, attrs, a, b, c) => {
    const ins = [['A', f, a], ['B', f, b]];
    if (c) ins.push(['C', f, c]);
    node(`fusedgemm_${name}`, 'FusedGemm', attrs, ins, ins.map((i) => i[0]), [['Y', f]]);
  };
  gemm('relu', { activation: 'Relu' }, [4, 6], [6, 5], [5]);
  gemm('leakyrelu_transb', { activation: 'LeakyRelu', activation_alpha: 0.1, transB: 1 }, [3, 8], [7, 8], [3, 7]);
  gemm('sigmoid_transa_alpha', { activation: 'Sigmoid', transA: 1, alpha: 0.5, beta: { f: 2 } }, [5, 3], [5, 4], [1]);
  gemm('tanh_noc', { activation: 'Tanh' }, [2, 9], [9, 3], null);
  gemm('hardsigmoid', { activation: 'HardSigmoid', activation_alpha: 0.2, activation_beta: 0.5 }, [3, 4], [4, 6], [6]);
  gemm('elu', { activation: 'Elu', activation_alpha: 1.5 }, [4, 4], [4, 4], [4]);
  gemm('selu', { activation: 'Selu', activation_alpha: 1.67326, activation_gamma: 1.0507 }, [3, 5], [5, 2], [3, 2]);
  gemm('softplus_softsign', { activation: 'Softplus' }, [2, 3], [3, 8], [8]);
  gemm('softsign', { activation: 'Softsign', transA: 1, transB: 1 }, [4, 3], [5, 4], [5]);
  gemm('thresholdedrelu', { activation: 'ThresholdedRelu', activation_alpha: 0.3 }, [3, 3], [3, 3], [3]);
}

// QuantizeLinear and DequantizeLinear of com.microsoft: 16-bit, int32,
// float16 scales, per axis, 4-bit constants; a QDQ pair of 16 bits.
{
  const q = (name, x, scale, zp, attrs, out) => {
    const ins = [x, scale].concat(zp ? [zp] : []);
    node(name, 'QuantizeLinear', attrs, ins, ins.map((i) => i[0]), [['y', out]]);
  };
  const dq = (name, x, scale, zp, attrs, out) => {
    const ins = [x, scale].concat(zp ? [zp] : []);
    node(name, 'DequantizeLinear', attrs, ins, ins.map((i) => i[0]), [['y', out]]);
  };
  q('quantizelinear_uint16', ['x', f, [2, 3, 4]], ['s', f, [], [0.0001]], ['z', 'uint16', [], [30000]], {}, 'uint16');
  q('quantizelinear_int16_axis', ['x', f, [2, 3, 4]], ['s', f, [3], [0.001, 0.00003, 0.1], true], ['z', 'int16', [3], [0, -100, 32000], true], { axis: 1 }, 'int16');
  q('quantizelinear_float16_int8', ['x', 'float16', [3, 5]], ['s', 'float16', [], [0.01]], ['z', 'int8', [], [3]], {}, 'int8');
  q('quantizelinear_no_zero_point', ['x', f, [8], [-1, 0, 0.5, 1.5, 2.5, 3.5, 100, 1000]], ['s', f, [], [1]], null, {}, 'uint8');
  dq('dequantizelinear_int16', ['x', 'int16', [2, 7]], ['s', f, [], [0.0003]], ['z', 'int16', [], [-5]], {}, f);
  dq('dequantizelinear_uint16_float16', ['x', 'uint16', [4, 3]], ['s', 'float16', [3], [0.001, 0.01, 0.0001]], ['z', 'uint16', [3], [0, 32768, 65535]], { axis: -1 }, 'float16');
  dq('dequantizelinear_int32', ['x', i32, [6], [-2147483648, -7, 0, 5, 1000000, 2147483647]], ['s', f, [], [0.5]], null, {}, f);
  dq('dequantizelinear_int4_const', ['x', 'int4', [4, 2], [-8, -1, 0, 7, 3, -3, 5, -6], true], ['s', f, [2], [0.5, 0.25], true], ['z', 'int4', [2], [1, -2], true], { axis: 1 }, f);
  dq('dequantizelinear_uint4_const', ['x', 'uint4', [3, 3], [0, 15, 8, 1, 2, 3, 14, 9, 7], true], ['s', f, [], [0.125], true], ['z', 'uint4', [], [8], true], {}, f);
  cases.push({ name: 'msm_qdq_uint16', opset: 21, nodes: [
    { domain: M, op: 'QuantizeLinear', inputs: ['x', 's', 'z'], outputs: ['q'] },
    { domain: M, op: 'DequantizeLinear', inputs: ['q', 's', 'z'], outputs: ['y'] }],
  inputs: [['x', f, [3, 6]], ['s', f, [], [0.00007], true], ['z', 'uint16', [], [32768], true]], outputs: [['y', f]] });
}

// Trilu (com.microsoft), ExpandDims, NhwcMaxPool, Inverse.
node('trilu_upper', 'Trilu', {}, [['x', f, [2, 3, 4]]], ['x'], [['y', f]]);
node('trilu_lower_k_int64', 'Trilu', { upper: 0 }, [['x', 'int64', [4, 3]], ['k', 'int64', [], [1], true]], ['x', 'k'], [['y', 'int64']]);
node('trilu_float16_k_negative', 'Trilu', { upper: 1 }, [['x', 'float16', [3, 5]], ['k', 'int64', [], [-1], true]], ['x', 'k'], [['y', 'float16']]);
node('trilu_float64', 'Trilu', { upper: 0 }, [['x', 'float64', [2, 2, 3]]], ['x'], [['y', 'float64']]);
node('expanddims_front', 'ExpandDims', {}, [['x', f, [2, 3]], ['axis', i32, [], [0], true]], ['x', 'axis'], [['y', f]]);
node('expanddims_back_negative', 'ExpandDims', {}, [['x', 'int64', [2, 3, 4]], ['axis', i32, [], [-1], true]], ['x', 'axis'], [['y', 'int64']]);
node('expanddims_middle_bool', 'ExpandDims', {}, [['x', 'bool', [3, 2]], ['axis', i32, [], [1], true]], ['x', 'axis'], [['y', 'bool']]);
node('expanddims_scalar', 'ExpandDims', {}, [['x', 'float16', []], ['axis', i32, [], [-1], true]], ['x', 'axis'], [['y', 'float16']]);
node('expanddims_most_negative', 'ExpandDims', {}, [['x', 'uint8', [4, 1, 2]], ['axis', i32, [], [-4], true]], ['x', 'axis'], [['y', 'uint8']]);
{
  const mp = (name, dt, shape, attrs) => node(`nhwcmaxpool_${name}`, 'NhwcMaxPool', attrs, [['x', dt, shape]], ['x'], [['y', dt]]);
  mp('u8_2d', 'uint8', [2, 5, 6, 3], { kernel_shape: [3, 3], strides: [2, 1] });
  mp('i8_pads', 'int8', [1, 4, 4, 5], { kernel_shape: [2, 3], pads: [1, 2, 1, 0] });
  mp('u8_ceil_dilations', 'uint8', [1, 7, 6, 2], { kernel_shape: [2, 2], strides: [2, 2], dilations: [2, 1], ceil_mode: 1 });
  mp('i8_same_lower_1d', 'int8', [2, 9, 4], { kernel_shape: [4], strides: [2], auto_pad: 'SAME_LOWER' });
  mp('u8_3d_same_upper', 'uint8', [1, 3, 4, 5, 2], { kernel_shape: [2, 2, 2], auto_pad: 'SAME_UPPER' });
  // SAME with dilations (padded as if undilated) and a kernel below the
  // stride (a negative pad: windows start inside the input).
  mp('i8_same_lower_dilated', 'int8', [2, 7, 6, 3], { kernel_shape: [2, 3], dilations: [3, 2], strides: [1, 2], auto_pad: 'SAME_LOWER', ceil_mode: 1 });
  mp('u8_same_upper_negative_pad', 'uint8', [1, 9, 10, 2], { kernel_shape: [1, 2], strides: [3, 4], auto_pad: 'SAME_UPPER' });
}
{
  // Well-conditioned matrices: random entries plus a dominant diagonal.
  const mats = (b, n, scale, seed) => Array.from({ length: b * n * n }, (_, i) => {
    const r = ((i * 7919 + seed * 104729) % 1000) / 500 - 1;
    return Math.fround(r + (i % (n * n) % (n + 1) === 0 ? scale : 0));
  });
  node('inverse_2x2', 'Inverse', {}, [['x', f, [2, 2], [4, 7, 2, 6]]], ['x'], [['y', f]]);
  node('inverse_batch_3x3', 'Inverse', {}, [['x', f, [2, 3, 3], mats(2, 3, 4, 1)]], ['x'], [['y', f]]);
  node('inverse_pivoting_4x4', 'Inverse', {}, [['x', f, [4, 4], [0, 2, 1, 3, 1, 0, 0, 2, 3, 1, 0, 0, 0, 1, 4, 1]]], ['x'], [['y', f]]);
  node('inverse_float64_5x5', 'Inverse', {}, [['x', 'float64', [1, 5, 5], mats(1, 5, 3, 2)]], ['x'], [['y', 'float64']]);
  node('inverse_8x8', 'Inverse', {}, [['x', f, [8, 8], mats(1, 8, 6, 3)]], ['x'], [['y', f]]);
}

module.exports = cases;
