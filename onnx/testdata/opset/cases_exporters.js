// Cases for gen.js (the format of cases.js): patterns of exporters'
// models where pipert once refused a valid model or departed from
// onnxruntime.
const f = 'float32', i64 = 'int64';
const I = (name, data, shape) => [name, i64, shape || [data.length], data, true];

// Loop of opsets 8 to 10 (PyTorch's scripted loops, tf2onnx): as opset 11.
const loop = (opset) => ({
  name: `e_loop_opset${opset}`, opset,
  inputs: [I('M', [3], []), ['cond', 'bool', [], [1], true], ['x', f, [2, 3]]],
  nodes: [{
    op: 'Loop', inputs: ['M', 'cond', 'x'], outputs: ['xf', 'scan'], attrs: {
      body: {
        graph: {
          inputs: [['it', i64, []], ['c', 'bool', []], ['xin', f, [2, 3]]],
          nodes: [
            { op: 'Cast', inputs: ['it'], outputs: ['itf'], attrs: { to: 1 } },
            { op: 'Add', inputs: ['xin', 'itf'], outputs: ['xo'] },
            { op: 'Identity', inputs: ['c'], outputs: ['co'] },
          ],
          outputs: [['co', 'bool', []], ['xo', f, [2, 3]], ['xo', f, [2, 3]]],
        },
      },
    },
  }],
  outputs: [['xf', f], ['scan', f]],
});

module.exports = [
  loop(8), loop(9), loop(10),
  // MaxUnpool(output_size=x.size()) after a MaxPool of an odd-sized input
  // (SegNet, ENet): the indices are flat positions in output_shape.
  {
    name: 'e_maxunpool_odd', opset: 11, inputs: [['x', f, [1, 2, 5, 5]]],
    nodes: [
      { op: 'MaxPool', inputs: ['x'], outputs: ['p', 'i'], attrs: { kernel_shape: [2, 2], strides: [2, 2] } },
      { op: 'Shape', inputs: ['x'], outputs: ['s'] },
      { op: 'MaxUnpool', inputs: ['p', 'i', 's'], outputs: ['y'], attrs: { kernel_shape: [2, 2], strides: [2, 2] } },
    ],
    outputs: [['y', f], ['i', i64]],
  },
  {
    name: 'e_maxunpool_output_shape', opset: 11,
    inputs: [['x', f, [1, 1, 2, 2]], I('ind', [5, 7, 13, 15], [1, 1, 2, 2]), I('os', [1, 1, 4, 5])],
    nodes: [{ op: 'MaxUnpool', inputs: ['x', 'ind', 'os'], outputs: ['y'], attrs: { kernel_shape: [2, 2], strides: [2, 2] } }],
    outputs: [['y', f]],
  },
  // A graph output folded at import from an empty input: a real empty
  // tensor.
  {
    name: 'e_empty_reshape', opset: 13, inputs: [['a', f, [2, 0, 3]], I('sh', [0, -1])],
    nodes: [{ op: 'Reshape', inputs: ['a', 'sh'], outputs: ['y'] }],
    outputs: [['y', f]],
  },
];

// A scikit-learn classifier as skl2onnx writes it: LinearClassifier, a
// Normalizer of its scores, and ZipMap turning the probabilities into a
// sequence of maps, the model's second output. pipert has no maps: the
// import takes the tensor before ZipMap with Options.Outputs (golden: the
// label and probabilities onnxruntime computes).
const ML = 'ai.onnx.ml';
const seqMap = { sequenceType: { elemType: { mapType: { keyType: 7, valueType: { tensorType: { elemType: 1 } } } } } };
const tensorOf = (elemType) => ({ tensorType: { elemType } });
module.exports.push({
  name: 'e_skl2onnx_zipmap', opset: 15, domains: { [ML]: 1 },
  inputs: [['float_input', f, [5, 3]]],
  nodes: [
    { op: 'LinearClassifier', domain: ML, inputs: ['float_input'], outputs: ['label', 'probability_tensor'], attrs: {
      coefficients: { floats: [0.5, -1, 0.25, 1, 0.75, -0.5, -0.25, 0.5, 1] }, intercepts: { floats: [0.1, -0.2, 0.3] },
      classlabels_ints: [0, 1, 2], multi_class: 1, post_transform: 'LOGISTIC' } },
    { op: 'Normalizer', domain: ML, inputs: ['probability_tensor'], outputs: ['probabilities'], attrs: { norm: 'L1' } },
  ],
  outputs: [['label', i64], ['probabilities', f]],
  tail: {
    nodes: [
      { op: 'Cast', inputs: ['label'], outputs: ['output_label'], attrs: { to: 7 } },
      { op: 'ZipMap', domain: ML, inputs: ['probabilities'], outputs: ['output_probability'], attrs: { classlabels_int64s: [0, 1, 2] } },
    ],
    outputs: [['output_label', tensorOf(7)], ['output_probability', seqMap]],
    fetch: [['output_label', 'label']],
  },
});
