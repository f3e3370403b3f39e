// Cases for gen.js (the format of cases.js): whole graphs whose nodes
// interact in ways a one-node model cannot show.
const f = 'float32';

const cases = [];
const add = (c) => cases.push(c);

// A branch of a runtime If reads an outer tensor under two names: the
// tensor itself and the output of an Identity of it (which the import
// folds into its input). Both names must stay inputs of the branch.
for (const [name, data] of [['graph_if_outer_identity_then', [0.5, -1, 2]], ['graph_if_outer_identity_else', [-0.5, 1, -2]]]) {
  add({
    name, opset: 17,
    inputs: [['x', f, [3], data], ['z', f, [], [0], true]],
    nodes: [
      { op: 'Identity', inputs: ['x'], outputs: ['t'] },
      { op: 'ReduceSum', inputs: ['x'], outputs: ['s'], attrs: { keepdims: 0 } },
      { op: 'Greater', inputs: ['s', 'z'], outputs: ['c'] },
      { op: 'If', inputs: ['c'], outputs: ['y'], attrs: {
        then_branch: { graph: { nodes: [{ op: 'Add', inputs: ['t', 'x'], outputs: ['a'] }], outputs: [['a', f]] } },
        else_branch: { graph: { nodes: [{ op: 'Mul', inputs: ['x', 't'], outputs: ['b'] }, { op: 'Sub', inputs: ['b', 't'], outputs: ['e'] }], outputs: [['e', f]] } },
      } },
    ],
    outputs: [['y', f]],
  });
}

module.exports = cases;
