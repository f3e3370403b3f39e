// Sequences of tensors inside a model, as exporters write a module's
// list of tensors (torch.unbind and torch.stack, a list built and
// indexed): every sequence op at constant positions, splits and axes,
// which the import resolves into tensor ops.
const f = 'float32';
const i64 = 'int64';
const block = (name, opset) => ({ name, opset,
  inputs: [['x', f, [2, 3]], ['y', f, [2, 3]], ['z', f, [2, 3]], ['w', f, [2, 3]],
    ['one', i64, [], [1], true], ['minus1', i64, [], [-1], true]],
  nodes: [
    { op: 'SequenceConstruct', inputs: ['x', 'y', 'z'], outputs: ['s1'] },
    { op: 'SequenceInsert', inputs: ['s1', 'w', 'one'], outputs: ['s2'] },
    { op: 'SequenceErase', inputs: ['s2', 'minus1'], outputs: ['s3'] },
    { op: 'SequenceAt', inputs: ['s3', 'one'], outputs: ['a'] },
    { op: 'SequenceLength', inputs: ['s3'], outputs: ['n'] },
    // Identity takes sequences from opset 14.
    opset >= 14 ? { op: 'Identity', inputs: ['s3'], outputs: ['s4'] } : { op: 'SequenceErase', inputs: ['s2', 'minus1'], outputs: ['s4'] },
    { op: 'ConcatFromSequence', inputs: ['s4'], outputs: ['c'], attrs: { axis: 0 } },
    { op: 'ConcatFromSequence', inputs: ['s3'], outputs: ['d'], attrs: { axis: -1, new_axis: 1 } },
    { op: 'SequenceInsert', inputs: ['s3', 'x'], outputs: ['s5'] },
    { op: 'SequenceErase', inputs: ['s5'], outputs: ['s6'] },
    { op: 'SequenceAt', inputs: ['s6', 'minus1'], outputs: ['e'] },
    { op: 'Add', inputs: ['a', 'e'], outputs: ['sum'] },
  ],
  outputs: [['a', f], ['n', i64], ['c', f], ['d', f], ['sum', f]] });
const split = (name, opset) => ({ name, opset,
  inputs: [['x', f, [3, 6]], ['four', i64, [], [4], true], ['sizes', i64, [3], [1, 3, 2], true], ['zero', i64, [], [0], true]],
  nodes: [
    { op: 'SplitToSequence', inputs: ['x', 'four'], outputs: ['s1'], attrs: { axis: 1 } },
    { op: 'ConcatFromSequence', inputs: ['s1'], outputs: ['back'], attrs: { axis: 1 } },
    { op: 'SequenceAt', inputs: ['s1', 'zero'], outputs: ['first'] },
    { op: 'SplitToSequence', inputs: ['x'], outputs: ['rows'], attrs: { axis: 0, keepdims: 0 } },
    { op: 'ConcatFromSequence', inputs: ['rows'], outputs: ['stacked'], attrs: { axis: 1, new_axis: 1 } },
    { op: 'SplitToSequence', inputs: ['x', 'sizes'], outputs: ['s3'], attrs: { axis: -1 } },
    { op: 'SequenceLength', inputs: ['s3'], outputs: ['n'] },
    { op: 'SequenceAt', inputs: ['s3', 'zero'], outputs: ['narrow'] },
    { op: 'SplitToSequence', inputs: ['x'], outputs: ['cols'], attrs: { axis: 1 } },
    { op: 'SequenceLength', inputs: ['cols'], outputs: ['ncols'] },
  ],
  outputs: [['back', f], ['first', f], ['stacked', f], ['n', i64], ['narrow', f], ['ncols', i64]] });
module.exports = [
  block('seq_ops_opset11', 11), block('seq_ops_opset13', 13), block('seq_ops_opset24', 24),
  split('seq_split_opset11', 11), split('seq_split_opset13', 13), split('seq_split_opset18', 18),
  { name: 'seq_empty_opset13', opset: 13,
    inputs: [['x', f, [2]], ['y', f, [2]]],
    nodes: [
      { op: 'SequenceEmpty', inputs: [], outputs: ['s0'], attrs: { dtype: 1 } },
      { op: 'SequenceInsert', inputs: ['s0', 'x'], outputs: ['s1'] },
      { op: 'SequenceInsert', inputs: ['s1', 'y'], outputs: ['s2'] },
      { op: 'ConcatFromSequence', inputs: ['s2'], outputs: ['c'], attrs: { axis: 0, new_axis: 1 } },
    ],
    outputs: [['c', f]] },
];
