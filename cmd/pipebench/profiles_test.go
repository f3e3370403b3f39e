package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfilesListsWhatDumps: every profile pipebench profiles lists,
// profiles -dump prints (as YAML and as JSON); zero, which a scenario
// file's device.profile also takes, is no profile of the card: not
// listed, and -dump zero says why.
func TestProfilesListsWhatDumps(t *testing.T) {
	code, out, errb := runArgs(t, "profiles")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		names = append(names, strings.Fields(l)[0])
	}
	if strings.Join(names, " ") != "swai gpu" {
		t.Errorf("profiles lists %v, want swai gpu", names)
	}
	for _, name := range names {
		for _, args := range [][]string{{"profiles", "-dump", name}, {"profiles", "-dump", name, "-json"}} {
			if code, out, errb := runArgs(t, args...); code != 0 || out == "" {
				t.Errorf("%v: exit %d: %s", args, code, errb)
			}
		}
	}
	if code, _, errb := runArgs(t, "profiles", "-dump", "zero"); code != 2 || !strings.Contains(errb, "zero is the device that takes no time") || !strings.Contains(errb, "have swai, gpu") {
		t.Errorf("-dump zero: exit %d: %s", code, errb)
	}
}

// TestStdoutWriteErrorsFail: a command whose output to stdout fails (a
// full disk: > /dev/full) exits 1, naming the failed write, however much
// it wrote before.
func TestStdoutWriteErrorsFail(t *testing.T) {
	dir := t.TempDir()
	row := `{"scenario":"decode","mode":"kbk","kernels":3,"makespan_ns":1000,"bound_ns":900,"efficiency":0.9,"speedup_vs_kbk":1}`
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"schema_version":1,"results":[`+row+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"profiles"},
		{"profiles", "-dump", "swai"},
		{"profiles", "-dump", "gpu", "-json"},
		{"scenarios"},
		{"scenarios", "-dump", "decode"},
		{"report", dir},
		{"moe", "-quick", "-ranks", "2", "-fabric-ranks", "2", "-experts", "4", "-topk", "2", "-hidden", "8", "-tokens", "6", "-variants", "sorted"},
		{"device", "-quick", "-figures", "launch"},
		{"soak", "-runs", "10", "-cancels", "2", "-duration", "300ms", "-every", "100ms", "-executables", "1"},
		{"sweep", "-scenario", "decode", "-quick", "-vary", "layers=1", "-mode", "kbk", "-reps", "1", "-o", filepath.Join(dir, "sweep"), "-q"},
	} {
		for _, ok := range []int{0, 10} { // the first write fails, or after a part
			var errb strings.Builder
			code := run(context.Background(), args, &failingWriter{ok: ok}, &errb)
			if code != 1 || !strings.Contains(errb.String(), errDiskFull.Error()) {
				t.Errorf("%v, stdout failing after %d bytes: exit %d, %q; want 1 and the write's error", args, ok, code, errb.String())
			}
		}
	}
}

// TestProfileFileSlowRates: a profile file whose rates are below
// device.MinRate (the simulated device spends its modeled time for real,
// so each kernel would take minutes) is a usage error naming the file,
// the line, the field and the range, in YAML and in JSON.
func TestProfileFileSlowRates(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"slow.yaml", "name: slow\npeak_flops: 1e-9\n", "slow.yaml:2: peak_flops: must be in [1e+06, +Inf), got 1e-09"},
		{"slow.yml", "mem_bandwidth: 1000\n", "slow.yml:1: mem_bandwidth: must be in [1e+06, +Inf), got 1000"},
		{"slowcopy.yaml", "transfer:\n  bandwidth: 1e3\n  channel_bandwidth: 1e3\n", "slowcopy.yaml:2: transfer.bandwidth: must be in [1e+06, +Inf), got 1000"},
		{"slow.json", `{"peak_flops": 1e-9}`, `profile "swai": peak_flops: must be in [1e+06, +Inf), got 1e-09`},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errb := runArgs(t, "-quick", "-scenario", "smallops", "-mode", "kbk", "-reps", "1", "-device", path)
		if code != 2 || out != "" || !strings.Contains(errb, c.want) {
			t.Errorf("-device %s: exit %d, stderr %q; want 2 and %q", c.name, code, errb, c.want)
		}
	}
}

// TestProfileFileNotAMapping: a profile file whose document is null, a
// list or a scalar is a usage error saying what it holds; it was taken
// for a file naming no field (the default profile). An empty mapping
// still is one.
func TestProfileFileNotAMapping(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"null.yaml", "null\n", "null.yaml:1: want a mapping of fields, got null"},
		{"tilde.yml", "~\n", "tilde.yml:1: want a mapping of fields, got null"},
		{"list.yaml", "- peak_flops: 1e12\n", "list.yaml:1: want a mapping of fields, got a list"},
		{"scalar.yaml", "swai\n", `scalar.yaml:1: want a mapping of fields, got "swai"`},
		{"null.json", "null", "want a JSON object of profile fields, got null"},
		{"list.json", `[{"peak_flops": 1e12}]`, "want a JSON object of profile fields, got ["},
		{"empty.yaml", "{}\n", ""},
		{"empty.json", "{}", ""},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errb := runArgs(t, "-quick", "-scenario", "smallops", "-mode", "kbk", "-reps", "1", "-q", "-device", path)
		switch {
		case c.want == "" && code != 0:
			t.Errorf("-device %s: exit %d, stderr %q; want 0", c.name, code, errb)
		case c.want != "" && (code != 2 || !strings.Contains(errb, c.want)):
			t.Errorf("-device %s: exit %d, stderr %q; want 2 and %q", c.name, code, errb, c.want)
		}
	}
}
