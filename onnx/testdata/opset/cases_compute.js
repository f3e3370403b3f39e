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
module.exports = cases;
