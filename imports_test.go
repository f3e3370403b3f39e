package pipert_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/pipert/pipert"

// allowed lists, for each package, the pipert packages its non-test files
// may import: the dependency graph of docs/ARCHITECTURE.md. A package not
// listed may import nothing of pipert but what its own rule below allows.
var allowed = map[string][]string{
	"trace":                   {},
	"trace/analysis":          {"trace"},
	"queues":                  {"internal/hostmem"},
	"cache":                   {},
	"sync/ready":              {},
	"internal/clock":          {},
	"internal/spin":           {},
	"internal/minheap":        {},
	"internal/leaktest":       {},
	"internal/lines":          {},
	"internal/race":           {},
	"internal/hostmem":        {},
	"internal/graphtest":      {"subgraph", "kernel"},
	"device/alloc":            {},
	"device/internal/account": {"device/alloc", "internal/hostmem"},
	"device/internal/none":    {"device"},
	"device":                  {"device/alloc", "device/internal/account", "internal/clock", "internal/hostmem", "internal/spin"},
	"device/devtrace":         {"device", "trace"},
	"device/devicetest":       {"device", "internal/clock"},
	"device/fault":            {"device", "device/alloc", "device/internal/none"},
	"device/fabric":           {"device", "internal/minheap", "sync/ready"},
	"device/swai":             {"device", "device/alloc", "device/mt3000", "internal/clock", "internal/hostmem"},
	"device/host":             {"device", "device/alloc", "device/internal/account", "device/internal/none", "internal/clock", "internal/spin"},
	"device/mt3000":           {"device", "device/host"},
	"kernel":                  {"device"},
	"kernel/ops":              {"kernel", "device"},
	"subgraph":                {"kernel", "internal/minheap"},
	"control":                 {"subgraph", "kernel", "device", "internal/hostmem"},
	"onnx":                    {"control", "subgraph", "kernel", "kernel/ops", "internal/minheap", "internal/hostmem"},
	"plan":                    {"control", "subgraph", "kernel", "kernel/ops", "device", "device/host", "trace"},
	"actor":                   {"cache", "plan", "subgraph", "kernel", "device", "queues", "sync/ready", "internal/clock", "internal/hostmem", "internal/spin", "trace"},
	"heterog":                 {"plan", "actor", "subgraph", "kernel", "kernel/ops", "device", "device/alloc", "device/host", "queues", "sync/ready", "internal/clock", "internal/hostmem", "internal/minheap", "internal/spin", "trace"},
	"heterog/heterogtest":     {"plan", "heterog", "actor", "subgraph", "kernel", "kernel/ops", "device", "device/host"},
	"":                        {"onnx", "control", "plan", "actor", "heterog", "subgraph", "kernel", "kernel/ops", "device", "device/host", "device/devtrace", "trace"},
	"scenarios":               {"", "plan", "subgraph", "kernel", "device", "device/host", "device/mt3000", "onnx", "models", "internal/hostmem"},
	"models":                  {},
	"moe":                     {"", "device", "device/fabric", "kernel", "subgraph"},
}

// TestForbiddenImports keeps the package graph layered: lower packages never
// import higher ones.
func TestForbiddenImports(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." {
			dir = ""
		}
		if strings.HasPrefix(dir, "cmd/") {
			return nil // commands may import anything
		}
		ok, known := allowed[dir]
		if !known {
			t.Errorf("package %q has no import rule in imports_test.go", dir)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			found := false
			for _, a := range ok {
				if a == rel {
					found = true
				}
			}
			if !found {
				t.Errorf("%s imports %s, which package %q may not import", path, p, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
