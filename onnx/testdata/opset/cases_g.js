// Cases for gen.js (the format of cases.js): the element types int16,
// uint16, uint32, uint64 and bfloat16. onnxruntime-node has no bfloat16
// tensors, so bfloat16 lives inside the graphs: initializers and Casts
// from and back to float32. 64-bit data beyond 2^53 is given as strings.
const f = 'float32';
const U64_TOP = ['18446744073709551615', '18446744073709551614', '9223372036854775809', '9223372036854775808',
  '9223372036854775807', '9007199254740993', '9007199254740992', '4294967296', '10', '3', '1', '0'];

const cases = [];
const one = (name, opset, op, attrs, inputs, outDt, nodeInputs) =>
  cases.push({ name: `dt_${name}`, opset, op, attrs, inputs, outputs: [['y', outDt]], nodeInputs });
// graph builds a multi-node case.
const graph = (name, opset, inputs, nodes, outputs) => cases.push({ name: `dt_${name}`, opset, inputs, nodes, outputs });

// Cast between the new integer types and float32, float64 and int64.
// Float to integer in the target's range only: out of range is undefined.
const inRange = {
  int16: [-32768, -32767.9, -1.5, -0.5, 0, 0.9, 255.5, 32767.9],
  uint16: [0, 0.9, 1.5, 255.5, 256, 40000.7, 65535.9, 3],
  uint32: [0, 0.9, 1.5, 65536.5, 2147483648, 4294967040, 16777217, 3],
  uint64: [0, 0.9, 1.5, 4294967296, 9223372036854775808, 18446742974197923840, 16777217, 3],
};
for (const [dt, code] of [['int16', 5], ['uint16', 4], ['uint32', 12], ['uint64', 13]]) {
  one(`cast_float_${dt}`, 21, 'Cast', { to: code }, [['x', f, [8], inRange[dt]]], dt);
  one(`cast_double_${dt}`, 21, 'Cast', { to: code }, [['x', 'float64', [8], inRange[dt]]], dt);
  one(`cast_${dt}_float`, 21, 'Cast', { to: 1 }, [['x', dt, [4, 8]]], f);
  one(`cast_${dt}_double`, 21, 'Cast', { to: 11 }, [['x', dt, [4, 8]]], 'float64');
  one(`cast_${dt}_float16`, 21, 'Cast', { to: 10 }, [['x', dt, [4, 8]]], 'float16');
  one(`cast_${dt}_int64`, 21, 'Cast', { to: 7 }, [['x', dt, [4, 8]]], 'int64');
  one(`cast_${dt}_int8`, 21, 'Cast', { to: 3 }, [['x', dt, [4, 8]]], 'int8');
  one(`cast_${dt}_bool`, 21, 'Cast', { to: 9 }, [['x', dt, [6], [0, 1, 2, 0, 255, 0]]], 'bool');
  // int64 to the type wraps (C's static_cast): the low bits.
  one(`cast_int64_${dt}`, 21, 'Cast', { to: code }, [['x', 'int64', [8], ['-1', '65535', '70000', '-40000', '1099511627781', '-9223372036854775808', '9223372036854775807', '4294967297']]], dt);
  one(`cast_int32_${dt}`, 21, 'Cast', { to: code }, [['x', 'int32', [4, 8]]], dt);
  one(`cast_bool_${dt}`, 21, 'Cast', { to: code }, [['x', 'bool', [6]]], dt);
}
one('cast_uint64_float_big', 21, 'Cast', { to: 1 }, [['x', 'uint64', [12], U64_TOP]], f);
one('cast_uint64_double_big', 21, 'Cast', { to: 11 }, [['x', 'uint64', [12], U64_TOP]], 'float64');
one('cast_uint64_int64_big', 21, 'Cast', { to: 7 }, [['x', 'uint64', [12], U64_TOP]], 'int64');
one('cast_uint64_uint32_big', 21, 'Cast', { to: 12 }, [['x', 'uint64', [12], U64_TOP]], 'uint32');
one('cast_uint16_int16', 21, 'Cast', { to: 5 }, [['x', 'uint16', [4, 8]]], 'int16');
one('cast_int16_uint32', 21, 'Cast', { to: 12 }, [['x', 'int16', [4, 8]]], 'uint32');
one('cast_uint32_uint64', 25, 'Cast', { to: 13 }, [['x', 'uint32', [4, 8]]], 'uint64');
one('castlike_int16_uint64', 21, 'CastLike', {}, [['x', 'int16', [4, 8]], ['like', 'uint64', [1], [0], true]], 'uint64');

// float32 to bfloat16 and back: ties to even (1 + 2^-8 to 1, 1 + 3·2^-8 up
// to 1 + 2^-6), just off the ties, NaN, ±Inf, ±0, overflow past the
// largest bfloat16 to Inf, subnormals and their ties.
const bfTies = [1.00390625, 1.01171875, 1.0039063692092896, 1.0039061307907104, -1.01171875, NaN, Infinity, -Infinity,
  0, -0, 3.4028234663852886e+38, 3.3961514799655115e+38, 3.3895313892515355e+38, 9.183549615799121e-41, 1.3775324423698682e-40,
  2.2958874039497803e-41, 0.1, 1 / 3, 65504, 70000, 16777217, -2.5, 1e-45, 1.1754943508222875e-38];
graph('cast_float_bfloat16_float', 21, [['x', f, [bfTies.length], bfTies]],
  [{ op: 'Cast', inputs: ['x'], outputs: ['b'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['b'], outputs: ['y'], attrs: { to: 1 } }], [['y', f]]);
// float64 to bfloat16: onnxruntime rounds through float32, twice, which
// differs from rounding once (pipert's, as for float16) only just off a
// bfloat16 tie (1 + 2^-8 + 2^-40 is 1 there, 1 + 2^-7 here): such values
// are left to the unit tests.
graph('cast_double_bfloat16_float', 21, [['x', 'float64', [8], [1 + 2 ** -8 + 2 ** -20, 1 + 2 ** -8, 1 + 3 * 2 ** -8 - 2 ** -20, 0.1, 1e300, -1e-300, NaN, 3.3961514799655115e+38]]],
  [{ op: 'Cast', inputs: ['x'], outputs: ['b'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['b'], outputs: ['y'], attrs: { to: 1 } }], [['y', f]]);
graph('cast_float_bfloat16_float_random', 25, [['x', f, [4, 16]]],
  [{ op: 'Cast', inputs: ['x'], outputs: ['b'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['b'], outputs: ['y'], attrs: { to: 1 } }], [['y', f]]);
// Out of an integer target's range the conversion is undefined: 1e38 goes
// to the float targets only.
for (const [dt, to, outDt] of [['bfloat16', 11, 'float64'], ['bfloat16', 10, 'float16'], ['bfloat16', 7, 'int64'], ['bfloat16', 6, 'int32'], ['bfloat16', 9, 'bool']]) {
  const big = to === 6 || to === 7 ? -300 : 1e38;
  graph(`cast_${dt}_${outDt}`, 21, [['x', f, [8], [1.5, -2.75, 65280, 1e-40, -0, 0.333984375, 300.5, big]]],
    [{ op: 'Cast', inputs: ['x'], outputs: ['b'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['b'], outputs: ['y'], attrs: { to } }], [['y', outDt]]);
}
for (const [dt, code] of [['int16', 5], ['uint16', 4], ['uint32', 12], ['uint64', 13], ['int64', 7]]) {
  graph(`cast_${dt}_bfloat16_float`, 21, [['x', dt, [4, 8]]],
    [{ op: 'Cast', inputs: ['x'], outputs: ['b'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['b'], outputs: ['y'], attrs: { to: 1 } }], [['y', f]]);
  graph(`cast_bfloat16_to_${dt}`, 21, [['x', f, [6], [1.5, 2.75, 0, 100.5, 255, 32512]]],
    [{ op: 'Cast', inputs: ['x'], outputs: ['b'], attrs: { to: 16 } }, { op: 'Cast', inputs: ['b'], outputs: ['y'], attrs: { to: code } }], [['y', dt]]);
}
// A bfloat16 initializer (weights stored as bfloat16), read through Cast.
graph('bfloat16_initializer', 21, [['w', 'bfloat16', [2, 5], [0.1, -0.2, 3.14159, 1e-3, -65504, 1e38, -1e-39, 0.5, 7, 1 / 3], true]],
  [{ op: 'Cast', inputs: ['w'], outputs: ['y'], attrs: { to: 1 } }], [['y', f]]);

// Arithmetic, comparisons and selection on the new integer types: uint64
// beyond 2^63 and 2^53, int16 and uint16 overflowing.
const u64a = ['18446744073709551615', '9223372036854775809', '9007199254740993', '10', '0', '9223372036854775808'];
const u64b = ['2', '9223372036854775807', '3', '18446744073709551615', '7', '9223372036854775808'];
const i16a = [32767, -32768, 300, -7, 200, -1], i16b = [1, -1, 300, 2, -200, 32767];
const u16a = [65535, 40000, 300, 7, 0, 32768], u16b = [1, 40000, 300, 2, 9, 2];
const u32a = [4294967295, 3000000000, 65536, 7, 0, 2147483648], u32b = [1, 3000000000, 65536, 2, 9, 2];
const pairs = { uint64: [u64a, u64b], int16: [i16a, i16b], uint16: [u16a, u16b], uint32: [u32a, u32b] };
for (const [dt, [a, b]] of Object.entries(pairs)) {
  for (const op of ['Add', 'Sub', 'Mul', 'Div', 'Max', 'Min']) {
    one(`${op.toLowerCase()}_${dt}`, 14, op, {}, [['a', dt, [6], a], ['b', dt, [6], b]], dt);
  }
  one(`mod_${dt}`, 13, 'Mod', {}, [['a', dt, [6], a], ['b', dt, [6], b]], dt);
  // fmod 1 on uint64 within 2^53: onnxruntime's integer fmod goes through
  // double (MaxUint64 fmod 2 is 0 there), where pipert's is exact.
  const [fa, fb] = dt === 'uint64' ? [['9007199254740991', '4294967297', '1000', '10', '0', '123456789'], ['2', '65536', '7', '9007199254740991', '7', '1000']] : [a, b];
  one(`mod_fmod_${dt}`, 13, 'Mod', { fmod: 1 }, [['a', dt, [6], fa], ['b', dt, [6], fb]], dt);
  for (const op of ['Less', 'Greater', 'Equal', 'LessOrEqual', 'GreaterOrEqual']) {
    one(`${op.toLowerCase()}_${dt}`, 19, op, {}, [['a', dt, [6], a], ['b', dt, [6], b]], 'bool');
  }
  one(`add_bcast_${dt}`, 14, 'Add', {}, [['a', dt, [6, 1], a], ['b', dt, [1, 6], b]], dt);
  one(`mul_bcast_${dt}`, 14, 'Mul', {}, [['a', dt, [6, 1], a], ['b', dt, [1, 6], b]], dt);
  one(`max_variadic_${dt}`, 13, 'Max', {}, [['a', dt, [6], a], ['b', dt, [6], b], ['c', dt, [1], [a[2]]]], dt);
  one(`abs_${dt}`, 13, 'Abs', {}, [['a', dt, [6], a]], dt);
  one(`sign_${dt}`, 13, 'Sign', {}, [['a', dt, [6], a]], dt);
  one(`clip_${dt}`, 13, 'Clip', {}, [['a', dt, [6], a], ['lo', dt, [], [b[2]], true], ['hi', dt, [], [b[1]], true]], dt);
  one(`where_${dt}`, 16, 'Where', {}, [['c', 'bool', [6], [1, 0, 1, 0, 0, 1]], ['a', dt, [6], a], ['b', dt, [6], b]], dt);
  one(`bitwiseand_${dt}`, 18, 'BitwiseAnd', {}, [['a', dt, [6], a], ['b', dt, [6], b]], dt);
  one(`bitwisenot_${dt}`, 18, 'BitwiseNot', {}, [['a', dt, [6], a]], dt);
  one(`argmax_${dt}`, 13, 'ArgMax', { axis: 1 }, [['a', dt, [2, 6], [...a, ...b]]], 'int64');
  one(`argmin_${dt}`, 13, 'ArgMin', { axis: 1, select_last_index: 1 }, [['a', dt, [2, 6], [...a, ...b]]], 'int64');
  cases.push({ name: `dt_topk_${dt}`, opset: 11, op: 'TopK', inputs: [['a', dt, [2, 6], [...a, ...b]], ['k', 'int64', [1], [3], true]], outputs: [['y', dt], ['i', 'int64']] });
  if (dt === 'uint32' || dt === 'uint64') { // ONNX's reductions and MatMul take no 16-bit types
    one(`reducemax_${dt}`, 18, 'ReduceMax', { keepdims: 0 }, [['a', dt, [2, 6], [...a, ...b]], ['axes', 'int64', [1], [1], true]], dt);
    one(`reducemin_${dt}`, 18, 'ReduceMin', { keepdims: 0 }, [['a', dt, [2, 6], [...a, ...b]], ['axes', 'int64', [1], [1], true]], dt);
    one(`reducesum_${dt}`, 13, 'ReduceSum', { keepdims: 0 }, [['a', dt, [2, 6], [...a, ...b]], ['axes', 'int64', [1], [1], true]], dt);
    one(`cumsum_${dt}`, 14, 'CumSum', {}, [['a', dt, [2, 6], [...a, ...b]], ['axis', 'int64', [], [1], true]], dt);
    one(`matmul_${dt}`, 13, 'MatMul', {}, [['a', dt, [2, 3], a], ['b', dt, [3, 2], b]], dt);
  }
  if (dt === 'int16') { // ONNX's Relu and Neg take signed types only
    one(`relu_${dt}`, 14, 'Relu', {}, [['a', dt, [6], a]], dt);
    one(`neg_${dt}`, 13, 'Neg', {}, [['a', dt, [6], a]], dt);
  }
  one(`pow_float_${dt}`, 15, 'Pow', {}, [['x', f, [6], [1, -1, 2, 0.5, -1.5, 1.25]], ['e', dt, [6], [2, 3, 0, 5, 3, 4]]], f);
  // Data movement is type-agnostic: the bytes move.
  one(`gather_${dt}`, 13, 'Gather', { axis: 1 }, [['a', dt, [2, 6], [...a, ...b]], ['i', 'int64', [3], [5, 0, -1], true]], dt);
  one(`transpose_${dt}`, 21, 'Transpose', { perm: [1, 0] }, [['a', dt, [2, 6], [...a, ...b]]], dt);
  one(`concat_${dt}`, 13, 'Concat', { axis: 0 }, [['a', dt, [6], a], ['b', dt, [6], b]], dt);
  one(`reshape_${dt}`, 21, 'Reshape', {}, [['a', dt, [2, 6], [...a, ...b]], ['s', 'int64', [3], [3, -1, 2], true]], dt);
  one(`expand_${dt}`, 13, 'Expand', {}, [['a', dt, [6, 1], a], ['s', 'int64', [2], [6, 2], true]], dt);
  one(`slice_${dt}`, 13, 'Slice', {}, [['a', dt, [6], a], ['st', 'int64', [1], [4], true], ['en', 'int64', [1], [0], true], ['ax', 'int64', [1], [0], true], ['sp', 'int64', [1], [-2], true]], dt);
  one(`pad_${dt}`, 21, 'Pad', {}, [['a', dt, [6], a], ['p', 'int64', [2], [1, 2], true], ['v', dt, [], [b[2]], true]], dt);
  one(`identity_${dt}`, 21, 'Identity', {}, [['a', dt, [6], a]], dt);
}
for (const dt of ['uint16', 'uint32', 'uint64']) {
  const bits = { uint16: 16, uint32: 32, uint64: 64 }[dt];
  const xs = { uint16: [1, 65535, 32768, 255, 7, 43690], uint32: [1, 4294967295, 2147483648, 65535, 7, 2863311530],
    uint64: ['1', '18446744073709551615', '9223372036854775808', '4294967295', '7', '12297829382473034410'] }[dt];
  for (const dir of ['LEFT', 'RIGHT']) {
    one(`bitshift_${dir.toLowerCase()}_${dt}`, 11, 'BitShift', { direction: dir }, [['x', dt, [6, 1], xs], ['s', dt, [1, 8], [0, 1, 3, 8, bits - 1, bits / 2, 5, 2]]], dt);
  }
}
// Quantization to and from int16 and uint16 (opset 21).
one('quantize_21_int16', 21, 'QuantizeLinear', {}, [['x', f, [8], [-1000, -0.5, 0.5, 1.5, 2.5, 1e6, -1e6, 123.4]], ['s', f, [], [0.5], true], ['z', 'int16', [], [-3], true]], 'int16');
one('quantize_21_uint16', 21, 'QuantizeLinear', {}, [['x', f, [8], [-1000, -0.5, 0.5, 1.5, 2.5, 1e6, -1e6, 123.4]], ['s', f, [], [0.25], true], ['z', 'uint16', [], [30000], true]], 'uint16');
one('quantize_21_output_dtype_int16', 21, 'QuantizeLinear', { output_dtype: 5 }, [['x', f, [2, 4]], ['s', f, [4], [0.01, 0.02, 0.5, 3], true]], 'int16');
one('dequantize_21_int16', 21, 'DequantizeLinear', {}, [['x', 'int16', [8], [-32768, -1, 0, 1, 32767, 300, -300, 12345]], ['s', f, [], [0.125], true], ['z', 'int16', [], [7], true]], f);
one('dequantize_21_uint16', 21, 'DequantizeLinear', { axis: 0 }, [['x', 'uint16', [2, 4]], ['s', f, [2], [0.5, 0.001], true], ['z', 'uint16', [2], [32768, 0], true]], f);
// Range on int16.
one('range_int16', 11, 'Range', {}, [['s', 'int16', [], [-7], true], ['l', 'int16', [], [20], true], ['d', 'int16', [], [4], true]], 'int16');

// bfloat16 through the data-movement ops and the float ops, between Casts:
// Gather, Concat, Transpose, Reshape and Where move the bits; the float
// ops compute in float32 and round once to bfloat16.
const toBF = (x, y) => ({ op: 'Cast', inputs: [x], outputs: [y], attrs: { to: 16 } });
const toF = (x) => ({ op: 'Cast', inputs: [x], outputs: ['y'], attrs: { to: 1 } });
graph('bfloat16_gather', 21, [['w', 'bfloat16', [4, 3], null, true], ['i', 'int64', [2, 2], [3, 0, -1, 1]]],
  [{ op: 'Gather', inputs: ['w', 'i'], outputs: ['g'], attrs: { axis: 0 } }, toF('g')], [['y', f]]);
graph('bfloat16_concat', 21, [['x', f, [2, 3]], ['w', 'bfloat16', [1, 3], null, true]],
  [toBF('x', 'b'), { op: 'Concat', inputs: ['b', 'w'], outputs: ['c'], attrs: { axis: 0 } }, toF('c')], [['y', f]]);
graph('bfloat16_transpose', 21, [['x', f, [2, 3, 4]]],
  [toBF('x', 'b'), { op: 'Transpose', inputs: ['b'], outputs: ['t'], attrs: { perm: [2, 0, 1] } }, toF('t')], [['y', f]]);
graph('bfloat16_reshape', 21, [['x', f, [2, 6]], ['s', 'int64', [3], [3, 2, -1], true]],
  [toBF('x', 'b'), { op: 'Reshape', inputs: ['b', 's'], outputs: ['r'] }, toF('r')], [['y', f]]);
graph('bfloat16_where', 21, [['c', 'bool', [2, 3]], ['x', f, [2, 3]], ['w', 'bfloat16', [3], null, true]],
  [toBF('x', 'b'), { op: 'Where', inputs: ['c', 'b', 'w'], outputs: ['r'] }, toF('r')], [['y', f]]);
graph('bfloat16_slice_squeeze', 21, [['x', f, [1, 4, 3]], ['st', 'int64', [1], [1], true], ['en', 'int64', [1], [3], true], ['ax', 'int64', [1], [1], true], ['sq', 'int64', [1], [0], true]],
  [toBF('x', 'b'), { op: 'Slice', inputs: ['b', 'st', 'en', 'ax'], outputs: ['s'] }, { op: 'Squeeze', inputs: ['s', 'sq'], outputs: ['q'] }, toF('q')], [['y', f]]);
graph('bfloat16_expand_tile', 21, [['x', f, [3, 1]], ['s', 'int64', [2], [3, 2], true], ['r', 'int64', [2], [1, 2], true]],
  [toBF('x', 'b'), { op: 'Expand', inputs: ['b', 's'], outputs: ['e'] }, { op: 'Tile', inputs: ['e', 'r'], outputs: ['t'] }, toF('t')], [['y', f]]);
for (const [op, opset] of [['Add', 14], ['Sub', 14], ['Mul', 14], ['Div', 14], ['Max', 13], ['Min', 13], ['Pow', 15], ['Less', 13], ['Equal', 19]]) {
  const outs = op === 'Less' || op === 'Equal' ? [{ op: 'Cast', inputs: ['r'], outputs: ['y'], attrs: { to: 1 } }] : [toF('r')];
  graph(`bfloat16_${op.toLowerCase()}`, opset, [['x', f, [2, 5]], ['w', 'bfloat16', [5], null, true]],
    [toBF('x', 'b'), { op, inputs: ['b', 'w'], outputs: ['r'] }, ...outs], [['y', f]]);
}
for (const [op, opset, attrs] of [['Relu', 14, {}], ['Sigmoid', 13, {}], ['Tanh', 13, {}], ['Exp', 13, {}], ['Sqrt', 13, {}], ['Abs', 13, {}],
  ['Neg', 13, {}], ['Softmax', 13, { axis: -1 }], ['LeakyRelu', 16, { alpha: 0.1 }], ['Floor', 13, {}], ['Erf', 13, {}], ['Gelu', 20, {}],
  ['HardSigmoid', 22, {}], ['ReduceMean', 18, { keepdims: 0 }], ['ReduceMax', 20, { keepdims: 0 }], ['ReduceSum', 13, { keepdims: 0 }],
  ['ArgMax', 13, { axis: 1 }], ['IsNaN', 20, {}], ['Sign', 13, {}], ['Round', 22, {}], ['Clip', 13, {}], ['Cos', 22, {}]]) {
  const tail = op === 'ArgMax' ? [{ op: 'Cast', inputs: ['r'], outputs: ['y'], attrs: { to: 1 } }]
    : op === 'IsNaN' ? [{ op: 'Cast', inputs: ['r'], outputs: ['y'], attrs: { to: 1 } }] : [toF('r')];
  graph(`bfloat16_${op.toLowerCase()}`, opset, [['x', f, [2, 5]]], [toBF('x', 'b'), { op, inputs: ['b'], outputs: ['r'], attrs }, ...tail], [['y', f]]);
}
graph('bfloat16_matmul', 13, [['x', f, [2, 4]], ['w', 'bfloat16', [4, 3], null, true]], [toBF('x', 'b'), { op: 'MatMul', inputs: ['b', 'w'], outputs: ['r'] }, toF('r')], [['y', f]]);
graph('bfloat16_gemm', 13, [['x', f, [2, 4]], ['w', 'bfloat16', [3, 4], null, true], ['c', 'bfloat16', [3], null, true]],
  [toBF('x', 'b'), { op: 'Gemm', inputs: ['b', 'w', 'c'], outputs: ['r'], attrs: { transB: 1 } }, toF('r')], [['y', f]]);
graph('bfloat16_layernorm', 17, [['x', f, [2, 6]], ['g', 'bfloat16', [6], null, true], ['bb', 'bfloat16', [6], null, true]],
  [toBF('x', 'b'), { op: 'LayerNormalization', inputs: ['b', 'g', 'bb'], outputs: ['r'] }, toF('r')], [['y', f]]);
graph('bfloat16_conv', 22, [['x', f, [1, 2, 4, 4]], ['w', 'bfloat16', [2, 2, 3, 3], null, true]],
  [toBF('x', 'b'), { op: 'Conv', inputs: ['b', 'w'], outputs: ['r'], attrs: { pads: [1, 1, 1, 1] } }, toF('r')], [['y', f]]);

// The cases onnxruntime 1.30 (CPU) has no kernel for ("Could not find an
// implementation"): they stay out, as no reference exists for them. pipert
// computes them; the unit tests of kernel/ops check them against Go's own
// arithmetic. (onnxruntime's CPU kernels take bfloat16 in Cast and the
// data-movement ops only.)
const refused = new Set([
  'where_uint64', 'argmax_uint64', 'argmin_uint64', 'topk_uint64', 'reducemax_uint64',
  'reducemin_uint64', 'reducesum_uint64', 'cumsum_uint64', 'pow_float_uint64', 'max_int16', 'min_int16',
  'max_variadic_int16', 'clip_int16', 'where_int16', 'argmax_int16', 'argmin_int16', 'relu_int16',
  'pow_float_int16', 'pad_int16', 'max_uint16', 'min_uint16', 'max_variadic_uint16', 'clip_uint16',
  'where_uint16', 'argmax_uint16', 'argmin_uint16', 'topk_uint16', 'pow_float_uint16', 'pad_uint16',
  'where_uint32', 'argmax_uint32', 'argmin_uint32', 'topk_uint32', 'reducemax_uint32',
  'reducemin_uint32', 'reducesum_uint32', 'cumsum_uint32', 'pow_float_uint32', 'bitshift_left_uint16',
  'bitshift_right_uint16', 'bfloat16_where', 'bfloat16_expand_tile', 'bfloat16_add', 'bfloat16_sub',
  'bfloat16_mul', 'bfloat16_div', 'bfloat16_max', 'bfloat16_min', 'bfloat16_pow', 'bfloat16_less',
  'bfloat16_equal', 'bfloat16_relu', 'bfloat16_sigmoid', 'bfloat16_tanh', 'bfloat16_exp',
  'bfloat16_sqrt', 'bfloat16_abs', 'bfloat16_neg', 'bfloat16_softmax', 'bfloat16_leakyrelu',
  'bfloat16_floor', 'bfloat16_erf', 'bfloat16_gelu', 'bfloat16_hardsigmoid', 'bfloat16_reducemean',
  'bfloat16_reducemax', 'bfloat16_reducesum', 'bfloat16_argmax', 'bfloat16_round', 'bfloat16_cos',
  'bfloat16_matmul', 'bfloat16_gemm', 'bfloat16_conv',
].map((n) => `dt_${n}`));

module.exports = cases.filter((c) => !refused.has(c.name));
