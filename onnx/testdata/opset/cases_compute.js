// Cases for gen.js (the format of cases.js): the compute-heavy ops' edge
// geometry. NhwcMaxPool (com.microsoft) without ceil_mode sizes its
// output with an integer quotient truncated toward zero, as onnxruntime
// 1.30 does: a window that starts in the input and reaches past its end
// (in + pads − extent between −stride and 0) is one output, whose taps
// past the end read the type's minimum.
const M = 'com.microsoft';
const cases = [];
const nhwc = (name, dt, shape, attrs) => cases.push({ name: `cmp_nhwcmaxpool_${name}`, opset: 17, domain: M, op: 'NhwcMaxPool', attrs,
  inputs: [['x', dt, shape]], outputs: [['y', dt]] });
nhwc('u8_kernel_past_end_stride3', 'uint8', [1, 2, 1], { kernel_shape: [3], strides: [3] });
nhwc('i8_kernel_past_end_valid', 'int8', [2, 2, 3, 2], { kernel_shape: [3, 2], strides: [2, 1], auto_pad: 'VALID' });
nhwc('u8_kernel_past_end_pads', 'uint8', [1, 3, 4, 1], { kernel_shape: [5, 2], strides: [4, 2], pads: [1, 0, 0, 1] });
nhwc('u8_kernel_past_end_dilated', 'uint8', [1, 3, 2, 2, 1], { kernel_shape: [2, 1, 2], strides: [3, 1, 2], dilations: [2, 1, 2] });
// The default-domain pools take such a window too (ONNX's shape inference
// truncates the quotient; the operator text's floor gives no output).
const f = 'float32';
const pool = (name, opset, op, attrs, shape, outs = [['y', f]]) => cases.push({ name: `cmp_pool_past_end_${name}`, opset, op, attrs,
  inputs: [['x', f, shape]], outputs: outs });
pool('maxpool_1d', 12, 'MaxPool', { kernel_shape: [3], strides: [3] }, [1, 1, 2]);
pool('maxpool_2d_indices', 12, 'MaxPool', { kernel_shape: [3, 2], strides: [2, 1] }, [1, 2, 2, 3], [['y', f], ['i', 'int64']]);
pool('maxpool_pads_dilated', 12, 'MaxPool', { kernel_shape: [2, 2], strides: [4, 1], pads: [1, 0, 0, 0], dilations: [2, 1] }, [2, 1, 2, 3]);
pool('avgpool_exclude_pad', 19, 'AveragePool', { kernel_shape: [3], strides: [3] }, [1, 3, 2]);
pool('avgpool_include_pad', 11, 'AveragePool', { kernel_shape: [3, 3], strides: [3, 2], pads: [1, 0, 0, 0], count_include_pad: 1 }, [1, 1, 2, 4]);
pool('lppool_p2', 18, 'LpPool', { kernel_shape: [3], strides: [3] }, [1, 2, 2]);
pool('lppool_p1_opset11', 11, 'LpPool', { kernel_shape: [4, 1], strides: [3, 1], p: 1 }, [1, 1, 2, 2]);
module.exports = cases;
