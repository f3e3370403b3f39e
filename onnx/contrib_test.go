package onnx_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
)

// TestContribFloat16Gelu runs the float16 forms of onnxruntime's GELU
// contrib ops (testdata/contrib_f16, built by gen.js) against
// onnxruntime's outputs. onnxruntime's CPU provider rounds intermediates of
// these to float16 where pipert rounds once, so the tolerance is about two
// float16 units in the last place of the outputs (of magnitude below 2).
func TestContribFloat16Gelu(t *testing.T) {
	runFixtures(t, filepath.Join("testdata", "contrib_f16"), 2e-3)
}

// TestGatherBlockQuantizedExact: GatherBlockQuantized's outputs are
// onnxruntime's bit for bit (testdata/opset/ms5_gbq_*, built by gen.js
// from cases_ms5.js): uint8 data packing 2, 4 and 8 bits, INT4 and UINT4
// data on any axes, with and without zero points, float32 and float16
// scales, int32 and int64 indices, negative ones among them.
func TestGatherBlockQuantizedExact(t *testing.T) {
	runFixtureFiles(t, filepath.Join("testdata", "opset"), "ms5_gbq_*", 0)
}

// TestGatherBlockQuantizedImport: the importer marks INT4 and UINT4 data
// as one value a byte, refuses data and zero points of which one is 4-bit
// and the other not, and refuses pipert's own attribute in a model.
func TestGatherBlockQuantizedImport(t *testing.T) {
	model := func(data, zp *onnx.Tensor, attrs ...*onnx.Attribute) *onnx.Model {
		inits := []*onnx.Tensor{data, {Name: "idx", Dims: []int64{1}, DataType: onnx.Int64, Int64s: []int64{0}}, initF32("s", []int64{1, 1}, []float32{2})}
		ins := []string{"data", "idx", "s"}
		if zp != nil {
			inits = append(inits, zp)
			ins = append(ins, "zp")
		}
		m := legacyModel(21, []*onnx.Node{{Name: "g", Domain: onnx.MSDomain, OpType: "GatherBlockQuantized", Inputs: ins, Outputs: []string{"y"},
			Attrs: append([]*onnx.Attribute{attrI("block_size", 16)}, attrs...)}}, nil, inits, "y")
		m.Opsets[onnx.MSDomain] = 1
		return m
	}
	int4 := &onnx.Tensor{Name: "data", Dims: []int64{1, 2}, DataType: onnx.Int4, Raw: []byte{0x7f}}
	packed := &onnx.Tensor{Name: "data", Dims: []int64{1, 1}, DataType: onnx.Uint8, Raw: []byte{0x7f}}
	int4zp := &onnx.Tensor{Name: "zp", Dims: []int64{1, 1}, DataType: onnx.Int4, Raw: []byte{0x01}}
	u8zp := &onnx.Tensor{Name: "zp", Dims: []int64{1, 1}, DataType: onnx.Uint8, Raw: []byte{0x01}}
	for _, tc := range []struct {
		name string
		m    *onnx.Model
		want []float32 // nil: an import error
	}{
		// INT4 [−1, 7], zero point 1 when given: (v − zp)·2.
		{"int4", model(int4, nil), []float32{-2, 14}},
		{"int4 with zero point", model(int4, int4zp), []float32{-4, 12}},
		// uint8 0x7f packs 15 and 7, zero point 8 by default, or 1 packed.
		{"packed", model(packed, nil), []float32{14, -2}},
		{"packed with zero point", model(packed, u8zp), []float32{28, 12}},
		{"int4 data, uint8 zero point", model(int4, u8zp), nil},
		{"uint8 data, int4 zero point", model(packed, int4zp), nil},
		{"pipert's attribute", model(packed, nil, attrI(ops.UnpackedAttr, 1)), nil},
	} {
		g, err := onnx.Import(tc.m, onnx.Options{})
		if tc.want == nil {
			if !errors.Is(err, onnx.ErrImport) {
				t.Errorf("%s: got %v, want ErrImport", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		res, err := runIn(g, nil, pipert.KBK)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := kernel.Float32s(res.Outputs["y"].Data()); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDomains checks the import's handling of op domains: com.microsoft
// ops are read at the version the model imports, which the importer must
// take, or at version 1 when the model does not import the domain; an op
// of another domain is unsupported, named with its domain and version.
func TestDomains(t *testing.T) {
	model := func(opsets map[string]int64, domain, op string) *onnx.Model {
		x := &onnx.ValueInfo{Name: "x", DataType: onnx.DataType(1), HasShape: true, Dims: []onnx.Dim{{Value: 2, Known: true}, {Value: 4, Known: true}}}
		return &onnx.Model{IRVersion: 8, Opsets: opsets, Graph: &onnx.Graph{Name: "g", Inputs: []*onnx.ValueInfo{x},
			Nodes:   []*onnx.Node{{Name: "n", Domain: domain, OpType: op, Inputs: []string{"x"}, Outputs: []string{"y"}}},
			Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
	}
	for _, tc := range []struct {
		name   string
		m      *onnx.Model
		sent   error
		substr []string
	}{
		{"ok", model(map[string]int64{"": 17, onnx.MSDomain: 1}, onnx.MSDomain, "QuickGelu"), nil, nil},
		{"not imported: version 1", model(map[string]int64{"": 17}, onnx.MSDomain, "QuickGelu"), nil, nil},
		{"unknown op", model(map[string]int64{"": 17, onnx.MSDomain: 1}, onnx.MSDomain, "NoSuchOp"), onnx.ErrUnsupported, []string{"NoSuchOp", onnx.MSDomain, "version 1"}},
		{"version", model(map[string]int64{"": 17, onnx.MSDomain: 2}, onnx.MSDomain, "QuickGelu"), onnx.ErrUnsupported, []string{"QuickGelu", onnx.MSDomain, "version 2"}},
		{"other domain", model(map[string]int64{"": 17, "ai.onnx.contrib": 3}, "ai.onnx.contrib", "Foo"), onnx.ErrUnsupported, []string{"Foo", "ai.onnx.contrib", "version 3"}},
		{"default domain op in com.microsoft", model(map[string]int64{"": 17, onnx.MSDomain: 1}, onnx.MSDomain, "Relu"), onnx.ErrUnsupported, []string{"Relu", onnx.MSDomain}},
		{"default domain op in com.microsoft, not imported", model(map[string]int64{"": 17}, onnx.MSDomain, "Relu"), onnx.ErrUnsupported, []string{"Relu", onnx.MSDomain}},
	} {
		_, err := onnx.Import(tc.m, onnx.Options{})
		if tc.sent == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, tc.sent) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.sent)
			continue
		}
		for _, s := range tc.substr {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not name %q", tc.name, err, s)
			}
		}
	}
}

// TestContribDomainNotImported: a model whose nodes are of domain
// com.microsoft but whose opset_import leaves the domain out (as
// onnxruntime's fusion tools write them: its Gelu and SkipLayerNormalization
// test models) is read at the domain's version 1, as onnxruntime reads it,
// and computes what the model importing the domain computes; a version the
// op lacks is still refused.
func TestContribDomainNotImported(t *testing.T) {
	f := onnx.Float
	model := func(opsets map[string]int64) *onnx.Model {
		x := &onnx.ValueInfo{Name: "x", DataType: f, Dims: []onnx.Dim{{Value: 4, Known: true}}, HasShape: true}
		return &onnx.Model{IRVersion: 8, Opsets: opsets, Graph: &onnx.Graph{
			Name:    "gelu",
			Inputs:  []*onnx.ValueInfo{x},
			Nodes:   []*onnx.Node{{Name: "g", OpType: "Gelu", Domain: onnx.MSDomain, Inputs: []string{"x"}, Outputs: []string{"y"}}},
			Outputs: []*onnx.ValueInfo{{Name: "y", DataType: f}},
		}}
	}
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{-2, -0.5, 0.5, 3}, 4)}
	var want []byte
	for _, opsets := range []map[string]int64{{"": 17, onnx.MSDomain: 1}, {"": 17}} {
		g, err := onnx.Import(model(opsets), onnx.Options{})
		if err != nil {
			t.Fatalf("opsets %v: %v", opsets, err)
		}
		res, err := runIn(g, in, pipert.KBK)
		if err != nil {
			t.Fatalf("opsets %v: %v", opsets, err)
		}
		got := res.Outputs["y"].Host
		if want == nil {
			want = got
		} else if string(got) != string(want) {
			t.Errorf("opsets %v: y = %v, want the output of the model importing the domain", opsets, res.Outputs["y"])
		}
	}
	if _, err := onnx.Import(model(map[string]int64{"": 17, onnx.MSDomain: 2}), onnx.Options{}); !errors.Is(err, onnx.ErrUnsupported) {
		t.Errorf("com.microsoft version 2: %v, want ErrUnsupported", err)
	}
}

// TestUncheckedAttributes checks that the attributes onnxruntime's schemas
// let through (its LayerNormalization before opset 17, its
// SimplifiedLayerNormalization) are ignored there and refused elsewhere:
// from opset 17 LayerNormalization is ONNX's, which defines its
// attributes.
func TestUncheckedAttributes(t *testing.T) {
	f := onnx.Float
	model := func(op string, opset int64) *onnx.Model {
		x := &onnx.ValueInfo{Name: "x", DataType: f, Dims: []onnx.Dim{{Value: 4, Known: true}}, HasShape: true}
		g := &onnx.ValueInfo{Name: "g", DataType: f, Dims: []onnx.Dim{{Value: 4, Known: true}}, HasShape: true}
		return &onnx.Model{IRVersion: 8, Opsets: map[string]int64{"": opset}, Graph: &onnx.Graph{
			Name:   "ln",
			Inputs: []*onnx.ValueInfo{x, g},
			Nodes: []*onnx.Node{{Name: "n", OpType: op, Inputs: []string{"x", "g"}, Outputs: []string{"y"},
				Attrs: []*onnx.Attribute{{Name: "epsion", Type: onnx.AttrFloat, F: 0.5}}}},
			Outputs: []*onnx.ValueInfo{{Name: "y", DataType: f}},
		}}
	}
	for _, c := range []struct {
		op    string
		opset int64
		ok    bool
	}{
		{"LayerNormalization", 16, true},
		{"LayerNormalization", 17, false},
		{"SimplifiedLayerNormalization", 17, true},
		{"Softmax", 13, false},
	} {
		_, err := onnx.Import(model(c.op, c.opset), onnx.Options{})
		if c.ok && err != nil {
			t.Errorf("%s opset %d: %v", c.op, c.opset, err)
		}
		if !c.ok && !errors.Is(err, onnx.ErrUnsupported) {
			t.Errorf("%s opset %d with attribute epsion: %v, want ErrUnsupported", c.op, c.opset, err)
		}
	}
}
