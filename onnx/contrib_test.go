package onnx_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

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

// TestDomains checks the import's handling of op domains: com.microsoft
// ops need the domain imported, at a version the importer takes; an op of
// another domain is unsupported, named with its domain and version.
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
		{"not imported", model(map[string]int64{"": 17}, onnx.MSDomain, "QuickGelu"), onnx.ErrImport, []string{"QuickGelu", onnx.MSDomain}},
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
