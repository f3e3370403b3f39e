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
