package ops

import (
	"fmt"
	"math"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// The kernel types of SVMRegressor and SVMClassifier (kernel_type).
const (
	mlSVMLinear = iota
	mlSVMPoly
	mlSVMRBF
	mlSVMSigmoid
)

// mlSVM is SVMRegressor or SVMClassifier: support vectors (nv of them, nf
// features each) combined by the kernel with a row of X, or, with no
// support vectors, a linear model over the features.
type mlSVM struct {
	op                   string
	classifier           bool
	kern                 int
	gamma, coef0, degree float32
	nv, nf               int
	sv                   []float32 // [nv, nf]
	coef                 []float32
	rho                  []float32
	// Regressor.
	oneClass bool
	// Classifier.
	nc           int // classes
	labels       []int64
	vpc, start   []int // support vectors of each class, and the first
	probA, probB []float32
	allPos       bool
	post         int
	zCols        int
	// Scratch, allocated at creation.
	kv    []float32 // kernel values of a row, one per support vector
	xrow  []float32 // a row of X read as float32
	votes []int
	pair  []float32 // the pairwise probabilities, nc×nc
	q     []float32 // nc×nc
	qp    []float32 // nc
}

// newMLSVM builds SVMRegressor or SVMClassifier; see mlOps.
func newMLSVM(classifier bool) kernel.Factory {
	op := "SVMRegressor"
	if classifier {
		op = "SVMClassifier"
	}
	return mlModel(op, classifier, func(attrs kernel.Attrs) (impl, error) { return parseMLSVM(attrs, classifier, op) })
}

func parseMLSVM(attrs kernel.Attrs, classifier bool, op string) (*mlSVM, error) {
	known := []string{"kernel_type", "kernel_params", "support_vectors", "coefficients", "rho", "post_transform"}
	if classifier {
		known = append(known, "vectors_per_class", "classlabels_ints", "classlabels_strings", "prob_a", "prob_b")
	} else {
		known = append(known, "n_supports", "one_class")
	}
	if err := mlCheckAttrs(attrs, known...); err != nil {
		return nil, err
	}
	m := &mlSVM{op: op, classifier: classifier}
	kt, err := attrs.String("kernel_type", "LINEAR")
	if err != nil {
		return nil, err
	}
	switch kt {
	case "LINEAR":
		m.kern = mlSVMLinear
	case "POLY":
		m.kern = mlSVMPoly
	case "RBF":
		m.kern = mlSVMRBF
	case "SIGMOID":
		m.kern = mlSVMSigmoid
	default:
		return nil, fmt.Errorf("attribute \"kernel_type\" is %q, want LINEAR, POLY, RBF or SIGMOID", kt)
	}
	kp, err := attrs.Floats("kernel_params", nil)
	if err != nil {
		return nil, err
	}
	if _, ok := attrs["kernel_params"]; !ok {
		return nil, fmt.Errorf("attribute \"kernel_params\" is missing: onnxruntime requires it (gamma, coef0, degree)")
	}
	switch len(kp) {
	case 0:
	case 3:
		m.gamma, m.coef0, m.degree = float32(kp[0]), float32(kp[1]), float32(kp[2])
	default:
		return nil, fmt.Errorf("attribute \"kernel_params\" has %d values, want 3 (gamma, coef0, degree)", len(kp))
	}
	post, err := attrs.String("post_transform", "NONE")
	if err != nil {
		return nil, err
	}
	if m.post, err = mlPostTransform(post); err != nil {
		return nil, err
	}
	sv, err := attrs.Floats("support_vectors", nil)
	if err != nil {
		return nil, err
	}
	coef, err := attrs.Floats("coefficients", nil)
	if err != nil {
		return nil, err
	}
	if len(coef) == 0 {
		return nil, fmt.Errorf("attribute \"coefficients\" is missing or empty")
	}
	rho, err := attrs.Floats("rho", nil)
	if err != nil {
		return nil, err
	}
	if len(rho) == 0 {
		return nil, fmt.Errorf("attribute \"rho\" is missing or empty")
	}
	m.sv, m.coef, m.rho = mlF32s(sv), mlF32s(coef), mlF32s(rho)
	if classifier {
		err = m.parseClassifier(attrs)
	} else {
		err = m.parseRegressor(attrs)
	}
	if err != nil {
		return nil, err
	}
	if m.nv == 0 {
		// The linear mode: the coefficients are the weights of the
		// features, whatever the kernel type.
		m.kern = mlSVMLinear
	}
	m.kv = make([]float32, m.nv)
	m.xrow = make([]float32, m.nf)
	return m, nil
}

// supportVectors sets nv and nf from the support vectors.
func (m *mlSVM) supportVectors(nv int64) error {
	if nv > 1<<24 {
		return fmt.Errorf("%d support vectors: too many", nv)
	}
	m.nv = int(nv)
	if len(m.sv) == 0 || len(m.sv)%m.nv != 0 {
		return fmt.Errorf("attribute \"support_vectors\" has %d values, want %d support vectors of one length", len(m.sv), m.nv)
	}
	m.nf = len(m.sv) / m.nv
	return nil
}

func (m *mlSVM) parseRegressor(attrs kernel.Attrs) error {
	nv, err := attrs.Int("n_supports", 0)
	if err != nil {
		return err
	}
	if nv < 0 {
		return fmt.Errorf("attribute \"n_supports\" is %d, want 0 or more", nv)
	}
	oc, err := attrs.Int("one_class", 0)
	if err != nil {
		return err
	}
	m.oneClass = oc != 0
	if nv == 0 {
		m.nf = len(m.coef)
		return nil
	}
	if err := m.supportVectors(nv); err != nil {
		return err
	}
	if len(m.coef) < m.nv {
		return fmt.Errorf("attribute \"coefficients\" has %d values, want one per support vector (%d)", len(m.coef), m.nv)
	}
	return nil
}

func (m *mlSVM) parseClassifier(attrs kernel.Attrs) error {
	if _, ok := attrs["classlabels_strings"]; ok {
		return notImplemented("attribute \"classlabels_strings\": string labels are not implemented (pipert has no string tensors)")
	}
	var err error
	if m.labels, err = attrs.Ints("classlabels_ints", nil); err != nil {
		return err
	}
	if len(m.labels) == 0 {
		return fmt.Errorf("attribute \"classlabels_ints\" is missing or empty")
	}
	if len(m.labels) >= 65536 {
		return fmt.Errorf("attribute \"classlabels_ints\" has %d labels, want at most 65535", len(m.labels))
	}
	m.nc = len(m.labels)
	vpc, err := attrs.Ints("vectors_per_class", nil)
	if err != nil {
		return err
	}
	pa, err := attrs.Floats("prob_a", nil)
	if err != nil {
		return err
	}
	pb, err := attrs.Floats("prob_b", nil)
	if err != nil {
		return err
	}
	if len(pa) != len(pb) {
		return fmt.Errorf("attributes \"prob_a\" and \"prob_b\" have %d and %d values, want one length", len(pa), len(pb))
	}
	m.probA, m.probB = mlF32s(pa), mlF32s(pb)
	m.allPos = true
	for _, c := range m.coef {
		if !(c >= 0) {
			m.allPos = false
		}
	}
	var nv int64
	for _, v := range vpc {
		if v < 0 || v > 1<<24 {
			return fmt.Errorf("attribute \"vectors_per_class\" holds %d, want counts of 0 or more", v)
		}
		m.start = append(m.start, int(nv))
		m.vpc = append(m.vpc, int(v))
		nv += v
	}
	pairs := m.nc * (m.nc - 1) / 2
	if nv == 0 {
		// The linear mode: coefficients [classes, features].
		if len(m.coef)%m.nc != 0 {
			return fmt.Errorf("attribute \"coefficients\" has %d values, not a multiple of the %d classes", len(m.coef), m.nc)
		}
		m.nf = len(m.coef) / m.nc
		m.zCols = m.nc
		return nil
	}
	if err := m.supportVectors(nv); err != nil {
		return err
	}
	if len(vpc) != m.nc {
		return fmt.Errorf("attribute \"vectors_per_class\" has %d counts, want one per class (%d, the labels)", len(vpc), m.nc)
	}
	if m.nc < 2 {
		return fmt.Errorf("attribute \"classlabels_ints\" has 1 label: support vectors need 2 classes or more")
	}
	if len(m.coef) < (m.nc-1)*m.nv {
		return fmt.Errorf("attribute \"coefficients\" has %d values, want (classes − 1)×(support vectors) = %d", len(m.coef), (m.nc-1)*m.nv)
	}
	if len(m.rho) < pairs {
		return fmt.Errorf("attribute \"rho\" has %d values, want one per pair of classes (%d)", len(m.rho), pairs)
	}
	if len(m.probA) > 0 && len(m.probA) < pairs {
		return fmt.Errorf("attribute \"prob_a\" has %d values, want one per pair of classes (%d)", len(m.probA), pairs)
	}
	m.votes = make([]int, m.nc)
	switch {
	case len(m.probA) > 0:
		m.zCols = m.nc
		m.pair = make([]float32, m.nc*m.nc)
		m.q = make([]float32, m.nc*m.nc)
		m.qp = make([]float32, m.nc)
	case m.nc > 2:
		m.zCols = pairs
	default:
		m.zCols = 2
	}
	return nil
}

// dims returns the rows of X, checking its dtype and features.
func (m *mlSVM) dims(x *kernel.Tensor) (int64, error) {
	switch x.DType {
	case kernel.Float32:
	case kernel.Float64, kernel.Int64, kernel.Int32:
		if !m.classifier {
			return 0, fmt.Errorf("input X has dtype %v: onnxruntime's SVMRegressor takes float32", x.DType)
		}
	default:
		return 0, fmt.Errorf("input X has dtype %v, want float32, float64, int64 or int32", x.DType)
	}
	var rows, c int64
	switch x.Shape.Rank() {
	case 1:
		rows, c = 1, x.Shape[0]
	case 2:
		rows, c = x.Shape[0], x.Shape[1]
	default:
		return 0, fmt.Errorf("input X %v: want [C] or [N, C]", x.Shape)
	}
	if c != int64(m.nf) {
		return 0, fmt.Errorf("input X %v has %d features, want %d", x.Shape, c, m.nf)
	}
	return rows, nil
}

func (m *mlSVM) infer(in, out []*kernel.Tensor) error {
	rows, err := m.dims(in[0])
	if err != nil {
		return err
	}
	if m.classifier {
		setShape(out[0], kernel.Shape{rows}, kernel.Int64)
		setShape(out[1], kernel.Shape{rows, int64(m.zCols)}, kernel.Float32)
		return nil
	}
	setShape(out[0], kernel.Shape{rows, 1}, kernel.Float32)
	return nil
}

func (m *mlSVM) resize(in, out []*kernel.Tensor, e *encoder) (int64, error) {
	_, err := m.dims(in[0])
	return 0, err
}

func (m *mlSVM) cost(in, out []*kernel.Tensor) device.Cost {
	n := float64(in[0].NumElements())
	w := float64(max(m.nv, m.nc, 1))
	return device.Cost{FLOPs: 3 * n * w, Bytes: float64(in[0].Bytes() + out[0].Bytes())}
}

// kernelRow fills m.kv with the kernel of row x and each support vector.
func (m *mlSVM) kernelRow(x []float32) {
	nf := m.nf
	for v := range m.nv {
		s := m.sv[v*nf : (v+1)*nf]
		if m.kern == mlSVMRBF {
			// Squared distance summed in float32, in order.
			var sum float32
			for k, xv := range x {
				d := xv - s[k]
				sum += float32(d * d)
			}
			m.kv[v] = expf(float32(-m.gamma * sum))
			continue
		}
		// The dot product, summed in float64 and rounded once.
		var acc float64
		for k, xv := range x {
			acc += float64(float64(xv) * float64(s[k]))
		}
		d := float32(acc)
		switch m.kern {
		case mlSVMPoly:
			d = float32(m.gamma*d) + m.coef0
			switch m.degree {
			case 2:
				d *= d
			case 3:
				d = float32(d*d) * d
			default:
				d = float32(math.Pow(float64(d), float64(m.degree)))
			}
		case mlSVMSigmoid:
			d = float32(math.Tanh(float64(float32(m.gamma*d) + m.coef0)))
		}
		m.kv[v] = d
	}
}

// mlSVMDot returns row x times coefficients row w plus b, summed in float64
// and rounded once.
func mlSVMDot(x, w []float32, b float32) float32 {
	acc := float64(b)
	for k, xv := range x {
		acc += float64(float64(xv) * float64(w[k]))
	}
	return float32(acc)
}

func (m *mlSVM) compute(a *kernel.Args) error {
	x := a.In[0]
	rows, err := m.dims(x)
	if err != nil {
		return err
	}
	nf := int64(m.nf)
	b := x.Data()
	// row returns row r of X as float32 (other dtypes converted into the
	// scratch row).
	row := func(r int64) []float32 {
		if x.DType == kernel.Float32 {
			return kernel.Float32s(b)[r*nf : (r+1)*nf]
		}
		for k := range nf {
			m.xrow[k] = mlX32(x.DType, b, r*nf+k)
		}
		return m.xrow
	}
	if !m.classifier {
		y := kernel.Float32s(a.Out[0].Data())
		for r := range rows {
			xr := row(r)
			var s float32
			if m.nv == 0 {
				s = mlSVMDot(xr, m.coef, m.rho[0])
			} else {
				m.kernelRow(xr)
				s = mlSVMDot(m.kv[:m.nv], m.coef, m.rho[0])
			}
			if m.oneClass {
				if s > 0 {
					s = 1
				} else {
					s = -1
				}
			}
			y[r] = s
		}
		return nil
	}
	label, z := kernel.Int64s(a.Out[0].Data()), kernel.Float32s(a.Out[1].Data())
	cols := int64(m.zCols)
	for r := range rows {
		xr := row(r)
		zr := z[r*cols : (r+1)*cols]
		if m.nv == 0 {
			m.linearRow(xr, zr, &label[r])
		} else {
			m.svcRow(xr, zr, &label[r])
		}
	}
	return nil
}

// linearRow scores row x with the coefficients of each class.
func (m *mlSVM) linearRow(x, z []float32, label *int64) {
	nf := m.nf
	for c := range m.nc {
		z[c] = mlSVMDot(x, m.coef[c*nf:(c+1)*nf], m.rho[0])
	}
	best := 0
	for c := 1; c < m.nc; c++ {
		if z[c] > z[best] {
			best = c
		}
	}
	*label = m.labels[best]
	if m.nc == 2 && len(m.probA) == 0 {
		// onnxruntime's binary rule, on the largest score.
		if p := z[best]; (m.allPos && p >= 0.5) || (!m.allPos && p > 0) {
			*label = m.labels[1]
		}
	}
	if m.nc == 1 {
		if m.post == mlPostProbit {
			z[0] = mlProbit(z[0])
		}
		return
	}
	mlWriteScores(z, m.post)
}

// svcRow scores row x with the support vectors: one decision value per
// pair of classes, each a vote.
func (m *mlSVM) svcRow(x, z []float32, label *int64) {
	m.kernelRow(x)
	kv := m.kv[:m.nv]
	nc, nv := m.nc, m.nv
	clear(m.votes)
	// The decision values go to Z, or with probabilities to the upper
	// triangle of m.pair.
	idx := 0
	for i := 0; i < nc-1; i++ {
		for j := i + 1; j < nc; j++ {
			var sum float64
			ci := m.coef[(j-1)*nv+m.start[i] : (j-1)*nv+m.start[i]+m.vpc[i]]
			for k, c := range ci {
				sum += float64(float32(c * kv[m.start[i]+k]))
			}
			cj := m.coef[i*nv+m.start[j] : i*nv+m.start[j]+m.vpc[j]]
			for k, c := range cj {
				sum += float64(float32(c * kv[m.start[j]+k]))
			}
			sum += float64(m.rho[idx])
			s := float32(sum)
			if m.pair != nil {
				m.pair[i*nc+j] = s
			} else {
				z[idx] = s
			}
			idx++
			if sum > 0 {
				m.votes[i]++
			} else {
				m.votes[j]++
			}
		}
	}
	best := 0
	for c := 1; c < nc; c++ {
		if m.votes[c] > m.votes[best] {
			best = c
		}
	}
	*label = m.labels[best]
	if m.pair != nil {
		// Platt scaling of each decision value, then the class
		// probabilities from the pairwise ones.
		lo := float32(1e-7)
		hi := 1 - lo
		idx = 0
		for i := 0; i < nc-1; i++ {
			for j := i + 1; j < nc; j++ {
				v := 1 - mlLogistic(float32(m.pair[i*nc+j]*m.probA[idx])+m.probB[idx])
				if v < lo {
					v = lo
				}
				if hi < v {
					v = hi
				}
				m.pair[i*nc+j], m.pair[j*nc+i] = v, 1-v
				idx++
			}
		}
		mlMultiProb(nc, m.pair, z, m.q, m.qp)
		mlWriteScores(z, m.post)
		return
	}
	if nc > 2 {
		mlWriteScores(z, m.post)
		return
	}
	// Two classes: one decision value s.
	s := z[0]
	switch m.post {
	case mlPostProbit:
		// onnxruntime leaves the second column unset; it is 0 here.
		z[0], z[1] = mlProbit(s), 0
	case mlPostNone:
		z[0], z[1] = -s, s
	case mlPostLogistic:
		z[0], z[1] = mlLogistic(-s), mlLogistic(s)
	default:
		z[0], z[1] = 1-s, s
	}
}

// mlMultiProb computes the class probabilities p (k of them) from the
// pairwise probabilities r (k×k) by the iterative method of Wu, Lin and
// Weng (libsvm's multiclass_probability), in float32, with at most 100
// iterations; q (k×k) and qp (k) are scratch.
func mlMultiProb(k int, r, p, q, qp []float32) {
	clear(q)
	clear(qp)
	eps := float32(0.005) / float32(k)
	for i := range k {
		p[i] = 1 / float32(k)
		for j := 0; j < i; j++ {
			q[i*k+i] += float32(r[j*k+i] * r[j*k+i])
			q[i*k+j] = q[j*k+i]
		}
		for j := i + 1; j < k; j++ {
			q[i*k+i] += float32(r[j*k+i] * r[j*k+i])
			q[i*k+j] = -r[j*k+i] * r[i*k+j]
		}
	}
	for range 100 {
		var pQp float32
		for i := range k {
			qp[i] = 0
			for j := range k {
				qp[i] += float32(q[i*k+j] * p[j])
			}
			pQp += float32(p[i] * qp[i])
		}
		var maxErr float32
		for i := range k {
			if e := float32(math.Abs(float64(qp[i] - pQp))); e > maxErr {
				maxErr = e
			}
		}
		if maxErr < eps {
			break
		}
		for i := range k {
			qii := q[i*k+i]
			diff := (-qp[i] + pQp) / qii
			p[i] += diff
			t := float32(diff*qii) + float32(2*qp[i])
			pQp = (pQp + float32(diff*t)) / (1 + diff) / (1 + diff)
			for j := range k {
				qp[j] = (qp[j] + float32(diff*q[i*k+j])) / (1 + diff)
				p[j] /= 1 + diff
			}
		}
	}
}
