// Cases for gen.js (the format of cases.js): Col2Im (opset 18) and the
// random generators. Col2Im over 1 to 3 spatial axes, with pads, strides
// and dilations, image_shape and block_shape as constants or graph
// inputs. The generators' values are pipert's own, so their cases are the
// ones whose values do not depend on the draws: Bernoulli of
// probabilities 0 and 1, uniform ranges of one value (low = high), normal
// distributions of scale 0, Multinomial rows of one possible class; they
// check shapes, dtypes and attributes against onnxruntime.
const f = 'float32';
const cases = [];
const shape = (name, v, isConst = true) => [name, 'int64', [v.length], v, isConst];

// Col2Im: [N, C·∏block, L] → [N, C, image...].
function col2im(name, dt, x, image, block, attrs = {}, consts = true) {
  cases.push({ name: `col2im_${name}`, opset: 18, op: 'Col2Im', attrs,
    inputs: [['x', dt, x], shape('image_shape', image, consts), shape('block_shape', block, consts)], outputs: [['y', dt]] });
}
// onnxruntime's Col2Im of other than 2 spatial axes disagrees with ONNX's
// definition (and the reference implementation) when a dilation is not
// 1: those cases are pipert's Go tests. onnxruntime has no float64
// Col2Im either.
// ONNX's example: a 5×5 image of 1×5 blocks.
col2im('example', f, [1, 5, 5], [5, 5], [1, 5]);
col2im('2d_overlap', f, [2, 2 * 4, 16], [5, 5], [2, 2]);
col2im('2d_strides', f, [1, 3 * 6, 8], [5, 6], [2, 3], { strides: [2, 1] });
col2im('2d_all', f, [2, 2 * 6, 9], [5, 6], [2, 3], { dilations: [1, 2], pads: [1, 0, 1, 1], strides: [2, 1] });
col2im('2d_pads_only', f, [1, 4, 36], [5, 5], [2, 2], { pads: [1, 1, 1, 1] });
col2im('2d_dilations', f, [1, 2 * 4, 4], [4, 5], [2, 2], { dilations: [2, 3] });
col2im('2d_inputs', f, [2, 2 * 6, 9], [5, 6], [2, 3], { dilations: [1, 2], pads: [1, 0, 1, 1], strides: [2, 1] }, false);
col2im('3d', f, [1, 8, 8], [3, 4, 3], [2, 2, 2], { strides: [1, 2, 1] });
col2im('3d_pads', f, [1, 2 * 4, 80], [4, 3, 5], [2, 1, 2], { pads: [1, 0, 0, 0, 1, 1] });
col2im('1d', f, [2, 3, 5], [7], [3]);

// The generators, on values that do not depend on the draws.
const gen = (name, opset, op, attrs, inputs, outDt) =>
  cases.push({ name: `random_${name}`, opset, op, attrs, inputs, outputs: [['y', outDt]] });
gen('uniform', 21, 'RandomUniform', { shape: [2, 3], low: { f: 2.5 }, high: { f: 2.5 } }, [], f);
gen('uniform_double', 1, 'RandomUniform', { shape: [3, 1, 2], low: { f: -1.5 }, high: { f: -1.5 }, dtype: 11, seed: { f: 7 } }, [], 'float64');
gen('uniform_empty', 21, 'RandomUniform', { shape: [2, 0, 3] }, [], f);
gen('uniform_like', 21, 'RandomUniformLike', { low: { f: 3 }, high: { f: 3 } }, [['x', f, [2, 3, 2]]], f);
gen('uniform_like_int32_to_float', 21, 'RandomUniformLike', { low: { f: -2 }, high: { f: -2 }, dtype: 1 }, [['x', 'int32', [2, 2]]], f);
gen('uniform_like_double', 1, 'RandomUniformLike', { low: { f: 0.5 }, high: { f: 0.5 } }, [['x', 'float64', [3]]], 'float64');
// onnxruntime aborts on a normal distribution of scale 0: the normal
// generators' values, finite, are multiplied by 0 (of the output's dtype,
// which Mul checks).
const zeroed = (name, opset, op, attrs, inputs, dt) => cases.push({ name: `random_${name}`, opset,
  inputs: [...inputs, ['zero', dt, [], [0], true]],
  nodes: [{ op, inputs: inputs.map((i) => i[0]), outputs: ['r'], attrs }, { op: 'Mul', inputs: ['r', 'zero'], outputs: ['y'] }], outputs: [['y', dt]] });
zeroed('normal', 21, 'RandomNormal', { shape: [3, 2], mean: { f: -1.5 }, scale: { f: 2 } }, [], f);
zeroed('normal_double', 7, 'RandomNormal', { shape: [5], dtype: 11, seed: { f: 1 } }, [], 'float64');
zeroed('normal_like', 21, 'RandomNormalLike', { mean: { f: 2 } }, [['x', 'float16', [2, 2]]], 'float16');
zeroed('normal_like_to_double', 7, 'RandomNormalLike', { mean: { f: -3 }, scale: { f: 0.5 }, dtype: 11, seed: { f: 2 } }, [['x', f, [1, 4]]], 'float64');
// Bernoulli: onnxruntime draws 1 with probability 1 − p (its form of
// the op is ONNX's function body, Greater(RandomUniformLike(input),
// input)), where ONNX's text, reference implementation and backend tests
// draw 1 with probability p, as pipert does: the outputs, multiplied by 0,
// check shapes and dtypes only.
const P = [0, 1, 1, 0, 0.5, 0, 0, 0.25, 1, 1, 1, 0];
zeroed('bernoulli', 15, 'Bernoulli', {}, [['x', f, [3, 4], P]], f);
zeroed('bernoulli_seed_int64', 21, 'Bernoulli', { seed: { f: 3 }, dtype: 7 }, [['x', 'float64', [2, 6], P]], 'int64');
zeroed('bernoulli_double_float', 15, 'Bernoulli', { dtype: 1 }, [['x', 'float64', [4, 3], P]], f);
zeroed('bernoulli_int32', 15, 'Bernoulli', { dtype: 6 }, [['x', f, [2, 3, 2], P]], 'int32');
const I = -Infinity;
gen('multinomial', 7, 'Multinomial', { sample_size: 5 }, [['x', f, [3, 3], [0, I, I, I, 2.5, I, I, I, -1]]], 'int32');
gen('multinomial_int64', 21, 'Multinomial', { sample_size: 3, dtype: 7, seed: { f: 5 } }, [['x', f, [2, 4], [I, I, I, 0, I, 7, I, I]]], 'int64');
gen('multinomial_default', 7, 'Multinomial', {}, [['x', f, [2, 2], [1, I, I, 1]]], 'int32');

module.exports = cases;
