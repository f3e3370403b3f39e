// Sequences over tensors of symbolic dimensions, as tf2onnx and PyTorch
// export a module's list of tensors with a free batch or sequence length:
// the number of elements is known at import (a split along a fixed
// dimension, a constant or folding split, a split of known length whose
// sizes are computed, a SequenceConstruct of N tensors), their dimensions
// only at run time. Each case runs at several sizes (gen.js's sizes).
const f = 'float32', i64 = 'int64';
const I = (name, data, shape = [data.length]) => [name, i64, shape, data, true];
const N3 = (name, rest) => [{ [name]: [1, ...rest] }, { [name]: [3, ...rest] }, { [name]: [5, ...rest] }];
module.exports = [
  // torch.split(x, 2, dim=1) with a free batch: a scalar split along a
  // fixed dimension.
  { name: 'seqdyn_split_scalar', opset: 13, inputs: [['x', f, ['N', 6]], I('two', [2], []), I('one', [1], [])],
    sizes: N3('x', [6]),
    nodes: [
      { op: 'SplitToSequence', inputs: ['x', 'two'], outputs: ['s'], attrs: { axis: 1 } },
      { op: 'SequenceAt', inputs: ['s', 'one'], outputs: ['a'] },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['c'], attrs: { axis: 0 } },
      { op: 'SequenceLength', inputs: ['s'], outputs: ['n'] },
    ],
    outputs: [['a', f], ['c', f], ['n', i64]] },
  // torch.split(x, [2, 3], dim=1) where the model leaves that dimension
  // free: split sizes that are constants.
  { name: 'seqdyn_split_sizes', opset: 13, inputs: [['x', f, ['B', 'T']], I('sz', [2, 3]), I('m1', [-1], [])],
    sizes: [{ x: [1, 5] }, { x: [4, 5] }],
    nodes: [
      { op: 'SplitToSequence', inputs: ['x', 'sz'], outputs: ['s'], attrs: { axis: -1 } },
      { op: 'SequenceAt', inputs: ['s', 'm1'], outputs: ['last'] },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['back'], attrs: { axis: 1 } },
    ],
    outputs: [['last', f], ['back', f]] },
  // A split computed from constants (the shape of a weight, halved): it
  // folds at import; the list rotated (SequenceErase, SequenceInsert)
  // and concatenated along the free dimension.
  { name: 'seqdyn_split_folds', opset: 13, inputs: [['x', f, ['B', 'T']], ['w', f, [4, 6], null, true], I('two', [2], []), I('zero', [0], [])],
    sizes: [{ x: [1, 5] }, { x: [3, 5] }],
    nodes: [
      { op: 'Shape', inputs: ['w'], outputs: ['sh'] },
      { op: 'Div', inputs: ['sh', 'two'], outputs: ['sz'] },
      { op: 'SplitToSequence', inputs: ['x', 'sz'], outputs: ['s'], attrs: { axis: 1 } },
      { op: 'SequenceAt', inputs: ['s', 'zero'], outputs: ['first'] },
      { op: 'SequenceErase', inputs: ['s', 'zero'], outputs: ['rest'] },
      { op: 'SequenceInsert', inputs: ['rest', 'first'], outputs: ['rot'] },
      { op: 'ConcatFromSequence', inputs: ['rot'], outputs: ['y'], attrs: { axis: 1 } },
    ],
    outputs: [['first', f], ['y', f]] },
  // torch.chunk(x, 2, dim=1) of a free width: the split's two sizes
  // computed from the shape at run time (h = T/2, T−h), its length known;
  // and the same split as int32, which SplitToSequence also takes.
  { name: 'seqdyn_split_computed', opset: 13, inputs: [['x', f, ['B', 'T']], I('i1', [1]), I('two', [2]), I('zero', [0], [])],
    sizes: [{ x: [2, 4] }, { x: [3, 7] }, { x: [1, 2] }],
    nodes: [
      { op: 'Shape', inputs: ['x'], outputs: ['sh'] },
      { op: 'Gather', inputs: ['sh', 'i1'], outputs: ['t'], attrs: { axis: 0 } },
      { op: 'Div', inputs: ['t', 'two'], outputs: ['h'] },
      { op: 'Sub', inputs: ['t', 'h'], outputs: ['r'] },
      { op: 'Concat', inputs: ['h', 'r'], outputs: ['sz'], attrs: { axis: 0 } },
      { op: 'SplitToSequence', inputs: ['x', 'sz'], outputs: ['s'], attrs: { axis: 1 } },
      { op: 'SequenceAt', inputs: ['s', 'zero'], outputs: ['a'] },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['st'], attrs: { axis: -1 } },
      { op: 'SequenceLength', inputs: ['s'], outputs: ['n'] },
      { op: 'Cast', inputs: ['sz'], outputs: ['sz32'], attrs: { to: 6 } },
      { op: 'SplitToSequence', inputs: ['x', 'sz32'], outputs: ['s32'], attrs: { axis: 1 } },
      { op: 'SequenceAt', inputs: ['s32', 'zero'], outputs: ['a32'] },
    ],
    outputs: [['a', f], ['st', f], ['n', i64], ['a32', f]] },
  // PyTorch's x.size(1) of a fixed dimension beside a free batch
  // (Shape, Gather) and the split computed from it: it folds at import.
  { name: 'seqdyn_split_shape_folds', opset: 13, inputs: [['x', f, ['N', 6]], I('i1', [1], []), I('three', [3], [])],
    sizes: N3('x', [6]),
    nodes: [
      { op: 'Shape', inputs: ['x'], outputs: ['sh'] },
      { op: 'Gather', inputs: ['sh', 'i1'], outputs: ['t'], attrs: { axis: 0 } },
      { op: 'Div', inputs: ['t', 'three'], outputs: ['h'] },
      { op: 'SplitToSequence', inputs: ['x', 'h'], outputs: ['s'], attrs: { axis: 1 } },
      { op: 'SequenceLength', inputs: ['s'], outputs: ['n'] },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['st'], attrs: { axis: 0, new_axis: 1 } },
    ],
    outputs: [['n', i64], ['st', f]] },
  // torch.split of a layer's output (its rank unknown at import, its
  // input's batch free) by constant sizes, along a negative axis.
  { name: 'seqdyn_split_unknown_rank', opset: 13, inputs: [['x', f, ['N', 6]], I('sz', [2, 4]), I('one', [1], [])],
    sizes: N3('x', [6]),
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['r'] },
      { op: 'SplitToSequence', inputs: ['r', 'sz'], outputs: ['s'], attrs: { axis: -1 } },
      { op: 'SequenceAt', inputs: ['s', 'one'], outputs: ['b'] },
      { op: 'SequenceLength', inputs: ['s'], outputs: ['n'] },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['y'], attrs: { axis: -1 } },
    ],
    outputs: [['b', f], ['n', i64], ['y', f]] },
  // torch.unbind(x, 1) over a fixed dimension, then torch.stack at the
  // end: keepdims 0 and new_axis, the other dimensions free.
  { name: 'seqdyn_unbind_stack', opset: 13, inputs: [['x', f, ['N', 3, 'T']]],
    sizes: [{ x: [1, 3, 2] }, { x: [2, 3, 5] }],
    nodes: [
      { op: 'SplitToSequence', inputs: ['x'], outputs: ['s'], attrs: { axis: 1, keepdims: 0 } },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['y'], attrs: { axis: -1, new_axis: 1 } },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['z'], attrs: { axis: 0, new_axis: 1 } },
    ],
    outputs: [['y', f], ['z', f]] },
  // A list of N tensors (SequenceConstruct), concatenated along a free
  // dimension and stacked.
  { name: 'seqdyn_construct', opset: 11, inputs: [['a', f, ['N', 'D']], ['b', f, ['N', 'D']], ['c', f, ['N', 'D']], I('m1', [-1], [])],
    sizes: [{ a: [1, 2], b: [1, 2], c: [1, 2] }, { a: [3, 4], b: [3, 4], c: [3, 4] }],
    nodes: [
      { op: 'SequenceConstruct', inputs: ['a', 'b', 'c'], outputs: ['s'] },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['cat'], attrs: { axis: 1 } },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['stk'], attrs: { axis: 0, new_axis: 1 } },
      { op: 'SequenceAt', inputs: ['s', 'm1'], outputs: ['l'] },
    ],
    outputs: [['cat', f], ['stk', f], ['l', f]] },
  // torch.stack(dim=-1) and (dim=-2) of tensors computed from one with a
  // free batch (their rank unknown at import), a list given and one made
  // by SequenceMap.
  { name: 'seqdyn_stack_computed', opset: 17, inputs: [['x', f, ['N', 4]], I('two', [2], [])],
    sizes: N3('x', [4]),
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['r'] },
      { op: 'Neg', inputs: ['x'], outputs: ['g'] },
      { op: 'SequenceConstruct', inputs: ['r', 'g', 'x'], outputs: ['s'] },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['last'], attrs: { axis: -1, new_axis: 1 } },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['mid'], attrs: { axis: -2, new_axis: 1 } },
      { op: 'SplitToSequence', inputs: ['x', 'two'], outputs: ['c'], attrs: { axis: 1 } },
      { op: 'SequenceMap', inputs: ['c'], outputs: ['m'], attrs: { body: { graph: {
        inputs: [['t', f, ['N', 2]]], nodes: [{ op: 'Relu', inputs: ['t'], outputs: ['u'] }], outputs: [['u', f, ['N', 2]]] } } } },
      { op: 'ConcatFromSequence', inputs: ['m'], outputs: ['mapped'], attrs: { axis: -1, new_axis: 1 } },
    ],
    outputs: [['last', f], ['mid', f], ['mapped', f]] },
  // A list built by appends (SequenceEmpty, SequenceInsert), edited
  // (SequenceErase) and read, its tensors of differing free lengths.
  { name: 'seqdyn_insert_erase', opset: 13, inputs: [['x', f, ['N', 2]], ['y', f, ['M', 2]], ['z', f, ['K', 2]], I('zero', [0], []), I('one', [1], [])],
    sizes: [{ x: [1, 2], y: [2, 2], z: [3, 2] }, { x: [4, 2], y: [1, 2], z: [2, 2] }],
    nodes: [
      { op: 'SequenceEmpty', inputs: [], outputs: ['e'], attrs: { dtype: 1 } },
      { op: 'SequenceInsert', inputs: ['e', 'x'], outputs: ['s1'] },
      { op: 'SequenceInsert', inputs: ['s1', 'y', 'zero'], outputs: ['s2'] },
      { op: 'SequenceInsert', inputs: ['s2', 'z', 'one'], outputs: ['s3'] },
      { op: 'SequenceErase', inputs: ['s3', 'zero'], outputs: ['s4'] },
      { op: 'SequenceLength', inputs: ['s4'], outputs: ['n'] },
      { op: 'ConcatFromSequence', inputs: ['s4'], outputs: ['c'], attrs: { axis: 0 } },
      { op: 'SequenceAt', inputs: ['s3', 'zero'], outputs: ['first'] },
    ],
    outputs: [['n', i64], ['c', f], ['first', f]] },
  // A list comprehension over chunks of a free batch (SequenceMap).
  { name: 'seqdyn_seqmap', opset: 17, inputs: [['x', f, ['N', 4]], I('two', [2], [])],
    sizes: N3('x', [4]),
    nodes: [
      { op: 'SplitToSequence', inputs: ['x', 'two'], outputs: ['s'], attrs: { axis: 1 } },
      { op: 'SequenceMap', inputs: ['s'], outputs: ['m'], attrs: { body: { graph: {
        inputs: [['t', f, ['N', 2]]], nodes: [{ op: 'Mul', inputs: ['t', 't'], outputs: ['u'] }], outputs: [['u', f, ['N', 2]]] } } } },
      { op: 'ConcatFromSequence', inputs: ['m'], outputs: ['y'], attrs: { axis: 1 } },
    ],
    outputs: [['y', f]] },
  // Elements whose shapes are read back: Shape of a SequenceAt of a split
  // with a free dimension.
  { name: 'seqdyn_shape_of_element', opset: 13, inputs: [['x', f, ['B', 6, 'T']], I('sz', [1, 2, 3]), I('two', [2], [])],
    sizes: [{ x: [1, 6, 1] }, { x: [2, 6, 3] }],
    nodes: [
      { op: 'SplitToSequence', inputs: ['x', 'sz'], outputs: ['s'], attrs: { axis: 1 } },
      { op: 'SequenceAt', inputs: ['s', 'two'], outputs: ['a'] },
      { op: 'Shape', inputs: ['a'], outputs: ['sh'] },
      { op: 'ConcatFromSequence', inputs: ['s'], outputs: ['c'], attrs: { axis: 1 } },
    ],
    outputs: [['sh', i64], ['a', f], ['c', f]] },
];
