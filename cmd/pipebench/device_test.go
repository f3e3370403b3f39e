package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deviceClaim is one row of the -json "comparison", every field of the
// schema.
type deviceClaim struct {
	Figure       string  `json:"figure"`
	Claim        string  `json:"claim"`
	Paper        string  `json:"paper"`
	Value        float64 `json:"value"`
	Unit         string  `json:"unit"`
	Ratio        float64 `json:"ratio"`
	WithinTenPct bool    `json:"within_10pct"`
	Params       string  `json:"params"`
}

// pipebench device prints the papers' claims beside pipert's values and
// keeps them in the JSON as "comparison": the SDAA and MTTorch claims all
// hold, the ATB document's tiling-copy ordering (measured, so its grade is
// not asserted) and the MoE document's rung ratios (modeled, the same as
// pipebench moe's) are there with their metrics.
func TestDeviceClaims(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "device.json")
	code, stdout, stderr := runArgs(t, "device", "-quick", "-figures", "launch", "-json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"CLAIM", "WITHIN 10%", "figure 13, async mode", "paper claims: ",
		"atb ", "multi-stream no slower than whole", "moe ", "p2p-token over sorted"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int              `json:"schema_version"`
		Rows          []map[string]any `json:"rows"`
		Comparison    []map[string]any `json:"comparison"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 {
		t.Errorf("schema_version %d, want 1", doc.SchemaVersion)
	}
	if len(doc.Rows) == 0 || len(doc.Comparison) == 0 {
		t.Fatalf("%d rows, %d claims", len(doc.Rows), len(doc.Comparison))
	}
	keys := []string{"figure", "claim", "paper", "value", "unit", "ratio", "within_10pct", "params"}
	for _, c := range doc.Comparison {
		for _, k := range keys {
			if _, ok := c[k]; !ok {
				t.Fatalf("claim %v lacks %q", c, k)
			}
		}
		if len(c) != len(keys) {
			t.Errorf("claim %v has fields besides %v", c, keys)
		}
	}
	var claims []deviceClaim
	if err := json.Unmarshal(b, &struct {
		Comparison *[]deviceClaim `json:"comparison"`
	}{&claims}); err != nil {
		t.Fatal(err)
	}
	by := map[string][]deviceClaim{}
	for _, c := range claims {
		by[c.Figure] = append(by[c.Figure], c)
		// The ATB ordering and, in the malloc claims, the allocator's own
		// time t_malloc are measured on this host, so their grades are not
		// asserted here (device/swai's TestClaims grades the malloc claims
		// with a fixed t_malloc); the MoE ratios are checked below.
		measured := c.Figure == figATB || strings.Contains(c.Params, "measured t_malloc")
		if !measured && c.Figure != figMoE && !c.WithinTenPct {
			t.Errorf("claim not within 10%%: %+v", c)
		}
		if c.Params == "" || c.Unit == "" || !(c.Value > 0) || math.IsInf(c.Value, 0) {
			t.Errorf("claim %+v: no params, unit or value", c)
		}
	}

	// The tiling-copy ordering: two ratios of measured medians, each with
	// its metric and interval.
	atb := by[figATB]
	if len(atb) != 2 {
		t.Fatalf("%d ATB claims: %+v", len(atb), atb)
	}
	for i, want := range []struct{ metric, paper string }{
		{"(with-kernel over multi-stream; medians of 21 interleaved runs, wall time; noise: the ratio above its 95% interval's lower end)", "≤ 1"},
		{"(multi-stream over whole; the same runs and noise)", "≤ 1"},
	} {
		c := atb[i]
		if !strings.Contains(c.Claim, want.metric) || !strings.HasPrefix(c.Paper, want.paper) || c.Unit != "x" ||
			!strings.Contains(c.Params, "decode -quick") || !strings.Contains(c.Params, "95% interval") {
			t.Errorf("ATB claim %d: %+v", i, c)
		}
		if c.Ratio != c.Value {
			t.Errorf("ATB claim %d: ratio %v over a bound of 1 is not the value %v", i, c.Ratio, c.Value)
		}
		// Holds when the value is at most 1 + the noise the paper column
		// shows (rounded to 0.1%).
		noise := 0.0
		if _, err := fmt.Sscanf(c.Paper, "≤ 1 (+%f%% noise)", &noise); err != nil && c.Paper != "≤ 1" {
			t.Errorf("ATB claim %d: paper %q", i, c.Paper)
		}
		if bound := 1 + noise/100; math.Abs(c.Value-bound) > 1e-3 && c.WithinTenPct != (c.Value <= bound) {
			t.Errorf("ATB claim %d graded against ≤ %v wrongly: %+v", i, bound, c)
		}
	}

	// The MoE rung ratios: graded within 10% of the document's, each the
	// ratio pipebench moe prints for the same full-size models.
	mjs := filepath.Join(dir, "moe.json")
	if code, _, stderr := runArgs(t, "moe", "-quick", "-hidden", "8", "-tokens", "6", "-variants", "sorted,p2p-token,fused,varlen", "-json", mjs); code != 0 {
		t.Fatalf("moe: exit %d: %s", code, stderr)
	}
	mb, err := os.ReadFile(mjs)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Ratios []moeRatio `json:"ratios"`
	}
	if err := json.Unmarshal(mb, &rep); err != nil {
		t.Fatal(err)
	}
	moec := by[figMoE]
	if len(moec) != 3 || len(rep.Ratios) != 3 {
		t.Fatalf("%d MoE claims, %d pipebench moe ratios: %+v", len(moec), len(rep.Ratios), moec)
	}
	for i, want := range []struct{ claim, paper string }{
		{"p2p-token over sorted (document: 517/1311 µs; modeled makespans at full size", "≈ 0.3944"},
		{"fused over p2p-token (document: 345/517 µs; modeled makespans at full size", "≈ 0.6673"},
		{"varlen over fused (document: 292/345 µs; modeled makespans at full size", "≈ 0.8464"},
	} {
		c, r := moec[i], rep.Ratios[i]
		if !strings.HasPrefix(c.Claim, want.claim) || c.Paper != want.paper || c.Unit != "x" || !strings.Contains(c.Params, "moe.DefaultCosts") {
			t.Errorf("MoE claim %d: %+v", i, c)
		}
		if c.Value != r.Ours || math.Abs(c.Ratio-r.Ours/r.Paper) > 1e-12 || c.WithinTenPct != (math.Abs(c.Ratio-1) <= 0.1) {
			t.Errorf("MoE claim %d: %+v, pipebench moe: %+v", i, c, r)
		}
	}
}

func TestDeviceBadFigureNamesTheFlag(t *testing.T) {
	code, _, stderr := runArgs(t, "device", "-figures", "fig99")
	if code != 2 || !strings.Contains(stderr, "-figures") || !strings.Contains(stderr, `"fig99"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// TestDeviceProfileFormats: -profile takes what -device takes, a profile
// as pipebench profiles -dump prints it (YAML) or as -dump -json prints it,
// and refuses a bad one naming the file and the field.
func TestDeviceProfileFormats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	_, yml, _ := runArgs(t, "profiles", "-dump", "swai")
	_, js, _ := runArgs(t, "profiles", "-dump", "swai", "-json")
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{write("swai.yaml", yml), 0, ""},
		{write("swai.json", js), 0, ""},
		{write("slow.yml", "launch:\n  cpu_ns: 20us\n"), 0, ""},
		{write("bad.yaml", "launch:\n  cpu_ns: fast\n"), 2, `bad.yaml:2: launch.cpu_ns: "fast" is not a duration`},
		{write("long.yaml", "launch:\n  cpu_ns: 100000000000\n"), 2, "launch.cpu_ns: 100000000000 ns (1m40s) outside [0, 10s]"},
		{write("profile.txt", js), 2, "want a .json, .yaml or .yml file"},
		{filepath.Join(dir, "nosuch.yaml"), 2, "no such file"},
	} {
		code, out, errb := runArgs(t, "device", "-profile", c.path, "-figures", "launch", "-quick")
		if code != c.code || !strings.Contains(errb, c.want) || c.code == 0 && !strings.Contains(out, "paper claims: ") {
			t.Errorf("-profile %s: exit %d, %q; want %d and %q", filepath.Base(c.path), code, errb, c.code, c.want)
		}
		if c.code != 0 && !strings.Contains(errb, "-profile") {
			t.Errorf("-profile %s: the error does not name the flag: %q", filepath.Base(c.path), errb)
		}
	}
}

// TestDecodeTraceTableUnits: the decode allocation trace's table gives
// each column in one unit, named in its header: the time per operation in
// ns, the peak reserved memory in MiB (a peak of 817280 KiB and one of
// 872 MiB both read in MiB, not as 817280K beside 872M), the
// fragmentation as a fraction.
func TestDecodeTraceTableUnits(t *testing.T) {
	tr := &allocTrace{ops: 292, replays: 50, results: []allocResult{
		{name: "multilevel", nsPerOp: 19.46, peakReserved: 817280 << 10, fragmentation: 0.0061},
		{name: "caching", nsPerOp: 87.1, peakReserved: 872 << 20, fragmentation: 0.02},
	}}
	var b strings.Builder
	tr.write(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := [][]string{
		{"ALLOCATOR", "TIME", "(ns/op)", "PEAK", "RESERVED", "(MiB)", "MEAN", "FRAGMENTATION"},
		{"multilevel", "19.5", "798.1", "0.006"},
		{"caching", "87.1", "872.0", "0.020"},
	}
	if len(lines) != 5 {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[1+i]); !slices.Equal(got, w) {
			t.Errorf("line %d = %q, want %q", 2+i, got, w)
		}
	}
	if !strings.Contains(lines[0], "292 operations") || lines[4] != "caching/multilevel time 4.48x" {
		t.Errorf("table:\n%s", b.String())
	}
	rows := tr.rows()
	if len(rows) != 2 || rows[0].Figure != "decode-trace" || rows[0].SizeBytes != 817280<<10 || rows[1].LatencyNs != 87.1 {
		t.Errorf("rows %+v", rows)
	}
}
