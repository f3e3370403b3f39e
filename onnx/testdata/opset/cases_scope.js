// Cases for gen.js (the format of cases.js): subgraphs that define names
// the enclosing graph also defines. A body's own input, initializer or node
// output shadows the outer tensor of that name, as onnxruntime scopes it:
// the body does not read the outer one, and the node holding the body does
// not depend on the node producing it.
const f32 = 'float32', i64 = 'int64';
module.exports = [
  // The Loop's body names its input b as the graph input it is fed from,
  // and its node outputs b_loop and vals as the Loop's own outputs.
  {
    name: 'scope_loop_body_shadows_outer', opset: 13,
    inputs: [['a', f32, [2]], ['b', f32, [2]], ['M', i64, [], [3]]],
    nodes: [
      { op: 'Loop', inputs: ['M', '', 'b'], outputs: ['b_loop', 'vals'], attrs: { body: { graph: {
        inputs: [['i', i64, []], ['cin', 'bool', []], ['b', f32, [2]]],
        nodes: [
          { op: 'Identity', inputs: ['cin'], outputs: ['cout'] },
          { op: 'Sub', inputs: ['a', 'b'], outputs: ['b_loop'] },
          { op: 'Add', inputs: ['b_loop', 'b_loop'], outputs: ['vals'] },
        ],
        outputs: [['cout', 'bool', []], ['b_loop', f32, [2]], ['vals', f32, [2]]] } } } },
      { op: 'Mul', inputs: ['b_loop', 'b'], outputs: ['y'] },
    ],
    outputs: [['y', f32], ['vals', f32]],
  },
  // An If whose branches name their outputs as the If's output.
  {
    name: 'scope_if_branch_output_named_as_if', opset: 13,
    inputs: [['c', 'bool', [], [1]], ['x', f32, [3]]],
    nodes: [
      { op: 'If', inputs: ['c'], outputs: ['y'], attrs: {
        then_branch: { graph: { nodes: [{ op: 'Neg', inputs: ['x'], outputs: ['y'] }], outputs: [['y', f32]] } },
        else_branch: { graph: { nodes: [{ op: 'Abs', inputs: ['x'], outputs: ['y'] }], outputs: [['y', f32]] } } } },
      { op: 'Add', inputs: ['y', 'x'], outputs: ['z'] },
    ],
    outputs: [['z', f32]],
  },
];
