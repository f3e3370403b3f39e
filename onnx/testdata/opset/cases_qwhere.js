// Cases for gen.js (the format of cases.js): onnxruntime's contrib op
// QLinearWhere (domain com.microsoft), the Where of its QOperator models:
// condition, X and Y broadcasting; X and Y requantized to z's scale and
// zero point (ties of the rounding included), or copied when theirs are
// z's; uint8 and int8; scales and zero points scalars or 1-element vectors.
const M = 'com.microsoft', f = 'float32';
const K = (name, dtype, shape, data) => [name, dtype, shape, data, true];
const cases = [];
const qw = (name, dt, { c, x, y, xs, xz, ys, yz, zs, zz, vec = false }) => {
  const sh = vec ? [1] : [];
  cases.push({ name: `qwhere_${name}`, opset: 17, domain: M, op: 'QLinearWhere',
    inputs: [['cond', 'bool', c], ['x', dt, x], K('xs', f, sh, [xs]), K('xz', dt, sh, [xz]), ['y', dt, y], K('ys', f, sh, [ys]), K('yz', dt, sh, [yz]),
      K('zs', f, sh, [zs]), K('zz', dt, sh, [zz])],
    outputs: [['z', dt]] });
};
qw('u8_same_shapes', 'uint8', { c: [2, 8], x: [2, 8], y: [2, 8], xs: 0.05, xz: 128, ys: 0.1, yz: 100, zs: 0.08, zz: 120 });
qw('u8_broadcast', 'uint8', { c: [2, 1, 4], x: [3, 1], y: [1], xs: 0.02, xz: 10, ys: 0.5, yz: 3, zs: 0.04, zz: 0 });
qw('u8_x_copied', 'uint8', { c: [4, 5], x: [4, 5], y: [5], xs: 0.03, xz: 7, ys: 0.06, yz: 50, zs: 0.03, zz: 7, vec: true });
qw('i8_ties', 'int8', { c: [3, 6], x: [3, 6], y: [3, 6], xs: 0.5, xz: -3, ys: 0.25, yz: 5, zs: 1, zz: 0 });
qw('i8_saturating', 'int8', { c: [16], x: [16], y: [16], xs: 1, xz: 0, ys: 2, yz: -10, zs: 0.1, zz: 20 });
qw('i8_both_copied', 'int8', { c: [2, 3, 1], x: [3, 4], y: [2, 1, 4], xs: 0.2, xz: 1, ys: 0.2, yz: 1, zs: 0.2, zz: 1 });
module.exports = cases;
