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
	var root *os.Root // opened at the first external tensor
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	load := func(t *Tensor) error {
		if t == nil || !t.External {
			return nil
		}
		if !t.ExternalLocation {
			return fmt.Errorf("%w: tensor %q has external_data entries but data_location is not EXTERNAL", ErrFormat, t.Name)
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
			if root == nil {
				if root, err = os.OpenRoot(dir); err != nil {
					return fmt.Errorf("%w: tensor %q: external data: %v", ErrFormat, t.Name, err)
				}
			}
			// The root refuses a path, symbolic links included, that
			// leaves the model's directory; a named pipe or device,
			// which would be read without end, is refused too.
			if fi, err := root.Stat(loc); err == nil && !fi.Mode().IsRegular() {
				return fmt.Errorf("%w: tensor %q: external data location %q is not a regular file (%v)", ErrFormat, t.Name, loc, fi.Mode().Type())
			}
			if data, err = root.ReadFile(loc); err != nil {
				return fmt.Errorf("%w: tensor %q: external data: %v", ErrFormat, t.Name, err)
			}
			files[loc] = data
		}
		off := int64(0)
		if v, ok := t.ExternalData["offset"]; ok {
			o, err := strconv.ParseInt(v, 10, 64)
			if err != nil || o < 0 || o > int64(len(data)) {
				return fmt.Errorf("%w: tensor %q: external data offset %q in a file of %d bytes", ErrFormat, t.Name, v, len(data))
			}
			off = o
		}
		// Without a length, the tensor's own size (its shape's elements).
		n, ok := t.byteSize()
		if v, given := t.ExternalData["length"]; given {
			l, err := strconv.ParseInt(v, 10, 64)
			if err != nil || l < 0 {
				return fmt.Errorf("%w: tensor %q: external data length %q", ErrFormat, t.Name, v)
			}
			n, ok = l, true
		}
		if !ok || n > int64(len(data))-off {
			return fmt.Errorf("%w: tensor %q: external data of %d bytes from offset %d in a file of %d bytes", ErrFormat, t.Name, n, off, len(data))
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

// byteSize is the bytes of t's elements by its shape and type, for the
// types of a fixed element size; ok is false when it overflows or the
// type has none.
func (t *Tensor) byteSize() (int64, bool) {
	size := int64(t.DataType.elemSize())
	switch t.DataType {
	case Undefined, String:
		return 0, false
	case Complex128:
		size = 16
	}
	n := size
	for _, d := range t.Dims {
		if d < 0 || d > 0 && n > (1<<62)/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}
