// Cases for gen.js: one node each. inputs: [name, dtype, shape, data?, isConst?]
// (a constant becomes an initializer; data defaults to deterministic values);
// nodeInputs overrides the node's input list ('' for an absent optional one).
// This file: ops whose form did not change (their range reaches opset 25),
// the opset-18 reductions, and the ops new in opsets 18 to 21.
const f = 'float32';
const unchanged = [
  ['Add', [['a', f, [2, 3]], ['b', f, [3]]]],
  ['MatMul', [['a', f, [2, 3]], ['b', f, [3, 4]]]],
  ['Relu', [['x', f, [2, 5]]]],
  ['Relu', [['x', 'float64', [2, 5]]], 'float64'],
  ['Softplus', [['x', f, [6]]]],
  ['Conv', [['x', f, [1, 2, 5, 5]], ['w', f, [3, 2, 3, 3], null, true]], f, { pads: [1, 1, 1, 1] }],
  ['MaxPool', [['x', f, [1, 2, 5, 5]]], f, { kernel_shape: [2, 2], strides: [2, 2] }],
  ['Transpose', [['x', f, [2, 3, 4]]], f, { perm: [2, 0, 1] }],
  ['Reshape', [['x', f, [2, 6]], ['s', 'int64', [3], [3, -1, 2], true]]],
  ['Squeeze', [['x', f, [1, 3, 1]], ['axes', 'int64', [1], [0], true]]],
  ['Unsqueeze', [['x', f, [3]], ['axes', 'int64', [2], [0, -1], true]]],
  ['Shape', [['x', f, [2, 3, 4]]], 'int64', { start: 1 }],
  ['Flatten', [['x', f, [2, 3, 4]]], f, { axis: 2 }],
  ['InstanceNormalization', [['x', f, [2, 3, 4]], ['s', f, [3], null, true], ['b', f, [3], null, true]]],
  ['Equal', [['a', 'int64', [4]], ['b', 'int64', [4]]], 'bool'],
  ['ConstantOfShape', [['s', 'int64', [2], [2, 3], true]], f, { value: null }],
  ['LSTM', [['x', f, [3, 1, 2]], ['w', f, [1, 8, 2], null, true], ['r', f, [1, 8, 2], null, true]], f, { hidden_size: 2 }],
  ['HardSwish', [['x', f, [7]]]],
  ['Round', [['x', f, [7]]]],
  ['IsNaN', [['x', f, [4], [1, NaN, -Infinity, 0]]], 'bool'],
  ['Size', [['x', f, [2, 3]]], 'int64'],
];
const cases = [];
for (const [op, inputs, out = f, attrs = {}] of unchanged) {
  if (op === 'ConstantOfShape') continue; // needs a tensor attribute: below
  for (const opset of [18, 22, 25]) {
    const name = `${op.toLowerCase()}${out === 'float64' ? '_f64' : ''}_opset${opset}`;
    cases.push({ name, opset, op, attrs, inputs, outputs: [['y', out]] });
  }
}
const reductions = ['ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceSumSquare', 'ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp'];
for (const op of reductions) {
  const pos = op === 'ReduceLogSum' ? (x) => x.map(Math.abs) : (x) => x;
  const x = pos(Array.from({ length: 24 }, (_, i) => Math.fround(Math.sin(i + 1) * 2)));
  cases.push({ name: `${op.toLowerCase()}_18_axes`, opset: 18, op, attrs: { keepdims: 0 },
    inputs: [['x', f, [2, 3, 4], x], ['axes', 'int64', [2], [0, -1], true]], outputs: [['y', f]] });
  cases.push({ name: `${op.toLowerCase()}_18_noaxes`, opset: 18, op, attrs: {},
    inputs: [['x', f, [2, 3, 4], x]], outputs: [['y', f]] });
  cases.push({ name: `${op.toLowerCase()}_18_noop`, opset: 18, op, attrs: { noop_with_empty_axes: 1 },
    inputs: [['x', f, [2, 3, 4], x], ['axes', 'int64', [0], [], true]], outputs: [['y', f]] });
  cases.push({ name: `${op.toLowerCase()}_22_axes_input`, opset: 22, op, attrs: { keepdims: 1 },
    inputs: [['x', f, [2, 3, 4], x], ['axes', 'int64', [1], [1]]], outputs: [['y', f]] });
}
// New ops.
for (const opset of [20, 22]) {
  cases.push({ name: `gelu_${opset}_none`, opset, op: 'Gelu', inputs: [['x', f, [3, 5]]], outputs: [['y', f]] });
  cases.push({ name: `gelu_${opset}_tanh`, opset, op: 'Gelu', attrs: { approximate: 'tanh' }, inputs: [['x', f, [3, 5]]], outputs: [['y', f]] });
}
for (const opset of [18, 22]) {
  cases.push({ name: `mish_${opset}`, opset, op: 'Mish', inputs: [['x', f, [2, 6], [-40, -5, -1, -0.5, 0, 0.25, 0.5, 1, 2, 5, 20, 40]]], outputs: [['y', f]] });
}
cases.push({ name: 'mish_18_f64', opset: 18, op: 'Mish', inputs: [['x', 'float64', [5]]], outputs: [['y', 'float64']] });
for (const dt of ['int8', 'uint8', 'int32', 'int64']) {
  for (const op of ['BitwiseAnd', 'BitwiseOr', 'BitwiseXor']) {
    cases.push({ name: `${op.toLowerCase()}_18_${dt}`, opset: 18, op, inputs: [['a', dt, [2, 3]], ['b', dt, [3]]], outputs: [['y', dt]] });
  }
  cases.push({ name: `bitwisenot_18_${dt}`, opset: 18, op: 'BitwiseNot', inputs: [['x', dt, [2, 3]]], outputs: [['y', dt]] });
}
cases.push({ name: 'bitwiseand_22_int32', opset: 22, op: 'BitwiseAnd', inputs: [['a', 'int32', [4, 1]], ['b', 'int32', [1, 3]]], outputs: [['y', 'int32']] });
cases.push({ name: 'groupnormalization_18', opset: 18, op: 'GroupNormalization', attrs: { num_groups: 2, epsilon: 1e-3 },
  inputs: [['x', f, [2, 4, 3]], ['s', f, [2], null, true], ['b', f, [2], null, true]], outputs: [['y', f]] });
cases.push({ name: 'groupnormalization_21', opset: 21, op: 'GroupNormalization', attrs: { num_groups: 2 },
  inputs: [['x', f, [2, 4, 2, 3]], ['s', f, [4], null, true], ['b', f, [4], null, true]], outputs: [['y', f]] });
cases.push({ name: 'groupnormalization_21_one_group', opset: 21, op: 'GroupNormalization', attrs: { num_groups: 1 },
  inputs: [['x', f, [1, 3, 5]], ['s', f, [3]], ['b', f, [3]]], outputs: [['y', f]] });
module.exports = cases;

// TopK (24 admits more types) and Pad (23 to 25 likewise) at the newest opsets.
for (const opset of [24, 25]) {
  module.exports.push({ name: `topk_${opset}`, opset, op: 'TopK', attrs: { axis: -1, largest: 1, sorted: 1 },
    inputs: [['x', f, [3, 5]], ['k', 'int64', [1], [2], true]], outputs: [['v', f], ['i', 'int64']] });
  module.exports.push({ name: `pad_${opset}_axes`, opset, op: 'Pad', attrs: { mode: 'reflect' },
    inputs: [['x', f, [2, 4]], ['pads', 'int64', [2], [1, 2], true], ['', f, [0], [], false], ['axes', 'int64', [1], [-1], true]],
    nodeInputs: ['x', 'pads', '', 'axes'], outputs: [['y', f]] });
}

// ceil_mode: a last window that would start in the trailing padding is
// dropped at every opset and in MaxPool too, as onnxruntime and the ONNX
// reference do.
for (const [op, opset] of [['MaxPool', 10], ['MaxPool', 12], ['MaxPool', 22], ['AveragePool', 10], ['AveragePool', 11], ['AveragePool', 18]]) {
  const lower = op.toLowerCase();
  module.exports.push({ name: `${lower}_${opset}_ceil_last_window`, opset, op,
    attrs: { kernel_shape: [2], strides: [2], pads: [0, 1], ceil_mode: 1 },
    inputs: [['x', f, [1, 1, 6]]], outputs: [['y', f]] });
  module.exports.push({ name: `${lower}_${opset}_ceil_last_window_2d`, opset, op,
    attrs: { kernel_shape: [3, 3], strides: [3, 3], pads: [1, 1, 1, 1], ceil_mode: 1 },
    inputs: [['x', f, [1, 1, 5, 5]]], outputs: [['y', f]] });
}
