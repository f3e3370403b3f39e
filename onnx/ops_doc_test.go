package onnx_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipert/pipert/onnx"
)

var update = flag.Bool("update", false, "rewrite docs/ONNX_OPS.md from the importer's table")

// TestOpsDocIsCurrent keeps docs/ONNX_OPS.md equal to what the importer's
// table says (go test ./onnx -run OpsDoc -update rewrites it).
func TestOpsDocIsCurrent(t *testing.T) {
	var b strings.Builder
	b.WriteString("# ONNX ops pipert imports\n\n")
	b.WriteString("Generated from the importer's table (`onnx.Ops`) by `go test ./onnx -run OpsDoc -update`; a test keeps it current.\n")
	b.WriteString("An op outside this table, or at an opset outside its range, fails the import with an error naming the node, op and opset.\n\n")
	b.WriteString("pipert has no string tensors: a string graph input or output, or a string initializer or Constant that a node reads, fails the import naming it; a string initializer or Constant that nothing reads is dropped. An initializer also listed as a graph input (as models of IR version 3 and before list every initializer, and later ones may) is a constant, whatever the IR version: a run cannot feed that input (onnxruntime lets it override the initializer).\n\n")
	b.WriteString("A model of default-domain opsets 1 to 6 has each node upgraded to its form at opset 7, as ONNX's version converter upgrades it: consumed_inputs dropped; ")
	b.WriteString("the binary ops' broadcast and axis (B aligned at axis, the ranks known at import) made numpy broadcasting; Gemm's broadcast dropped; ")
	b.WriteString("BatchNormalization's and Dropout's is_test dropped (inference); PRelu's per-channel slope [C] applied along dimension 1; ")
	b.WriteString("Reshape's shape attribute, Tile's tiles and axis and Split's split input (known at import) made the later forms; Concat's default axis 1; ")
	b.WriteString("Pad's paddings, Cast's type names, Upsample's height_scale and width_scale, LpPool's float p, Clip's and Selu's version-1 defaults; ")
	b.WriteString("output_sequence of the recurrent ops dropped. An op ONNX added at opset 7 or later is refused in such a model, but for onnxruntime's LayerNormalization and SimplifiedLayerNormalization, which it takes in the default domain at every opset.\n\n")
	b.WriteString("| ONNX op | pipert op | opsets | note |\n|---|---|---|---|\n")
	about := map[string]string{
		onnx.MSDomain: "onnxruntime's contrib ops, computed as its CPU kernels compute them.",
		onnx.MLDomain: "The classic machine-learning ops (scikit-learn, LightGBM and XGBoost exports), computed as onnxruntime's CPU kernels compute them; string labels, maps and sequences are refused.",
	}
	unimported := map[string]string{
		onnx.MSDomain: " or, not importing it, is read at version 1, as onnxruntime reads a domain missing from opset_import at its latest (its fusion tools write such models)",
	}
	domain := ""
	for _, info := range onnx.Ops() {
		if info.Domain != domain {
			domain = info.Domain
			fmt.Fprintf(&b, "\n## Domain %s\n\n", domain)
			b.WriteString(about[domain] + " A model using them imports the domain (opset_import)" + unimported[domain] + "; an op of another domain fails the import with an error naming the domain, op and version.\n\n")
			b.WriteString("| op | pipert op | versions | note |\n|---|---|---|---|\n")
		}
		p := info.Pipert
		if p == "" {
			p = "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %d–%d | %s |\n", info.ONNX, p, info.MinOpset, info.MaxOpset, info.Note)
	}
	path := filepath.Join("..", "docs", "ONNX_OPS.md")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != b.String() {
		t.Fatalf("%s is stale: run go test ./onnx -run OpsDoc -update", path)
	}
}
