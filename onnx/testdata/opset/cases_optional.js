// Optional values inside a model (opset 15 on), resolved at import: an
// Optional of a tensor and of a sequence, asked whether it holds an
// element and opened; from opset 18 the two ops also take a plain tensor
// and an omitted input (an empty optional).
const f = 'float32';
module.exports = [
  { name: 'opt_ops_opset15', opset: 15,
    inputs: [['x', f, [2, 3]], ['y', f, [2, 3]]],
    nodes: [
      { op: 'Optional', inputs: ['x'], outputs: ['o'] },
      { op: 'OptionalHasElement', inputs: ['o'], outputs: ['has'] },
      { op: 'OptionalGetElement', inputs: ['o'], outputs: ['got'] },
      { op: 'SequenceConstruct', inputs: ['x', 'y'], outputs: ['s'] },
      { op: 'Optional', inputs: ['s'], outputs: ['os'] },
      { op: 'OptionalGetElement', inputs: ['os'], outputs: ['s2'] },
      { op: 'ConcatFromSequence', inputs: ['s2'], outputs: ['c'], attrs: { axis: 0 } },
      { op: 'Mul', inputs: ['got', 'y'], outputs: ['m'] },
    ],
    outputs: [['has', 'bool'], ['m', f], ['c', f]] },
  { name: 'opt_plain_opset18', opset: 18,
    inputs: [['x', f, [2, 3]]],
    nodes: [
      { op: 'OptionalHasElement', inputs: ['x'], outputs: ['has'] },
      { op: 'OptionalHasElement', inputs: [''], outputs: ['none'] },
      { op: 'OptionalGetElement', inputs: ['x'], outputs: ['got'] },
      { op: 'Neg', inputs: ['got'], outputs: ['n'] },
    ],
    outputs: [['has', 'bool'], ['none', 'bool'], ['n', f]] },
];
