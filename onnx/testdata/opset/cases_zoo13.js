// Cases for gen.js (the format of cases.js): small models of opsets 13 to
// 21 in the forms exporters of that time write, at edges where pipert and
// onnxruntime once differed.
module.exports = [
  // DynamicQuantizeLinear of an all-zero input (here a Relu of negative
  // values) or an empty one: the range is empty, the scale 1, the zero
  // point 0.
  {
    name: 'z13_dynquant_zeros', opset: 13,
    inputs: [['x', 'float32', [2, 3], [-1, -2, -0.5, -3, -0.25, -4]]],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['r'] },
      { op: 'DynamicQuantizeLinear', inputs: ['r'], outputs: ['y', 's', 'z'] },
      { op: 'DequantizeLinear', inputs: ['y', 's', 'z'], outputs: ['d'] },
    ],
    outputs: [['y', 'uint8'], ['s', 'float32'], ['z', 'uint8'], ['d', 'float32']],
  },
  {
    name: 'z13_dynquant_empty', opset: 20,
    inputs: [['x', 'float32', [0, 3]]],
    nodes: [{ op: 'DynamicQuantizeLinear', inputs: ['x'], outputs: ['y', 's', 'z'] }],
    outputs: [['y', 'uint8'], ['s', 'float32'], ['z', 'uint8']],
  },
  // Per-axis quantization along an axis of length 0: scale and zero point
  // have no elements, the zero point's dtype (int8) is still the output's.
  {
    name: 'z13_quant_peraxis_empty', opset: 19,
    inputs: [['x', 'float32', [2, 0]], ['s', 'float32', [0], [], true], ['z', 'int8', [0], [], true]],
    nodes: [
      { op: 'QuantizeLinear', inputs: ['x', 's', 'z'], outputs: ['q'], attrs: { axis: 1 } },
      { op: 'DequantizeLinear', inputs: ['q', 's', 'z'], outputs: ['d'], attrs: { axis: -1 } },
    ],
    outputs: [['q', 'int8'], ['d', 'float32']],
  },
  // Clip's absent bounds are the dtype's lowest and highest finite
  // values: ±Inf becomes ±max (one bound given or none).
  ...['float32', 'float64', 'float16'].map((dt) => ({
    name: `z13_clip_default_bounds_${dt}`, opset: 13,
    inputs: [['x', dt, [5], [Infinity, -Infinity, NaN, 1, -2]], ['lo', dt, [], [0], true]],
    nodes: [
      { op: 'Clip', inputs: ['x'], outputs: ['a'] },
      { op: 'Clip', inputs: ['x', 'lo'], outputs: ['b'] },
      { op: 'Clip', inputs: ['x', '', 'lo'], outputs: ['c'] },
    ],
    outputs: [['a', dt], ['b', dt], ['c', dt]],
  })),
  // Slice with axes omitted ('') before steps: axes 0, 1, ….
  {
    name: 'z13_slice_axes_omitted', opset: 13,
    inputs: [['x', 'float32', [3, 4, 2]], ['st', 'int64', [2], [-1, 0], true], ['en', 'int64', [2], ['-9223372036854775808', 4], true],
      ['sp', 'int64', [2], [-2, 3], true]],
    nodes: [{ op: 'Slice', inputs: ['x', 'st', 'en', '', 'sp'], outputs: ['y'] }],
    outputs: [['y', 'float32']],
  },
  // SplitToSequence of an If's output: both branches give [2, 3], so
  // the If's output has that shape at import.
  {
    name: 'z13_if_split_to_sequence', opset: 16,
    inputs: [['x', 'float32', [2, 3]], ['c', 'bool', [], [0]], ['one', 'int64', [], [1], true]],
    nodes: [
      { op: 'If', inputs: ['c'], outputs: ['y'], attrs: {
        then_branch: { graph: { nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['t'] }], outputs: [['t', 'float32']] } },
        else_branch: { graph: { nodes: [{ op: 'Neg', inputs: ['x'], outputs: ['e'] }], outputs: [['e', 'float32']] } } } },
      { op: 'SplitToSequence', inputs: ['y'], outputs: ['s'], attrs: { axis: 1, keepdims: 0 } },
      { op: 'SequenceAt', inputs: ['s', 'one'], outputs: ['z'] },
      { op: 'Shape', inputs: ['y'], outputs: ['sh'] },
    ],
    outputs: [['z', 'float32'], ['sh', 'int64']],
  },
  // Resize's output dimension is ⌊D·scale⌋ with the product in float32,
  // as onnxruntime and PyTorch compute it: 10 × 0.7 is 7 (6.9999998… in
  // float64), 10 × 1.3 is 13 (12.999999…); nearest and linear.
  ...['nearest', 'linear'].map((mode) => ({
    name: `z13_resize_scale_float32_${mode}`, opset: 13,
    inputs: [['x', 'float32', [1, 1, 10, 10]], ['roi', 'float32', [0], [], true], ['sc', 'float32', [4], [1, 1, 0.7, 1.3], true]],
    nodes: [{ op: 'Resize', inputs: ['x', 'roi', 'sc'], outputs: ['y'], attrs: { mode } }],
    outputs: [['y', 'float32']],
  })),
];
