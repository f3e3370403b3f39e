// Multi-node graphs in the patterns exporters write, with the zero-size
// dimensions and dtypes that exercise import-time folding and shape
// inference together (format of cases.js; nodes: [{op, inputs, outputs,
// attrs}], in order).
const f = 'float32', d = 'float64';
module.exports = [
  // Einsum attention over a zero-size batch: the shape is computed at
  // import, the outputs are empty. (onnxruntime 1.30 stops with SIGFPE on
  // this graph when the last dimension is above 1.)
  { name: 'g_einsum_attn_zero_batch', opset: 17,
    inputs: [['q', f, [0, 2, 1]], ['k', f, [0, 2, 1]]],
    nodes: [
      { op: 'Einsum', inputs: ['q', 'k'], outputs: ['s'], attrs: { equation: 'bid,bjd->bij' } },
      { op: 'Softmax', inputs: ['s'], outputs: ['p'], attrs: { axis: -1 } },
      { op: 'Einsum', inputs: ['p', 'k'], outputs: ['o'], attrs: { equation: 'bij,bjd->bid' } },
      { op: 'Einsum', inputs: ['q'], outputs: ['m'], attrs: { equation: 'bsd->bd' } },
      { op: 'Shape', inputs: ['o'], outputs: ['os'] },
    ],
    outputs: [['o', f], ['m', f], ['os', 'int64']] },
  // A summed label of extent 0: the products are empty, the sums zeros.
  { name: 'g_einsum_empty_sum', opset: 13,
    inputs: [['a', f, [2, 0]], ['b', f, [0, 3]], ['c', f, [2, 3]]],
    nodes: [
      { op: 'Einsum', inputs: ['a', 'b'], outputs: ['ab'], attrs: { equation: 'ij,jk->ik' } },
      { op: 'Add', inputs: ['ab', 'c'], outputs: ['y'] },
    ],
    outputs: [['ab', f], ['y', f]] },
  // float64 through a normalization: ReduceSum of float64 (an ONNX type
  // of ReduceSum at every opset).
  { name: 'g_reducesum_f64_norm', opset: 18,
    inputs: [['x', d, [2, 4]], ['axes', 'int64', [1], [1], true], ['w', d, [4], [0.5, -1, 2, 0.25], true]],
    nodes: [
      { op: 'Mul', inputs: ['x', 'w'], outputs: ['xw'] },
      { op: 'ReduceSum', inputs: ['xw', 'axes'], outputs: ['s'], attrs: { keepdims: 1 } },
      { op: 'Sub', inputs: ['xw', 's'], outputs: ['c'] },
      { op: 'Mul', inputs: ['c', 'c'], outputs: ['c2'] },
      { op: 'ReduceSum', inputs: ['c2', 'axes'], outputs: ['v'], attrs: { keepdims: 0 } },
      { op: 'ReduceSum', inputs: ['x'], outputs: ['all'], attrs: { keepdims: 0 } },
    ],
    outputs: [['s', d], ['v', d], ['all', d]] },
  { name: 'g_reducesum_f64_zero', opset: 13,
    inputs: [['x', d, [0, 3]], ['axes', 'int64', [1], [0], true]],
    nodes: [
      { op: 'ReduceSum', inputs: ['x', 'axes'], outputs: ['s'], attrs: { keepdims: 0 } },
      { op: 'Cast', inputs: ['s'], outputs: ['y'], attrs: { to: 1 } },
    ],
    outputs: [['s', d], ['y', f]] },
  // PyTorch-style attention with its shapes computed from the input and a
  // causal mask from ConstantOfShape and Trilu.
  { name: 'g_attention_causal', opset: 17,
    inputs: [['x', f, [2, 3, 4]], ['i0', 'int64', [], [0], true], ['i1', 'int64', [], [1], true], ['ax0', 'int64', [1], [0], true],
      ['hd', 'int64', [2], [2, 2], true], ['wq', f, [4, 4], Array.from({ length: 16 }, (_, i) => Math.fround(0.5 * Math.sin(i + 1))), true],
      ['wk', f, [4, 4], Array.from({ length: 16 }, (_, i) => Math.fround(0.5 * Math.cos(i + 2))), true],
      ['zero', f, [], [0], true], ['one', f, [], [1], true], ['ninf', f, [], [-Infinity], true], ['scale', f, [], [Math.fround(1 / Math.sqrt(2))], true], ['m1', 'int64', [1], [-1], true]],
    nodes: [
      { op: 'Shape', inputs: ['x'], outputs: ['sh'] },
      { op: 'Gather', inputs: ['sh', 'i0'], outputs: ['b'], attrs: { axis: 0 } },
      { op: 'Gather', inputs: ['sh', 'i1'], outputs: ['t'], attrs: { axis: 0 } },
      { op: 'Unsqueeze', inputs: ['b', 'ax0'], outputs: ['b1'] },
      { op: 'Unsqueeze', inputs: ['t', 'ax0'], outputs: ['t1'] },
      { op: 'Concat', inputs: ['b1', 't1', 'hd'], outputs: ['qs'], attrs: { axis: 0 } },
      { op: 'MatMul', inputs: ['x', 'wq'], outputs: ['q0'] },
      { op: 'Reshape', inputs: ['q0', 'qs'], outputs: ['q1'] },
      { op: 'Transpose', inputs: ['q1'], outputs: ['q'], attrs: { perm: [0, 2, 1, 3] } },
      { op: 'MatMul', inputs: ['x', 'wk'], outputs: ['k0'] },
      { op: 'Reshape', inputs: ['k0', 'qs'], outputs: ['k1'] },
      { op: 'Transpose', inputs: ['k1'], outputs: ['kt'], attrs: { perm: [0, 2, 3, 1] } },
      { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['s0'] },
      { op: 'Mul', inputs: ['s0', 'scale'], outputs: ['s1'] },
      { op: 'Concat', inputs: ['t1', 't1'], outputs: ['tt'], attrs: { axis: 0 } },
      { op: 'ConstantOfShape', inputs: ['tt'], outputs: ['zeros'] },
      { op: 'Add', inputs: ['zeros', 'one'], outputs: ['ones'] },
      { op: 'Trilu', inputs: ['ones'], outputs: ['tri'], attrs: { upper: 0 } },
      { op: 'Equal', inputs: ['tri', 'zero'], outputs: ['mask'] },
      { op: 'Where', inputs: ['mask', 'ninf', 's1'], outputs: ['s2'] },
      { op: 'Softmax', inputs: ['s2'], outputs: ['p'], attrs: { axis: -1 } },
      { op: 'MatMul', inputs: ['p', 'q'], outputs: ['o0'] },
      { op: 'Transpose', inputs: ['o0'], outputs: ['o1'], attrs: { perm: [0, 2, 1, 3] } },
      { op: 'Concat', inputs: ['b1', 't1', 'm1'], outputs: ['os'], attrs: { axis: 0 } },
      { op: 'Reshape', inputs: ['o1', 'os'], outputs: ['y'] },
    ],
    outputs: [['y', f], ['p', f]] },
];
