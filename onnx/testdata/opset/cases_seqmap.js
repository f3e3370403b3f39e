// Cases for gen.js (the format of cases.js): SequenceMap (opset 17), as
// exporters of list comprehensions over a split tensor write it: over one
// sequence, two sequences and a tensor, a body with a constant of its
// own, bodies whose outputs differ in shape from element to element.
const f = 'float32', i64 = 'int64';
const cases = [];
const map = (name, seqIns, body, mapIns, outs, tail) => cases.push({ name: `seqmap_${name}`, opset: 17,
  inputs: seqIns,
  nodes: [
    { op: 'SplitToSequence', inputs: ['x'], outputs: ['sx'], attrs: { axis: 0 } },
    { op: 'SplitToSequence', inputs: ['y', 'ys'], outputs: ['sy'], attrs: { axis: 1 } },
    { op: 'SequenceMap', inputs: mapIns, outputs: outs.map((o) => `m_${o}`), attrs: { body: { graph: body } } },
    ...tail,
  ],
  outputs: tail.flatMap((n) => n.outputs).map((o) => [o, o.startsWith('shape') ? i64 : f]) });
// x [3, 2] split into three [1, 2]; y [2, 4] split along axis 1 into [2, 1],
// [2, 2] and [2, 1].
const ins = [['x', f, [3, 2]], ['y', f, [2, 4]], ['ys', i64, [3], [1, 2, 1], true], ['z', f, [1, 2]]];
map('one_sequence', ins, {
  inputs: [['t', f, [1, 2]]], nodes: [{ op: 'Mul', inputs: ['t', 't'], outputs: ['u'] }], outputs: [['u', f, [1, 2]]],
}, ['sx'], ['u'], [{ op: 'ConcatFromSequence', inputs: ['m_u'], outputs: ['out'], attrs: { axis: 0 } }]);
map('two_sequences_and_tensor', ins, {
  inputs: [['a', f, [1, 2]], ['b', f, [2, 'w']], ['c', f, [1, 2]]],
  nodes: [
    { op: 'Constant', inputs: [], outputs: ['k'], attrs: { value_float: 0.5 } },
    { op: 'Add', inputs: ['a', 'c'], outputs: ['s'] },
    { op: 'Mul', inputs: ['s', 'k'], outputs: ['sk'] },
    { op: 'ReduceSum', inputs: ['b'], outputs: ['rb'], attrs: { keepdims: 0 } },
    { op: 'Add', inputs: ['sk', 'rb'], outputs: ['o'] },
    { op: 'Shape', inputs: ['b'], outputs: ['shape_b'] },
  ],
  outputs: [['o', f, [1, 2]], ['shape_b', i64, [2]]],
}, ['sx', 'sy', 'z'], ['o', 'shape_b'], [
  { op: 'ConcatFromSequence', inputs: ['m_o'], outputs: ['out'], attrs: { axis: 0 } },
  { op: 'ConcatFromSequence', inputs: ['m_shape_b'], outputs: ['shapes'], attrs: { axis: 0, new_axis: 1 } },
]);
map('identity_of_differing_shapes', ins, {
  inputs: [['t', f, [2, 'w']]], nodes: [{ op: 'Identity', inputs: ['t'], outputs: ['u'] }], outputs: [['u', f, [2, 'w']]],
}, ['sy'], ['u'], [{ op: 'ConcatFromSequence', inputs: ['m_u'], outputs: ['out'], attrs: { axis: 1 } }]);
module.exports = cases;
