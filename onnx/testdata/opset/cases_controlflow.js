// Cases for gen.js (the format of cases.js): control flow whose body the
// static inference cannot follow (an If on a condition computed from the
// iteration number), run for zero iterations: the Loop's scan output is
// then an empty stack of the dtype the body declares.
const i64 = 'int64', f64 = 'float64';
const loopIf = (name, dt, trip) => ({
  name: `cf_${name}`, opset: 13,
  inputs: [['M', i64, [], [trip]], ['x', dt, [3]], ['zero', i64, [], [0], true]],
  nodes: [{ op: 'Loop', inputs: ['M', '', 'x'], outputs: ['fin', 'scan'], attrs: { body: { graph: {
    inputs: [['i', i64, []], ['cin', 'bool', []], ['s', dt]],
    nodes: [
      { op: 'Greater', inputs: ['i', 'zero'], outputs: ['gt'] },
      { op: 'If', inputs: ['gt'], outputs: ['sn'], attrs: {
        then_branch: { graph: { nodes: [{ op: 'Add', inputs: ['s', 'x'], outputs: ['t'] }], outputs: [['t', dt]] } },
        else_branch: { graph: { nodes: [{ op: 'Sub', inputs: ['s', 'x'], outputs: ['e'] }], outputs: [['e', dt]] } } } },
      { op: 'Identity', inputs: ['cin'], outputs: ['cout'] },
      { op: 'Neg', inputs: ['sn'], outputs: ['scn'] },
    ],
    outputs: [['cout', 'bool', []], ['sn', dt], ['scn', dt]] } } } }],
  outputs: [['fin', dt], ['scan', dt]],
});
module.exports = [
  loopIf('loop_if_body_zero_trip_int64', i64, 0),
  loopIf('loop_if_body_zero_trip_float64', f64, 0),
  loopIf('loop_if_body_three_trips_int64', i64, 3),
];
