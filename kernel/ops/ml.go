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
//   - TreeEnsembleClassifier(X) → Y, Z (classlabels_int64s, 2 or more,
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
//     probit(p) and 0 with PROBIT, or p and 0 otherwise.
//     classlabels_strings is refused: pipert has no string tensors.
var mlOps = []builtin{
	{"TreeEnsembleRegressor", newMLTrees(false)},
	{"TreeEnsembleClassifier", newMLTrees(true)},
}
