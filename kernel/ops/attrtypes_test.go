package ops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// requiredAttrs gives the attributes an op cannot be made without, so that
// TestRegistryHoldsEveryOp can make every op and TestAttributesOfTheWrongType
// can tell a mistyped attribute's error from a missing one's: the smallest valid values, one tree leaf for the tree
// ensembles.
var requiredAttrs = map[string]kernel.Attrs{
	// ONNX ops
	"AveragePool":        {"kernel_shape": []int64{1}},
	"BitCast":            {"to": "int32"},
	"BitShift":           {"direction": "LEFT"},
	"Cast":               {"to": "float32"},
	"Concat":             {"axis": int64(0)},
	"DepthToSpace":       {"blocksize": int64(2)},
	"Einsum":             {"equation": "ij->ji"},
	"GRU":                {"hidden_size": int64(1)},
	"GroupNormalization": {"num_groups": int64(1)},
	"LRN":                {"size": int64(3)},
	"LSTM":               {"hidden_size": int64(1)},
	"LinearAttention":    {"q_num_heads": int64(1), "kv_num_heads": int64(1)},
	"LpPool":             {"kernel_shape": []int64{1}},
	"MaxPool":            {"kernel_shape": []int64{1}},
	"MaxRoiPool":         {"pooled_shape": []int64{1, 1}},
	"MaxUnpool":          {"kernel_shape": []int64{2}},
	"RNN":                {"hidden_size": int64(1)},
	"RandomNormal":       {"shape": []int64{1}},
	"RandomUniform":      {"shape": []int64{1}},
	"SpaceToDepth":       {"blocksize": int64(2)},
	"Split":              {"num_outputs": int64(2)},
	// experimental ops of opsets 1 to 9
	"Crop":               {"border": []int64{0, 0, 0, 0}},
	"ImageScaler":        {"bias": []float64{0}},
	"ParametricSoftplus": {"alpha": 1.0, "beta": 1.0},
	"ScaledTanh":         {"alpha": 1.0, "beta": 1.0},
	// onnxruntime's contrib ops
	"DecoderMaskedMultiHeadAttention": {"num_heads": int64(1)},
	"DynamicQuantizeLSTM":             {"hidden_size": int64(1)},
	"FusedGemm":                       {"activation": "Relu"},
	"GroupQueryAttention":             {"num_heads": int64(1), "kv_num_heads": int64(1)},
	"MSAttention":                     {"num_heads": int64(1)},
	"MatMulNBits":                     {"K": int64(16), "N": int64(1), "block_size": int64(16)},
	"MultiHeadAttention":              {"num_heads": int64(1)},
	"NhwcMaxPool":                     {"kernel_shape": []int64{1}},
	"QAttention":                      {"num_heads": int64(1)},
	"QLinearAveragePool":              {"kernel_shape": []int64{1}},
	"QLinearConcat":                   {"axis": int64(0)},
	"QLinearSoftmax":                  {kernel.OpsetAttr: int64(13)}, // the opset is required
	// ai.onnx.ml
	"FeatureVectorizer": {"inputdimensions": []int64{1}},
	"Imputer":           {"imputed_value_floats": []float64{0}},
	"LabelEncoder":      {"keys_int64s": []int64{1}, "values_int64s": []int64{2}},
	"LinearClassifier":  {"coefficients": []float64{1}, "intercepts": []float64{0}},
	"LinearRegressor":   {"coefficients": []float64{1}},
	"OneHotEncoder":     {"cats_int64s": []int64{0}},
	"SVMClassifier":     {"coefficients": []float64{1, 1}, "rho": []float64{0}, "kernel_params": []float64{1, 0, 3}, "classlabels_ints": []int64{0, 1}},
	"SVMRegressor":      {"coefficients": []float64{1}, "rho": []float64{0}, "kernel_params": []float64{1, 0, 3}},
	"Scaler":            {"scale": []float64{1}, "offset": []float64{0}},
	"TfIdfVectorizer": {"mode": "TF", "min_gram_length": int64(1), "max_gram_length": int64(1), "max_skip_count": int64(0),
		"ngram_counts": []int64{0}, "ngram_indexes": []int64{0}, "pool_int64s": []int64{7}},
	"TreeEnsemble": {"n_targets": int64(1), "tree_roots": []int64{0}, "nodes_modes": tensor(kernel.Uint8, shp(1), 0),
		"nodes_featureids": []int64{0}, "nodes_splits": f32(shp(1), 0), "nodes_truenodeids": []int64{0}, "nodes_trueleafs": []int64{1},
		"nodes_falsenodeids": []int64{0}, "nodes_falseleafs": []int64{1}, "leaf_targetids": []int64{0}, "leaf_weights": f32(shp(1), 1)},
	"TreeEnsembleClassifier": treeLeaf(kernel.Attrs{"classlabels_int64s": []int64{0, 1}, "class_ids": []int64{1}, "class_nodeids": []int64{0}, "class_treeids": []int64{0}, "class_weights": []float64{1}}),
	"TreeEnsembleRegressor":  treeLeaf(kernel.Attrs{"n_targets": int64(1), "target_ids": []int64{0}, "target_nodeids": []int64{0}, "target_treeids": []int64{0}, "target_weights": []float64{1}}),
}

// treeLeaf adds to a a tree of one leaf, in TreeEnsembleRegressor's and
// TreeEnsembleClassifier's attributes.
func treeLeaf(a kernel.Attrs) kernel.Attrs {
	for k, v := range (kernel.Attrs{"nodes_treeids": []int64{0}, "nodes_nodeids": []int64{0}, "nodes_featureids": []int64{0},
		"nodes_modes": []string{"LEAF"}, "nodes_values": []float64{0}, "nodes_truenodeids": []int64{0}, "nodes_falsenodeids": []int64{0}}) {
		a[k] = v
	}
	return a
}

// newestOpset is the newest ONNX opset the package's ops follow (that of
// opset28Ops; the onnx package's MaxOpset).
const newestOpset = 28

// mistyped is an attribute value no getter accepts.
type mistyped struct{}

// knownAttrs returns the attributes op takes at opset (0: the op's
// default), as its unknown-attribute error lists them, and whether the op
// exists at that opset.
func knownAttrs(op string, opset int64) ([]string, bool) {
	a := kernel.Attrs{"zz_no_such_attribute": int64(1)}
	if opset > 0 {
		a[kernel.OpsetAttr] = opset
	}
	_, err := Builtins().New(op, a)
	if err == nil {
		return nil, false
	}
	msg := err.Error()
	if strings.Contains(msg, "(the op takes none)") {
		return nil, true
	}
	_, list, ok := strings.Cut(msg, "(known: ")
	if !ok {
		return nil, false
	}
	list, _, _ = strings.Cut(list, ")")
	return strings.Split(list, ", "), true
}

// TestAttributesOfTheWrongType: every attribute an op knows, at every
// opset, is read by a getter that checks its type: given a value of no
// attribute type, making the kernel fails and the error names the
// attribute. An attribute the op knows but never reads would otherwise
// take any value, a string where a number belongs included.
func TestAttributesOfTheWrongType(t *testing.T) {
	for _, op := range Builtins().Ops() {
		made := false
		for opset := int64(0); opset <= newestOpset; opset++ {
			base := func() kernel.Attrs {
				a := kernel.Attrs{}
				for k, v := range requiredAttrs[op] {
					a[k] = v
				}
				if opset > 0 {
					a[kernel.OpsetAttr] = opset
				}
				return a
			}
			if _, err := Builtins().New(op, base()); err != nil {
				continue // not at this opset, or the op needs more attributes
			}
			made = true
			known, ok := knownAttrs(op, opset)
			if !ok {
				t.Errorf("%s opset %d: an unknown attribute is not an error listing the known ones", op, opset)
				continue
			}
			for _, name := range known {
				a := base()
				a[name] = mistyped{}
				_, err := Builtins().New(op, a)
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", name)) {
					t.Errorf("%s opset %d, attribute %s of type %T: %v; want an error naming the attribute", op, opset, name, mistyped{}, err)
				}
			}
		}
		if !made {
			t.Errorf("%s: made at no opset from %v; give requiredAttrs what it needs", op, requiredAttrs[op])
		}
	}
}
