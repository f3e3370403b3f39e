// Initializers kept in an external data file (TensorProto.external_data),
// as exporters save models too large for one protobuf: the import reads
// them from the file beside the model.
const f = 'float32';
module.exports = [
  { name: 'ext_matmul_opset17', opset: 17, external: true,
    inputs: [['x', f, [2, 8]], ['w', f, [8, 4], null, true], ['b', f, [4], null, true], ['k', 'int64', [1], [1], true]],
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w'], outputs: ['m'] },
      { op: 'Add', inputs: ['m', 'b'], outputs: ['a'] },
      { op: 'TopK', inputs: ['a', 'k'], outputs: ['v', 'i'], attrs: { axis: -1 } },
    ],
    outputs: [['a', f], ['v', f], ['i', 'int64']] },
];
