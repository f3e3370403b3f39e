// Cases for gen.js (the format of cases.js): BatchNormalization in
// training mode, as onnxruntime computes it: the batch's mean and
// population variance by channel normalise Y; running_mean and
// running_var blend the input statistics with them by momentum (rounded
// to float32). From opset 14 training_mode 1 and three outputs; at opsets
// 7 to 13 the five outputs say training, the last two the batch mean and
// the inverse standard deviation 1/√(var + ε). Left out: optional outputs
// left empty (onnxruntime 1.30 crashes on them; pipert's unit tests cover
// them), spatial=0 (onnxruntime refuses training with it, as pipert does).
const f = 'float32';
const ins = (dt, xs, st = dt, c = xs[1]) => [['x', dt, xs], ['s', st, [c]], ['b', st, [c]], ['m', st, [c]], ['v', st, [c]]];
const five = dt => [['y', dt], ['rm', dt], ['rv', dt], ['sm', dt], ['sv', dt]];
const node = (outs, attrs) => [{ op: 'BatchNormalization', inputs: ['x', 's', 'b', 'm', 'v'], outputs: outs, attrs }];
// offset returns n values near base: a variance that E[x²] − mean² would
// cancel. (In float32 onnxruntime's statistics of such values are off by
// 1e-4 where pipert's float64 ones are not: the case is float64.)
const offset = (n, base) => Array.from({ length: n }, (_, i) => base + ((i * 37) % 11) / 8 - 0.6);
const cases = [
  { name: 'bntrain_o15', opset: 15, inputs: ins(f, [2, 3, 2, 2]),
    outputs: [['y', f], ['rm', f], ['rv', f]], nodes: node(['y', 'rm', 'rv'], { training_mode: 1 }) },
  { name: 'bntrain_o14_momentum_eps', opset: 14, inputs: ins(f, [2, 3, 2, 2]),
    outputs: [['y', f], ['rm', f], ['rv', f]], nodes: node(['y', 'rm', 'rv'], { training_mode: 1, momentum: 0.25, epsilon: 0.01 }) },
  { name: 'bntrain_o15_f16_x_f32_stats', opset: 15, inputs: ins('float16', [2, 3, 2, 2], f),
    outputs: [['y', 'float16'], ['rm', f], ['rv', f]], nodes: node(['y', 'rm', 'rv'], { training_mode: 1 }) },
  { name: 'bntrain_o15_f64_rank2', opset: 15, inputs: ins('float64', [3, 2]),
    outputs: [['y', 'float64'], ['rm', 'float64'], ['rv', 'float64']], nodes: node(['y', 'rm', 'rv'], { training_mode: 1 }) },
  { name: 'bntrain_o15_rank5', opset: 15, inputs: ins(f, [2, 4, 3, 2, 2]),
    outputs: [['y', f], ['rm', f], ['rv', f]], nodes: node(['y', 'rm', 'rv'], { training_mode: 1, momentum: { f: 0 } }) },
  { name: 'bntrain_o15_offset_f64', opset: 15,
    inputs: [['x', 'float64', [4, 2, 3, 3], offset(72, 1e9)], ...['s', 'b', 'm', 'v'].map(n => [n, 'float64', [2]])],
    outputs: [['y', 'float64'], ['rm', 'float64'], ['rv', 'float64']], nodes: node(['y', 'rm', 'rv'], { training_mode: 1 }) },
  { name: 'bntrain_o9_five_outputs', opset: 9, inputs: ins(f, [2, 3, 2, 2]),
    outputs: five(f), nodes: node(['y', 'rm', 'rv', 'sm', 'sv']) },
  // A batch of one element a channel: variance 0. (ε is large so that
  // saved_var, 1/√ε, is small: onnxruntime rounds √ε before dividing,
  // pipert rounds once, an ulp apart.)
  { name: 'bntrain_o13_batch1', opset: 13, inputs: ins(f, [1, 3, 1, 1]),
    outputs: five(f), nodes: node(['y', 'rm', 'rv', 'sm', 'sv'], { momentum: { f: 0.5 }, epsilon: 0.5 }) },
  { name: 'bntrain_o7_spatial', opset: 7, inputs: ins(f, [3, 2, 4]),
    outputs: five(f), nodes: node(['y', 'rm', 'rv', 'sm', 'sv'], { spatial: 1, epsilon: 0.001 }) },
];
module.exports = cases;
