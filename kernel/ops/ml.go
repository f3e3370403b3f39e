package ops

// mlOps are the ops of ONNX's domain ai.onnx.ml (classic machine
// learning: the models skl2onnx and onnxmltools convert), each computed as
// onnxruntime's CPU kernel computes it. The integer attribute "opset"
// holds the node's version of ai.onnx.ml (default 3).
//
//   - TreeEnsembleRegressor(X) → Y (n_targets required; aggregate_function
//     SUM, post_transform NONE): X is [N, C] of float32 or float64; Y is
//     float32 [N, n_targets]. The nodes (nodes_treeids, nodes_nodeids,
//     nodes_featureids, nodes_modes, nodes_values, nodes_truenodeids,
//     nodes_falsenodeids, nodes_missing_value_tracks_true; nodes_hitrates
//     is read and unused) are checked at creation: node ids unique per
//     tree, a tree's nodes contiguous, children in the same tree, ids
//     below the node count, no node its own child, no cycle. The first
//     node listed of a tree is its root. A branch sends x to its true
//     child when x op threshold holds (LEQ, LT, GTE, GT, EQ, NEQ), or when
//     x is NaN and nodes_missing_value_tracks_true is 1. Thresholds and
//     scores are float64 for float64 X, float32 otherwise (each sum
//     rounded to that type). Leaves carry the weights target_ids,
//     target_nodeids, target_treeids, target_weights (weights of branches
//     are ignored). With one target a leaf counts its first weight only,
//     or its node value when it has none; SUM adds the trees' values,
//     AVERAGE divides the sum by the number of trees, MIN and MAX take the
//     extreme, then base_values[0] is added, and only PROBIT of the post
//     transforms applies, as in onnxruntime. With more targets each weight
//     goes to its target; base_values (0 or one per target) are added;
//     a target no leaf weighted is 0; then the post transform applies to
//     the row: LOGISTIC, SOFTMAX, SOFTMAX_ZERO (values within 1e-7 of 0
//     left out) or PROBIT (√2·erf⁻¹(2v−1), Winitzki's approximation), in
//     float32. From version 3 base_values, nodes_values, nodes_hitrates
//     and target_weights may be given as 1-D tensors (_as_tensor), of
//     float64 for float64 X and float32 otherwise.
//   - TreeEnsembleClassifier(X) → Y, Z (classlabels_int64s, 1 or more,
//     required; post_transform NONE): X of float32, float64, int64 or
//     int32 (integers compared as float32); the trees as above, with
//     class_ids, class_nodeids, class_treeids, class_weights and the
//     scores summed per class. Y is the int64 label, Z float32 [N,
//     classes]. With three or more classes base_values (0 or one per
//     class) are added, Y is the label of the first class of the largest
//     score among those scored (a row where no class is scored is an
//     error, as in onnxruntime), and Z the post transform of the scores
//     (0 for a class no leaf weighted). Two classes follow onnxruntime's
//     binary rules: when all weights go to one class ("binary case"),
//     the positive score p (class 1's, else class 0's) picks labels[1]
//     when p > 0.5 with non-negative weights, or p > 0 otherwise, else
//     labels[0]; with weights of both classes Y is the integer 1 or 0 by
//     the sign of p. base_values of two add to the scores (when class 1
//     is scored, class 1's score becomes base_values[1] plus class 0's,
//     and class 0's its negation); one base value adds to class 0. When
//     class 1 has no score and there are no base values or one, Z holds
//     [1−p, p] (binary case, non-negative weights), [−p, p] (binary case
//     otherwise, or no base values), the logistic of both with LOGISTIC,
//     probit(p) and 0 with PROBIT, or p and 0 otherwise. One class
//     (scikit-learn's trees fit on one label) is scored as one target of
//     TreeEnsembleRegressor, Z [N, 1], and Y is 1 for a positive score,
//     else 0, whatever the label, as in onnxruntime.
//     classlabels_strings is refused: pipert has no string tensors.
//   - LinearClassifier(X) → Y, Z (coefficients, intercepts required;
//     multi_class read and unused; post_transform NONE): X is [C] (one
//     row) or [N, C] of float32, float64, int64 or int32, read as float32;
//     coefficients has one row of C per class, the classes being the
//     intercepts. The scores X·coefficientsᵀ + intercepts are summed in
//     float64 and rounded once to float32 (onnxruntime's GEMM rounds in
//     its own order: scores agree to float32 rounding). With two or more
//     classes Y is classlabels_ints (one per class or more) of the first
//     largest score and Z the post transform of the scores. With one
//     class classlabels_ints has 0 or 2 labels; Y is labels[1] (else 1)
//     when the score p > 0, labels[0] (else 0) otherwise; Z is p, or its
//     probit with PROBIT, the other transforms ignored; with two labels Z
//     has two columns, [1−p, p], with p's logistic for LOGISTIC, and with
//     PROBIT the probits of the N scores fill the first N entries of Z
//     and the rest is 0 (onnxruntime leaves it unset). classlabels_strings
//     is refused.
//   - LinearRegressor(X) → Y (coefficients required; targets default 1;
//     post_transform NONE): X float32 [C], [N, C] or a scalar; Y float32
//     [N, targets], the scores as above, intercepts added only when there
//     is one per target; one target takes PROBIT only, more every post
//     transform.
//   - Scaler(X) → Y (scale and offset required, of one length): Y float32
//     of X's shape is (x − offset)·scale, with one value for all or one per
//     feature (X's first dimension if 1-D, else its second, taken modulo
//     over the flat index as onnxruntime does); in float64 for float64 X,
//     in float32 otherwise. X float32, float64, int64 or int32.
//   - Normalizer(X) → Y (norm MAX, L1 or L2; default MAX): X [C] or [N,
//     C] of float32, float64, int64 or int32; each row divided by its
//     maximum (MAX), the sum of its absolute values (L1) or, for L2, y =
//     ±√(x²/Σx²) (the sign of x); in float32, squares and absolute values
//     in X's type (integers wrap); a row whose norm is 0 is copied.
//   - Binarizer(X) → Y (threshold, default 0): X float32; 1 where x >
//     threshold, else 0; a NaN in X is an error, as in onnxruntime.
//   - Imputer(X) → Y: X float32 with imputed_value_floats and
//     replaced_value_float (default 0; NaN replaces NaNs), or int64 with
//     imputed_value_int64s and replaced_value_int64; exactly one of the
//     value lists is non-empty. One value per feature (counted as for
//     Scaler), else the first value, replaces each x equal to the
//     replaced value.
//   - ArrayFeatureExtractor(X, I) → Z: X float32, float64, int64 or int32
//     of rank 1 or more, I int64 indices (at least one, checked at run to
//     lie in [0, last dimension)); Z is X's shape with the last dimension
//     the number of indices, [1, indices] for 1-D X.
//   - OneHotEncoder(X) → Y (cats_int64s required; zeros default 1): X
//     int64, float32 or float64 of rank 0 to 2, floats truncated to int64
//     (NaN and values out of range to the minimum int64, as on x86-64); Y
//     float32 of X's shape plus the categories, 1 at the category's
//     position (its last, when repeated); a value of no category is an
//     error when zeros is 0. cats_strings is refused.
//   - FeatureVectorizer(X...) → Y (inputdimensions, one per input): the
//     inputs of one dtype (float32, float64, int64 or int32), each [W] (one
//     row) or [N, ...] (rows of the product of the other dimensions, N at
//     most input 0's); Y float32 [N, Σ inputdimensions] holds each input's
//     rows cut or padded with zeros to its inputdimensions value.
//   - LabelEncoder(X) → Y (versions 2 to 4): the keys (keys_int64s,
//     keys_floats, or from version 4 keys_tensor) and values
//     (values_int64s, values_floats, values_tensor), one of each and of
//     one length, in the dtype pairs onnxruntime has kernels for: int64
//     and float32 either way and to themselves, and from version 4 float64
//     to float64 or int64 and int64 to float64. X has the keys' dtype, Y
//     the values'; a key given twice maps to its first value; a missing
//     key gives default_tensor (version 4, one value of the values'
//     dtype), else default_int64 (default −1) or default_float (default
//     −0; float64 values take −0). NaN keys match NaN from version 4 only.
//     Version 1 and string keys or values are refused.
//   - SVMRegressor(X) → Y (coefficients, rho and kernel_params, as in
//     onnxruntime, required): X float32 [C] (one row) or [N, C]; Y float32
//     [N, 1]. With n_supports > 0 (default 0) support_vectors holds
//     n_supports vectors of C features, and Y is Σ coefficients[v]·K(x,
//     sv_v) plus rho[0] (summed in float64, rounded once), K the
//     kernel_type: LINEAR x·sv, POLY (γ·x·sv + coef0)^degree, RBF
//     e^(−γ·Σ(x−sv)²) (in float32, in order), SIGMOID tanh(γ·x·sv + coef0),
//     with kernel_params [γ, coef0, degree] (or empty: 0s); dot products are
//     summed in float64 and rounded once (onnxruntime's GEMM rounds in its
//     own order). With no support vectors Y is x·coefficients plus rho[0]
//     (the kernel type ignored). one_class 1 maps Y to 1 where it is > 0,
//     else −1. post_transform is checked and, as in onnxruntime, not
//     applied.
//   - SVMClassifier(X) → Y, Z (coefficients, rho, kernel_params and
//     classlabels_ints required): X float32, float64, int64 or int32 [C] or
//     [N, C], read as float32; Y the int64 label, Z float32. With
//     vectors_per_class (one count per label, summing to V > 0)
//     support_vectors holds V vectors, coefficients V per row for classes −
//     1 rows (libsvm's layout), and each pair of classes i < j has the
//     decision value d = Σ coef·K over both classes' vectors plus rho[pair]
//     (products in float32, summed in float64), a vote for i when d > 0,
//     else for j; Y is the label of the first class of most votes. Without
//     prob_a Z holds the decision values with the post transform (two
//     classes: [−d, d] with NONE, their logistics with LOGISTIC, probit(d)
//     and 0 with PROBIT, [1−d, d] with SOFTMAX and SOFTMAX_ZERO); with
//     prob_a and prob_b (one per pair) each d becomes 1 − logistic(d·a + b),
//     clipped to [1e-7, 1−1e-7], and Z the class probabilities of libsvm's
//     pairwise coupling (in float32, at most 100 iterations), then the post
//     transform. With no support vectors (linear mode) Z is X·coefficientsᵀ
//     plus rho[0] per class, Y the label of the first largest score, except
//     that two classes without prob_a give labels[1] when that score is ≥
//     0.5 (all coefficients ≥ 0) or > 0 (otherwise); one class takes PROBIT
//     only. classlabels_strings is refused, as are support vectors with one
//     class.
var mlOps = []builtin{
	{"TreeEnsembleRegressor", newMLTrees(false)},
	{"TreeEnsemble", newMLTree5},
	{"TreeEnsembleClassifier", newMLTrees(true)},
	{"LinearClassifier", newMLLinear(true)},
	{"LinearRegressor", newMLLinear(false)},
	{"Scaler", mlFactory("Scaler", 1, 1, 1, parseMLScaler)},
	{"Normalizer", mlFactory("Normalizer", 1, 1, 1, parseMLNormalizer)},
	{"Binarizer", mlFactory("Binarizer", 1, 1, 1, parseMLBinarizer)},
	{"Imputer", mlFactory("Imputer", 1, 1, 1, parseMLImputer)},
	{"ArrayFeatureExtractor", mlFactory("ArrayFeatureExtractor", 2, 2, 1, parseMLAFE)},
	{"OneHotEncoder", mlFactory("OneHotEncoder", 1, 1, 1, parseMLOneHot)},
	{"FeatureVectorizer", mlFactory("FeatureVectorizer", 1, -1, 1, parseMLFV)},
	{"LabelEncoder", newMLLabelEncoder},
	{"SVMRegressor", newMLSVM(false)},
	{"SVMClassifier", newMLSVM(true)},
}
