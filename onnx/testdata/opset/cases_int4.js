// Cases for gen.js (the format of cases.js): INT4 and UINT4 constants, as
// weight-only quantized models (DequantizeLinear of opset 21 on, blocked
// or per axis) keep their weights, read by pipert as 8-bit integers.
const f = 'float32';
const dq = (name, opset, x, scale, zp, attrs) => ({ name, opset, op: 'DequantizeLinear', attrs, ir: 10,
  inputs: [x, scale, ...(zp ? [zp] : [])], outputs: [['y', f]] });
module.exports = [
  dq('int4_dq_tensor', 21, ['x', 'int4', [3, 5], null, true], ['s', f, [], [0.5], true], ['z', 'int4', [], [-3], true]),
  dq('int4_dq_tensor_nozp', 21, ['x', 'int4', [7], [-8, -1, 0, 1, 7, 3, -5], true], ['s', f, [], [0.25], true]),
  dq('int4_dq_uint4_axis', 21, ['x', 'uint4', [4, 3], null, true], ['s', f, [3], [0.5, 2, 0.125], true], ['z', 'uint4', [3], [0, 15, 8], true], { axis: 1 }),
  dq('int4_dq_blocked_odd', 21, ['x', 'int4', [3, 5], null, true], ['s', f, [2, 5], null, true], ['z', 'int4', [2, 5], null, true], { axis: 0, block_size: 2 }),
  dq('int4_dq_uint4_blocked', 25, ['x', 'uint4', [4, 6], null, true], ['s', f, [4, 2], null, true], ['z', 'uint4', [4, 2], null, true], { axis: 1, block_size: 4 }),
  // The weight-only pattern: blocked 4-bit weights dequantized into a MatMul.
  { name: 'int4_dq_matmul', opset: 21, ir: 10, inputs: [['a', f, [2, 8]], ['w', 'int4', [8, 3], null, true], ['s', f, [2, 3], null, true], ['z', 'int4', [2, 3], null, true]],
    outputs: [['y', f]], nodes: [
      { op: 'DequantizeLinear', inputs: ['w', 's', 'z'], outputs: ['wf'], attrs: { axis: 0, block_size: 4 } },
      { op: 'MatMul', inputs: ['a', 'wf'], outputs: ['y'] }] },
  // A Constant node holding the 4-bit tensor.
  { name: 'int4_dq_constant', opset: 21, ir: 10, inputs: [['s', f, [], [1.5], true]], outputs: [['y', f]], nodes: [
    { op: 'Constant', inputs: [], outputs: ['x'], attrs: { value: { t: 'int4', data: [-8, 7, 3, -2, 0] } } },
    { op: 'DequantizeLinear', inputs: ['x', 's'], outputs: ['y'] }] },
];
