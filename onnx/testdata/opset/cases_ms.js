// Cases for gen.js (the format of cases.js): onnxruntime's contrib ops of
// domain com.microsoft (gen.js imports the domain for nodes of it), and
// the normalizations onnxruntime takes in the default domain below their
// ONNX opset: LayerNormalization before 17 and SimplifiedLayerNormalization
// (RMS normalization) at any opset.
const M = 'com.microsoft', f = 'float32', h = 'float16', d = 'float64';
const cases = [];
const one = (name, op, attrs, inputs, outputs, extra = {}) =>
  cases.push({ name: `ms_${name}`, opset: 17, domain: M, op, attrs, inputs, outputs, ...extra });
const graph = (name, opset, node, inputs, outputs) => cases.push({ name, opset, nodes: [node], inputs, outputs });

// The GELU family: exact, with bias, tanh (bias optional), x·sigmoid(alpha·x).
// (float16 in ../contrib_f16: onnxruntime rounds some intermediates of its
// float16 form, so its results differ from the correctly rounded ones by
// a few float16 units in the last place.)
for (const dt of [f]) {
  one(`gelu_${dt}`, 'Gelu', {}, [['x', dt, [2, 3, 8]]], [['y', dt]]);
  one(`biasgelu_${dt}`, 'BiasGelu', {}, [['x', dt, [2, 3, 8]], ['bias', dt, [8]]], [['y', dt]]);
  one(`fastgelu_${dt}`, 'FastGelu', {}, [['x', dt, [3, 16]]], [['y', dt]]);
  one(`fastgelu_bias_${dt}`, 'FastGelu', {}, [['x', dt, [2, 2, 16]], ['bias', dt, [16]]], [['y', dt]]);
  one(`quickgelu_${dt}`, 'QuickGelu', {}, [['x', dt, [4, 8]]], [['y', dt]]);
  one(`quickgelu_alpha_${dt}`, 'QuickGelu', { alpha: 1.25 }, [['x', dt, [4, 8]]], [['y', dt]]);
}

// SkipLayerNormalization and its RMS form: skip of input's shape, [1,S,H]
// or [S,H]; optional beta and bias; every output.
for (const dt of [f, h]) {
  graph(`ms_skiplayernorm_all_${dt}`, 17, { domain: M, op: 'SkipLayerNormalization', inputs: ['x', 'skip', 'gamma', 'beta', 'bias'], outputs: ['y', 'mean', 'inv_std_var', 'sum'], attrs: { epsilon: 1e-5 } },
    [['x', dt, [2, 3, 16]], ['skip', dt, [2, 3, 16]], ['gamma', dt, [16]], ['beta', dt, [16]], ['bias', dt, [16]]],
    [['y', dt], ['mean', f], ['inv_std_var', f], ['sum', dt]]);
  graph(`ms_skiplayernorm_skip2d_${dt}`, 17, { domain: M, op: 'SkipLayerNormalization', inputs: ['x', 'skip', 'gamma', '', 'bias'], outputs: ['y', '', '', 'sum'] },
    [['x', dt, [2, 3, 8]], ['skip', dt, [3, 8]], ['gamma', dt, [8]], ['bias', dt, [8]]], [['y', dt], ['sum', dt]]);
  graph(`ms_skipsimplifiedlayernorm_${dt}`, 17, { domain: M, op: 'SkipSimplifiedLayerNormalization', inputs: ['x', 'skip', 'gamma', 'bias'], outputs: ['y', '', 'inv_std_var', 'sum'], attrs: { epsilon: 1e-6 } },
    [['x', dt, [2, 4, 16]], ['skip', dt, [1, 4, 16]], ['gamma', dt, [16]], ['bias', dt, [16]]], [['y', dt], ['inv_std_var', f], ['sum', dt]]);
}
graph('ms_skiplayernorm_2d', 17, { domain: M, op: 'SkipLayerNormalization', inputs: ['x', 'skip', 'gamma', 'beta'], outputs: ['y'] },
  [['x', f, [5, 12]], ['skip', f, [5, 12]], ['gamma', f, [12]], ['beta', f, [12]]], [['y', f]]);
graph('ms_skipsimplifiedlayernorm_2d', 17, { domain: M, op: 'SkipSimplifiedLayerNormalization', inputs: ['x', 'skip', 'gamma'], outputs: ['y'] },
  [['x', f, [5, 12]], ['skip', f, [5, 12]], ['gamma', f, [12]]], [['y', f]]);

// FusedMatMul: alpha, transA, transB, transBatchA, transBatchB; 1-D operands
// (with a 1-D B, transA swaps A's dimensions but not its data, as
// onnxruntime reads it).
one('fusedmatmul_transb_alpha', 'FusedMatMul', { transB: 1, alpha: 0.5 }, [['a', f, [2, 3, 5]], ['b', f, [4, 5]]], [['y', f]]);
one('fusedmatmul_transa_float16', 'FusedMatMul', { transA: 1, alpha: -1.5 }, [['a', h, [2, 1, 5, 3]], ['b', h, [3, 5, 4]]], [['y', h]]);
one('fusedmatmul_transbatch', 'FusedMatMul', { transBatchA: 1, transBatchB: 1, transB: 1 }, [['a', f, [3, 2, 4]], ['b', f, [5, 2, 4]]], [['y', f]]);
one('fusedmatmul_transbatch_float64', 'FusedMatMul', { transBatchA: 1, transA: 1, alpha: 2.5 }, [['a', d, [3, 2, 4, 5]], ['b', d, [2, 4, 3, 6]]], [['y', d]]);
one('fusedmatmul_1d', 'FusedMatMul', { transB: 1 }, [['a', f, [4]], ['b', f, [2, 3, 4]]], [['y', f]]);
one('fusedmatmul_1d_b_transa', 'FusedMatMul', { transA: 1 }, [['a', f, [2, 3, 4]], ['b', f, [3]]], [['y', f]]);

// RotaryEmbedding (com.microsoft): position_ids [batch, seq] or one start
// position; 3-D or 4-D input; interleaved; a rotary dimension below the
// head size (the rest of each head copied).
const pos = (b, s, max) => ['position_ids', 'int64', [b, s], Array.from({ length: b * s }, (_, i) => String((i * 7 + 3) % max))];
one('rotaryembedding', 'RotaryEmbedding', { num_heads: 2 }, [['x', f, [2, 3, 16]], pos(2, 3, 6), ['cos', f, [6, 4]], ['sin', f, [6, 4]]], [['y', f]]);
one('rotaryembedding_interleaved_float16', 'RotaryEmbedding', { interleaved: 1 }, [['x', h, [1, 2, 3, 8]], ['position_ids', 'int64', [1], ['2']], ['cos', h, [5, 4]], ['sin', h, [5, 4]]], [['y', h]]);
one('rotaryembedding_partial', 'RotaryEmbedding', { num_heads: 3, rotary_embedding_dim: 4, interleaved: 1 }, [['x', f, [1, 4, 24]], pos(1, 4, 8), ['cos', f, [8, 2]], ['sin', f, [8, 2]]], [['y', f]]);
one('rotaryembedding_partial_float16', 'RotaryEmbedding', { num_heads: 2, rotary_embedding_dim: 4 }, [['x', h, [2, 2, 2, 8]], ['position_ids', 'int64', [1], ['1']], ['cos', h, [4, 2]], ['sin', h, [4, 2]]], [['y', h]]);

// The default domain: SimplifiedLayerNormalization (scale of another float
// type than X too), LayerNormalization below opset 17.
graph('simplifiedln_11_axis1', 11, { op: 'SimplifiedLayerNormalization', inputs: ['x', 'scale'], outputs: ['y', 'inv_std_var'], attrs: { axis: 1, epsilon: 1e-4 } },
  [['x', f, [2, 3, 4]], ['scale', f, [3, 4]]], [['y', f], ['inv_std_var', f]]);
graph('simplifiedln_17_float16', 17, { op: 'SimplifiedLayerNormalization', inputs: ['x', 'scale'], outputs: ['y'] },
  [['x', h, [3, 16]], ['scale', h, [16]]], [['y', h]]);
graph('simplifiedln_14_mixed', 14, { op: 'SimplifiedLayerNormalization', inputs: ['x', 'scale'], outputs: ['y', 'inv_std_var'] },
  [['x', h, [2, 2, 8]], ['scale', f, [8]]], [['y', f], ['inv_std_var', f]]);
graph('simplifiedln_23_float64', 23, { op: 'SimplifiedLayerNormalization', inputs: ['x', 'scale'], outputs: ['y'], attrs: { axis: -2 } },
  [['x', d, [2, 3, 4]], ['scale', d, [1, 4]]], [['y', d]]);
graph('layernorm_11', 11, { op: 'LayerNormalization', inputs: ['x', 'scale', 'b'], outputs: ['y', 'mean', 'inv_std_dev'], attrs: { axis: -1 } },
  [['x', f, [2, 3, 8]], ['scale', f, [8]], ['b', f, [8]]], [['y', f], ['mean', f], ['inv_std_dev', f]]);
graph('layernorm_16_float16', 16, { op: 'LayerNormalization', inputs: ['x', 'scale'], outputs: ['y'], attrs: { axis: 1, epsilon: 1e-3 } },
  [['x', h, [2, 3, 4]], ['scale', h, [3, 4]]], [['y', h]]);

module.exports = cases;
