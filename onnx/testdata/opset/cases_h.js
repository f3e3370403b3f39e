// Cases for gen.js (the format of cases.js): opset 26 (ONNX 1.21), which
// added CumProd and BitCast and changed no other op; a few existing ops at
// 26 show that their ranges reach it. IR version 13, ONNX 1.21's.
const f = 'float32';
const cases = [];
const one = (name, op, attrs, inputs, outDt) =>
  cases.push({ name: `op26_${name}`, opset: 26, ir: 13, op, attrs, inputs, outputs: [['y', outDt]] });
const graph = (name, inputs, nodes, outputs) => cases.push({ name: `op26_${name}`, opset: 26, ir: 13, inputs, nodes, outputs });
const axis = (v, dt = 'int64', shape = [], isConst = true) => ['axis', dt, shape, [v], isConst];

// CumProd: every attribute combination, positive and negative axes, the
// axis as int32 and int64, 0-D and 1-D, constant and a graph input. The
// random floats lie in [-2, 2) and the axes are short, so that
// onnxruntime's float32 steps and pipert's float64 products agree to
// 1e-5.
one('cumprod_float', 'CumProd', {}, [['x', f, [3, 4]], axis(1)], f);
one('cumprod_float_axis0_exclusive', 'CumProd', { exclusive: 1 }, [['x', f, [3, 4]], axis(0)], f);
one('cumprod_float_reverse', 'CumProd', { reverse: 1 }, [['x', f, [3, 4]], axis(-1)], f);
one('cumprod_float_exclusive_reverse', 'CumProd', { exclusive: 1, reverse: 1 }, [['x', f, [2, 3, 4]], axis(1, 'int32')], f);
one('cumprod_float_axis_1d', 'CumProd', {}, [['x', f, [2, 3, 4]], axis(-2, 'int64', [1])], f);
one('cumprod_float_axis_input', 'CumProd', { reverse: 1 }, [['x', f, [2, 5]], axis(0, 'int32', [], false)], f);
one('cumprod_float_example', 'CumProd', {}, [['x', f, [5], [1, 2, 3, 4, 5]], axis(0)], f);
// Zeros, infinities and NaN: 0·Inf is NaN.
one('cumprod_float_specials', 'CumProd', {}, [['x', f, [4, 4], [2, -0.5, 3, 4, -1, 0, -5, 0.5, 3, Infinity, 0, 7, NaN, 1, -Infinity, 2]], axis(1)], f);
one('cumprod_float_specials_exclusive_reverse', 'CumProd', { exclusive: 1, reverse: 1 }, [['x', f, [4, 4], [2, -0.5, 3, 4, -1, 0, -5, 0.5, 3, Infinity, 0, 7, NaN, 1, -Infinity, 2]], axis(1)], f);
// ONNX's example, and random doubles.
one('cumprod_double_example', 'CumProd', { reverse: 1 }, [['x', 'float64', [5], [1, 2, 3, 4, 5]], axis(0, 'int32')], 'float64');
one('cumprod_double', 'CumProd', { exclusive: 1 }, [['x', 'float64', [3, 5]], axis(1)], 'float64');
one('cumprod_float16', 'CumProd', {}, [['x', 'float16', [2, 6]], axis(1)], 'float16');
one('cumprod_float16_reverse', 'CumProd', { reverse: 1 }, [['x', 'float16', [4, 3]], axis(0)], 'float16');
// Integers wrap: the low bits of the true product.
one('cumprod_int32', 'CumProd', {}, [['x', 'int32', [3, 4]], axis(1)], 'int32');
one('cumprod_int32_wrap', 'CumProd', {}, [['x', 'int32', [2, 4], [50000, 50000, 2, -3, 65536, 65536, 7, 1]], axis(1)], 'int32');
one('cumprod_int64', 'CumProd', { exclusive: 1 }, [['x', 'int64', [3, 4]], axis(0)], 'int64');
one('cumprod_int64_wrap', 'CumProd', {}, [['x', 'int64', [6], ['4611686018427387904', '2', '3', '-1', '3000000007', '5']], axis(0)], 'int64');
one('cumprod_uint32', 'CumProd', { reverse: 1 }, [['x', 'uint32', [2, 4]], axis(1)], 'uint32');
one('cumprod_uint32_wrap', 'CumProd', {}, [['x', 'uint32', [4], [4294967295, 4294967295, 65536, 3]], axis(0)], 'uint32');
one('cumprod_uint64', 'CumProd', {}, [['x', 'uint64', [2, 3]], axis(1)], 'uint64');
one('cumprod_uint64_wrap', 'CumProd', { exclusive: 1 }, [['x', 'uint64', [4], ['9223372036854775809', '3', '18446744073709551615', '2']], axis(0)], 'uint64');

// BitCast between every pair of pipert's dtypes of one size that
// onnxruntime has a kernel for: 32 and 64 bits, 16 (bfloat16 inside
// graphs, as onnxruntime-node has no bfloat16 tensors) and 8 (not bool:
// onnxruntime has no BitCast kernel for it).
const F32 = [1, -2.5, 3.75, 0, -1.5, Infinity, -Infinity, NaN, 1e-45, -3.4028234663852886e+38, 0.1, 65504];
const I32 = [0, 1, -1, 1065353216, -1071644672, 2139095040, 2139095041, -8388608, 2147483647, -2147483648, 8388608, 42];
const U32 = [0, 1, 4294967295, 1065353216, 3223322624, 2139095040, 2143289344, 4286578688, 2147483648, 2147483647, 8388607, 42];
for (const [from, data] of [[f, F32], ['int32', I32], ['uint32', U32]]) {
  for (const [to, code] of [[f, 1], ['int32', 6], ['uint32', 12]]) {
    if (from !== to || from === f) one(`bitcast_${from}_${to}`, 'BitCast', { to: code }, [['x', from, [3, 4], data]], to);
  }
}
one('bitcast_float32_int32_random', 'BitCast', { to: 6 }, [['x', f, [2, 3, 4]]], 'int32');
const F64 = [1, -2.5, 0, -1.5, Infinity, 2.5, 5e-324, 1.7976931348623157e+308, 0.1, -1e-300];
const I64 = ['0', '1', '-1', '4607182418800017408', '-4610560118520545280', '9218868437227405312', '-4503599627370496', '9223372036854775807', '-9223372036854775808', '42'];
const U64 = ['0', '1', '18446744073709551615', '4607182418800017408', '13836183955189006336', '9218868437227405312', '9221120237041090560', '9223372036854775808', '4503599627370495', '42'];
for (const [from, data] of [['float64', F64], ['int64', I64], ['uint64', U64]]) {
  for (const [to, code] of [['float64', 11], ['int64', 7], ['uint64', 13]]) {
    if (from !== to) one(`bitcast_${from}_${to}`, 'BitCast', { to: code }, [['x', from, [2, 5], data]], to);
  }
}
// A golden file's inputs lose the sign of a zero (JSON has no -0) and a
// float64 NaN's bits: signed zeros and that NaN come from initializers,
// whose bytes keep them.
one('bitcast_float32_int32_const', 'BitCast', { to: 6 }, [['x', f, [4], [-0, 0, -1e-45, -Infinity], true]], 'int32');
one('bitcast_float64_uint64_const', 'BitCast', { to: 13 }, [['x', 'float64', [5], [-0, 0, -5e-324, -Infinity, NaN], true]], 'uint64');
one('bitcast_float16_int16_const', 'BitCast', { to: 5 }, [['x', 'float16', [4], [-0, 0, -6e-8, -Infinity], true]], 'int16');
one('cumprod_float_negative_zero_const', 'CumProd', {}, [['x', f, [2, 3], [-1, 0, 3, -0, -2, -3], true], axis(1)], f);
// float16 data is given as values; int16 and uint16 as bit patterns.
const F16 = [1, -2, 0, -1.5, Infinity, -Infinity, NaN, 65504, 6e-8, -0.333251953125];
const I16 = [0, 1, -1, 15360, -16384, 31744, -1024, 32767, -32768, 32257];
const U16 = [0, 1, 65535, 15360, 49152, 31744, 64512, 32768, 16256, 32449];
for (const [from, data] of [['float16', F16], ['int16', I16], ['uint16', U16]]) {
  for (const [to, code] of [['float16', 10], ['int16', 5], ['uint16', 4]]) {
    if (from !== to) one(`bitcast_${from}_${to}`, 'BitCast', { to: code }, [['x', from, [2, 5], data]], to);
  }
}
// bfloat16: into it from float16, int16 and uint16, read back through a
// Cast to float32; out of it (from float32 through a Cast) to float16,
// int16 and uint16.
for (const [from, data] of [['float16', F16], ['int16', I16], ['uint16', U16]]) {
  graph(`bitcast_${from}_bfloat16`, [['x', from, [2, 5], data]],
    [{ op: 'BitCast', inputs: ['x'], outputs: ['b'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['b'], outputs: ['y'], attrs: { to: 1 } }], [['y', f]]);
}
for (const [to, code] of [['float16', 10], ['int16', 5], ['uint16', 4]]) {
  graph(`bitcast_bfloat16_${to}`, [['x', f, [2, 5], [1, -2, 0, -1.5, Infinity, -Infinity, 3.140625, 1e-40, 3.3895313892515355e+38, -0.5]]],
    [{ op: 'Cast', inputs: ['x'], outputs: ['b'], attrs: { to: 16 } }, { op: 'BitCast', inputs: ['b'], outputs: ['y'], attrs: { to: code } }], [['y', to]]);
}
one('bitcast_uint8_int8', 'BitCast', { to: 3 }, [['x', 'uint8', [2, 4], [0, 1, 127, 128, 129, 200, 254, 255]]], 'int8');
one('bitcast_int8_uint8', 'BitCast', { to: 2 }, [['x', 'int8', [2, 4], [0, 1, 127, -128, -127, -56, -2, -1]]], 'uint8');
// |x| by clearing the sign bit: BitCast to int32, BitwiseAnd, BitCast back.
graph('bitcast_abs_by_mask', [['x', f, [3, 4], F32], ['m', 'int32', [], [2147483647], true]],
  [{ op: 'BitCast', inputs: ['x'], outputs: ['i'], attrs: { to: 6 } }, { op: 'BitwiseAnd', inputs: ['i', 'm'], outputs: ['a'] },
    { op: 'BitCast', inputs: ['a'], outputs: ['y'], attrs: { to: 1 } }], [['y', f]]);

// Existing ops at opset 26.
one('add', 'Add', {}, [['a', f, [2, 3]], ['b', f, [3]]], f);
one('softmax', 'Softmax', { axis: -1 }, [['x', f, [2, 5]]], f);
one('cast', 'Cast', { to: 7 }, [['x', f, [2, 3], [1.5, -2.5, 0, 100.9, -7.1, 3]]], 'int64');
one('cumsum', 'CumSum', { exclusive: 1 }, [['x', f, [3, 4]], axis(1)], f);
one('reducesum', 'ReduceSum', { keepdims: 0 }, [['x', f, [2, 3, 4]], ['axes', 'int64', [1], [1], true]], f);
graph('cumprod_matmul_relu', [['x', f, [2, 3]], ['w', f, [3, 4], null, true], ['ax', 'int64', [], [1], true]],
  [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['m'] }, { op: 'Relu', inputs: ['m'], outputs: ['r'] },
    { op: 'CumProd', inputs: ['r', 'ax'], outputs: ['y'], attrs: { exclusive: 1 } }], [['y', f]]);

module.exports = cases;
