// Cases for ../opset/gen.js (the format of ../opset/cases.js), built with
//   CASESDIR=. NODE_PATH=…/node_modules node ../opset/gen.js .
// The float16 forms of onnxruntime's GELU contrib ops (domain
// com.microsoft). onnxruntime's CPU provider rounds some intermediates of
// these to float16, pipert rounds once: the test compares them with a
// tolerance of a few float16 units in the last place (contrib_test.go).
const M = 'com.microsoft', h = 'float16';
const cases = [];
const one = (name, op, attrs, inputs) => cases.push({ name: `ms_${name}_float16`, opset: 17, domain: M, op, attrs, inputs, outputs: [['y', h]] });
one('gelu', 'Gelu', {}, [['x', h, [2, 3, 8]]]);
one('biasgelu', 'BiasGelu', {}, [['x', h, [2, 3, 8]], ['bias', h, [8]]]);
one('fastgelu', 'FastGelu', {}, [['x', h, [3, 16]]]);
one('fastgelu_bias', 'FastGelu', {}, [['x', h, [2, 2, 16]], ['bias', h, [16]]]);
one('quickgelu', 'QuickGelu', {}, [['x', h, [4, 8]]]);
one('quickgelu_alpha', 'QuickGelu', { alpha: 1.25 }, [['x', h, [4, 8]]]);
module.exports = cases;
