package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pipert/pipert/internal/hostmem"
)

// loadExternal gives each tensor of m that keeps its data in an external
// file (initializers and tensor attributes, in subgraphs and local
// functions too) that data as Raw, read from the file its location names
// in dir: only the tensor's range is read, into memory of the tensor's
// size, so that a file much larger than its tensors (or than memory)
// costs no more. A location outside dir, or a range outside the file, is
// an error wrapping ErrFormat; a range larger than the host's available
// memory one matching device.ErrHostMemory.
func loadExternal(m *Model, dir string) error {
	type file struct {
		f    *os.File
		size int64
	}
	files := map[string]file{}
	var root *os.Root // opened at the first external tensor
	defer func() {
		for _, f := range files {
			f.f.Close()
		}
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
		fl, ok := files[loc]
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
			if fi, err := root.Stat(loc); err == nil && !fi.Mode().IsRegular() { // before opening: a pipe's open waits for a writer
				return fmt.Errorf("%w: tensor %q: external data location %q is not a regular file (%v)", ErrFormat, t.Name, loc, fi.Mode().Type())
			}
			f, err := root.Open(loc)
			if err != nil {
				return fmt.Errorf("%w: tensor %q: external data: %v", ErrFormat, t.Name, err)
			}
			fi, err := f.Stat()
			if err == nil && !fi.Mode().IsRegular() {
				err = fmt.Errorf("external data location %q is not a regular file (%v)", loc, fi.Mode().Type())
			}
			if err != nil {
				f.Close()
				return fmt.Errorf("%w: tensor %q: %v", ErrFormat, t.Name, err)
			}
			fl = file{f: f, size: fi.Size()}
			files[loc] = fl
		}
		off := int64(0)
		if v, ok := t.ExternalData["offset"]; ok {
			o, err := strconv.ParseInt(v, 10, 64)
			if err != nil || o < 0 || o > fl.size {
				return fmt.Errorf("%w: tensor %q: external data offset %q in a file of %d bytes", ErrFormat, t.Name, v, fl.size)
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
		if !ok {
			return fmt.Errorf("%w: tensor %q: external data of %v %v has no size in bytes (give its length)", ErrFormat, t.Name, t.DataType, t.Dims)
		}
		if n > fl.size-off {
			return fmt.Errorf("%w: tensor %q: external data of %d bytes from offset %d in a file of %d bytes", ErrFormat, t.Name, n, off, fl.size)
		}
		data, err := hostmem.Make(n)
		if err != nil {
			return fmt.Errorf("onnx: tensor %q: external data: %w", t.Name, err)
		}
		if _, err := fl.f.ReadAt(data, off); err != nil {
			return fmt.Errorf("%w: tensor %q: external data: %v", ErrFormat, t.Name, err)
		}
		t.Raw, t.External = data, false
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
