package ops

import (
	"fmt"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// mlLinear is LinearClassifier or LinearRegressor: n rows of
// coefficients over the features, an intercept per row, a post transform.
type mlLinear struct {
	op         string
	classifier bool
	n          int // classes (intercepts) or targets
	coef       []float32
	icpt       []float32 // nil: no intercepts (the regressor's, of the wrong length)
	post       int
	labels     []int64
	// twoCol: one row of coefficients and two labels (the classifier's
	// binary case), so Z has two columns.
	twoCol bool
}

// newMLLinear builds LinearClassifier or LinearRegressor; see mlOps.
func newMLLinear(classifier bool) kernel.Factory {
	op := "LinearRegressor"
	if classifier {
		op = "LinearClassifier"
	}
	return mlModel(op, classifier, func(attrs kernel.Attrs) (impl, error) { return parseMLLinear(attrs, classifier, op) })
}

func parseMLLinear(attrs kernel.Attrs, classifier bool, op string) (*mlLinear, error) {
	known := []string{"coefficients", "intercepts", "post_transform"}
	if classifier {
		known = append(known, "multi_class", "classlabels_ints", "classlabels_strings")
	} else {
		known = append(known, "targets")
	}
	if err := attrs.Check(known...); err != nil {
		return nil, err
	}
	if _, err := attrs.Opset(1); err != nil {
		return nil, err
	}
	m := &mlLinear{op: op, classifier: classifier}
	post, err := attrs.String("post_transform", "NONE")
	if err != nil {
		return nil, err
	}
	if m.post, err = mlPostTransform(post); err != nil {
		return nil, err
	}
	coef, err := attrs.Floats("coefficients", nil)
	if err != nil {
		return nil, err
	}
	if len(coef) == 0 {
		return nil, fmt.Errorf("attribute \"coefficients\" is missing or empty")
	}
	icpt, err := attrs.Floats("intercepts", nil)
	if err != nil {
		return nil, err
	}
	m.coef = mlF32s(coef)
	if classifier {
		if _, err := attrs.Int("multi_class", 0); err != nil {
			return nil, err
		}
		if _, ok := attrs["classlabels_strings"]; ok {
			return nil, notImplemented("attribute \"classlabels_strings\": string labels are not implemented (pipert has no string tensors)")
		}
		if m.labels, err = attrs.Ints("classlabels_ints", nil); err != nil {
			return nil, err
		}
		if len(icpt) == 0 {
			return nil, fmt.Errorf("attribute \"intercepts\" is missing or empty: it gives the number of classes")
		}
		m.n = len(icpt)
		if m.n > 1 && len(m.labels) < m.n {
			return nil, fmt.Errorf("attribute \"classlabels_ints\" has %d labels, want one per class (%d, the intercepts)", len(m.labels), m.n)
		}
		if m.n == 1 && len(m.labels) != 0 && len(m.labels) != 2 {
			return nil, fmt.Errorf("attribute \"classlabels_ints\" has %d labels: one class (one intercept) takes none or 2, as in onnxruntime", len(m.labels))
		}
		m.twoCol = m.n == 1 && len(m.labels) == 2
		m.icpt = mlF32s(icpt)
	} else {
		t, err := attrs.Int("targets", 1)
		if err != nil {
			return nil, err
		}
		if t < 1 || t > 1<<24 {
			return nil, fmt.Errorf("attribute \"targets\" is %d, want 1 or more", t)
		}
		m.n = int(t)
		if len(icpt) == m.n {
			m.icpt = mlF32s(icpt)
		}
	}
	if len(m.coef)%m.n != 0 {
		return nil, fmt.Errorf("attribute \"coefficients\" has %d values, not a multiple of the %d %s", len(m.coef), m.n, map[bool]string{true: "classes", false: "targets"}[classifier])
	}
	return m, nil
}

// mlF32s rounds float attribute values to float32.
func mlF32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// dims returns the rows and features of X: [C] is one row.
func (m *mlLinear) dims(x *kernel.Tensor) (int64, int64, error) {
	switch x.DType {
	case kernel.Float32:
	case kernel.Float64, kernel.Int64, kernel.Int32:
		if !m.classifier {
			return 0, 0, fmt.Errorf("input X has dtype %v: onnxruntime's LinearRegressor takes float32", x.DType)
		}
	default:
		return 0, 0, fmt.Errorf("input X has dtype %v, want float32, float64, int64 or int32", x.DType)
	}
	var rows, c int64
	switch x.Shape.Rank() {
	case 0:
		if m.classifier {
			return 0, 0, fmt.Errorf("input X is a scalar: want [C] or [N, C]")
		}
		rows, c = 1, 1
	case 1:
		rows, c = 1, x.Shape[0]
	case 2:
		rows, c = x.Shape[0], x.Shape[1]
	default:
		return 0, 0, fmt.Errorf("input X %v: want [C] or [N, C]", x.Shape)
	}
	if int64(len(m.coef)) != int64(m.n)*c {
		return 0, 0, fmt.Errorf("input X %v has %d features: attribute \"coefficients\" has %d values, want %d×%d", x.Shape, c, len(m.coef), m.n, c)
	}
	return rows, c, nil
}

func (m *mlLinear) infer(in, out []*kernel.Tensor) error {
	rows, _, err := m.dims(in[0])
	if err != nil {
		return err
	}
	cols := int64(m.n)
	if m.twoCol {
		cols = 2
	}
	if m.classifier {
		setShape(out[0], kernel.Shape{rows}, kernel.Int64)
		setShape(out[1], kernel.Shape{rows, cols}, kernel.Float32)
		return nil
	}
	setShape(out[0], kernel.Shape{rows, cols}, kernel.Float32)
	return nil
}

func (m *mlLinear) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	_, _, err := m.dims(in[0])
	return 0, err
}

func (m *mlLinear) cost(in, out []*kernel.Tensor) device.Cost {
	n := float64(in[0].NumElements())
	return device.Cost{FLOPs: 2 * n * float64(m.n), Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

func (m *mlLinear) compute(a *kernel.Args) error {
	x := a.In[0]
	rows, c, err := m.dims(x)
	if err != nil {
		return err
	}
	b := x.Data()
	z := kernel.Float32s(a.Out[0].Data())
	var label []int64
	if m.classifier {
		label, z = kernel.Int64s(a.Out[0].Data()), kernel.Float32s(a.Out[1].Data())
	}
	n := m.n
	// The scores: X·coefficientsᵀ + intercepts, X rounded to float32,
	// each dot product summed in float64 and rounded once.
	for r := range rows {
		for j := range n {
			var acc float64
			if m.icpt != nil {
				acc = float64(m.icpt[j])
			}
			w := m.coef[int64(j)*c : int64(j+1)*c]
			for k := range c {
				xv := float64(mlX32(x.DType, b, r*c+k))
				acc += float64(xv * float64(w[k]))
			}
			z[r*int64(n)+int64(j)] = float32(acc)
		}
	}
	if n > 1 {
		for r := range rows {
			zr := z[r*int64(n) : (r+1)*int64(n)]
			if label != nil {
				best := 0
				for j := 1; j < n; j++ {
					if zr[j] > zr[best] {
						best = j
					}
				}
				label[r] = m.labels[best]
			}
			mlWriteScores(zr, m.post)
		}
		return nil
	}
	// One score a row.
	if label != nil {
		pos, neg := int64(1), int64(0)
		if len(m.labels) == 2 {
			pos, neg = m.labels[1], m.labels[0]
		}
		for r := range rows {
			if z[r] > 0 {
				label[r] = pos
			} else {
				label[r] = neg
			}
		}
	}
	switch {
	case m.post == mlPostProbit:
		// Two columns: onnxruntime writes the probits to the first rows
		// entries of Z and leaves the others unset (0 here).
		for r := range rows {
			z[r] = mlProbit(z[r])
		}
		if m.twoCol {
			clear(z[rows:])
		}
	case m.twoCol:
		for r := rows - 1; r >= 0; r-- {
			s := z[r]
			if m.post == mlPostLogistic {
				s = mlLogistic(s)
			}
			z[2*r], z[2*r+1] = 1-s, s
		}
	}
	return nil
}

// mlX32 returns element i of x (float32, float64, int64 or int32) as
// float32.
func mlX32(dt kernel.DType, b []byte, i int64) float32 {
	switch dt {
	case kernel.Float32:
		return kernel.Float32s(b)[i]
	case kernel.Float64:
		return float32(kernel.Float64s(b)[i])
	case kernel.Int64:
		return float32(kernel.Int64s(b)[i])
	}
	return float32(kernel.Int32s(b)[i])
}
