// Small multi-node models at the newest opsets, as an exporter of those
// opsets writes them: the new forms and ops working together, in every
// mode, against onnxruntime. nodes: [{op, inputs, outputs, attrs}], in order.
const f = 'float32';
// c is an initializer of weights scaled as a trained layer's are (about
// 1/√fan-in), so that activations stay near 1 through the block.
const c = (name, shape) => {
  const n = shape.reduce((a, b) => a * b, 1), s = 1 / Math.sqrt(shape[0]);
  return [name, f, shape, Array.from({ length: n }, (_, i) => Math.fround(s * Math.sin(1.7 * i + name.length))), true];
};
module.exports = [
  { name: 'model_block_opset18', opset: 18,
    inputs: [['x', f, [2, 3, 8]], ['axes', 'int64', [1], [-1], true], ['eps', f, [], [1e-5], true], c('wqkv', [8, 24]),
      ['perm_pads', 'int64', [2], [1, 0], true], ['pad_axes', 'int64', [1], [1], true]],
    nodes: [
      { op: 'ReduceMean', inputs: ['x', 'axes'], outputs: ['mean'] },
      { op: 'Sub', inputs: ['x', 'mean'], outputs: ['d'] },
      { op: 'Mul', inputs: ['d', 'd'], outputs: ['sq'] },
      { op: 'ReduceMean', inputs: ['sq', 'axes'], outputs: ['var'] },
      { op: 'Add', inputs: ['var', 'eps'], outputs: ['ve'] },
      { op: 'Sqrt', inputs: ['ve'], outputs: ['sd'] },
      { op: 'Div', inputs: ['d', 'sd'], outputs: ['n'] },
      { op: 'MatMul', inputs: ['n', 'wqkv'], outputs: ['qkv'] },
      { op: 'Split', inputs: ['qkv'], outputs: ['q', 'k', 'v'], attrs: { axis: -1, num_outputs: 3 } },
      { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attrs: { perm: [0, 2, 1] } },
      { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['s'] },
      { op: 'Softmax', inputs: ['s'], outputs: ['p'], attrs: { axis: -1 } },
      { op: 'MatMul', inputs: ['p', 'v'], outputs: ['o'] },
      { op: 'Add', inputs: ['x', 'o'], outputs: ['r'] },
      { op: 'ReduceMax', inputs: ['r', 'axes'], outputs: ['m'], attrs: { keepdims: 0 } },
      { op: 'Pad', inputs: ['r', 'perm_pads', '', 'pad_axes'], outputs: ['y'], attrs: { mode: 'reflect' } },
    ],
    outputs: [['y', f], ['m', f]] },
  { name: 'model_block_opset23', opset: 23,
    inputs: [['x', f, [1, 4, 8]], c('ln1', [8]), c('wq', [8, 8]), c('wk', [8, 8]), c('wv', [8, 8]), c('wo', [8, 8]),
      ['cos', f, [4, 2], [1, 1, 0.5403023, 0.9950042, -0.4161468, 0.9800666, -0.9899925, 0.9553365], true],
      ['sin', f, [4, 2], [0, 0, 0.84147096, 0.09983342, 0.9092974, 0.19866933, 0.14112, 0.29552022], true],
      ['pos', 'int64', [1, 4], [0, 1, 2, 3], true], c('ln2', [8]), c('w1', [8, 16]), c('w2', [16, 8])],
    nodes: [
      { op: 'RMSNormalization', inputs: ['x', 'ln1'], outputs: ['h'], attrs: { axis: -1 } },
      { op: 'MatMul', inputs: ['h', 'wq'], outputs: ['q'] },
      { op: 'MatMul', inputs: ['h', 'wk'], outputs: ['k'] },
      { op: 'MatMul', inputs: ['h', 'wv'], outputs: ['v'] },
      { op: 'RotaryEmbedding', inputs: ['q', 'cos', 'sin', 'pos'], outputs: ['qr'], attrs: { num_heads: 2 } },
      { op: 'RotaryEmbedding', inputs: ['k', 'cos', 'sin', 'pos'], outputs: ['kr'], attrs: { num_heads: 2 } },
      { op: 'Attention', inputs: ['qr', 'kr', 'v'], outputs: ['a'], attrs: { q_num_heads: 2, kv_num_heads: 2, is_causal: 1 } },
      { op: 'MatMul', inputs: ['a', 'wo'], outputs: ['o'] },
      { op: 'Add', inputs: ['x', 'o'], outputs: ['x2'] },
      { op: 'RMSNormalization', inputs: ['x2', 'ln2'], outputs: ['h2'], attrs: { axis: -1 } },
      { op: 'MatMul', inputs: ['h2', 'w1'], outputs: ['f1'] },
      { op: 'Gelu', inputs: ['f1'], outputs: ['g'] },
      { op: 'MatMul', inputs: ['g', 'w2'], outputs: ['f2'] },
      { op: 'Add', inputs: ['x2', 'f2'], outputs: ['y'] },
    ],
    outputs: [['y', f], ['qr', f], ['a', f], ['x2', f]], ir: 10 },
];
