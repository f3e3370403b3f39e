// Cases for gen.js (the format of cases.js): small models of opsets 7 to
// 12 in the forms exporters of that time wrote, at edges where pipert and
// onnxruntime once differed.
module.exports = [
  // Max, Min, Sum and Mean (version 6) and MaxPool (version 1) are the
  // ops' forms at opset 7.
  {
    name: 'zoo_opset7_variadic_maxpool', opset: 7,
    inputs: [['x', 'float32', [1, 2, 4, 4]], ['y', 'float32', [1, 2, 4, 4]], ['z', 'float32', [1, 2, 4, 4], null, true]],
    nodes: [
      { op: 'Max', inputs: ['x', 'y', 'z'], outputs: ['mx'] },
      { op: 'Min', inputs: ['mx', 'y'], outputs: ['mn'] },
      { op: 'Sum', inputs: ['mn', 'x', 'z'], outputs: ['sm'] },
      { op: 'Mean', inputs: ['sm', 'y'], outputs: ['me'] },
      { op: 'MaxPool', inputs: ['me'], outputs: ['p'], attrs: { kernel_shape: [2, 2], strides: [2, 1], pads: [0, 1, 1, 0] } },
    ],
    outputs: [['mx', 'float32'], ['me', 'float32'], ['p', 'float32']],
  },
  // Dropout's mask in inference: all zeros of data's type at opsets 7 to
  // 9, all false at 10 and 11.
  {
    name: 'zoo_dropout7_mask', opset: 7,
    inputs: [['x', 'float32', [2, 3]]],
    nodes: [{ op: 'Dropout', inputs: ['x'], outputs: ['y', 'm'], attrs: { ratio: 0.25 } }, { op: 'Relu', inputs: ['y'], outputs: ['r'] }],
    outputs: [['r', 'float32'], ['m', 'float32']],
  },
  {
    name: 'zoo_dropout10_mask', opset: 10,
    inputs: [['x', 'float32', [3, 2]]],
    nodes: [{ op: 'Dropout', inputs: ['x'], outputs: ['y', 'm'] }, { op: 'Not', inputs: ['m'], outputs: ['n'] }],
    outputs: [['y', 'float32'], ['m', 'bool'], ['n', 'bool']],
  },
  // A condition longer than Compress's axis (or the flattened input):
  // its tail is ignored.
  {
    name: 'zoo_compress_long_condition', opset: 9,
    inputs: [['x', 'float32', [2, 3]], ['c', 'bool', [5], [1, 0, 1, 1, 1], true]],
    nodes: [{ op: 'Compress', inputs: ['x', 'c'], outputs: ['y'], attrs: { axis: 1 } }],
    outputs: [['y', 'float32']],
  },
  {
    name: 'zoo_compress_long_condition_flat', opset: 11,
    inputs: [['x', 'float32', [2, 3]], ['c', 'bool', [8], [1, 0, 1, 1, 0, 1, 1, 1], true]],
    nodes: [{ op: 'Compress', inputs: ['x', 'c'], outputs: ['y'] }, { op: 'Neg', inputs: ['y'], outputs: ['n'] }],
    outputs: [['n', 'float32']],
  },
  // MaxPool's Indices of a 3-D pool with storage_order 1: column-major
  // over the three spatial axes.
  {
    name: 'zoo_maxpool3d_storage_order', opset: 11,
    inputs: [['x', 'float32', [1, 2, 3, 4, 5]]],
    nodes: [{ op: 'MaxPool', inputs: ['x'], outputs: ['y', 'i'], attrs: { kernel_shape: [2, 2, 2], strides: [1, 2, 2], storage_order: 1 } }],
    outputs: [['y', 'float32'], ['i', 'int64']],
  },
  // MatMulInteger and QLinearMatMul with no rows.
  {
    name: 'zoo_matmulinteger_no_rows', opset: 10,
    inputs: [['a', 'uint8', [2, 0, 3], []], ['b', 'uint8', [3, 4], null, true], ['az', 'uint8', [], [3], true], ['bz', 'uint8', [], [5], true],
      ['s', 'float32', [], [0.5], true], ['oz', 'uint8', [], [7], true]],
    nodes: [
      { op: 'MatMulInteger', inputs: ['a', 'b', 'az', 'bz'], outputs: ['y'] },
      { op: 'QLinearMatMul', inputs: ['a', 's', 'az', 'b', 's', 'bz', 's', 'oz'], outputs: ['q'] },
    ],
    outputs: [['y', 'int32'], ['q', 'uint8']],
  },
  // Linear resizing counts its taps of weight 0 (a NaN or an infinity
  // there makes the result NaN) and clamps the coordinate to the input
  // before taking the taps, as onnxruntime does.
  ...[['zoo_resize10_linear_nan', 10, [1, 1, 1, 0.5], {}], ['zoo_upsample9_linear_nan', 9, [1, 1, 2, 2], {}],
    ['zoo_resize11_linear_half_pixel_nan', 11, [1, 1, 2, 2], {}],
    ['zoo_resize11_linear_align_corners_nan', 11, [1, 1, 1, 2], { coordinate_transformation_mode: 'align_corners' }]].map(([name, opset, scales, attrs]) => ({
    name, opset,
    inputs: [['x', 'float32', [1, 1, 3, 4], [1, NaN, 3, 4, Infinity, 6, 7, 8, 9, -Infinity, 2, 0.5]], ...(opset >= 11 ? [['roi', 'float32', [0], [], true]] : []), ['s', 'float32', [4], scales, true]],
    nodes: [{ op: opset === 9 ? 'Upsample' : 'Resize', inputs: opset >= 11 ? ['x', 'roi', 's'] : ['x', 's'], outputs: ['y'], attrs: { mode: 'linear', ...attrs } }],
    outputs: [['y', 'float32']],
  })),
  // The mean of nothing (ONNX leaves it undefined) is 0, as onnxruntime's.
  {
    name: 'zoo_reducemean_empty', opset: 11,
    inputs: [['x', 'float32', [2, 0, 3], []]],
    nodes: [{ op: 'ReduceMean', inputs: ['x'], outputs: ['y'], attrs: { axes: [1], keepdims: 0 } }, { op: 'ReduceMean', inputs: ['x'], outputs: ['z'], attrs: { keepdims: 1 } }],
    outputs: [['y', 'float32'], ['z', 'float32']],
  },
  // ceil_mode with a window reaching past the padded input: one window,
  // over the elements inside.
  {
    name: 'zoo_maxpool_ceil_kernel_past_input', opset: 10,
    inputs: [['x', 'float32', [1, 2, 2, 5]]],
    nodes: [{ op: 'MaxPool', inputs: ['x'], outputs: ['y', 'i'], attrs: { kernel_shape: [3, 2], strides: [2, 2], dilations: [1, 2], ceil_mode: 1, pads: [0, 1, 0, 0] } }],
    outputs: [['y', 'float32'], ['i', 'int64']],
  },
  ...[0, 1].map((cip) => ({
    name: `zoo_averagepool_ceil_kernel_past_input_cip${cip}`, opset: 10,
    inputs: [['x', 'float32', [2, 1, 2, 3]]],
    nodes: [{ op: 'AveragePool', inputs: ['x'], outputs: ['y'], attrs: { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1, pads: [0, 1, 0, 0], count_include_pad: cip } }],
    outputs: [['y', 'float32']],
  })),
  // tf_crop_and_resize: a coordinate on the input's last element in
  // float32 (and past it in float64) is inside, not extrapolated.
  {
    name: 'zoo_resize11_crop_edge', opset: 11,
    inputs: [['x', 'float32', [1, 2, 4, 3]], ['roi', 'float32', [8], [0, 0, 0.1, 0.2, 1, 1, 0.9, 1.2], true], ['s', 'float32', [4], [1, 1, 0.5, 2], true]],
    nodes: [{ op: 'Resize', inputs: ['x', 'roi', 's'], outputs: ['y'], attrs: { mode: 'nearest', coordinate_transformation_mode: 'tf_crop_and_resize', nearest_mode: 'round_prefer_ceil', extrapolation_value: { f: 7 } } }],
    outputs: [['y', 'float32']],
  },
  // MeanVarianceNormalization's default axes [0, 2, 3] on inputs of rank
  // 1 to 3: onnxruntime keeps those within the rank.
  { name: 'zoo_mvn_rank3_default', opset: 13, op: 'MeanVarianceNormalization', inputs: [['x', 'float32', [2, 3, 4]]], outputs: [['y', 'float32']] },
  { name: 'zoo_mvn_rank2_default', opset: 9, op: 'MeanVarianceNormalization', inputs: [['x', 'float32', [3, 5]]], outputs: [['y', 'float32']] },
  { name: 'zoo_mvn_rank1_default', opset: 13, op: 'MeanVarianceNormalization', inputs: [['x', 'float32', [6]]], outputs: [['y', 'float32']] },
];
