package onnx

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// Options tune an import. The zero Options import the graph as it is, its
// ops resolved by control.Resolver{Base: ops.Builtins()}.
type Options struct {
	// Resolver builds the kernels (nil: the built-in ops and If).
	Resolver kernel.Resolver
	// Shapes fixes graph inputs' dimensions (by input name), so that more
	// of the graph folds at import: a dimension the model leaves free
	// becomes the value given; one it fixes must agree.
	Shapes map[string][]int64
	// Values fixes graph inputs to values (a scalar sample rate, say): they
	// become constants and everything computed from them alone folds. A
	// value for an input that an initializer also defines replaces the
	// initializer (the default ONNX lets a caller override).
	Values map[string]*kernel.Tensor
	// NoFold keeps every node, folding nothing but Constant and Identity.
	NoFold bool
	// Outputs, when not nil, replaces the model's graph outputs by these
	// names, in this order: graph outputs, tensors the graph computes
	// (a layer's activation, to compare with another runtime), graph
	// inputs or initializers. Only the nodes they depend on are imported,
	// so a model whose other outputs pipert cannot represent (a
	// scikit-learn classifier's ZipMap, a sequence of maps) imports with
	// the tensor before it. The graph keeps every input the model
	// declares, needed or not.
	Outputs []string
}

// ErrImport is the cause of an import's failure on a graph that is not
// valid ONNX: a cycle, a missing input, a name defined twice, an If whose
// branches disagree.
var ErrImport = errors.New("onnx: invalid graph")

// ImportFile reads and imports the model in file path.
func ImportFile(path string, opt Options) (*subgraph.Graph, error) {
	m, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := Import(m, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// ImportReader reads and imports a model.
func ImportReader(r io.Reader, opt Options) (*subgraph.Graph, error) {
	m, err := Read(r)
	if err != nil {
		return nil, err
	}
	return Import(m, opt)
}

// Import turns m into a pipert graph. ONNX ops map onto pipert ops through
// the table that Ops lists; Constant nodes and initializers become graph
// constants; a node whose inputs are all known at import (constants, and
// shapes of statically shaped tensors for ops that read only shapes) is
// computed now and becomes a constant; an If whose condition folds is
// replaced by the nodes of the branch it takes. Anything pipert does not
// implement is an error wrapping ErrUnsupported that names the node, op and
// opset: the import never produces a silently different graph.
//
// An initializer that is also listed as a graph input (as models of IR
// version 3 list every weight) is, in ONNX, a default the caller may
// override. The import makes it a constant: the initializer's value, or
// the one Options.Values gives that input (of the initializer's dtype, and
// of the shape the input declares). The graph has no such input, so Run
// refuses one of that name: to feed it at every run instead, remove the
// initializer from the model before importing.
func Import(m *Model, opt Options) (*subgraph.Graph, error) {
	g, err := importModel(m, opt)
	if err != nil && errors.Is(err, kernel.ErrNotImplemented) && !errors.Is(err, ErrUnsupported) {
		// A node pipert's kernel does not implement for these operands.
		err = fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	if err != nil && !errors.Is(err, ErrImport) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrFormat) {
		// A node failing on the values and shapes the model gives it (an
		// axis out of range, a shape Reshape cannot take, operands of the
		// wrong count or type): the graph is not valid ONNX.
		err = fmt.Errorf("%w: %w", ErrImport, err)
	}
	return g, err
}

func importModel(m *Model, opt Options) (*subgraph.Graph, error) {
	if m == nil || m.Graph == nil {
		return nil, fmt.Errorf("%w: no graph", ErrImport)
	}
	if err := wellFormed(m.Graph); err != nil {
		return nil, err
	}
	for i, f := range m.Functions {
		if f == nil {
			return nil, fmt.Errorf("%w: function #%d is nil", ErrImport, i)
		}
		if err := wellFormed(&Graph{Name: "function " + f.Name, Nodes: f.Nodes}); err != nil {
			return nil, err
		}
	}
	if opt.Outputs != nil {
		g, err := selectOutputs(m.Graph, opt.Outputs)
		if err != nil {
			return nil, err
		}
		sel := *m
		sel.Graph = g
		m = &sel
	}
	if g := unusedStrings(unusedLabels(m.Graph)); g != m.Graph {
		sel := *m
		sel.Graph = g
		m = &sel
	}
	opset, ok := m.Opsets[""]
	if !ok {
		// "ai.onnx" is the default domain's other name (a parsed model has
		// it as ""; a Model built by hand may not).
		if opset, ok = m.Opsets["ai.onnx"]; !ok {
			opset = 1
		}
	}
	if !ok && m.IRVersion >= 3 {
		// Before IR version 3 a model had no opset_import and followed
		// opset 1; from 3 on it must name the default domain's opset if
		// a node is of it (a truncated file loses the field).
		for _, n := range m.Graph.Nodes {
			if n.Domain == "" || n.Domain == "ai.onnx" {
				return nil, fmt.Errorf("%w: the model (IR version %d) imports no opset of the default domain (opset_import), and its node %q (%s) is of it", ErrImport, m.IRVersion, n.Name, n.OpType)
			}
		}
	}
	if opset < 1 || opset > MaxOpset {
		// Each op's range is checked too (table): most start at opset 7.
		return nil, fmt.Errorf("%w: default-domain opset %d (have 1 to %d)", ErrUnsupported, opset, MaxOpset)
	}
	res := opt.Resolver
	if res == nil {
		res = control.Resolver{Base: ops.Builtins()}
	}
	// The com.microsoft version is checked by the nodes of the domain.
	im := &importer{opset: opset, legacy: legacyOf(opset), msOpset: m.Opsets[MSDomain], mlOpset: m.Opsets[MLDomain], domains: m.Opsets, res: res, fold: !opt.NoFold,
		g: &subgraph.Graph{Name: m.Graph.Name}, known: map[string]*kernel.Tensor{}, used: map[string]bool{}, nodes: map[string]bool{}}
	if im.g.Name == "" {
		im.g.Name = "model"
	}
	im.declared = map[string]bool{}
	declaredNames(m.Graph, im.declared)
	im.narrow = map[string]bool{}
	narrowNames(m.Graph, im.narrow)
	for _, f := range m.Functions {
		narrowNames(&Graph{Nodes: f.Nodes}, im.narrow)
	}
	for _, f := range m.Functions { // none is nil (checked above)
		if im.funcs == nil {
			im.funcs = map[funcKey]*Function{}
		}
		k := funcKey{f.Domain, f.Name, f.Overload}
		if im.funcs[k] != nil {
			return nil, fmt.Errorf("%w: function %s of domain %q defined twice", ErrImport, f.Name, f.Domain)
		}
		im.funcs[k] = f
	}
	if err := im.inputs(m.Graph, opt); err != nil {
		return nil, err
	}
	if err := im.body(m.Graph, nil); err != nil {
		return nil, err
	}
	if err := im.outputs(m.Graph); err != nil {
		return nil, err
	}
	c, err := subgraph.Validate(im.g, res)
	if err != nil {
		return nil, fmt.Errorf("onnx: the imported graph: %w", err)
	}
	// The graph's outputs have the model's names (outputs), each once:
	// a name listed twice is checked against its first declaration.
	seen := map[string]bool{}
	for _, o := range m.Graph.Outputs {
		if seen[o.Name] {
			continue
		}
		seen[o.Name] = true
		want, ok := o.DataType.DType()
		if got := c.Meta[o.Name]; ok && got != nil && got.DType != want {
			return nil, fmt.Errorf("%w: graph output %q is declared %v but computes %v", ErrImport, o.Name, want, got.DType)
		}
	}
	return im.g, nil
}

// wellFormed checks what a parsed model always has and a model built by
// hand may lack: no nil node, initializer, value or attribute, and no
// attribute given twice on a node, in g and its subgraphs.
func wellFormed(g *Graph) error { return wellFormedIn(g, map[*Graph]bool{}) }

// wellFormedIn is wellFormed with the graphs being checked (a graph that
// a node of its own holds, a cycle that a parsed model cannot have, is
// refused).
func wellFormedIn(g *Graph, walking map[*Graph]bool) error {
	if walking[g] {
		return fmt.Errorf("%w: graph %q holds itself: an attribute of one of its nodes holds it, or a graph that does", ErrImport, g.Name)
	}
	walking[g] = true
	defer delete(walking, g)
	for i, t := range g.Initializers {
		if t == nil {
			return fmt.Errorf("%w: graph %q: initializer #%d is nil", ErrImport, g.Name, i)
		}
	}
	for what, vs := range map[string][]*ValueInfo{"input": g.Inputs, "output": g.Outputs, "value_info": g.ValueInfo} {
		for i, v := range vs {
			if v == nil {
				return fmt.Errorf("%w: graph %q: %s #%d is nil", ErrImport, g.Name, what, i)
			}
		}
	}
	for i, n := range g.Nodes {
		if n == nil {
			return fmt.Errorf("%w: graph %q: node #%d is nil", ErrImport, g.Name, i)
		}
		seen := map[string]bool{}
		for _, a := range n.Attrs {
			if a == nil {
				return fmt.Errorf("%w: node %q (%s): a nil attribute", ErrImport, n.Name, n.OpType)
			}
			if seen[a.Name] {
				return fmt.Errorf("%w: node %q (%s): attribute %q given twice", ErrImport, n.Name, n.OpType, a.Name)
			}
			seen[a.Name] = true
			for _, sub := range append([]*Graph{a.G}, a.Graphs...) {
				if sub == nil {
					continue
				}
				if err := wellFormedIn(sub, walking); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// outputs declares the graph outputs under the model's names. Folding and
// Identity make an output another name of some tensor: that tensor is
// renamed to the output's name, or, when it is a graph input, a constant
// or another output, copied by an Identity node.
func (im *importer) outputs(gp *Graph) error {
	exists := map[string]bool{} // names of real tensors: inputs, constants, node outputs
	fixed := map[string]bool{}  // not renamable
	for _, v := range im.g.Inputs {
		exists[v.Name], fixed[v.Name] = true, true
	}
	for _, c := range im.g.Consts {
		exists[c.Name], fixed[c.Name] = true, true
	}
	for _, n := range im.g.Nodes {
		for _, o := range n.Outputs {
			exists[o] = true
		}
	}
	renamed := map[string]string{} // tensors renamed to an earlier output's name
	listed := map[string]bool{}
	for _, o := range gp.Outputs {
		if listed[o.Name] {
			continue // listed twice: one output, as onnxruntime returns it
		}
		listed[o.Name] = true
		name, err := im.tensor(o.Name)
		if errors.Is(err, ErrUnsupported) {
			return fmt.Errorf("graph output %q: %w", o.Name, err)
		}
		if err != nil {
			return fmt.Errorf("%w: graph output %q: %v", ErrImport, o.Name, err)
		}
		if r, ok := renamed[name]; ok {
			name = r
		}
		switch {
		case name == o.Name:
			fixed[name] = true // an output: later outputs of the same tensor copy it
		case exists[o.Name]:
			return fmt.Errorf("%w: graph output %q names another tensor than its value", ErrImport, o.Name)
		case !fixed[name]:
			im.rename(name, o.Name)
			renamed[name] = o.Name
			delete(exists, name)
			exists[o.Name], fixed[o.Name] = true, true
			name = o.Name
		default:
			attrs := kernel.Attrs{}
			if _, err := im.res.New("Identity", attrs); err != nil {
				return fmt.Errorf("%w: graph output %q: %v", ErrUnsupported, o.Name, err)
			}
			im.g.Nodes = append(im.g.Nodes, &subgraph.Node{Name: im.unique("Identity:"+o.Name, im.nodes), Op: "Identity",
				Attrs: attrs, Inputs: []string{name}, Outputs: []string{o.Name}})
			exists[o.Name], fixed[o.Name] = true, true
			name = o.Name
		}
		im.g.Outputs = append(im.g.Outputs, name)
	}
	return nil
}

// rename renames tensor from, a node output, to to throughout the graph.
func (im *importer) rename(from, to string) {
	for _, n := range im.g.Nodes {
		for i, s := range n.Inputs {
			if s == from {
				n.Inputs[i] = to
			}
		}
		for i, s := range n.Outputs {
			if s == from {
				n.Outputs[i] = to
			}
		}
	}
	for i, s := range im.g.Outputs {
		if s == from {
			im.g.Outputs[i] = to
		}
	}
}

// importer builds one pipert graph: the model's, or a runtime If branch's
// (parent set).
type importer struct {
	// inlined counts, in the model's importer (parent nil), the nodes
	// function calls inlined so far.
	inlined int
	// opset is the default-domain opset the nodes are imported at: the
	// model's (or the inlined function's), or while a node of a legacy
	// model is imported the opset of its upgraded form (legacy.go).
	opset int64
	// legacy is the model's (or the inlined function's) default-domain
	// opset when below legacyOpset, 0 otherwise: its nodes are upgraded.
	legacy int64
	// msOpset is the model's (or the inlined function's) opset of domain
	// com.microsoft, 0 (or less) when it imports none.
	msOpset int64
	// mlOpset is the model's (or the inlined function's) opset of domain
	// ai.onnx.ml, 0 (or less) when it imports none.
	mlOpset int64
	// domains are the model's opset imports by domain.
	domains map[string]int64
	res     kernel.Resolver
	fold    bool
	g       *subgraph.Graph
	parent  *importer
	// known holds what the import knows of each tensor of g: dtype and
	// shape (Shape nil: not even the rank), and Host when the value is a
	// constant.
	known map[string]*kernel.Tensor
	// scopes rename the tensors of inlined If branches, innermost last.
	scopes []map[string]string
	// alias maps an Identity's output to its input.
	alias map[string]string
	used  map[string]bool // tensor names taken in g
	nodes map[string]bool // node names taken in g
	// captures are the outer tensors a branch reads, in first-use order,
	// and outer their names in the parent.
	captures, outer []string
	gen             int
	// funcs are the model's local functions by domain, name and overload
	// (set on the main graph's importer; branches ask their parent), and
	// calls the functions being inlined, innermost last.
	funcs map[funcKey]*Function
	calls []*Function
	// seqs holds the sequences known at import, by graph name (see
	// sequence.go).
	seqs map[string]*seqValue
	// dims holds the dimensions the outputs of Shapes of tensors of
	// symbolic dimensions hold, by graph name (see shapedims.go).
	dims map[string]kernel.Shape
	// declared holds every tensor name the model's graph and subgraphs
	// define (set on the main graph's importer): the tensors of an
	// inlined branch or function are renamed apart from them, so that a
	// later node of the model defining one is no clash.
	declared map[string]bool
	// narrow holds the names of the model's INT4 and UINT4 constants,
	// widened at import (Tensor.Kernel) (set on the main graph's
	// importer).
	narrow map[string]bool
}

// declaredNames collects the tensor names g and its subgraphs define.
func declaredNames(g *Graph, into map[string]bool) {
	for _, v := range g.Inputs {
		into[v.Name] = true
	}
	for _, t := range g.Initializers {
		into[t.Name] = true
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			into[o] = true
		}
		for _, a := range n.Attrs {
			for _, sub := range append([]*Graph{a.G}, a.Graphs...) {
				if sub != nil {
					declaredNames(sub, into)
				}
			}
		}
	}
}

// narrowNames collects the names of the INT4 and UINT4 initializers and
// Constant outputs of g and its subgraphs.
func narrowNames(g *Graph, into map[string]bool) {
	four := func(t *Tensor) bool { return t != nil && (t.DataType == Int4 || t.DataType == Uint4) }
	for _, t := range g.Initializers {
		if four(t) {
			into[t.Name] = true
		}
	}
	for _, n := range g.Nodes {
		for _, a := range n.Attrs {
			if n.OpType == "Constant" && len(n.Outputs) == 1 && four(a.T) {
				into[n.Outputs[0]] = true
			}
			for _, sub := range append([]*Graph{a.G}, a.Graphs...) {
				if sub != nil {
					narrowNames(sub, into)
				}
			}
		}
	}
}

// funcKey identifies a local function.
type funcKey struct{ domain, name, overload string }

// maxCallDepth bounds nested function calls (and recursion, which ONNX
// forbids).
const maxCallDepth = 32

// maxInlined bounds the nodes function calls inline in all (a variable
// for the tests): 2^18, about 5 s of import on 2 cores.
var maxInlined = 1 << 18

func (im *importer) unique(base string, taken map[string]bool) string {
	name := base
	for taken[name] {
		im.gen++
		name = base + "_" + strconv.Itoa(im.gen)
	}
	taken[name] = true
	return name
}

// inputs declares the graph inputs: those not also initializers, with
// their shapes fixed or values given by opt.
func (im *importer) inputs(gp *Graph, opt Options) error {
	declared := map[string]bool{}
	for _, vi := range gp.Inputs {
		declared[vi.Name] = true
	}
	for name := range opt.Shapes {
		if !declared[name] {
			return fmt.Errorf("%w: Options.Shapes names %q, not a graph input", ErrImport, name)
		}
	}
	for name := range opt.Values {
		if !declared[name] {
			return fmt.Errorf("%w: Options.Values names %q, not a graph input", ErrImport, name)
		}
	}
	initial := map[string]*kernel.Tensor{}
	for _, t := range gp.Initializers {
		k, err := t.Kernel()
		if err != nil {
			return fmt.Errorf("initializer %q: %w", t.Name, err)
		}
		if _, ok := opt.Values[t.Name]; ok && declared[t.Name] {
			initial[t.Name] = k // overridden below
			continue
		}
		if err := im.defineConst(t.Name, k); err != nil {
			return err
		}
		initial[t.Name] = k
	}
	for _, vi := range gp.Inputs {
		if k, ok := initial[vi.Name]; ok {
			// An initializer also listed as an input: its value is a
			// default, which Options.Values overrides.
			if err := im.initialInput(vi, k, opt); err != nil {
				return err
			}
			continue
		}
		if vi.NotTensor {
			return fmt.Errorf("%w: graph input %q is not a tensor", ErrUnsupported, vi.Name)
		}
		dt, ok := vi.DataType.DType()
		if !ok {
			return fmt.Errorf("%w: graph input %q has dtype %v", ErrUnsupported, vi.Name, vi.DataType)
		}
		if v, ok := opt.Values[vi.Name]; ok {
			if err := im.fixValue(vi, dt, v, opt); err != nil {
				return err
			}
			continue
		}
		shape := make(kernel.Shape, len(vi.Dims))
		for i, d := range vi.Dims {
			shape[i] = kernel.Dynamic
			if d.Known {
				shape[i] = d.Value
			}
		}
		if fixed, ok := opt.Shapes[vi.Name]; ok {
			if vi.HasShape && len(fixed) != len(shape) {
				return fmt.Errorf("%w: Options.Shapes[%q] = %v, the model declares rank %d", ErrImport, vi.Name, fixed, len(shape))
			}
			for i, d := range fixed {
				if d < 0 {
					return fmt.Errorf("%w: Options.Shapes[%q] = %v has a negative dimension", ErrImport, vi.Name, fixed)
				}
				if i < len(shape) && shape[i] != kernel.Dynamic && shape[i] != d {
					return fmt.Errorf("%w: Options.Shapes[%q] = %v, the model fixes dimension %d to %d", ErrImport, vi.Name, fixed, i, shape[i])
				}
			}
			shape = kernel.Shape(slices.Clone(fixed))
			bytes := uint64(dt.Size())
			for _, d := range shape {
				hi, lo := bits.Mul64(bytes, uint64(d))
				if hi != 0 || lo > math.MaxInt64 {
					return fmt.Errorf("%w: Options.Shapes[%q] = %v: more bytes than an int64 counts", ErrImport, vi.Name, fixed)
				}
				bytes = lo
			}
		} else if !vi.HasShape {
			return fmt.Errorf("%w: graph input %q has no shape (any rank): give its dimensions (Options.Shapes)", ErrUnsupported, vi.Name)
		}
		im.used[vi.Name] = true
		im.g.Inputs = append(im.g.Inputs, subgraph.Value{Name: vi.Name, DType: dt, Shape: shape})
		im.known[vi.Name] = &kernel.Tensor{DType: dt, Shape: shape}
	}
	return nil
}

// fixValue makes graph input vi the constant v (Options.Values), which
// must be a real tensor of dtype dt and of the shape the model declares
// and Options.Shapes gives.
func (im *importer) fixValue(vi *ValueInfo, dt kernel.DType, v *kernel.Tensor, opt Options) error {
	if v == nil || v.Host == nil || v.DType != dt {
		return fmt.Errorf("%w: Options.Values[%q] must be a real %v tensor", ErrImport, vi.Name, dt)
	}
	if err := hostFits(v); err != nil {
		return fmt.Errorf("%w: Options.Values[%q]: %v", ErrImport, vi.Name, err)
	}
	if sh, ok := opt.Shapes[vi.Name]; ok && !v.Shape.Equal(sh) {
		return fmt.Errorf("%w: Options.Values[%q] has shape %v, Options.Shapes gives it %v", ErrImport, vi.Name, v.Shape, kernel.Shape(sh))
	}
	if decl, ok := declaredOther(vi, v.Shape); ok {
		return fmt.Errorf("%w: Options.Values[%q] has shape %v, the model declares [%s]", ErrImport, vi.Name, v.Shape, decl)
	}
	return im.defineConst(vi.Name, v)
}

// initialInput imports graph input vi, which an initializer of value k
// also defines (models of IR version 3 list every weight so): the
// initializer is a default that Options.Values overrides, the ONNX
// semantics of such an input; a shape in Options.Shapes must be k's.
func (im *importer) initialInput(vi *ValueInfo, k *kernel.Tensor, opt Options) error {
	v, ok := opt.Values[vi.Name]
	if !ok {
		if sh, ok := opt.Shapes[vi.Name]; ok && !k.Shape.Equal(sh) {
			return fmt.Errorf("%w: Options.Shapes[%q] = %v, the initializer of that name has shape %v", ErrImport, vi.Name, sh, k.Shape)
		}
		return nil
	}
	if !vi.NotTensor {
		if dt, ok := vi.DataType.DType(); ok && dt != k.DType {
			return fmt.Errorf("%w: graph input %q is %v, the initializer of that name %v", ErrImport, vi.Name, dt, k.DType)
		}
	}
	return im.fixValue(vi, k.DType, v, opt)
}

// declaredOther reports whether vi declares a shape other than shape, and
// the declared one as text ("?" for a dimension left free).
func declaredOther(vi *ValueInfo, shape kernel.Shape) (string, bool) {
	if !vi.HasShape {
		return "", false
	}
	bad := len(shape) != len(vi.Dims)
	decl := make([]string, len(vi.Dims))
	for i, d := range vi.Dims {
		decl[i] = d.Param
		if d.Known {
			decl[i] = strconv.FormatInt(d.Value, 10)
			bad = bad || i >= len(shape) || d.Value != shape[i]
		} else if decl[i] == "" {
			decl[i] = "?"
		}
	}
	return strings.Join(decl, " "), bad
}

// hostFits reports a shape that is not one (a negative dimension, or more
// bytes than an int64 counts) or host data shorter than the shape.
func hostFits(v *kernel.Tensor) error {
	n := uint64(v.DType.Size())
	for _, d := range v.Shape {
		if d < 0 {
			return fmt.Errorf("shape %v has a negative dimension", v.Shape)
		}
		if d > 0 && n > math.MaxInt64/uint64(d) {
			return fmt.Errorf("shape %v: more bytes than an int64 counts", v.Shape)
		}
		n *= uint64(d)
	}
	if uint64(len(v.Host)) < n {
		return fmt.Errorf("%d bytes of data for a %v %v tensor of %d", len(v.Host), v.DType, v.Shape, n)
	}
	return nil
}

func (im *importer) defineConst(name string, t *kernel.Tensor) error {
	if im.used[name] {
		return fmt.Errorf("%w: tensor %q defined twice", ErrImport, name)
	}
	im.used[name] = true
	if t.Shape == nil {
		// A scalar made as kernel.New(dt): its shape is empty, not unknown.
		c := *t
		c.Shape = kernel.Shape{}
		t = &c
	}
	im.g.Consts = append(im.g.Consts, subgraph.Const{Name: name, Tensor: t})
	im.known[name] = t
	return nil
}

// define names an output of a node being imported: renamed inside an
// inlined branch, checked for uniqueness otherwise.
func (im *importer) define(name string) (string, error) {
	if n := len(im.scopes); n > 0 {
		root := im
		for root.parent != nil {
			root = root.parent
		}
		local := name
		for im.used[local] || root.declared[local] {
			im.gen++
			local = name + "_" + strconv.Itoa(im.gen)
		}
		im.used[local] = true
		im.scopes[n-1][name] = local
		return local, nil
	}
	if im.used[name] {
		return "", fmt.Errorf("%w: tensor %q defined twice", ErrImport, name)
	}
	im.used[name] = true
	return name, nil
}

// resolve returns the graph tensor an ONNX name refers to here.
func (im *importer) resolve(name string) (string, error) {
	for i := len(im.scopes) - 1; i >= 0; i-- {
		if r, ok := im.scopes[i][name]; ok {
			return im.dealias(r), nil
		}
	}
	if im.used[name] {
		return im.dealias(name), nil
	}
	if im.parent != nil {
		outer, err := im.parent.tensor(name)
		if err != nil {
			return "", err
		}
		if k := slices.Index(im.outer, outer); k >= 0 {
			// Another name of a tensor already captured (an Identity's
			// output outside, folded into its input): one input serves
			// both names.
			im.used[name] = true
			if im.alias == nil {
				im.alias = map[string]string{}
			}
			im.alias[name] = im.captures[k]
			return im.captures[k], nil
		}
		// A capture: a branch input named as the outer tensor.
		im.used[name] = true
		im.captures = append(im.captures, name)
		im.outer = append(im.outer, outer)
		m := im.parent.known[outer]
		v := subgraph.Value{Name: name, DType: kernel.Float32}
		if m != nil {
			v.DType, v.Shape = m.DType, m.Shape.Clone()
			im.known[name] = m // what the import knows of it here too
		}
		im.g.Inputs = append(im.g.Inputs, v)
		return name, nil
	}
	return "", fmt.Errorf("%w: tensor %q is used but never defined", ErrImport, name)
}

// tensor is resolve for a name that must be a tensor, not a sequence:
// only the sequence ops and Identity take sequences.
func (im *importer) tensor(name string) (string, error) {
	r, err := im.resolve(name)
	if err == nil && im.seqOf(r) != nil {
		return "", fmt.Errorf("%w: %q is a sequence or optional where a tensor is expected (they are resolved at import, for their own ops only)", ErrUnsupported, name)
	}
	return r, err
}

func (im *importer) dealias(name string) string {
	for i := 0; i < 1000; i++ {
		a, ok := im.alias[name]
		if !ok {
			return name
		}
		name = a
	}
	return name
}

// body imports the nodes of gp in order; rename is the scope of an inlined
// branch (nil: gp is the graph itself, or the body of a subgraph). The
// initializers of a subgraph (a branch, a loop or scan body) are its own
// constants; the main graph's are taken by inputs.
func (im *importer) body(gp *Graph, rename map[string]string) error {
	if rename != nil {
		im.scopes = append(im.scopes, rename)
		defer func() { im.scopes = im.scopes[:len(im.scopes)-1] }()
	}
	if rename != nil || im.parent != nil {
		for _, t := range gp.Initializers {
			k, err := t.Kernel()
			if err != nil {
				return fmt.Errorf("initializer %q: %w", t.Name, err)
			}
			local, err := im.define(t.Name)
			if err != nil {
				return err
			}
			im.g.Consts = append(im.g.Consts, subgraph.Const{Name: local, Tensor: k})
			im.known[local] = k
		}
	}
	nodes, err := sorted(gp)
	if err != nil {
		return err
	}
	for i, n := range nodes {
		if err := im.node(n); err != nil {
			name := n.Name
			if name == "" {
				name = fmt.Sprintf("#%d", i)
			}
			if n.Domain != "" && n.Domain != "ai.onnx" {
				return fmt.Errorf("onnx: node %q (%s of domain %s, version %d): %w", name, n.OpType, n.Domain, im.domainVersion(n.Domain), err)
			}
			return fmt.Errorf("onnx: node %q (%s, opset %d): %w", name, n.OpType, im.modelOpset(), err)
		}
	}
	return nil
}

// resolvedAttrs are the attributes of the default-domain ops the import
// resolves itself rather than hands to a kernel, which checks its own.
var resolvedAttrs = map[string][]string{
	"If": {"then_branch", "else_branch"}, "Loop": {"body"}, "Identity": nil,
	"Scan":          {"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions", "scan_output_axes", "scan_output_directions", "directions"},
	"SequenceEmpty": {"dtype"}, "SequenceConstruct": nil, "SequenceInsert": nil, "SequenceErase": nil, "SequenceAt": nil,
	"SequenceLength": nil, "ConcatFromSequence": {"axis", "new_axis"}, "SplitToSequence": {"axis", "keepdims"},
	"SequenceMap": {"body"}, "Optional": {"type"}, "OptionalHasElement": nil, "OptionalGetElement": nil,
}

// unknownAttr reports an attribute of n, an op of the default domain, that
// the import resolves n without reading: an ErrUnsupported naming it, as
// a kernel's refusal of an attribute it does not know is.
func unknownAttr(n *Node) error {
	known, ok := resolvedAttrs[n.OpType]
	if !ok {
		return nil
	}
	for _, a := range n.Attrs {
		if a != nil && !slices.Contains(known, a.Name) {
			if len(known) == 0 {
				return fmt.Errorf("%w: unknown attribute %q (%s takes none)", ErrUnsupported, a.Name, n.OpType)
			}
			return fmt.Errorf("%w: unknown attribute %q (known: %s)", ErrUnsupported, a.Name, strings.Join(known, ", "))
		}
	}
	return nil
}

// node imports one ONNX node.
func (im *importer) node(n *Node) error {
	if f := im.function(n); f != nil {
		return im.call(n, f)
	}
	std := n.Domain == "" || n.Domain == "ai.onnx"
	if std && im.legacy != 0 {
		up, err := im.upgrade(n)
		if err != nil {
			return err
		}
		defer func(saved int64) { im.opset = saved }(im.opset)
		n, im.opset = up, legacyOpset
	}
	if seqOps[n.OpType] && std {
		if _, err := im.lookup(n); err != nil {
			return err
		}
		if err := unknownAttr(n); err != nil {
			return err
		}
		return im.sequenceNode(n)
	}
	info, err := im.lookup(n)
	if err != nil {
		return err
	}
	if std {
		if err := unknownAttr(n); err != nil {
			return err
		}
	}
	if n.OpType == "QuantizeLinear" && n.Domain == MSDomain && len(n.Inputs) > 2 && im.root().narrow[n.Inputs[2]] {
		return fmt.Errorf("%w: com.microsoft QuantizeLinear to a 4-bit integer type (y_zero_point %q is INT4 or UINT4)", ErrUnsupported, n.Inputs[2])
	}
	op := n.OpType
	if !std {
		op = "" // the special cases below are ops of the default domain
	}
	switch op {
	case "Constant":
		return im.constant(n)
	case "Identity":
		return im.identity(n)
	case "If":
		return im.ifNode(n)
	case "Loop":
		return im.loopNode(n)
	case "Scan":
		return im.scanNode(n)
	}
	// Inputs: trailing omitted ones dropped, others passed as a
	// zero-element tensor.
	last := len(n.Inputs) - 1
	for last >= 0 && n.Inputs[last] == "" {
		last--
	}
	inputs := make([]string, 0, last+1)
	for _, name := range n.Inputs[:last+1] {
		if name == "" {
			empty := im.unique(nodeBase(n)+"/absent", im.used)
			t := &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{0}, Host: []byte{}}
			im.g.Consts = append(im.g.Consts, subgraph.Const{Name: empty, Tensor: t})
			im.known[empty] = t
			inputs = append(inputs, empty)
			continue
		}
		r, err := im.tensor(name)
		if err != nil {
			return err
		}
		inputs = append(inputs, r)
	}
	if op == "Gather" {
		if folded, err := im.gatherDims(n, inputs); folded || err != nil {
			return err
		}
	}
	attrs, err := im.attrs(n)
	if err != nil {
		return err
	}
	k, err := im.res.New(info.Pipert, attrs)
	if err != nil {
		if errors.Is(err, kernel.ErrBadAttr) {
			return fmt.Errorf("%w: %w", ErrImport, err) // the model's fault
		}
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	_, _, nOut := k.Arity()
	if len(n.Outputs) > nOut {
		return fmt.Errorf("%w: %d outputs, pipert's %s has %d", ErrUnsupported, len(n.Outputs), info.Pipert, nOut)
	}
	// Fold what is known now.
	in := make([]*kernel.Tensor, len(inputs))
	known, values := true, true
	for j, name := range inputs {
		in[j] = im.known[name]
		if in[j] == nil || in[j].Shape == nil || !in[j].Shape.Known() {
			known = false
		} else if in[j].Host == nil && in[j].NumElements() != 0 {
			values = false
		}
	}
	deps := k.Deps()
	if im.fold && known && (values || deps.ShapeOnly) && !deps.Compute && !neverFold[info.Pipert] && im.parent == nil && cheap(k, in, nOut) {
		var outs []*kernel.Tensor
		if values && reshapes[info.Pipert] {
			outs, err = aliasFold(k, nodeBase(n), in)
		} else {
			outs, _, err = control.Run1(k, nodeBase(n), in, nOut)
		}
		if err == nil && foldable(outs) {
			for j, o := range n.Outputs {
				if o == "" {
					continue
				}
				local, err := im.define(o)
				if err != nil {
					return err
				}
				t := outs[j]
				if t.Host == nil && t.NumElements() == 0 {
					// Folded from empty operands: a real empty tensor.
					c := *t
					c.Host = []byte{}
					t = &c
				}
				im.g.Consts = append(im.g.Consts, subgraph.Const{Name: local, Tensor: t})
				im.known[local] = t
			}
			return nil
		}
		if err != nil && values {
			return err // the node fails on any input it can get
		}
	}
	outputs := make([]string, nOut)
	for j := range outputs {
		name := ""
		if j < len(n.Outputs) {
			name = n.Outputs[j]
		}
		if name == "" {
			outputs[j] = im.unique(nodeBase(n)+"/unused"+strconv.Itoa(j), im.used)
			continue
		}
		if outputs[j], err = im.define(name); err != nil {
			return err
		}
	}
	node := &subgraph.Node{Name: im.unique(nodeBase(n), im.nodes), Op: info.Pipert, Attrs: attrs, Inputs: inputs, Outputs: outputs}
	im.g.Nodes = append(im.g.Nodes, node)
	// What the outputs look like, when shapes and needed values are known.
	if known {
		for _, j := range deps.Value {
			if j < len(in) && in[j].Host == nil {
				known = false
			}
		}
	}
	if known && !deps.Compute {
		outs := make([]*kernel.Tensor, nOut)
		for j := range outs {
			outs[j] = &kernel.Tensor{}
		}
		if err := safeInfer(k, in, outs); err != nil {
			if im.parent == nil {
				return err
			}
			// In a branch or a loop body the node may never run (an If
			// branch not taken, a Loop of no iteration): its outputs
			// stay unknown, and the error comes at run time if it runs.
			return nil
		}
		for j, name := range outputs {
			im.known[name] = &kernel.Tensor{DType: outs[j].DType, Shape: outs[j].Shape}
		}
	} else if im.legacy != 0 && !deps.Compute {
		im.legacyRanks(k, in, outputs)
	}
	if op == "Shape" {
		im.shapeDims(n, in[0], outputs[0])
	}
	return nil
}

// legacyRanks records, in a model of opsets 1 to 6, the ranks of the
// outputs of a node whose inputs' shapes the import knows only in part
// (symbolic dimensions): the upgrade of later nodes needs their operands'
// ranks (legacy.go). The shapes are inferred twice, the unknown
// dimensions 1 and then 7 (7 and then 11 when 1 is too small for the
// node, a pool's window for one); an output's rank both agree on is kept,
// with the dimensions both agree on (the others unknown).
func (im *importer) legacyRanks(k kernel.Kernel, in []*kernel.Tensor, outputs []string) {
	if !im.legacyRanksWith(k, in, outputs, 1, 7) {
		im.legacyRanksWith(k, in, outputs, 7, 11)
	}
}

// legacyRanksWith is legacyRanks with the unknown dimensions subs[0] and
// then subs[1]; it reports whether both inferences succeeded.
func (im *importer) legacyRanksWith(k kernel.Kernel, in []*kernel.Tensor, outputs []string, subs ...int64) bool {
	var first []*kernel.Tensor
	for _, sub := range subs {
		ins := make([]*kernel.Tensor, len(in))
		for j, t := range in {
			if t == nil || t.Shape == nil {
				return false
			}
			c := *t
			if !t.Shape.Known() {
				c.Shape = t.Shape.Clone()
				for i, d := range c.Shape {
					if d == kernel.Dynamic {
						c.Shape[i] = sub
					}
				}
			}
			ins[j] = &c
		}
		for _, j := range k.Deps().Value {
			if j < len(ins) && ins[j].Host == nil {
				return false
			}
		}
		outs := make([]*kernel.Tensor, len(outputs))
		for j := range outs {
			outs[j] = &kernel.Tensor{}
		}
		if err := safeInfer(k, ins, outs); err != nil {
			return false
		}
		if first == nil {
			first = outs
			continue
		}
		for j, name := range outputs {
			a, b := first[j], outs[j]
			if a.Shape == nil || len(a.Shape) != len(b.Shape) || a.DType != b.DType || im.known[name] != nil {
				continue
			}
			sh := a.Shape.Clone()
			for i := range sh {
				if sh[i] != b.Shape[i] {
					sh[i] = kernel.Dynamic
				}
			}
			im.known[name] = &kernel.Tensor{DType: a.DType, Shape: sh}
		}
	}
	return true
}

// neverFold are the pipert ops the import never folds, even on known
// inputs (the generators have none): their outputs differ run after run
// (Dropout's in training mode).
var neverFold = map[string]bool{"RandomNormal": true, "RandomUniform": true, "RandomNormalLike": true,
	"RandomUniformLike": true, "Bernoulli": true, "Multinomial": true, "Dropout": true}

// reshapes are the pipert ops whose output holds the bytes of input 0
// under another shape: folded, the output aliases the input's data.
var reshapes = map[string]bool{"Reshape": true, "Flatten": true, "Squeeze": true, "Unsqueeze": true, "Identity": true}

// aliasFold folds a node of one of the reshapes: its output shape from
// InferShape, its data input 0's, shared (graph constants are read-only).
func aliasFold(k kernel.Kernel, name string, in []*kernel.Tensor) ([]*kernel.Tensor, error) {
	out := []*kernel.Tensor{{}}
	if err := safeInfer(k, in, out); err != nil {
		return nil, &kernel.Error{Node: name, Op: k.Op(), Stage: kernel.StageInfer, Err: err}
	}
	o := out[0]
	if o.DType != in[0].DType || o.NumElements() != in[0].NumElements() || int64(len(in[0].Host)) != o.Bytes() {
		// Not a pure reshape after all: compute it.
		outs, _, err := control.Run1(k, name, in, 1)
		return outs, err
	}
	h := in[0].Host
	o.Host = h[:len(h):len(h)]
	return out, nil
}

// foldLimit is the most elements a folded tensor may have, and foldFLOPs
// the most work a node folded at import may take: a node beyond either
// stays in the graph, so that a small file cannot make the import slow.
const (
	foldLimit = 1 << 22
	foldFLOPs = 1e8
)

// cheap reports whether folding k on in stays within the fold limits. A
// node whose shapes do not infer is left to Run1, which reports the error.
func cheap(k kernel.Kernel, in []*kernel.Tensor, nOut int) bool {
	outs := make([]*kernel.Tensor, nOut)
	for j := range outs {
		outs[j] = &kernel.Tensor{}
	}
	if safeInfer(k, in, outs) != nil {
		return true
	}
	for _, o := range outs {
		if !o.Shape.Known() || o.NumElements() > foldLimit {
			return false
		}
	}
	flops := math.Inf(1)
	func() {
		defer func() { _ = recover() }()
		flops = k.Cost(in, outs).FLOPs
	}()
	return flops <= foldFLOPs
}

func foldable(outs []*kernel.Tensor) bool {
	for _, t := range outs {
		if t.NumElements() > foldLimit {
			return false
		}
	}
	return true
}

func safeInfer(k kernel.Kernel, in, out []*kernel.Tensor) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("InferShape: %w: %v", kernel.ErrPanic, p)
		}
	}()
	return k.InferShape(in, out)
}

func nodeBase(n *Node) string {
	if n.Name != "" {
		return n.Name
	}
	if len(n.Outputs) > 0 && n.Outputs[0] != "" {
		return n.OpType + ":" + n.Outputs[0]
	}
	return n.OpType
}

// gatherBlockQuantized tells GatherBlockQuantized that its data and zero
// points hold one 4-bit value a byte when they are INT4 or UINT4 tensors,
// which the importer widened (ops.UnpackedAttr); uint8 data packs its
// values. Data and zero points must be of one kind.
func (im *importer) gatherBlockQuantized(n *Node, a kernel.Attrs) error {
	if _, set := a[ops.UnpackedAttr]; set {
		return fmt.Errorf("%w: attribute %q is pipert's own", ErrImport, ops.UnpackedAttr)
	}
	narrow := im.root().narrow
	four := len(n.Inputs) > 0 && narrow[n.Inputs[0]]
	if len(n.Inputs) > 3 && n.Inputs[3] != "" && narrow[n.Inputs[3]] != four {
		return fmt.Errorf("%w: GatherBlockQuantized: data %q and zero_points %q are not both 4-bit (INT4 or UINT4) tensors", ErrImport, n.Inputs[0], n.Inputs[3])
	}
	if four {
		a[ops.UnpackedAttr] = int64(1)
	}
	return nil
}

// attrs converts n's attributes, under their ONNX names, plus the opset.
func (im *importer) attrs(n *Node) (kernel.Attrs, error) {
	a := kernel.Attrs{kernel.OpsetAttr: im.opset}
	for _, at := range n.Attrs {
		if at.RefAttrName != "" {
			return nil, fmt.Errorf("%w: attribute %q refers to attribute %q of a function, outside a function", ErrImport, at.Name, at.RefAttrName)
		}
		switch at.Type {
		case AttrFloat:
			a[at.Name] = at.F
		case AttrInt:
			a[at.Name] = at.I
		case AttrString:
			a[at.Name] = string(at.S)
		case AttrFloats:
			a[at.Name] = at.Floats
		case AttrInts:
			a[at.Name] = at.Ints
		case AttrStrings:
			s := make([]string, len(at.Strings))
			for i, b := range at.Strings {
				s[i] = string(b)
			}
			a[at.Name] = s
		case AttrTensor:
			t, err := at.T.Kernel()
			if err != nil {
				return nil, fmt.Errorf("attribute %q: %w", at.Name, err)
			}
			a[at.Name] = t
		default:
			return nil, fmt.Errorf("%w: attribute %q of type %v", ErrUnsupported, at.Name, at.Type)
		}
	}
	if n.Domain == MLDomain {
		// The ops of ai.onnx.ml follow the domain's version.
		a[kernel.OpsetAttr] = im.mlOpset
	}
	if n.Domain == MSDomain && n.OpType == "QLinearSoftmax" && n.Attr(kernel.OpsetAttr) == nil {
		// Its "opset" is an attribute of its own, which the schema
		// requires: the model's opset does not stand in for it.
		return nil, fmt.Errorf("%w: attribute %q is required", ErrImport, kernel.OpsetAttr)
	}
	if n.Domain == MSDomain && n.OpType == "GridSample" {
		// com.microsoft's GridSample is the default domain's at opset 16,
		// whatever the model's default-domain opset.
		a[kernel.OpsetAttr] = int64(16)
	}
	if n.Domain == MSDomain && n.OpType == "GatherBlockQuantized" {
		if err := im.gatherBlockQuantized(n, a); err != nil {
			return nil, err
		}
	}
	if n.Domain == MSDomain && n.OpType == "DynamicQuantizeLSTM" {
		// Whether Y is computed changes what onnxruntime quantizes.
		if _, set := a[ops.NoYAttr]; set {
			return nil, fmt.Errorf("%w: attribute %q is pipert's own", ErrImport, ops.NoYAttr)
		}
		if len(n.Outputs) == 0 || n.Outputs[0] == "" {
			a[ops.NoYAttr] = int64(1)
		}
	}
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return a, nil
	}
	if n.OpType == "SimplifiedLayerNormalization" || n.OpType == "LayerNormalization" && im.opset < 17 {
		// onnxruntime's own schemas of these default-domain ops allow
		// attributes they do not define (AllowUncheckedAttributes), and
		// exporters wrote some: a misspelled "epsion" in BERT and GPT-2
		// exports. onnxruntime ignores them; so does the import.
		for k := range a {
			switch k {
			case kernel.OpsetAttr, "axis", "epsilon", "stash_type":
			default:
				delete(a, k)
			}
		}
	}
	if n.OpType == "BatchNormalization" {
		if _, set := a[ops.TrainingAttr]; set {
			return nil, fmt.Errorf("%w: attribute %q is pipert's own", ErrImport, ops.TrainingAttr)
		}
		// Before opset 14 the outputs say the mode: Y alone in
		// inference, all five (running and saved statistics) in
		// training. Before opset 7 training stays refused.
		if outs := len(n.Outputs); im.opset >= 7 && im.opset < 14 && outs > 1 {
			if outs != 5 {
				return nil, fmt.Errorf("%w: BatchNormalization of opset %d has %d outputs, want 1 (inference) or 5 (training)", ErrImport, im.opset, outs)
			}
			a[ops.TrainingAttr] = int64(1)
		}
	}
	if name := dtypeAttrs[n.OpType]; name != "" {
		if dt, ok := a[name].(int64); ok {
			d, ok := DataType(dt).DType()
			if !ok {
				return nil, fmt.Errorf("%w: %s of %s %v", ErrUnsupported, n.OpType, name, DataType(dt))
			}
			a[name] = d
		}
	}
	if n.OpType == "Gelu" {
		// ONNX's default is the exact form; pipert's GELU defaults to tanh.
		if _, ok := a["approximate"]; !ok {
			a["approximate"] = "none"
		}
	}
	if n.OpType == "Unique" {
		// ONNX's form, with every output (those the node lacks are unused).
		a["outputs"] = int64(4)
	}
	if n.OpType == "Split" {
		// pipert's num_outputs is the node's output count. From opset 18
		// num_outputs is also an ONNX attribute, present exactly when the
		// split input is not, and then the node's output count.
		v, has := a["num_outputs"]
		hasSplit := len(n.Inputs) > 1 && n.Inputs[1] != ""
		switch {
		case has && im.opset < 18:
			return nil, fmt.Errorf("%w: Split has attribute num_outputs, which is from opset 18 (the model's is %d)", ErrImport, im.opset)
		case im.opset < 18:
		case has && hasSplit:
			return nil, fmt.Errorf("%w: Split has both the split input and attribute num_outputs", ErrImport)
		case !has && !hasSplit:
			return nil, fmt.Errorf("%w: Split has neither the split input nor attribute num_outputs (one is required from opset 18)", ErrImport)
		case has && v != int64(len(n.Outputs)):
			return nil, fmt.Errorf("%w: Split has num_outputs %v and %d outputs", ErrImport, v, len(n.Outputs))
		}
		a["num_outputs"] = int64(len(n.Outputs))
	}
	if n.OpType == "Cast" {
		to, ok := a["to"].(int64)
		if !ok {
			return nil, fmt.Errorf("%w: Cast without an integer attribute \"to\"", ErrImport)
		}
		dt, ok := DataType(to).DType()
		if !ok {
			return nil, fmt.Errorf("%w: Cast to %v", ErrUnsupported, DataType(to))
		}
		a["to"] = dt
	}
	return a, nil
}

// dtypeAttrs names, by op, the attribute holding a TensorProto data type,
// which the import maps to a pipert dtype.
var dtypeAttrs = map[string]string{
	"BitCast": "to", "EyeLike": "dtype", "HannWindow": "output_datatype", "HammingWindow": "output_datatype",
	"BlackmanWindow": "output_datatype", "MelWeightMatrix": "output_datatype",
}

// loopNode imports a Loop: its body becomes a subgraph whose inputs are
// the iteration number, the condition, the carried values and then the
// outer tensors it reads, which the node passes after its own inputs.
func (im *importer) loopNode(n *Node) error {
	at := n.Attr("body")
	if at == nil || at.G == nil {
		return fmt.Errorf("%w: a Loop needs a body graph", ErrImport)
	}
	body := at.G
	if len(n.Inputs) < 2 {
		return fmt.Errorf("%w: a Loop has inputs M and cond (either may be empty)", ErrImport)
	}
	carried := len(n.Inputs) - 2
	if len(body.Inputs) != 2+carried || len(body.Outputs) < 1+carried || len(n.Outputs) != len(body.Outputs)-1 {
		return fmt.Errorf("%w: Loop with %d carried values: its body has %d inputs and %d outputs, the node %d outputs",
			ErrImport, carried, len(body.Inputs), len(body.Outputs), len(n.Outputs))
	}
	inputs := make([]string, len(n.Inputs))
	for i, name := range n.Inputs {
		if name == "" && i < 2 {
			// Absent M or cond: a zero-element operand.
			empty := im.unique(nodeBase(n)+"/absent", im.used)
			dt := kernel.Int64
			if i == 1 {
				dt = kernel.Bool
			}
			t := &kernel.Tensor{DType: dt, Shape: kernel.Shape{0}, Host: []byte{}}
			im.g.Consts = append(im.g.Consts, subgraph.Const{Name: empty, Tensor: t})
			im.known[empty] = t
			inputs[i] = empty
			continue
		}
		r, err := im.tensor(name)
		if err != nil {
			return err
		}
		inputs[i] = r
	}
	types := make([]kernel.DType, len(body.Inputs))
	types[0], types[1] = kernel.Int64, kernel.Bool
	for i := 2; i < len(types); i++ {
		if m := im.known[inputs[i]]; m != nil {
			types[i] = m.DType
		}
	}
	// The scan outputs' declared dtypes, for a loop of no iteration whose
	// body the static inference cannot follow.
	scanDT := make([]int64, len(body.Outputs)-1-carried)
	for j, o := range body.Outputs[1+carried:] {
		if dt, ok := o.DataType.DType(); ok && !o.NotTensor {
			scanDT[j] = int64(dt)
		}
	}
	sub, err := im.subBody(n, body, types)
	if err != nil {
		return err
	}
	return im.addBody(n, "Loop", sub, inputs, kernel.Attrs{control.LoopCarried: int64(carried), control.LoopScanTypes: scanDT,
		control.LoopScanShapes: emptyScanShapes(sub, body, carried)})
}

// emptyScanShapes gives the element shapes of the scan outputs of a Loop
// whose body sub imported (carried values before them) as onnxruntime
// gives its empty stacks when it runs no iteration, encoded as
// control.LoopScanShapes: the shape the body's static inference gives —
// its carried values of the shapes the body declares (not the outer ones:
// a carried value may change shape from one iteration to the next), the
// outer tensors it reads as the import knows them —, else the shape the
// body declares for the output, a dimension it leaves free 0; none (a
// stack of shape [0]) when neither is known.
func emptyScanShapes(sub *importer, body *Graph, carried int) []int64 {
	g := *sub.g
	g.Inputs, g.Consts = nil, slices.Clone(sub.g.Consts)
	for i, v := range sub.g.Inputs {
		switch m := sub.known[v.Name]; {
		case i < 2:
			v.Shape = kernel.Shape{} // the iteration number and the condition
		case i < 2+carried:
			v.Shape = declaredShape(body.Inputs[i], kernel.Dynamic)
			if v.Shape == nil {
				v.Shape = kernel.Shape{kernel.Dynamic}
			}
		case m != nil && m.Host != nil && m.Shape != nil && m.Shape.Known():
			g.Consts = append(g.Consts, subgraph.Const{Name: v.Name, Tensor: m})
			continue
		case m == nil || m.Shape == nil:
			v.Shape = kernel.Shape{kernel.Dynamic}
		}
		g.Inputs = append(g.Inputs, v)
	}
	c, err := subgraph.Validate(&g, sub.res)
	var enc []int64
	for j, o := range body.Outputs[1+carried:] {
		sh := declaredShape(o, 0)
		if err == nil {
			if m, ok := c.Meta[g.Outputs[1+carried+j]]; ok {
				sh = m.Shape
			}
		}
		if sh == nil {
			enc = append(enc, -1)
			continue
		}
		enc = append(append(enc, int64(len(sh))), sh...)
	}
	return enc
}

// declaredShape is the shape vi declares, free a dimension it leaves free
// (a named or unknown one); nil if it declares none.
func declaredShape(vi *ValueInfo, free int64) kernel.Shape {
	if !vi.HasShape {
		return nil
	}
	sh := make(kernel.Shape, len(vi.Dims))
	for i, d := range vi.Dims {
		sh[i] = free
		if d.Known {
			sh[i] = d.Value
		}
	}
	return sh
}

// bodyNode adds node n as a control node of op whose body (typed by
// types) reads inputs, then the outer tensors it captures; attrs gain the
// body.
func (im *importer) bodyNode(n *Node, op string, body *Graph, inputs []string, types []kernel.DType, attrs kernel.Attrs) error {
	sub, err := im.subBody(n, body, types)
	if err != nil {
		return err
	}
	return im.addBody(n, op, sub, inputs, attrs)
}

// addBody adds node n as a control node of op whose body sub imported,
// reading inputs, then the outer tensors the body captures; attrs gain the
// body.
func (im *importer) addBody(n *Node, op string, sub *importer, inputs []string, attrs kernel.Attrs) error {
	outputs, err := im.bodyOutputs(n)
	if err != nil {
		return err
	}
	attrs[control.LoopBody] = sub.g
	im.g.Nodes = append(im.g.Nodes, &subgraph.Node{Name: im.unique(nodeBase(n), im.nodes), Op: op,
		Inputs: append(inputs, sub.outer...), Outputs: outputs, Attrs: attrs})
	return nil
}

// subBody imports body, the graph attribute of node n, as a subgraph: its
// declared inputs first (types gives the dtype of those the body leaves
// untyped, 0 when unknown: an error), then the outer tensors it reads as
// captures (sub.outer names them in the parent). A tensor the body
// outputs twice is copied by an Identity node.
func (im *importer) subBody(n *Node, body *Graph, types []kernel.DType) (*importer, error) {
	sub := &importer{opset: im.opset, legacy: im.legacy, msOpset: im.msOpset, mlOpset: im.mlOpset, domains: im.domains, res: im.res, fold: im.fold, parent: im,
		g: &subgraph.Graph{Name: nodeBase(n) + "/body"}, known: map[string]*kernel.Tensor{}, used: map[string]bool{}, nodes: map[string]bool{}}
	var unsq [][2]string // inputs given unsqueezed: the subgraph's input, the body's name
	for i, v := range body.Inputs {
		if v.NotTensor {
			return nil, fmt.Errorf("%w: %s body input %q is not a tensor (sequences and optionals are not implemented)", ErrUnsupported, n.OpType, v.Name)
		}
		dt, ok := v.DataType.DType()
		if t := types[i]; t != 0 && (i < 2 && n.OpType == "Loop" || !ok) {
			dt, ok = t, true
		}
		if !ok {
			return nil, fmt.Errorf("%w: %s body input %q has no tensor type pipert takes", ErrUnsupported, n.OpType, v.Name)
		}
		if n.OpType == "Loop" && i < 2 && v.HasShape && len(v.Dims) == 1 && (!v.Dims[0].Known || v.Dims[0].Value == 1) {
			// A body declaring its iteration number or condition of
			// shape [1] (older tf2onnx and keras2onnx exports) is given
			// it of that shape, as onnxruntime gives it: the Loop's
			// scalar unsqueezed in the body.
			scalar := sub.fresh(v.Name + "/scalar")
			sub.used[scalar] = true
			sub.g.Inputs = append(sub.g.Inputs, subgraph.Value{Name: scalar, DType: dt, Shape: kernel.Shape{kernel.Dynamic}})
			unsq = append(unsq, [2]string{scalar, v.Name})
			continue
		}
		sub.used[v.Name] = true
		sub.g.Inputs = append(sub.g.Inputs, subgraph.Value{Name: v.Name, DType: dt, Shape: kernel.Shape{kernel.Dynamic}})
		if im.legacy != 0 && v.HasShape {
			// A model of opsets 1 to 6 upgrades some nodes by the ranks
			// of their operands (legacy.go): the rank the body declares,
			// its dimensions unknown (a carried value may change them
			// from one iteration to the next).
			sh := make(kernel.Shape, len(v.Dims))
			for j := range sh {
				sh[j] = kernel.Dynamic
			}
			sub.known[v.Name] = &kernel.Tensor{DType: dt, Shape: sh}
		}
	}
	for _, u := range unsq {
		if err := sub.axesNode("Unsqueeze", u[0], u[1], 0); err != nil {
			return nil, fmt.Errorf("body: input %q: %w", u[1], err)
		}
	}
	if err := sub.body(body, nil); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	for _, o := range body.Outputs {
		name, err := sub.tensor(o.Name)
		if err != nil {
			return nil, fmt.Errorf("body: output %q: %w", o.Name, err)
		}
		sub.output(name)
	}
	return sub, nil
}

// output appends tensor name to the outputs of a body or branch. A tensor
// already among them (one tensor as two outputs: carried and scanned, or
// two Identity nodes folded into one name) is copied by an Identity node.
func (sub *importer) output(name string) {
	if slices.Contains(sub.g.Outputs, name) {
		cp := sub.unique(name+"/copy", sub.used)
		sub.g.Nodes = append(sub.g.Nodes, &subgraph.Node{Name: sub.unique("Identity:"+cp, sub.nodes), Op: "Identity",
			Attrs: kernel.Attrs{}, Inputs: []string{name}, Outputs: []string{cp}})
		name = cp
	}
	sub.g.Outputs = append(sub.g.Outputs, name)
}

// bodyOutputs defines the outputs of a Loop or Scan node, naming those
// the node leaves empty.
func (im *importer) bodyOutputs(n *Node) ([]string, error) {
	outputs := make([]string, len(n.Outputs))
	for i, o := range n.Outputs {
		if o == "" {
			o = im.unique(nodeBase(n)+"/unused", im.used)
		}
		var err error
		if outputs[i], err = im.define(o); err != nil {
			return nil, err
		}
	}
	return outputs, nil
}

// scanNode imports a Scan: its body becomes a subgraph whose inputs are
// the states, the scan slices and then the outer tensors it reads, which
// the node passes after its own inputs. Opset 8's form (a batch axis,
// sequence_lens first, "directions") becomes a batched Scan.
func (im *importer) scanNode(n *Node) error {
	at := n.Attr("body")
	if at == nil || at.G == nil {
		return fmt.Errorf("%w: a Scan needs a body graph", ErrImport)
	}
	plain := *n // the attributes but the body
	plain.Attrs = nil
	for _, a := range n.Attrs {
		if a.Name != "body" {
			plain.Attrs = append(plain.Attrs, a)
		}
	}
	attrs, err := im.attrs(&plain)
	if err != nil {
		return err
	}
	nodeIn := n.Inputs
	batched := im.opset < 9
	var lens string
	if batched {
		// Opset 8: sequence_lens first (optional), a batch axis on every
		// state and scan input, the input directions as "directions".
		if len(nodeIn) == 0 {
			return fmt.Errorf("%w: a Scan of opset 8 needs its sequence_lens input (empty if absent)", ErrImport)
		}
		lens, nodeIn = nodeIn[0], nodeIn[1:]
		attrs[control.ScanBatched] = int64(1)
		if d, ok := attrs["directions"]; ok {
			attrs[control.ScanInputDirections] = d
			delete(attrs, "directions")
		}
	}
	m, ok := attrs[control.ScanInputs].(int64)
	if !ok || m < 1 || int(m) > len(nodeIn) {
		return fmt.Errorf("%w: Scan attribute num_scan_inputs %v for %d inputs", ErrImport, attrs[control.ScanInputs], len(nodeIn))
	}
	body := at.G
	states := len(nodeIn) - int(m)
	if len(body.Inputs) != len(nodeIn) || len(body.Outputs) != len(n.Outputs) {
		return fmt.Errorf("%w: Scan body with %d inputs and %d outputs, the node %d and %d", ErrImport, len(body.Inputs), len(body.Outputs), len(nodeIn), len(n.Outputs))
	}
	var inputs []string
	if lens != "" {
		r, err := im.tensor(lens)
		if err != nil {
			return err
		}
		inputs = append(inputs, r)
		attrs[control.ScanSequenceLens] = int64(1)
	}
	types := make([]kernel.DType, len(nodeIn))
	for i, name := range nodeIn {
		r, err := im.tensor(name)
		if err != nil {
			return err
		}
		inputs = append(inputs, r)
		if k := im.known[r]; k != nil {
			types[i] = k.DType
		}
	}
	attrs[control.LoopCarried] = int64(states)
	return im.bodyNode(n, "Scan", body, inputs, types, attrs)
}

// constant imports a Constant node as a graph constant.
func (im *importer) constant(n *Node) error {
	if len(n.Outputs) != 1 || len(n.Attrs) != 1 {
		return fmt.Errorf("%w: a Constant needs one output and exactly one attribute", ErrImport)
	}
	at := n.Attrs[0]
	if at.RefAttrName != "" {
		return fmt.Errorf("%w: Constant attribute %q refers to attribute %q of a function, outside a function", ErrImport, at.Name, at.RefAttrName)
	}
	if want, ok := constantAttrTypes[at.Name]; ok && at.Type != want {
		return fmt.Errorf("%w: Constant attribute %q is a %v, want a %v", ErrImport, at.Name, at.Type, want)
	}
	var t *kernel.Tensor
	switch at.Name {
	case "value", "sparse_value": // a sparse value is read dense (parseSparse)
		if at.T == nil {
			return fmt.Errorf("%w: Constant %s is not a tensor", ErrImport, at.Name)
		}
		k, err := at.T.Kernel()
		if err != nil {
			return err
		}
		t = k
	case "value_float":
		t = kernel.FromFloat32([]float32{at.F})
	case "value_floats":
		t = kernel.FromFloat32(slices.Clone(at.Floats), int64(len(at.Floats)))
	case "value_int":
		t = kernel.New(kernel.Int64)
		kernel.Int64s(t.Host)[0] = at.I
	case "value_ints":
		t = kernel.New(kernel.Int64, int64(len(at.Ints)))
		copy(kernel.Int64s(t.Host), at.Ints)
	default:
		return fmt.Errorf("%w: Constant attribute %q", ErrUnsupported, at.Name)
	}
	_, err := im.constOut(n.Outputs[0], t)
	return err
}

// identity makes an Identity's output another name of its input.
func (im *importer) identity(n *Node) error {
	if len(n.Inputs) != 1 || len(n.Outputs) != 1 {
		return fmt.Errorf("%w: an Identity has one input and one output", ErrImport)
	}
	in, err := im.resolve(n.Inputs[0])
	if err != nil {
		return err
	}
	if s := im.seqOf(in); s != nil {
		if im.opset < 14 {
			return fmt.Errorf("%w: Identity of a sequence at opset %d (from 14)", ErrImport, im.opset)
		}
		return im.defineSeq(n.Outputs[0], s)
	}
	return im.aliasAs(n.Outputs[0], in)
}

// function returns the local function node n calls, or nil. A standard
// op of the default domain is never a local function's call.
func (im *importer) function(n *Node) *Function {
	if n.Domain == "" || n.Domain == "ai.onnx" {
		if _, std := table[n.OpType]; std { // the ops the import resolves itself included
			return nil
		}
	}
	for p := im; p != nil; p = p.parent {
		if p.funcs != nil {
			return p.funcs[funcKey{n.Domain, n.OpType, n.Overload}]
		}
	}
	return nil
}

// call inlines node n, a call of local function f: f's nodes are imported
// in a scope of their own where f's formal inputs name n's actual ones,
// with n's attributes (or f's defaults) in place of the attributes that
// refer to them; n's outputs then name what f's outputs computed.
func (im *importer) call(n *Node, f *Function) error {
	depth := 0
	for p := im; p != nil; p = p.parent { // calls inlined in enclosing graphs too
		if slices.Contains(p.calls, f) {
			return fmt.Errorf("%w: function %s calls itself", ErrImport, f.Name)
		}
		depth += len(p.calls)
	}
	if depth >= maxCallDepth {
		return fmt.Errorf("%w: function %s nests deeper than %d calls", ErrImport, f.Name, maxCallDepth)
	}
	root := im
	for root.parent != nil {
		root = root.parent
	}
	if root.inlined += len(f.Nodes); root.inlined > maxInlined {
		// Each function calling the next twice doubles the nodes a
		// call stands for: a small file could ask for billions.
		return fmt.Errorf("%w: function calls stand for more than %d nodes (function %s)", ErrImport, maxInlined, f.Name)
	}
	for _, a := range n.Attrs {
		if a != nil && !slices.Contains(f.Attrs, a.Name) && !slices.ContainsFunc(f.AttrDefaults, func(d *Attribute) bool { return d != nil && d.Name == a.Name }) {
			return fmt.Errorf("%w: call of function %s with attribute %q, which it does not declare", ErrImport, f.Name, a.Name)
		}
	}
	if len(n.Inputs) > len(f.Inputs) || len(n.Outputs) > len(f.Outputs) {
		return fmt.Errorf("%w: call of function %s with %d inputs and %d outputs, it has %d and %d",
			ErrImport, f.Name, len(n.Inputs), len(n.Outputs), len(f.Inputs), len(f.Outputs))
	}
	rename := map[string]string{}
	absent := map[string]bool{}
	for i, formal := range f.Inputs {
		if i >= len(n.Inputs) || n.Inputs[i] == "" {
			absent[formal] = true
			continue
		}
		actual, err := im.resolve(n.Inputs[i])
		if err != nil {
			return err
		}
		rename[formal] = actual
	}
	body := &Graph{Name: f.Name}
	for _, fn := range f.Nodes {
		if fn == nil {
			return fmt.Errorf("%w: function %s has a nil node", ErrImport, f.Name)
		}
		c := bindNode(fn, n, f)
		for j, in := range c.Inputs {
			if absent[in] {
				c.Inputs[j] = "" // an optional input the call omits
			}
		}
		body.Nodes = append(body.Nodes, c)
	}
	opset, legacy, msOpset, mlOpset := im.opset, im.legacy, im.msOpset, im.mlOpset
	v, ok := f.Opsets[""]
	if !ok {
		v, ok = f.Opsets["ai.onnx"]
	}
	if ok {
		if v < 1 || v > MaxOpset {
			return fmt.Errorf("%w: function %s imports default-domain opset %d (have 1 to %d)", ErrUnsupported, f.Name, v, MaxOpset)
		}
		im.opset, im.legacy = v, legacyOf(v)
	}
	if v, ok := f.Opsets[MSDomain]; ok {
		im.msOpset = v // checked by the function's nodes of the domain
	}
	if v, ok := f.Opsets[MLDomain]; ok {
		im.mlOpset = v // checked by the function's nodes of the domain
	}
	im.calls = append(im.calls, f)
	err := im.body(body, rename)
	im.calls, im.opset, im.legacy, im.msOpset, im.mlOpset = im.calls[:len(im.calls)-1], opset, legacy, msOpset, mlOpset
	if err != nil {
		return fmt.Errorf("function %s: %w", f.Name, err)
	}
	return im.bindOutputs(n.Outputs, f.Outputs, rename)
}

// bindNode copies fn, a node of function f's body, with the attributes
// that refer to f's attributes bound to call's (or f's defaults; dropped
// when neither gives one), in the subgraphs of its attributes too.
func bindNode(fn, call *Node, f *Function) *Node {
	c := *fn
	c.Inputs = slices.Clone(fn.Inputs)
	c.Attrs = nil
	for _, a := range fn.Attrs {
		if a == nil {
			c.Attrs = append(c.Attrs, a)
			continue
		}
		if a.RefAttrName == "" {
			if a.G == nil && len(a.Graphs) == 0 {
				c.Attrs = append(c.Attrs, a)
				continue
			}
			b := *a
			b.G = bindGraph(a.G, call, f)
			b.Graphs = nil
			for _, g := range a.Graphs {
				b.Graphs = append(b.Graphs, bindGraph(g, call, f))
			}
			c.Attrs = append(c.Attrs, &b)
			continue
		}
		v := call.Attr(a.RefAttrName)
		if v == nil {
			for _, d := range f.AttrDefaults {
				if d != nil && d.Name == a.RefAttrName {
					v = d
				}
			}
		}
		if v == nil {
			continue // neither given nor defaulted: the attribute is absent
		}
		bound := *v
		bound.Name, bound.RefAttrName = a.Name, ""
		c.Attrs = append(c.Attrs, &bound)
	}
	return &c
}

// bindGraph copies g, a subgraph inside function f's body, with bindNode
// applied to its nodes.
func bindGraph(g *Graph, call *Node, f *Function) *Graph {
	if g == nil {
		return nil
	}
	c := *g
	c.Nodes = make([]*Node, len(g.Nodes))
	for i, n := range g.Nodes {
		if n != nil {
			c.Nodes[i] = bindNode(n, call, f)
		}
	}
	return &c
}

// bindOutputs defines outs, the outputs of an inlined node, as other names
// of what names computed in scope.
func (im *importer) bindOutputs(outs, names []string, scope map[string]string) error {
	im.scopes = append(im.scopes, scope)
	srcs := make([]string, len(outs))
	for i, o := range outs {
		if o == "" {
			continue
		}
		var err error
		if srcs[i], err = im.resolve(names[i]); err != nil {
			im.scopes = im.scopes[:len(im.scopes)-1]
			return err
		}
	}
	im.scopes = im.scopes[:len(im.scopes)-1]
	for i, o := range outs {
		if o == "" {
			continue
		}
		local, err := im.define(o)
		if err != nil {
			return err
		}
		if im.alias == nil {
			im.alias = map[string]string{}
		}
		im.alias[local] = srcs[i]
		im.known[local] = im.known[srcs[i]]
	}
	return nil
}

// constantAttrTypes is the type of each Constant attribute pipert reads.
var constantAttrTypes = map[string]AttrType{"value": AttrTensor, "sparse_value": AttrSparseTensor, "value_float": AttrFloat, "value_floats": AttrFloats,
	"value_int": AttrInt, "value_ints": AttrInts}

// ifNode inlines an If whose condition folds, or imports it as a runtime
// If with its branches as subgraphs.
func (im *importer) ifNode(n *Node) error {
	thenG, elseG := n.Attr("then_branch"), n.Attr("else_branch")
	if thenG == nil || thenG.G == nil || elseG == nil || elseG.G == nil {
		return fmt.Errorf("%w: an If needs then_branch and else_branch graphs", ErrImport)
	}
	if a, b := len(thenG.G.Outputs), len(elseG.G.Outputs); a != b || a != len(n.Outputs) {
		return fmt.Errorf("%w: If branches have %d and %d outputs, the node %d", ErrImport, a, b, len(n.Outputs))
	}
	for i, o := range thenG.G.Outputs {
		a, b := o.DataType, elseG.G.Outputs[i].DataType
		if a != Undefined && b != Undefined && a != b {
			return fmt.Errorf("%w: If output %d is %v in then_branch and %v in else_branch", ErrImport, i, a, b)
		}
	}
	if len(n.Inputs) != 1 {
		return fmt.Errorf("%w: an If has one input", ErrImport)
	}
	cond, err := im.tensor(n.Inputs[0])
	if err != nil {
		return err
	}
	if c := im.known[cond]; c != nil && c.Host != nil && len(c.Host) > 0 && im.fold {
		taken := elseG.G
		if c.Host[0] != 0 {
			taken = thenG.G
		}
		rename := map[string]string{}
		if err := im.body(taken, rename); err != nil {
			return fmt.Errorf("inlined branch %q: %w", taken.Name, err)
		}
		names := make([]string, len(taken.Outputs))
		for i, o := range taken.Outputs {
			names[i] = o.Name
		}
		return im.bindOutputs(n.Outputs, names, rename)
	}
	// A runtime If: each branch becomes a subgraph whose inputs are the
	// outer tensors it reads; the node passes the union of both.
	branches := [2]*importer{}
	for i, at := range []*Attribute{thenG, elseG} {
		sub := &importer{opset: im.opset, legacy: im.legacy, msOpset: im.msOpset, mlOpset: im.mlOpset, domains: im.domains, res: im.res, fold: im.fold, parent: im,
			g: &subgraph.Graph{Name: nodeBase(n) + "/" + at.Name}, known: map[string]*kernel.Tensor{}, used: map[string]bool{}, nodes: map[string]bool{}}
		if err := sub.body(at.G, nil); err != nil {
			return fmt.Errorf("branch %s: %w", at.Name, err)
		}
		for _, o := range at.G.Outputs {
			name, err := sub.tensor(o.Name)
			if err != nil {
				return fmt.Errorf("branch %s: output %q: %w", at.Name, o.Name, err)
			}
			sub.output(name)
		}
		branches[i] = sub
	}
	// Both branches declare every capture, in one order.
	var caps, outer []string
	for _, b := range branches {
		for j, c := range b.outer {
			if !slices.Contains(outer, c) {
				outer = append(outer, c)
				caps = append(caps, b.captures[j])
			}
		}
	}
	for _, b := range branches {
		byOuter := map[string]subgraph.Value{}
		for j, c := range b.outer {
			byOuter[c] = b.g.Inputs[j]
		}
		b.g.Inputs = b.g.Inputs[:0]
		for j, c := range outer {
			v, ok := byOuter[c]
			if !ok {
				v = subgraph.Value{Name: im.unique(caps[j]+"/unread", b.used), DType: kernel.Float32}
				if m := im.known[c]; m != nil {
					v.DType, v.Shape = m.DType, m.Shape.Clone()
				}
			}
			b.g.Inputs = append(b.g.Inputs, v)
		}
	}
	outputs := make([]string, len(n.Outputs))
	for i, o := range n.Outputs {
		if outputs[i], err = im.define(o); err != nil {
			return err
		}
		// An output both branches give with one known shape and dtype has
		// them, whichever branch runs.
		t, e := branches[0].known[branches[0].g.Outputs[i]], branches[1].known[branches[1].g.Outputs[i]]
		if t != nil && e != nil && t.Shape != nil && t.Shape.Known() && t.DType == e.DType && t.Shape.Equal(e.Shape) {
			im.known[outputs[i]] = &kernel.Tensor{DType: t.DType, Shape: t.Shape.Clone()}
		}
	}
	im.g.Nodes = append(im.g.Nodes, &subgraph.Node{Name: im.unique(nodeBase(n), im.nodes), Op: "If",
		Inputs: append([]string{cond}, outer...), Outputs: outputs,
		Attrs: kernel.Attrs{control.ThenBranch: branches[0].g, control.ElseBranch: branches[1].g}})
	return nil
}

// root is the importer of the model's main graph.
func (im *importer) root() *importer {
	for im.parent != nil {
		im = im.parent
	}
	return im
}
