package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// loadExternal gives each tensor of m that keeps its data in an external
// file (initializers and tensor attributes, in subgraphs and local
// functions too) that data as Raw, read from the file its location names
// in dir. Each file is read once; the tensors alias its bytes. A location
// outside dir, or a range outside the file, is an error wrapping
// ErrFormat.
func loadExternal(m *Model, dir string) error {
	files := map[string][]byte{}
	load := func(t *Tensor) error {
		if t == nil || !t.External {
			return nil
		}
		loc, ok := t.ExternalData["location"]
		if !ok {
			return fmt.Errorf("%w: tensor %q is external without a location", ErrFormat, t.Name)
		}
		if !filepath.IsLocal(loc) {
			return fmt.Errorf("%w: tensor %q: external data location %q is not inside the model's directory", ErrFormat, t.Name, loc)
		}
		data, ok := files[loc]
		if !ok {
			var err error
			if data, err = os.ReadFile(filepath.Join(dir, loc)); err != nil {
				return fmt.Errorf("%w: tensor %q: external data: %v", ErrFormat, t.Name, err)
			}
			files[loc] = data
		}
		off, n := int64(0), int64(len(data))
		if v, ok := t.ExternalData["offset"]; ok {
			o, err := strconv.ParseInt(v, 10, 64)
			if err != nil || o < 0 || o > int64(len(data)) {
				return fmt.Errorf("%w: tensor %q: external data offset %q in a file of %d bytes", ErrFormat, t.Name, v, len(data))
			}
			off, n = o, int64(len(data))-o
		}
		if v, ok := t.ExternalData["length"]; ok {
			l, err := strconv.ParseInt(v, 10, 64)
			if err != nil || l < 0 || l > n {
				return fmt.Errorf("%w: tensor %q: external data length %q from offset %d in a file of %d bytes", ErrFormat, t.Name, v, off, len(data))
			}
			n = l
		}
		t.Raw, t.External = data[off:off+n:off+n], false
		return nil
	}
	var graph func(g *Graph) error
	nodes := func(ns []*Node) error {
		for _, nd := range ns {
			if nd == nil {
				continue
			}
			for _, a := range nd.Attrs {
				if a == nil {
					continue
				}
				if err := load(a.T); err != nil {
					return err
				}
				for _, t := range a.Tensors {
					if err := load(t); err != nil {
						return err
					}
				}
				for _, g := range append([]*Graph{a.G}, a.Graphs...) {
					if err := graph(g); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	graph = func(g *Graph) error {
		if g == nil {
			return nil
		}
		for _, t := range g.Initializers {
			if err := load(t); err != nil {
				return err
			}
		}
		return nodes(g.Nodes)
	}
	if err := graph(m.Graph); err != nil {
		return err
	}
	for _, f := range m.Functions {
		if f != nil {
			if err := nodes(f.Nodes); err != nil {
				return err
			}
		}
	}
	return nil
}
