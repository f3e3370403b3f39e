// Cases for gen.js (the format of cases.js): the QLinear ops' rounding
// and the zero points and scales of batched integer products.
//
// QLinearConv and QLinearMatMul requantize as the spec's
// y = saturate(round(x / y_scale) + y_zero_point) and onnxruntime do: the
// accumulator times a_scale·b_scale/y_scale in float32, rounded half to
// even, then the zero point added. Exact ties (acc/2 with y_scale 2, and
// acc/6 whose float32 product lands on .5) with odd zero points tell that
// order from adding the zero point first (ONNX's Python reference).
// MatMulInteger and QLinearMatMul take a batched operand's zero point and
// scale per column of each batch matrix ([D, 1, N]); QLinearMatMul-21
// takes float16 scales.
const f = 'float32', h = 'float16', i32 = 'int32', u8 = 'uint8', i8 = 'int8';
const K = (name, dtype, shape, data) => [name, dtype, shape, data, true];
const cases = [];
const one = (name, opset, op, inputs, outputs) => cases.push({ name: `qtie_${name}`, opset, op, attrs: {}, inputs, outputs });
const odd = [1, 3, 5, 7, 9, 11, 13, 15];

// QLinearConv: x ⊛ 1 / 2, exact ties.
const conv = (name, xdt, wdt, yz, perch) => one(`conv_${name}`, 10, 'QLinearConv', [
  ['x', xdt, [1, 1, 1, 8], odd.map((v) => (xdt === u8 ? v + 10 : v))], K('xs', f, [], [1]), K('xz', xdt, [], [xdt === u8 ? 10 : 0]),
  K('w', wdt, [perch ? 2 : 1, 1, 1, 1], perch ? [1, -1] : [1]), perch ? K('ws', f, [2], [1, 1]) : K('ws', f, [], [1]),
  perch ? K('wz', wdt, [2], [0, 0]) : K('wz', wdt, [], [0]), K('ys', f, [], [2]), K('yz', xdt, [], [yz])], [['y', xdt]]);
conv('s8_zp3', i8, i8, 3);
conv('s8_zp0', i8, i8, 0);
conv('u8_zp101', u8, u8, 101);
conv('u8s8_zp101', u8, i8, 101);
conv('s8_zp3_perch', i8, i8, 3, true);

// QLinearMatMul: a × [1, −1] / 2, exact ties.
const mm = (name, adt, bdt, yz, opset = 10) => one(`matmul_${name}`, opset, 'QLinearMatMul', [
  ['a', adt, [8, 1], odd.map((v) => (adt === u8 ? v + 10 : v))], K('as', f, [], [1]), K('az', adt, [], [adt === u8 ? 10 : 0]),
  K('bm', bdt, [1, 2], [1, -1].map((v) => (bdt === u8 ? v + 5 : v))), K('bs', f, [], [1]), K('bz', bdt, [], [bdt === u8 ? 5 : 0]),
  K('ys', f, [], [2]), K('yz', adt, [], [yz])], [['y', adt]]);
mm('s8_zp3', i8, i8, 3);
mm('u8_zp101', u8, u8, 101);
mm('u8s8_zp101', u8, i8, 101);
mm('s8_zp3_21', i8, i8, 3, 21);

// acc/6: 3·float32(1/6) is 0.5000000149 in float64, exactly 0.5 in float32.
for (const [zpn, yz] of [['zp0', 0], ['zp100', 100]]) {
  one(`conv_f32prod_${zpn}`, 10, 'QLinearConv', [['x', u8, [1, 1, 1, 6], [3, 9, 15, 21, 27, 33]], K('xs', f, [], [1]), K('xz', u8, [], [0]),
    K('w', u8, [1, 1, 1, 1], [1]), K('ws', f, [], [1]), K('wz', u8, [], [0]), K('ys', f, [], [6]), K('yz', u8, [], [yz])], [['y', u8]]);
  one(`matmul_f32prod_${zpn}`, 10, 'QLinearMatMul', [['a', u8, [6, 1], [3, 9, 15, 21, 27, 33]], K('as', f, [], [1]), K('az', u8, [], [0]),
    K('bm', u8, [1, 1], [1]), K('bs', f, [], [1]), K('bz', u8, [], [0]), K('ys', f, [], [6]), K('yz', u8, [], [yz])], [['y', u8]]);
}

// Batched operands: a zero point and a scale per column of each batch matrix.
one('mmi_batched_zpcol3d', 10, 'MatMulInteger', [['a', u8, [2, 3, 4]], ['bm', u8, [2, 4, 5]], K('az', u8, [1], [7]),
  K('bz', u8, [2, 1, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])], [['y', i32]]);
one('matmul_batched_bcol3d', 10, 'QLinearMatMul', [['a', i8, [2, 3, 4]], K('as', f, [], [0.02]), K('az', i8, [], [1]), ['bm', i8, [2, 4, 2]],
  K('bs', f, [2, 1, 2], [0.05, 0.04, 0.03, 0.02]), K('bz', i8, [2, 1, 2], [0, 1, 2, 3]), K('ys', f, [], [0.2]), K('yz', i8, [], [-2])], [['y', i8]]);
// QLinearMatMul-21: float16 scales.
one('matmul_21_f16scale', 21, 'QLinearMatMul', [['a', u8, [3, 4]], K('as', h, [], [0.02]), K('az', u8, [], [110]), ['bm', u8, [4, 2]],
  K('bs', h, [], [0.05]), K('bz', u8, [], [128]), K('ys', h, [], [0.2]), K('yz', u8, [], [128])], [['y', u8]]);

module.exports = cases;
