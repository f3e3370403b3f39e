package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// profileStrings returns the decompressed CPU profile at path: its string
// table holds every label key and value of its samples.
func profileStrings(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProfileOps checks the CPU profile's labels: by stage always, by op
// with -profile-ops only.
func TestProfileOps(t *testing.T) {
	dir := t.TempDir()
	for _, ops := range []bool{false, true} {
		path := filepath.Join(dir, "cpu.out")
		args := []string{"-scenario", "smallops", "-mode", "kbk", "-reps", "3", "-q", "-cpuprofile", path}
		if ops {
			args = append(args, "-profile-ops")
		}
		if code, _, errb := runArgs(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb)
		}
		b := profileStrings(t, path)
		if !bytes.Contains(b, []byte("pipert.stage")) {
			t.Errorf("profile-ops %v: no pipert.stage label", ops)
		}
		if got := bytes.Contains(b, []byte("pipert.op")) && bytes.Contains(b, []byte("MatMul")); got != ops {
			t.Errorf("profile-ops %v: op labels present %v", ops, got)
		}
	}
	if code, _, _ := runArgs(t, "-profile-ops", "-scenario", "decode"); code != 2 {
		t.Errorf("-profile-ops without -cpuprofile: exit %d, want 2", code)
	}
}
