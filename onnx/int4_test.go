package onnx_test

import (
	"errors"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

// TestInt4Constants: INT4 and UINT4 constants are read unpacked, one
// element a byte (raw data and int32_data alike, an odd count's last
// nibble unused), a byte count that does not fit is ErrFormat, a
// QuantizeLinear to a 4-bit zero point imports (com.microsoft's is
// refused), and so does a 4-bit graph input.
func TestInt4Constants(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    *onnx.Tensor
		want kernel.DType
		vals []int8
	}{
		{"int4 raw", &onnx.Tensor{Dims: []int64{5}, DataType: onnx.Int4, Raw: []byte{0x78, 0xf0, 0x09}}, kernel.Int4, []int8{-8, 7, 0, -1, -7}},
		{"int4 int32_data", &onnx.Tensor{Dims: []int64{3}, DataType: onnx.Int4, Int32s: []int32{0x8f, 0x01}}, kernel.Int4, []int8{-1, -8, 1}},
		{"uint4 raw", &onnx.Tensor{Dims: []int64{2, 2}, DataType: onnx.Uint4, Raw: []byte{0xf0, 0x21}}, kernel.Uint4, []int8{0, 15, 1, 2}},
		{"int4 empty", &onnx.Tensor{Dims: []int64{0}, DataType: onnx.Int4, Raw: []byte{}}, kernel.Int4, []int8{}},
	} {
		k, err := tc.t.Kernel()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if k.DType != tc.want || len(k.Host) != len(tc.vals) {
			t.Fatalf("%s: %v %v", tc.name, k.DType, k.Host)
		}
		for i, v := range tc.vals {
			if int8(k.Host[i]) != v && !(tc.want == kernel.Uint4 && k.Host[i] == byte(v)) {
				t.Errorf("%s: element %d is %d, want %d", tc.name, i, int8(k.Host[i]), v)
			}
		}
	}
	for _, bad := range []*onnx.Tensor{
		{Dims: []int64{5}, DataType: onnx.Int4, Raw: []byte{1, 2}},
		{Dims: []int64{2}, DataType: onnx.Uint4, Raw: []byte{1, 2}},
		{Dims: []int64{-1}, DataType: onnx.Int4, Raw: []byte{}},
	} {
		if _, err := bad.Kernel(); !errors.Is(err, onnx.ErrFormat) {
			t.Errorf("%v %v: got %v, want ErrFormat", bad.Dims, bad.Raw, err)
		}
	}

	quant := legacyModel(21, []*onnx.Node{{Name: "q", OpType: "QuantizeLinear", Inputs: []string{"x", "s", "z"}, Outputs: []string{"y"}}},
		map[string][]int64{"x": {4}}, []*onnx.Tensor{initF32("s", nil, []float32{0.5}), {Name: "z", DataType: onnx.Int4, Raw: []byte{0}}}, "y")
	if _, err := onnx.Import(quant, onnx.Options{}); err != nil {
		t.Errorf("QuantizeLinear to int4: %v", err)
	}
	quant.Graph.Nodes[0].Domain = onnx.MSDomain
	quant.Opsets[onnx.MSDomain] = 1
	if _, err := onnx.Import(quant, onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) {
		t.Errorf("com.microsoft QuantizeLinear to int4: got %v, want ErrUnsupported", err)
	}
	in := legacyModel(21, []*onnx.Node{{Name: "i", OpType: "Identity", Inputs: []string{"x"}, Outputs: []string{"y"}}}, nil, nil, "y")
	in.Graph.Inputs = []*onnx.ValueInfo{{Name: "x", DataType: onnx.Int4, HasShape: true, Dims: []onnx.Dim{{Value: 2, Known: true}}}}
	if _, err := onnx.Import(in, onnx.Options{}); err != nil {
		t.Errorf("int4 graph input: %v", err)
	}
}

// TestFixedShapeOverflow: Options.Shapes whose bytes overflow an int64
// (or a dimension that is negative) fail the import with ErrImport.
func TestFixedShapeOverflow(t *testing.T) {
	m := legacyModel(13, []*onnx.Node{{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"y"}}}, nil, nil, "y")
	m.Graph.Inputs = []*onnx.ValueInfo{{Name: "x", DataType: onnx.Float, HasShape: true, Dims: []onnx.Dim{{Param: "a"}, {Param: "b"}}}}
	for _, s := range [][]int64{{1 << 40, 1 << 40}, {1 << 62, 2}, {-1, 2}} {
		if _, err := onnx.Import(m, onnx.Options{Shapes: map[string][]int64{"x": s}}); !errors.Is(err, onnx.ErrImport) {
			t.Errorf("shape %v: got %v, want ErrImport", s, err)
		}
	}
	if _, err := onnx.Import(m, onnx.Options{Shapes: map[string][]int64{"x": {0, 1 << 40}}}); err != nil {
		t.Errorf("shape [0, 2^40]: %v", err)
	}
}

// TestLowPrecisionAtEveryOpset: where a later version only widened an op's
// types, the importer takes the widest at every opset of its range (see
// MaxOpset): QuantizeLinear-10 to int4 and back with DequantizeLinear-10,
// and Cast-13 to float8e4m3fn and back, import and compute as at the
// opsets that list those types.
func TestLowPrecisionAtEveryOpset(t *testing.T) {
	x := map[string]*kernel.Tensor{"x": f32Tensor([]int64{4}, []float32{-3, 0, 1.5, 7})}
	for _, tc := range []struct {
		name string
		m    *onnx.Model
		want []float32
	}{
		{"QuantizeLinear-10 to int4", legacyModel(10, []*onnx.Node{
			{Name: "q", OpType: "QuantizeLinear", Inputs: []string{"x", "s", "z"}, Outputs: []string{"q"}},
			{Name: "d", OpType: "DequantizeLinear", Inputs: []string{"q", "s", "z"}, Outputs: []string{"y"}},
		}, map[string][]int64{"x": {4}}, []*onnx.Tensor{initF32("s", nil, []float32{2}), {Name: "z", DataType: onnx.Int4, Raw: []byte{1}}}, "y"),
			[]float32{-4, 0, 2, 8}}, // q −1, 1, 2, 5, as onnxruntime computes at opset 21
		{"Cast-13 to float8e4m3fn", legacyModel(13, []*onnx.Node{
			{Name: "c", OpType: "Cast", Inputs: []string{"x"}, Outputs: []string{"c"}, Attrs: []*onnx.Attribute{attrI("to", int64(onnx.Float8E4M3FN))}},
			{Name: "b", OpType: "Cast", Inputs: []string{"c"}, Outputs: []string{"y"}, Attrs: []*onnx.Attribute{attrI("to", int64(onnx.Float))}},
		}, map[string][]int64{"x": {4}}, nil, "y"),
			[]float32{-3, 0, 1.5, 7}},
	} {
		g, err := onnx.Import(tc.m, onnx.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		res, err := runIn(g, x, pipert.KBK)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := kernel.Float32s(res.Outputs["y"].Host); !equal32(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLowPrecisionControlFlow: a runtime If's branches and a Loop's
// carried value of each low-precision type carry its codes bit for bit,
// in KBK and Pipeline mode: the taken branch gives x or a constant of
// zeros, and two Loop iterations of Identity give x.
func TestLowPrecisionControlFlow(t *testing.T) {
	vi := valueInfo
	for odt := onnx.Float8E4M3FN; odt <= onnx.Int2; odt++ {
		dt, ok := odt.DType()
		if !ok {
			t.Fatalf("%v: no dtype", odt)
		}
		zeros := &onnx.Tensor{Name: "z", DataType: odt, Dims: []int64{4}, Raw: make([]byte, (4*dt.Bits()+7)/8)}
		branch := func(name string, nodes ...*onnx.Node) *onnx.Graph {
			return &onnx.Graph{Name: name, Nodes: nodes, Outputs: []*onnx.ValueInfo{{Name: "o"}}}
		}
		then := branch("then", &onnx.Node{OpType: "Identity", Inputs: []string{"x"}, Outputs: []string{"o"}})
		els := branch("else", &onnx.Node{OpType: "Identity", Inputs: []string{"z"}, Outputs: []string{"o"}})
		body := &onnx.Graph{Name: "body",
			Inputs: []*onnx.ValueInfo{vi("i", onnx.Int64), vi("ci", onnx.Bool), vi("v", odt, 4)},
			Nodes: []*onnx.Node{
				{OpType: "Identity", Inputs: []string{"v"}, Outputs: []string{"v2"}},
				{OpType: "Identity", Inputs: []string{"ci"}, Outputs: []string{"co"}},
			},
			Outputs: []*onnx.ValueInfo{{Name: "co"}, {Name: "v2"}}}
		m := legacyModel(25, []*onnx.Node{
			{Name: "if", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"y"},
				Attrs: []*onnx.Attribute{{Name: "then_branch", Type: onnx.AttrGraph, G: then}, {Name: "else_branch", Type: onnx.AttrGraph, G: els}}},
			{Name: "loop", OpType: "Loop", Inputs: []string{"m", "", "x"}, Outputs: []string{"l"},
				Attrs: []*onnx.Attribute{{Name: "body", Type: onnx.AttrGraph, G: body}}},
		}, nil, []*onnx.Tensor{zeros, {Name: "m", DataType: onnx.Int64, Int64s: []int64{2}}}, "y", "l")
		m.Graph.Inputs = []*onnx.ValueInfo{vi("x", odt, 4), vi("c", onnx.Bool)}
		g, err := onnx.Import(m, onnx.Options{})
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		codes := []byte{0x01, 0x00, 0xff, 0x02} // float 8: every byte is a code
		switch {
		case dt == kernel.Int4 || dt == kernel.Int2:
			codes = []byte{1, 0, 0xff, 0xfe} // 1, 0, −1, −2, sign-extended
		case dt.IsSubByte():
			codes = []byte{1, 0, 3, 2}
		}
		x := kernel.New(dt, 4)
		copy(x.Host, codes)
		for _, cond := range []byte{1, 0} {
			c := kernel.New(kernel.Bool)
			c.Host[0] = cond
			in := map[string]*kernel.Tensor{"x": x, "c": c}
			want := make([]byte, 4)
			if cond == 1 {
				copy(want, x.Host)
			}
			for _, mode := range []pipert.Mode{pipert.KBK, pipert.Pipeline} {
				res, err := runIn(g, in, mode)
				if err != nil {
					t.Fatalf("%v, cond %d, %v: %v", dt, cond, mode, err)
				}
				if y := res.Outputs["y"]; y.DType != dt || string(y.Host) != string(want) {
					t.Errorf("%v, cond %d, %v: If gave %v % x, want % x", dt, cond, mode, y, y.Host, want)
				}
				if l := res.Outputs["l"]; l.DType != dt || string(l.Host) != string(x.Host) {
					t.Errorf("%v, cond %d, %v: Loop gave %v % x, want % x", dt, cond, mode, l, l.Host, x.Host)
				}
			}
		}
	}
}
