// Cases for gen.js (the format of cases.js): shape and indexing ops at
// edges where pipert once differed from onnxruntime.
//   - Range of int64 whose limit − start is beyond int64 (from near -2^63
//     to near 2^63−1): the count ⌈(limit − start)/delta⌉ computed without
//     wrapping. (onnxruntime divides in float64, which gives these counts
//     exactly, and one too few where the quotient rounds down to an
//     integer, as for delta 2^63−1.)
//   - Einsum with the empty equation, of one scalar operand: a copy.
const i64 = (name, v) => [name, 'int64', [], [v], true];
const cases = [];
const range = (name, s, l, d) => cases.push({ name: `shapeidx_range_${name}`, opset: 11, op: 'Range',
  inputs: [i64('start', s), i64('limit', l), i64('delta', d)], outputs: [['y', 'int64']] });
range('int64_whole_by_2p62', '-9223372036854775808', '9223372036854775807', '4611686018427387904');
range('int64_whole_down_by_2p62', '9223372036854775807', '-9223372036854775808', '-4611686018427387904');
cases.push({ name: 'shapeidx_einsum_empty_equation', opset: 12, op: 'Einsum', attrs: { equation: '' },
  inputs: [['x', 'float32', [], [-2.5]]], outputs: [['y', 'float32']] });
module.exports = cases;
