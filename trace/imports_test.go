package trace

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLeafImports keeps trace a leaf: its non-test files import the standard
// library, protowire and klauspost's zlib writer only; trace/analysis adds
// trace itself.
func TestLeafImports(t *testing.T) {
	allowed := map[string][]string{
		".":        {"google.golang.org/protobuf/encoding/protowire", "github.com/klauspost/compress/zlib"},
		"analysis": {"github.com/pipert/pipert/trace"},
	}
	for dir, extra := range allowed {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				std := !strings.Contains(strings.Split(path, "/")[0], ".")
				ok := std
				for _, e := range extra {
					ok = ok || path == e
				}
				if !ok {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
}
