// Package profiledoc extracts the documentation of the simulated card's
// profile from its source, device/swai/profile.go: what each field of
// swai.Profile means (the comment on the field) and, for each built-in
// profile (the functions Default and GPU), where its value comes from (the
// comment on the value in the function's composite literal). pipebench's
// generated table (profiledoc_gen.go, made by go generate) holds the result,
// and a test checks that it is up to date.
//
// Dependency rule: the standard library only.
package profiledoc

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"sort"
	"strings"
)

// Doc is the documentation of one profile: Meaning by Go field path
// ("Launch.CPU"), and Source by built-in profile name ("swai", "gpu") and
// Go field path.
type Doc struct {
	Meaning map[string]string
	Source  map[string]map[string]string
}

// profileFuncs maps the functions of profile.go that build a profile to
// the names pipebench gives them.
var profileFuncs = map[string]string{"Default": "swai", "GPU": "gpu"}

// Extract reads the source of device/swai/profile.go.
func Extract(src []byte) (*Doc, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "profile.go", src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("profiledoc: %w", err)
	}
	d := &Doc{Meaning: map[string]string{}, Source: map[string]map[string]string{}}
	types := map[string]*ast.StructType{}
	typeDocs := map[*ast.StructType]string{}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.GenDecl:
			for _, s := range decl.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					if st, ok := ts.Type.(*ast.StructType); ok {
						types[ts.Name.Name] = st
						typeDocs[st] = clean(decl.Doc.Text())
					}
				}
			}
		case *ast.FuncDecl:
			name, ok := profileFuncs[decl.Name.Name]
			if !ok || decl.Body == nil {
				continue
			}
			for _, stmt := range decl.Body.List {
				ret, ok := stmt.(*ast.ReturnStmt)
				if !ok || len(ret.Results) != 1 {
					continue
				}
				if lit, ok := ret.Results[0].(*ast.CompositeLit); ok {
					d.Source[name] = map[string]string{}
					sources(fset, f, lit, "", d.Source[name])
				}
			}
		}
	}
	if len(d.Source) != len(profileFuncs) {
		return nil, fmt.Errorf("profiledoc: found %d of the %d profile functions", len(d.Source), len(profileFuncs))
	}
	root, ok := types["Profile"]
	if !ok {
		return nil, fmt.Errorf("profiledoc: no Profile struct")
	}
	meanings(root, "", types, typeDocs, d.Meaning)
	return d, nil
}

// meanings records the comment of every field of st, recursing into the
// struct types of the file.
//
// A field without a comment takes the doc comment of the field before it,
// or else the doc of its struct type, when that names it.
func meanings(st *ast.StructType, prefix string, types map[string]*ast.StructType, typeDocs map[*ast.StructType]string, out map[string]string) {
	prevDoc := ""
	for _, fl := range st.Fields.List {
		doc := clean(fl.Doc.Text())
		text := doc
		if c := clean(fl.Comment.Text()); c != "" {
			text = strings.TrimSpace(text + " " + c)
		}
		id, _ := fl.Type.(*ast.Ident)
		sub := (*ast.StructType)(nil)
		if id != nil {
			sub = types[id.Name]
		}
		if doc != "" {
			prevDoc = doc
		}
		for _, n := range fl.Names {
			path := prefix + n.Name
			t := text
			if t == "" && sub == nil {
				if mentions(prevDoc, n.Name) {
					t = prevDoc
				} else if mentions(typeDocs[st], n.Name) {
					t = typeDocs[st]
				}
			}
			if t != "" {
				out[path] = t
			}
			if sub != nil {
				meanings(sub, path+".", types, typeDocs, out)
			}
		}
	}
}

// sources records the comment on each value of lit: the line comment after
// it, or the comment lines just above its key.
func sources(fset *token.FileSet, f *ast.File, lit *ast.CompositeLit, prefix string, out map[string]string) {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		path := prefix + key.Name
		if sub, ok := kv.Value.(*ast.CompositeLit); ok {
			if _, isType := sub.Type.(*ast.Ident); isType {
				sources(fset, f, sub, path+".", out)
			}
		}
		if c := commentAround(fset, f, kv); c != "" {
			out[path] = c
		}
	}
}

func commentAround(fset *token.FileSet, f *ast.File, kv *ast.KeyValueExpr) string {
	keyLine, keyCol := fset.Position(kv.Pos()).Line, fset.Position(kv.Pos()).Column
	endLine := fset.Position(kv.Value.End()).Line
	var above []string
	for _, cg := range f.Comments {
		start, end := fset.Position(cg.Pos()).Line, fset.Position(cg.End()).Line
		switch {
		case start == endLine && cg.Pos() > kv.Value.End():
			return clean(cg.Text())
		case end == keyLine-1 && fset.Position(cg.Pos()).Column == keyCol:
			above = append(above, clean(cg.Text()))
		}
	}
	return strings.Join(above, " ")
}

// mentions reports whether doc names the identifier name as a word.
func mentions(doc, name string) bool {
	for _, w := range strings.FieldsFunc(doc, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if w == name {
			return true
		}
	}
	return false
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// Generate writes the Go source of a table of d in package pkg.
func Generate(d *Doc, pkg string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./cmd/pipebench/internal/profiledoc/gen; DO NOT EDIT.\n\npackage %s\n\n", pkg)
	b.WriteString("// profileMeaning is what each field of swai.Profile means, by Go field path.\n")
	b.WriteString("var profileMeaning = map[string]string{\n")
	for _, k := range sorted(d.Meaning) {
		fmt.Fprintf(&b, "\t%q: %q,\n", k, d.Meaning[k])
	}
	b.WriteString("}\n\n// profileSource is where each built-in profile's values come from, by\n// profile and Go field path.\n")
	b.WriteString("var profileSource = map[string]map[string]string{\n")
	var names []string
	for n := range d.Source {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "\t%q: {\n", n)
		for _, k := range sorted(d.Source[n]) {
			fmt.Fprintf(&b, "\t\t%q: %q,\n", k, d.Source[n][k])
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

func sorted(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
