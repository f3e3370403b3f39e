// Models with local functions (ModelProto.functions), as exporters that
// keep a module as a function write them: calls with attributes given and
// referenced, a function calling another, an omitted optional input, and
// two calls of one function. (onnx-proto 8 has no FunctionProto
// attribute_proto: attribute defaults are tested in function_test.go.)
const f = 'float32';
module.exports = [
  { name: 'fn_layer_opset18', opset: 18, ir: 10, domains: { 'pkg.local': 1 },
    inputs: [['x', f, [2, 3, 4]], ['w', f, [4, 4], null, true], ['b', f, [4], null, true]],
    functions: [
      { name: 'Scale', domain: 'pkg.local', inputs: ['X'], outputs: ['Y'], attrs: ['alpha'],
        nodes: [
          { op: 'Constant', inputs: [], outputs: ['a'], attrs: { value_float: { ref: 'alpha', type: 'float' } } },
          { op: 'Mul', inputs: ['X', 'a'], outputs: ['Y'] }] },
      { name: 'Dense', domain: 'pkg.local', inputs: ['X', 'W', 'B'], outputs: ['Y', 'H'], attrs: ['alpha', 'axis'],
        nodes: [
          { op: 'MatMul', inputs: ['X', 'W'], outputs: ['m'] },
          { op: 'Add', inputs: ['m', 'B'], outputs: ['H'] },
          { op: 'Scale', domain: 'pkg.local', inputs: ['H'], outputs: ['s'], attrs: { alpha: { ref: 'alpha', type: 'float' } } },
          { op: 'Softmax', inputs: ['s'], outputs: ['Y'], attrs: { axis: { ref: 'axis', type: 'int' } } }] },
    ],
    nodes: [
      { op: 'Dense', domain: 'pkg.local', inputs: ['x', 'w', 'b'], outputs: ['y1', 'h1'], attrs: { alpha: 0.5, axis: 1 } },
      { op: 'Dense', domain: 'pkg.local', inputs: ['y1', 'w', 'b'], outputs: ['y2', 'h2'], attrs: { alpha: 1.5, axis: -1 } },
      { op: 'Scale', domain: 'pkg.local', inputs: ['y2'], outputs: ['m'], attrs: { alpha: { f: 3 } } },
      { op: 'Add', inputs: ['m', 'h1'], outputs: ['y'] },
    ],
    outputs: [['y', f], ['h2', f]] },
  { name: 'fn_optional_input_opset18', opset: 18, ir: 10, domains: { 'pkg.local': 1 },
    inputs: [['x', f, [2, 5]]],
    functions: [
      { name: 'ClipTo', domain: 'pkg.local', inputs: ['X', 'Lo', 'Hi'], outputs: ['Y'],
        nodes: [{ op: 'Clip', inputs: ['X', 'Lo', 'Hi'], outputs: ['Y'] }] },
      { name: 'Bound', domain: 'pkg.local', inputs: ['X'], outputs: ['Y'],
        nodes: [
          { op: 'Constant', inputs: [], outputs: ['hi'], attrs: { value_float: 0.5 } },
          { op: 'ClipTo', domain: 'pkg.local', inputs: ['X', '', 'hi'], outputs: ['Y'] }] },
    ],
    nodes: [{ op: 'Bound', domain: 'pkg.local', inputs: ['x'], outputs: ['y'] }],
    outputs: [['y', f]] },
];
