package onnx

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExternalData: ReadFile reads initializers kept in an external file
// beside the model (the ext_ fixtures check the values against
// onnxruntime); Read, which knows no directory, refuses them with a
// message saying why; a location outside the directory, a missing file
// and a range outside the file are ErrFormat.
func TestExternalData(t *testing.T) {
	path := filepath.Join("testdata", "opset", "ext_matmul_opset17.onnx")
	m, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Graph.Initializers) == 0 {
		t.Fatal("no initializers")
	}
	for _, in := range m.Graph.Initializers {
		if in.External || len(in.Raw) == 0 && len(in.Int64s) == 0 {
			t.Fatalf("initializer %q not loaded: %+v", in.Name, in)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err = Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Import(m, Options{}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "ReadFile") {
		t.Fatalf("external data read without a directory: %v", err)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w.bin"), make([]byte, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ext  map[string]string
	}{
		{"outside the directory", map[string]string{"location": "../w.bin"}},
		{"absolute", map[string]string{"location": filepath.Join(dir, "w.bin")}},
		{"missing file", map[string]string{"location": "nosuch.bin"}},
		{"no location", map[string]string{"offset": "0"}},
		{"offset past the end", map[string]string{"location": "w.bin", "offset": "17"}},
		{"length past the end", map[string]string{"location": "w.bin", "offset": "8", "length": "9"}},
		{"shape past the end", map[string]string{"location": "w.bin", "offset": "12"}},
		{"bad offset", map[string]string{"location": "w.bin", "offset": "x"}},
	} {
		m := &Model{Graph: &Graph{Initializers: []*Tensor{{Name: "w", DataType: Float, Dims: []int64{2}, External: true, ExternalLocation: true, ExternalData: tc.ext}}}}
		if err := loadExternal(m, dir); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", tc.name, err)
		}
	}
	// A shape whose size overflows, or a dtype of no fixed size, is named
	// as such, not as a range of 0 bytes.
	for _, tc := range []struct {
		dt   DataType
		dims []int64
	}{
		{Float, []int64{1 << 31, 1 << 31}},
		{Float, []int64{1 << 62, 4}},
		{Float, []int64{-1}},
		{String, []int64{1}},
	} {
		m := &Model{Graph: &Graph{Initializers: []*Tensor{{Name: "w", DataType: tc.dt, Dims: tc.dims, External: true, ExternalLocation: true,
			ExternalData: map[string]string{"location": "w.bin"}}}}}
		if err := loadExternal(m, dir); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "no size in bytes") {
			t.Errorf("%v %v: %v, want ErrFormat saying it has no size", tc.dt, tc.dims, err)
		}
	}
	for _, ext := range []map[string]string{
		{"location": "w.bin", "offset": "8", "length": "8"},
		{"location": "w.bin", "offset": "4"}, // the tensor's size: 2 float32
		{"location": "w.bin"},
	} {
		m = &Model{Graph: &Graph{Initializers: []*Tensor{{Name: "w", DataType: Float, Dims: []int64{2}, External: true, ExternalLocation: true, ExternalData: ext}}}}
		if err := loadExternal(m, dir); err != nil || len(m.Graph.Initializers[0].Raw) != 8 {
			t.Fatalf("%v: %v, %d bytes", ext, err, len(m.Graph.Initializers[0].Raw))
		}
	}
	// external_data without data_location EXTERNAL is malformed.
	m = &Model{Graph: &Graph{Initializers: []*Tensor{{Name: "w", DataType: Float, Dims: []int64{2}, External: true,
		ExternalData: map[string]string{"location": "w.bin"}}}}}
	if err := loadExternal(m, dir); !errors.Is(err, ErrFormat) {
		t.Errorf("external_data without data_location: %v, want ErrFormat", err)
	}
	// A symbolic link out of the directory is refused like a path.
	outside := filepath.Join(t.TempDir(), "secret.bin")
	if err := os.WriteFile(outside, make([]byte, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.bin")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	m = &Model{Graph: &Graph{Initializers: []*Tensor{{Name: "w", DataType: Float, Dims: []int64{2}, External: true, ExternalLocation: true,
		ExternalData: map[string]string{"location": "link.bin"}}}}}
	if err := loadExternal(m, dir); !errors.Is(err, ErrFormat) {
		t.Errorf("a link out of the directory: %v, want ErrFormat", err)
	}
}

// TestExternalDataReadsTheRange: a tensor kept in a file much larger than
// it (a sparse 64 GiB file here) costs its own bytes, not the file's: only
// its range is read. Two tensors of one file each get their range.
func TestExternalDataReadsTheRange(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0, 0, 128, 63, 0, 0, 0, 64}, 0); err != nil { // 1.0, 2.0
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0, 0, 64, 64}, 1<<36-4); err != nil { // 3.0 at the end
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	m := &Model{Graph: &Graph{Initializers: []*Tensor{
		{Name: "a", DataType: Float, Dims: []int64{2}, External: true, ExternalLocation: true, ExternalData: map[string]string{"location": "big.bin"}},
		{Name: "b", DataType: Float, Dims: []int64{1}, External: true, ExternalLocation: true, ExternalData: map[string]string{"location": "big.bin", "offset": "68719476732"}},
	}}}
	if err := loadExternal(m, dir); err != nil {
		t.Fatal(err)
	}
	a, b := m.Graph.Initializers[0].Raw, m.Graph.Initializers[1].Raw
	if !bytes.Equal(a, []byte{0, 0, 128, 63, 0, 0, 0, 64}) || !bytes.Equal(b, []byte{0, 0, 64, 64}) {
		t.Fatalf("read %v and %v", a, b)
	}
	if cap(a) != 8 || cap(b) != 4 {
		t.Fatalf("the tensors hold %d and %d bytes, want their own 8 and 4", cap(a), cap(b))
	}
}
