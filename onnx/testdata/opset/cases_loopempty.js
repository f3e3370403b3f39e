// Cases for gen.js (the format of cases.js): Loops of no iteration (a trip
// count of 0, or a condition false at the start) with a scan output.
// onnxruntime gives its empty stack the element shape the body's static
// inference gives — a carried value of the shape the body declares for it,
// not the outer one — else the shape the body declares for the output (a
// free dimension 0), else none: a stack of shape [0].
const i64 = 'int64', f32 = 'float32';
const loop = (name, trip, cond, bodyNodes, scanOut, opts = {}) => ({
  name: `loopempty_${name}`, opset: 13,
  inputs: [['M', i64, [], [trip]], ['c', 'bool', [], [cond]], ['x', f32, opts.x || [3]], ...(opts.inputs || [])],
  nodes: [{ op: 'Loop', inputs: ['M', 'c', 'x'], outputs: ['fin', 'scan'], attrs: { body: { graph: {
    inputs: [['i', i64, []], ['cin', 'bool', []], ['s', f32, opts.s]],
    nodes: [{ op: 'Identity', inputs: ['cin'], outputs: ['cout'] }, ...bodyNodes],
    outputs: [['cout', 'bool', []], ['s', f32], scanOut] } } } }],
  outputs: [['fin', f32], ['scan', f32]],
});
const neg = [{ op: 'Neg', inputs: ['s'], outputs: ['n'] }];
module.exports = [
  // The carried value's shape is the body's (none): no element shape.
  loop('trip0', 0, 1, neg, ['n', f32]),
  loop('cond_false', 5, 0, neg, ['n', f32]),
  loop('trip0_rank2', 0, 1, neg, ['n', f32], { x: [2, 3] }),
  // The body declares the carried value's shape, or the output's.
  loop('trip0_body_input_shape', 0, 1, neg, ['n', f32], { s: [3] }),
  loop('trip0_output_shape', 0, 1, neg, ['n', f32, [3]]),
  loop('trip0_output_shape_free', 0, 1, neg, ['n', f32, ['N', 3]], { x: [2, 3] }),
  // An outer tensor's shape is known, not the value of a graph input.
  loop('trip0_capture', 0, 1, [{ op: 'Add', inputs: ['y', 'y'], outputs: ['n'] }], ['n', f32], { inputs: [['y', f32, [2, 4]]] }),
  loop('trip0_reshape_input', 0, 1, [{ op: 'Reshape', inputs: ['s', 'shp'], outputs: ['n'] }], ['n', f32], { x: [2, 3], inputs: [['shp', i64, [2], [3, 2]]] }),
  loop('trip0_unsqueeze', 0, 1, [{ op: 'Unsqueeze', inputs: ['s', 'ax'], outputs: ['n'] }], ['n', f32], { inputs: [['ax', i64, [1], [0], true]] }),
];
