package onnx

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

// countOps counts the nodes of g and its subgraphs by op type.
func countOps(g *Graph, into map[string]int) int {
	n := 0
	for _, nd := range g.Nodes {
		into[nd.OpType]++
		n++
		for _, a := range nd.Attrs {
			if a.G != nil {
				n += countOps(a.G, into)
			}
			for _, sg := range a.Graphs {
				n += countOps(sg, into)
			}
		}
	}
	return n
}

// TestReadRealModels checks the reader against what the models' README
// says of them (counted with the onnx Python package).
func TestReadRealModels(t *testing.T) {
	for _, tc := range []struct {
		file       string
		opset, ir  int64
		top, nodes int
		ops        map[string]int
	}{
		{"ppocrv4-det.onnx", 11, 8, 672, 672, map[string]int{"Constant": 342, "Add": 89, "Mul": 86, "Conv": 62, "Clip": 24, "Div": 24,
			"Relu": 12, "GlobalAveragePool": 10, "HardSigmoid": 10, "Resize": 6, "BatchNormalization": 3, "ConvTranspose": 2, "Concat": 1, "Sigmoid": 1}},
		{"silero-vad-v5.onnx", 16, 8, 5, 689, map[string]int{"Constant": 341, "Slice": 60, "Unsqueeze": 46, "Identity": 34, "Concat": 26,
			"If": 25, "Squeeze": 22, "Cast": 20, "Gather": 20, "Shape": 20, "Equal": 17, "Conv": 12, "Relu": 10, "ConstantOfShape": 4,
			"LSTM": 4, "Not": 4, "Pow": 4, "Reshape": 4, "Size": 4, "Add": 2, "Pad": 2, "ReduceMean": 2, "Sigmoid": 2, "Sqrt": 2, "Transpose": 2}},
	} {
		m, err := ReadFile(filepath.Join("..", "models", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if m.Opsets[""] != tc.opset || m.IRVersion != tc.ir {
			t.Errorf("%s: opset %d ir %d", tc.file, m.Opsets[""], m.IRVersion)
		}
		if len(m.Graph.Nodes) != tc.top {
			t.Errorf("%s: %d top-level nodes, want %d", tc.file, len(m.Graph.Nodes), tc.top)
		}
		ops := map[string]int{}
		if n := countOps(m.Graph, ops); n != tc.nodes {
			t.Errorf("%s: %d nodes, want %d", tc.file, n, tc.nodes)
		}
		for op, n := range tc.ops {
			if ops[op] != n {
				t.Errorf("%s: %d %s nodes, want %d", tc.file, ops[op], op, n)
			}
		}
		if len(ops) != len(tc.ops) {
			t.Errorf("%s: ops %v", tc.file, ops)
		}
	}
}

func TestMalformedInputIsAnError(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "models", "silero-vad-v5.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 7, 100, 1000, len(b) / 2, len(b) - 1} {
		if _, err := Parse(b[:n]); err == nil {
			t.Errorf("model truncated to %d bytes parsed", n)
		}
	}
	for name, in := range map[string][]byte{
		"wrong magic":   []byte("PK\x03\x04 this is a zip file, not a model"),
		"text":          []byte("ir_version: 8\ngraph {}\n"),
		"huge length":   {0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"bad wire type": {0x3f},
	} {
		if _, err := Parse(in); err == nil {
			t.Errorf("%s parsed", name)
		}
	}
	if _, err := Read(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
}

// FuzzParse: malformed or truncated input gives an error, never a panic
// (the fuzzer's memory limit catches unbounded allocation). The seeds are
// the two real models, truncations of them, the small models of testdata
// (local functions, sparse initializers, typed data fields, float16 and
// the light model zoo) and small node-test models with their first
// input. Each input is also read as a TensorProto (ParseTensor), whose
// tensor converts or fails with an error.
func FuzzParse(f *testing.F) {
	for _, file := range []string{"silero-vad-v5.onnx", "ppocrv4-det.onnx"} {
		b, err := os.ReadFile(filepath.Join("..", "models", file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/3])
	}
	for _, pattern := range []string{"opset/*.onnx", "sparse/*.onnx", "contrib_f16/*.onnx", "light/light_*.onnx"} {
		files, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil || len(files) == 0 {
			f.Fatalf("no seeds in testdata/%s: %v", pattern, err)
		}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	if dirs, err := filepath.Glob("/usr/share/libonnx-testdata/data/node/test_*/model.onnx"); err == nil {
		for i, p := range dirs {
			if i%40 != 0 {
				continue
			}
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
			if b, err := os.ReadFile(filepath.Join(filepath.Dir(p), "test_data_set_0", "input_0.pb")); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The same bytes as a lone TensorProto (a backend test's data).
		if tn, err := ParseTensor(b); err == nil {
			_, _ = tn.Kernel()
		}
		m, err := Parse(b)
		if err == nil && m.Graph == nil {
			t.Fatal("a model without a graph parsed")
		}
		if err != nil {
			return
		}
		// Read moves raw data in its own buffer: the same bytes result.
		m2, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("Parse accepts, Read refuses: %v", err)
		}
		sameRaw(t, m, m2)
	})
}

// tensorsOf lists every tensor of m, subgraphs included, in a fixed order.
func tensorsOf(m *Model) []*Tensor {
	var out []*Tensor
	var graph func(g *Graph)
	graph = func(g *Graph) {
		if g == nil {
			return
		}
		out = append(out, g.Initializers...)
		for _, n := range g.Nodes {
			for _, a := range n.Attrs {
				if a.T != nil {
					out = append(out, a.T)
				}
				out = append(out, a.Tensors...)
				graph(a.G)
				for _, sg := range a.Graphs {
					graph(sg)
				}
			}
		}
	}
	graph(m.Graph)
	return out
}

// sameRaw checks that a and b, one model parsed twice, hold the same raw
// tensor data and string attributes.
func sameRaw(t *testing.T, a, b *Model) {
	t.Helper()
	ta, tb := tensorsOf(a), tensorsOf(b)
	if len(ta) != len(tb) {
		t.Fatalf("%d tensors, then %d", len(ta), len(tb))
	}
	for i := range ta {
		if !bytes.Equal(ta[i].Raw, tb[i].Raw) || (ta[i].Raw == nil) != (tb[i].Raw == nil) {
			t.Fatalf("tensor %d (%q): raw data differs after Read", i, ta[i].Name)
		}
		if cap(tb[i].Raw) != len(tb[i].Raw) {
			t.Fatalf("tensor %d (%q): raw data has room past its end (cap %d, len %d)", i, ta[i].Name, cap(tb[i].Raw), len(tb[i].Raw))
		}
	}
}

// TestReadAligns: Read leaves every real model's tensor data where its
// element size divides the address, so nothing is copied on import, and
// the data is what Parse sees.
func TestReadAligns(t *testing.T) {
	for _, file := range []string{"silero-vad-v5.onnx", "ppocrv4-det.onnx"} {
		b, err := os.ReadFile(filepath.Join("..", "models", file))
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		read, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		sameRaw(t, parsed, read)
		unaligned := 0
		for _, tn := range tensorsOf(parsed) {
			if len(tn.Raw) > 0 && uintptr(unsafe.Pointer(&tn.Raw[0]))%uintptr(tn.DataType.elemSize()) != 0 {
				unaligned++
			}
		}
		if unaligned == 0 {
			t.Fatalf("%s: no tensor unaligned in the file: the test shows nothing", file)
		}
		for _, tn := range tensorsOf(read) {
			if len(tn.Raw) > 0 && uintptr(unsafe.Pointer(&tn.Raw[0]))%uintptr(tn.DataType.elemSize()) != 0 {
				t.Errorf("%s: tensor %q (%v) unaligned after Read", file, tn.Name, tn.DataType)
			}
		}
	}
}

// FuzzImport: a model that parses imports or fails with an error, never a
// panic; the seeds are the ONNX backend node-test models and the opset 18
// to 26 models of testdata/opset.
func FuzzImport(f *testing.F) {
	if files, err := filepath.Glob(filepath.Join("testdata", "opset", "*.onnx")); err == nil {
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	if dirs, err := filepath.Glob("/usr/share/libonnx-testdata/data/node/test_*/model.onnx"); err == nil {
		for i, p := range dirs {
			if i%7 != 0 && !strings.Contains(p, "loop") && !strings.Contains(p, "scan") && !strings.Contains(p, "_expanded") {
				continue
			}
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			return
		}
		_, _ = Import(m, Options{})
	})
}

// TestOpsetImportedTwice: a model importing one domain twice reads with
// the last entry's version, as onnxruntime loads it ("" and "ai.onnx"
// being one domain; testdata/opset/p2_opset_dup_* run such models).
func TestOpsetImportedTwice(t *testing.T) {
	opset := func(domain string, v uint64) []byte {
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, domain)
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		return protowire.AppendVarint(b, v)
	}
	model := func(opsets ...[]byte) []byte {
		b := protowire.AppendTag(nil, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, 8)
		for _, o := range opsets {
			b = protowire.AppendTag(b, 8, protowire.BytesType)
			b = protowire.AppendBytes(b, o)
		}
		b = protowire.AppendTag(b, 7, protowire.BytesType)
		return protowire.AppendBytes(b, nil)
	}
	for _, c := range []struct {
		name   string
		b      []byte
		domain string
		want   int64
	}{
		{"13 then 1", model(opset("", 13), opset("", 1)), "", 1},
		{"1 then 13", model(opset("", 1), opset("", 13)), "", 13},
		{"ai.onnx 12", model(opset("", 13), opset("ai.onnx", 12)), "", 12},
		{"ml twice", model(opset("", 13), opset("ai.onnx.ml", 2), opset("ai.onnx.ml", 3)), MLDomain, 3},
		{"13 twice", model(opset("", 13), opset("", 13)), "", 13},
		{"'' and ai.onnx", model(opset("", 13), opset("ai.onnx", 13)), "", 13},
	} {
		m, err := Parse(c.b)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := m.Opsets[c.domain]; got != c.want {
			t.Errorf("%s: domain %q at version %d, want %d", c.name, c.domain, got, c.want)
		}
	}
}

// TestNilReaderIsAnError: Read and ImportReader given a nil reader fail
// with ErrFormat, as for a model with no bytes, instead of panicking.
func TestNilReaderIsAnError(t *testing.T) {
	if _, err := Read(nil); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "nil reader") {
		t.Errorf("Read(nil): %v, want ErrFormat naming the nil reader", err)
	}
	if _, err := ImportReader(nil, Options{}); !errors.Is(err, ErrFormat) {
		t.Errorf("ImportReader(nil): %v, want ErrFormat", err)
	}
}
