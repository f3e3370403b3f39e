// Cases for gen.js (the format of cases.js): a Loop body that declares the
// iteration number of shape [1] rather than a scalar, as older tf2onnx and
// keras2onnx exports do; onnxruntime gives it of the declared shape (the
// scan output of the iteration numbers is [M, 1]).
const f32 = 'float32', i64 = 'int64';
module.exports = [
  {
    name: 'loopiter_body_declares_rank1_iteration', opset: 11,
    inputs: [['data', f32, [3, 4]], ['M', i64, [], [3]], ['t0', f32, [4], [0, 0, 0, 0], true], ['c0', 'bool', [], [1], true]],
    nodes: [
      { op: 'Loop', inputs: ['M', 'c0', 't0'], outputs: ['total', 'rows', 'iters'], attrs: { body: { graph: {
        inputs: [['i', i64, [1]], ['cin', 'bool', []], ['t', f32, [4]]],
        nodes: [
          { op: 'Squeeze', inputs: ['i'], outputs: ['s'], attrs: { axes: [0] } },
          { op: 'Gather', inputs: ['data', 's'], outputs: ['row'], attrs: { axis: 0 } },
          { op: 'Add', inputs: ['t', 'row'], outputs: ['tn'] },
          { op: 'Identity', inputs: ['cin'], outputs: ['cout'] },
          { op: 'Identity', inputs: ['tn'], outputs: ['rs'] },
          { op: 'Identity', inputs: ['i'], outputs: ['is'] },
        ],
        outputs: [['cout', 'bool', []], ['tn', f32, [4]], ['rs', f32, [4]], ['is', i64]] } } } },
    ],
    outputs: [['total', f32], ['rows', f32], ['iters', i64]],
  },
];
