package subgraph_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

func reg() kernel.Resolver { return ops.Builtins() }

// chain builds x -> Add(x, x) -> ReLU -> out.
func chain() *subgraph.Builder {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 2, 3)
	y := b.Op("Add", x, x)
	b.Output(b.Op("ReLU", y))
	return b
}

func TestValidGraph(t *testing.T) {
	c, err := subgraph.Validate(chain().Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Order) != 2 || c.Order[0] != 0 || c.Order[1] != 1 {
		t.Fatalf("order %v", c.Order)
	}
	if m := c.Meta["relu_0:0"]; m == nil || !m.Shape.Equal(kernel.Shape{2, 3}) || m.DType != kernel.Float32 {
		t.Fatalf("inferred output %v", m)
	}
}

func TestOrderIsDeterministicAndTopological(t *testing.T) {
	// Nodes inserted out of dependency order: b's input comes from c.
	g := &subgraph.Graph{
		Name:   "g",
		Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{4}}},
		Nodes: []*subgraph.Node{
			{Name: "a", Op: "ReLU", Inputs: []string{"x"}, Outputs: []string{"ta"}},
			{Name: "b", Op: "Add", Inputs: []string{"ta", "tc"}, Outputs: []string{"tb"}},
			{Name: "c", Op: "ReLU", Inputs: []string{"x"}, Outputs: []string{"tc"}},
			{Name: "d", Op: "ReLU", Inputs: []string{"x"}, Outputs: []string{"td"}},
		},
		Outputs: []string{"tb", "td"},
	}
	for i := 0; i < 20; i++ {
		c, err := subgraph.Validate(g, reg())
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Order; len(got) != 4 || got[0] != 0 || got[1] != 2 || got[2] != 1 || got[3] != 3 {
			t.Fatalf("order %v, want [0 2 1 3]", got)
		}
	}
}

func TestValidationErrorsNameTheNode(t *testing.T) {
	x := subgraph.Value{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{2, 3}}
	i := subgraph.Value{Name: "i", DType: kernel.Int64, Shape: kernel.Shape{2, 3}}
	node := func(name, op string, in []string, out ...string) *subgraph.Node {
		return &subgraph.Node{Name: name, Op: op, Inputs: in, Outputs: out}
	}
	cases := []struct {
		name  string
		g     *subgraph.Graph
		cause error
		node  string
		text  string
	}{
		{"cycle", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "Add", []string{"x", "tb"}, "ta"),
			node("b", "ReLU", []string{"ta"}, "tb"),
		}, Outputs: []string{"tb"}}, subgraph.ErrCycle, "", "a -> b"},
		{"dangling input", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "Add", []string{"x", "nowhere"}, "ta"),
		}, Outputs: []string{"ta"}}, subgraph.ErrDangling, "a", "nowhere"},
		{"duplicate tensor", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "ReLU", []string{"x"}, "t"),
			node("b", "ReLU", []string{"x"}, "t"),
		}, Outputs: []string{"t"}}, subgraph.ErrDuplicate, "b", `"t" is also produced by node "a"`},
		{"tensor output twice by one node", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "ReLU", []string{"x"}, "u"),
			{Name: "b", Op: "Split", Inputs: []string{"u"}, Outputs: []string{"t", "t"}, Attrs: kernel.Attrs{"num_outputs": int64(2)}},
		}, Outputs: []string{"t"}}, subgraph.ErrDuplicate, "b", `"t" is also produced by node "b"`},
		{"output shadows input", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "ReLU", []string{"x"}, "x"),
		}, Outputs: []string{"x"}}, subgraph.ErrDuplicate, "a", "graph input"},
		{"duplicate node", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "ReLU", []string{"x"}, "t1"),
			node("a", "ReLU", []string{"x"}, "t2"),
		}, Outputs: []string{"t1"}}, subgraph.ErrDuplicate, "a", "node name"},
		{"unknown op", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "Frobnicate", []string{"x"}, "t"),
		}, Outputs: []string{"t"}}, subgraph.ErrUnknownOp, "a", "Frobnicate"},
		{"too few inputs", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "Add", []string{"x"}, "t"),
		}, Outputs: []string{"t"}}, subgraph.ErrArity, "a", "1 inputs"},
		{"too many outputs", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "ReLU", []string{"x"}, "t", "u"),
		}, Outputs: []string{"t"}}, subgraph.ErrArity, "a", "2 outputs"},
		{"dtype mismatch", &subgraph.Graph{Inputs: []subgraph.Value{x, i}, Nodes: []*subgraph.Node{
			node("a", "ReLU", []string{"x"}, "t"),
			node("b", "Add", []string{"t", "i"}, "u"),
		}, Outputs: []string{"u"}}, subgraph.ErrInferShape, "b", ""},
		{"rank mismatch", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			node("a", "MatMul", []string{"x", "x"}, "t"),
		}, Outputs: []string{"t"}}, subgraph.ErrInferShape, "a", ""},
		{"bad attribute", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{
			{Name: "a", Op: "Softmax", Attrs: kernel.Attrs{"axis": "last"}, Inputs: []string{"x"}, Outputs: []string{"t"}},
		}, Outputs: []string{"t"}}, subgraph.ErrBadNode, "a", "axis"},
		{"no outputs", &subgraph.Graph{Inputs: []subgraph.Value{x}}, subgraph.ErrBadOutput, "", "no outputs"},
		{"unknown output", &subgraph.Graph{Inputs: []subgraph.Value{x}, Outputs: []string{"y"}}, subgraph.ErrBadOutput, "", `"y"`},
		{"bad input dtype", &subgraph.Graph{Inputs: []subgraph.Value{{Name: "x", Shape: kernel.Shape{1}}}, Outputs: []string{"x"}}, subgraph.ErrBadInput, "", "dtype"},
		{"duplicate input", &subgraph.Graph{Inputs: []subgraph.Value{x, x}, Outputs: []string{"x"}}, subgraph.ErrDuplicate, "", `"x"`},
		{"const without data size", &subgraph.Graph{Consts: []subgraph.Const{{Name: "k", Tensor: &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{4}, Host: make([]byte, 3)}}}, Outputs: []string{"k"}}, subgraph.ErrBadConst, "", "3 bytes"},
		{"nil node", &subgraph.Graph{Inputs: []subgraph.Value{x}, Nodes: []*subgraph.Node{nil}, Outputs: []string{"x"}}, subgraph.ErrBadNode, "#0", "nil node"},
		{"const without tensor", &subgraph.Graph{Consts: []subgraph.Const{{Name: "k"}}, Outputs: []string{"k"}}, subgraph.ErrBadConst, "", "no tensor"},
		{"const of invalid dtype", &subgraph.Graph{Consts: []subgraph.Const{{Name: "k", Tensor: &kernel.Tensor{Shape: kernel.Shape{4}}}}, Outputs: []string{"k"}}, subgraph.ErrBadConst, "", "invalid dtype"},
		{"const of dynamic shape", &subgraph.Graph{Consts: []subgraph.Const{{Name: "k", Tensor: &kernel.Tensor{DType: kernel.Float32, Shape: kernel.Shape{kernel.Dynamic, 2}}}}, Outputs: []string{"k"}}, subgraph.ErrBadConst, "", "dynamic or negative dimension"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.g.Name = "g"
			_, err := subgraph.Validate(tc.g, reg())
			if err == nil {
				t.Fatal("invalid graph accepted")
			}
			var ve *subgraph.Error
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is not a *subgraph.Error", err)
			}
			if !errors.Is(err, tc.cause) {
				t.Fatalf("error %v, want cause %v", err, tc.cause)
			}
			if tc.node != "" && ve.Node != tc.node {
				t.Fatalf("error names node %q, want %q: %v", ve.Node, tc.node, err)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("error %q does not mention %q", err, tc.text)
			}
		})
	}
}

func TestValidateNilGraphAndRegistry(t *testing.T) {
	if _, err := subgraph.Validate(nil, reg()); err == nil {
		t.Fatal("nil graph accepted")
	}
	if _, err := subgraph.Validate(chain().Graph(), nil); !errors.Is(err, subgraph.ErrUnknownOp) {
		t.Fatalf("nil registry: %v", err)
	}
}

func TestDynamicInputsSkipStaticInference(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, kernel.Dynamic, 3)
	b.Output(b.Op("ReLU", x))
	c, err := subgraph.Validate(b.Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Meta["relu_0:0"]; ok {
		t.Fatal("shape inferred through a dynamic dimension")
	}
}

func TestValueDependencyOnConstantInfers(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 2, 3)
	s := b.Const("s", kernel.FromInt64([]int64{3, 2}, 2))
	b.Output(b.Op("Reshape", x, s))
	c, err := subgraph.Validate(b.Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Meta["reshape_0:0"]; m == nil || !m.Shape.Equal(kernel.Shape{3, 2}) {
		t.Fatalf("reshape by constant inferred %v", m)
	}
	bad := subgraph.NewBuilder("g")
	x = bad.Input("x", kernel.Float32, 2, 3)
	s = bad.Const("s", kernel.FromInt64([]int64{4, 2}, 2))
	bad.Output(bad.Op("Reshape", x, s))
	if _, err := bad.Build(reg()); !errors.Is(err, subgraph.ErrInferShape) {
		t.Fatalf("reshape of 6 elements to [4 2]: %v", err)
	}
}

// FuzzValidate checks that no graph, however malformed, makes Validate
// panic, and that of a graph it takes, every input's Source is its
// producer's (checkSources). The first byte picks the graph input's declaration (static,
// dynamic, scalar, empty, int64, any shape), the next four are an int64
// constant "c" (a shape, an index or a count for the ops that read one);
// then every three bytes are a node: its op (and, past 127, an axis
// attribute from the third byte), its input count, and the first of its
// inputs, any tensor made so far or the constant.
func FuzzValidate(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5})
	f.Add([]byte{9, 9, 9, 1, 0, 200, 3})
	f.Add([]byte{0, 2, 2, 0, 0, 3, 2, 0, 0, 1, 1})
	f.Add([]byte{1, 255, 2, 1, 0, 9, 1, 2, 10, 2, 0, 0, 1, 1})
	f.Add([]byte{4, 3, 0, 0, 0, 11, 2, 0, 12, 1, 1, 135, 2, 1, 6, 1, 2})
	f.Add([]byte{3, 0, 1, 2, 3, 13, 3, 0, 14, 2, 0, 7, 2, 1, 4, 2, 2})
	opsList := []string{"Add", "ReLU", "MatMul", "Reshape", "Concat", "Unique", "Shape", "Gather", "Nope",
		"ConstantOfShape", "Expand", "Range", "Tile", "Slice", "Squeeze", "Transpose", "Cast", "Where"}
	inputs := []subgraph.Value{
		{Name: "t0", DType: kernel.Float32, Shape: kernel.Shape{2, 2}},
		{Name: "t0", DType: kernel.Float32, Shape: kernel.Shape{kernel.Dynamic, 2}},
		{Name: "t0", DType: kernel.Float32, Shape: kernel.Shape{}},
		{Name: "t0", DType: kernel.Float32, Shape: kernel.Shape{0, 3}},
		{Name: "t0", DType: kernel.Int64, Shape: kernel.Shape{3}},
		{Name: "t0", DType: kernel.Float32, Shape: kernel.Shape{kernel.Dynamic}, AnyShape: true},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &subgraph.Graph{Name: "fuzz", Inputs: []subgraph.Value{inputs[0]}}
		if len(data) >= 5 {
			in := inputs[int(data[0])%len(inputs)]
			in.Shape = in.Shape.Clone()
			c := make([]int64, 0, 4)
			for _, b := range data[1:5] {
				if b != 0xff {
					c = append(c, int64(int8(b)))
				}
			}
			g.Inputs = []subgraph.Value{in}
			g.Consts = []subgraph.Const{{Name: "c", Tensor: kernel.FromInt64(c, int64(len(c)))}}
			data = data[5:]
		}
		name := func(i int) string {
			if i == 0 || len(g.Consts) == 0 {
				return "t" + strconv.Itoa(i%40)
			}
			if i == 1 {
				return "c"
			}
			return "t" + strconv.Itoa((i-1)%40)
		}
		tensors := 1
		for i := 0; i+2 < len(data) && i < 60; i += 3 {
			op := opsList[int(data[i]&0x7f)%len(opsList)]
			var attrs kernel.Attrs
			if data[i]&0x80 != 0 {
				attrs = kernel.Attrs{"axis": int64(int8(data[i+2]))}
			}
			nin := int(data[i+1]) % 4
			var in []string
			for j := 0; j < nin; j++ {
				in = append(in, name((int(data[i+2])+j)%(tensors+len(g.Consts)+1)))
			}
			g.Nodes = append(g.Nodes, &subgraph.Node{Name: "n" + string(rune('a'+i%26)), Op: op, Attrs: attrs, Inputs: in, Outputs: []string{"t" + strconv.Itoa(tensors%40)}})
			tensors++
		}
		g.Outputs = []string{"t1"}
		// Must not panic; a graph it takes has every input's source
		// right.
		if c, err := subgraph.Validate(g, reg()); err == nil && len(g.Nodes) > 0 {
			checkSources(t, c)
		}
	})
}

// hasPanics is a resolver of the caller's whose Has panics.
type hasPanics struct{}

func (hasPanics) Has(op string) bool                                   { panic("registry bug") }
func (hasPanics) New(op string, a kernel.Attrs) (kernel.Kernel, error) { return nil, nil }

// TestValidateRecoversRegistryPanic: a registry whose Has panics fails
// validation with an error naming the node and matching kernel.ErrPanic;
// Validate never panics.
func TestValidateRecoversRegistryPanic(t *testing.T) {
	b := subgraph.NewBuilder("g")
	b.Output(b.Op("ReLU", b.Input("x", kernel.Float32, 2)))
	_, err := subgraph.Validate(b.Graph(), hasPanics{})
	var se *subgraph.Error
	if !errors.Is(err, kernel.ErrPanic) || !errors.As(err, &se) || se.Node != "relu_0" {
		t.Errorf("Validate gave %v, want an *Error naming relu_0 matching kernel.ErrPanic", err)
	}
}

// TestBuilderNilNode: a nil node given to the builder is kept for
// validation to report by its position, not a panic while building.
func TestBuilderNilNode(t *testing.T) {
	b := subgraph.NewBuilder("g")
	x := b.Input("x", kernel.Float32, 2)
	if out := b.Node(nil, 1); out != nil {
		t.Errorf("a nil node has outputs %v", out)
	}
	b.Output(b.Op("ReLU", x))
	_, err := subgraph.Validate(b.Graph(), ops.Builtins())
	var se *subgraph.Error
	if !errors.As(err, &se) || se.Node != "#0" || !errors.Is(err, subgraph.ErrBadNode) {
		t.Errorf("Validate gave %v, want a bad node #0", err)
	}
}

// TestOrderMatchesPlainKahn checks Validate's order on random graphs, their
// nodes shuffled and some inputs read twice, against Kahn's algorithm
// written plainly: of the nodes whose producers are all placed, the lowest
// index next.
func TestOrderMatchesPlainKahn(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		n := 1 + rng.IntN(40)
		g := &subgraph.Graph{Name: "g", Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{3}}}}
		for i := range n {
			a, b := "x", "x"
			if i > 0 && rng.IntN(4) > 0 {
				a = "t" + strconv.Itoa(rng.IntN(i))
			}
			if i > 0 && rng.IntN(3) > 0 {
				b = "t" + strconv.Itoa(rng.IntN(i))
			}
			if rng.IntN(5) == 0 {
				b = a // the same producer twice
			}
			g.Nodes = append(g.Nodes, &subgraph.Node{Name: "n" + strconv.Itoa(i), Op: "Add", Inputs: []string{a, b}, Outputs: []string{"t" + strconv.Itoa(i)}})
		}
		rng.Shuffle(len(g.Nodes), func(i, j int) { g.Nodes[i], g.Nodes[j] = g.Nodes[j], g.Nodes[i] })
		g.Outputs = []string{g.Nodes[rng.IntN(n)].Outputs[0]}
		c, err := subgraph.Validate(g, reg())
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		producer := map[string]int{}
		for i, nd := range g.Nodes {
			producer[nd.Outputs[0]] = i
		}
		placed := make([]bool, n)
		var want []int
		for len(want) < n {
			for i, nd := range g.Nodes {
				ready := !placed[i]
				for _, in := range nd.Inputs {
					if p, ok := producer[in]; ok && !placed[p] {
						ready = false
					}
				}
				if ready {
					placed[i] = true
					want = append(want, i)
					break
				}
			}
		}
		if !slices.Equal(c.Order, want) {
			t.Fatalf("trial %d: order %v, want %v", trial, c.Order, want)
		}
		checkSources(t, c)
	}
}

// checkSources compares c's Source of every input with the name's
// producer and its position among the producer's outputs, for c and for
// a Checked made by hand from the same graph (no table: Source looks the
// names up).
func checkSources(t *testing.T, c *subgraph.Checked) {
	t.Helper()
	byHand := &subgraph.Checked{Graph: c.Graph, Order: c.Order, Kernels: c.Kernels, Producer: c.Producer, Meta: c.Meta}
	for i, n := range c.Graph.Nodes {
		for j, name := range n.Inputs {
			wantNode, wantOut := c.Producer[name], -1
			if wantNode >= 0 {
				wantOut = slices.Index(c.Graph.Nodes[wantNode].Outputs, name)
			}
			for _, cc := range []*subgraph.Checked{c, byHand} {
				node, out, err := cc.Source(i, j)
				if err != nil || node != wantNode || out != wantOut {
					t.Fatalf("node %d input %d (%q): Source %d, %d, %v; want %d, %d", i, j, name, node, out, err, wantNode, wantOut)
				}
			}
		}
	}
	for _, ij := range [][2]int{{-1, 0}, {len(c.Graph.Nodes), 0}, {0, -1}, {0, len(c.Graph.Nodes[0].Inputs)}} {
		if _, _, err := c.Source(ij[0], ij[1]); !errors.Is(err, subgraph.ErrBadNode) {
			t.Fatalf("Source(%d, %d): %v, want ErrBadNode", ij[0], ij[1], err)
		}
	}
}

// TestSourceOfMultiOutputNodes: Source gives the output position of an
// input produced by a node of several outputs.
func TestSourceOfMultiOutputNodes(t *testing.T) {
	g := &subgraph.Graph{
		Name:   "g",
		Inputs: []subgraph.Value{{Name: "x", DType: kernel.Float32, Shape: kernel.Shape{4, 6}}},
		Nodes: []*subgraph.Node{
			{Name: "split", Op: "Split", Attrs: kernel.Attrs{"axis": int64(1), "num_outputs": int64(3)}, Inputs: []string{"x"}, Outputs: []string{"a", "b", "c"}},
			{Name: "add", Op: "Add", Inputs: []string{"c", "a"}, Outputs: []string{"y"}},
			{Name: "mul", Op: "Mul", Inputs: []string{"b", "b"}, Outputs: []string{"z"}},
		},
		Outputs: []string{"y", "z"},
	}
	c, err := subgraph.Validate(g, reg())
	if err != nil {
		t.Fatal(err)
	}
	checkSources(t, c)
	if node, out, _ := c.Source(1, 0); node != 0 || out != 2 {
		t.Fatalf("Source(1, 0) = %d, %d; want 0, 2", node, out)
	}
}

// TestSourceAfterTheGraphGrew: a node given an input after Validate has
// its new input looked up by name, not read past its row of the table.
func TestSourceAfterTheGraphGrew(t *testing.T) {
	c, err := subgraph.Validate(chain().Graph(), reg())
	if err != nil {
		t.Fatal(err)
	}
	last := len(c.Graph.Nodes) - 1
	n := c.Graph.Nodes[last]
	n.Inputs = append(n.Inputs, "x")
	node, out, err := c.Source(last, len(n.Inputs)-1)
	if err != nil || node != -1 || out != -1 {
		t.Fatalf("Source of the added input: %d, %d, %v; want the graph input (-1, -1)", node, out, err)
	}
}

// badInfer is ReLU whose InferShape gives the answer answer sets.
type badInfer struct {
	kernel.Kernel
	answer func(out []*kernel.Tensor)
}

func (k badInfer) InferShape(in, out []*kernel.Tensor) error {
	k.answer(out)
	return nil
}

// TestBadInferShapeAnswersNameTheirNode: a kernel whose static InferShape
// gives an output an invalid dtype, a negative dimension or a shape whose
// size overflows, or leaves it nil, fails validation with an error naming
// that node (not a consumer that reads the output) and matching
// ErrInferShape, whether or not a node reads the output.
func TestBadInferShapeAnswersNameTheirNode(t *testing.T) {
	for name, answer := range map[string]func(out []*kernel.Tensor){
		"invalid dtype":      func(out []*kernel.Tensor) { out[0].DType, out[0].Shape = kernel.DType(200), kernel.Shape{2} },
		"zero dtype":         func(out []*kernel.Tensor) { out[0].DType, out[0].Shape = 0, kernel.Shape{2} },
		"negative dimension": func(out []*kernel.Tensor) { out[0].DType, out[0].Shape = kernel.Float32, kernel.Shape{-3} },
		"overflowing size": func(out []*kernel.Tensor) {
			out[0].DType, out[0].Shape = kernel.Float32, kernel.Shape{1 << 40, 1 << 40}
		},
		"nil output": func(out []*kernel.Tensor) { out[0] = nil },
	} {
		r := ops.NewRegistry()
		if err := r.Register("Bad", func(a kernel.Attrs) (kernel.Kernel, error) {
			relu, err := ops.Builtins().New("ReLU", nil)
			return badInfer{relu, answer}, err
		}); err != nil {
			t.Fatal(err)
		}
		for _, consumed := range []bool{false, true} {
			b := subgraph.NewBuilder("g")
			y := b.Op("Bad", b.Input("x", kernel.Float32, 2))
			if consumed {
				y = b.Op("ReLU", y)
			}
			b.Output(y)
			_, err := subgraph.Validate(b.Graph(), r)
			var se *subgraph.Error
			if !errors.Is(err, subgraph.ErrInferShape) || !errors.Is(err, kernel.ErrBadAnswer) || !errors.As(err, &se) || se.Node != "bad_0" {
				t.Errorf("%s (read by a node: %v): %v, want an ErrInferShape and ErrBadAnswer naming bad_0", name, consumed, err)
			}
		}
	}
}

// TestSizesConstantsCannotHaveAreOperandErrors: a constant that asks a
// built-in op for a tensor of more bytes than an int64 counts fails
// validation naming the node with ErrInferShape, not kernel.ErrBadAnswer:
// the operands are at fault, not the kernel.
func TestSizesConstantsCannotHaveAreOperandErrors(t *testing.T) {
	b := subgraph.NewBuilder("g")
	b.Output(b.Op("ConstantOfShape", b.Const("s", kernel.FromInt64([]int64{1 << 40, 1 << 40}, 2))))
	_, err := subgraph.Validate(b.Graph(), ops.Builtins())
	var se *subgraph.Error
	if !errors.Is(err, subgraph.ErrInferShape) || errors.Is(err, kernel.ErrBadAnswer) || !errors.As(err, &se) || se.Node != "constantofshape_0" {
		t.Errorf("Validate: %v, want an ErrInferShape (not ErrBadAnswer) naming constantofshape_0", err)
	}
}
