package swai

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert/device"
)

func TestProfilesValid(t *testing.T) {
	for _, p := range []Profile{Default(), GPU()} {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		dp := p.Device()
		if err := dp.Validate(); err != nil {
			t.Errorf("%s: derived device profile: %v", p.Name, err)
		}
		if dp.LaunchLatency+dp.KernelFixed != p.KLL(p.Launch.Method, 0) {
			t.Errorf("%s: LaunchLatency %v + KernelFixed %v != KLL %v", p.Name, dp.LaunchLatency, dp.KernelFixed, p.KLL(p.Launch.Method, 0))
		}
	}
}

func TestDeviceProfileDerivation(t *testing.T) {
	p := Default()
	dp := p.Device()
	want := p.Launch.CPU + p.Launch.CmdTransfer + p.Launch.Command + p.Launch.Start
	if dp.LaunchLatency != want {
		t.Errorf("LaunchLatency = %v, want %v", dp.LaunchLatency, want)
	}
	if dp.KernelFixed != p.Launch.Query {
		t.Errorf("KernelFixed = %v, want %v", dp.KernelFixed, p.Launch.Query)
	}
	if dp.H2D.Bandwidth != p.Transfer.Bandwidth || dp.D2D.Bandwidth != p.D2D.CPEBandwidth {
		t.Errorf("links = %+v %+v", dp.H2D, dp.D2D)
	}
	if dp.D2D.Latency != p.D2D.Host+p.D2D.CPEStart {
		t.Errorf("D2D latency = %v", dp.D2D.Latency)
	}
	p.Launch.Method = TraditionalLaunch
	dp = p.Device()
	if got := dp.LaunchLatency + dp.KernelFixed; got != p.KLL(TraditionalLaunch, 0) {
		t.Errorf("traditional: %v, want %v", got, p.KLL(TraditionalLaunch, 0))
	}
}

func TestProfileJSONRoundTrip(t *testing.T) {
	for _, p := range []Profile{Default(), GPU()} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseProfile(b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", p.Name, err, b)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%s: round trip changed the profile:\n got %+v\nwant %+v", p.Name, got, p)
		}
	}
	b, _ := json.Marshal(Default())
	for _, s := range []string{`"method":"fast"`, `"engines":["mpe","cpe","dma","iommu"]`, `"cpu_ns":500`, `"serial":true`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("JSON lacks %s: %s", s, b)
		}
	}
}

func TestLoadProfile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}

	p, err := LoadProfile(write("partial.json", `{"name": "slow", "launch": {"cpu_ns": 5000, "method": "traditional"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Name = "slow"
	want.Launch.CPU = 5 * time.Microsecond
	want.Launch.Method = TraditionalLaunch
	if !reflect.DeepEqual(p, want) {
		t.Errorf("partial profile = %+v, want the default with two fields changed", p)
	}

	gpu, _ := json.Marshal(GPU())
	if p, err := LoadProfile(write("gpu.json", string(gpu))); err != nil || !reflect.DeepEqual(p, GPU()) {
		t.Errorf("gpu file: %v, %+v", err, p)
	}

	cases := []struct {
		name, content string
		wantErr       []string
	}{
		{"unknown", `{"name": "x", "lanch": {}}`, []string{`unknown field "lanch"`}},
		{"unknown nested", `{"transfer": {"chanels": 4}}`, []string{`unknown field "chanels"`}},
		{"negative", `{"launch": {"cpu_ns": -1}, "transfer": {"bandwidth": -3}, "malloc": {"page_bytes": -4096}}`,
			[]string{"launch.cpu_ns: must not be negative, got -1", "transfer.bandwidth: must be in [1e+06, +Inf), got -3", "malloc.page_bytes: must not be negative"}},
		{"too long", `{"launch": {"cpu_ns": 100000000000}}`, []string{"launch.cpu_ns: 100000000000 ns (1m40s) outside [0, 10s]"}},
		{"zero channels", `{"transfer": {"channels": 0}}`, []string{"transfer.channels: must be positive"}},
		{"channel faster than all", `{"transfer": {"channel_bandwidth": 20e9}}`, []string{"must not exceed transfer.bandwidth"}},
		{"levels", `{"queue": {"levels": 3}}`, []string{"queue.levels: must be 1 or 2"}},
		{"ring slots", `{"queue": {"levels": 2, "ring_slots": 0}}`, []string{"queue.ring_slots: must be positive"}},
		{"method", `{"launch": {"method": "quick"}}`, []string{`unknown launch method "quick"`}},
		{"engine", `{"d2d": {"engines": ["mpe", "gpu"]}}`, []string{`unknown engine "gpu"`}},
		{"engine twice", `{"d2d": {"engines": ["cpe", "cpe"]}}`, []string{"engine cpe listed twice"}},
		{"mpe only", `{"d2d": {"engines": ["mpe"]}}`, []string{"other than mpe"}},
		{"no engines", `{"d2d": {"engines": []}}`, []string{"at least one engine"}},
		{"allocator", `{"allocator": "buddy"}`, []string{`unknown allocator "buddy"`}},
		{"segment entries", `{"segment_entries": 0}`, []string{"segment_entries: must be positive"}},
		{"name", `{"name": ""}`, []string{"name: must not be empty"}},
		{"cores", `{"launch": {"cores": 0}}`, []string{"launch.cores: must be positive"}},
		{"staging", `{"transfer": {"min_chunk_bytes": 4194304}}`, []string{"must not exceed transfer.staging_bytes"}},
		{"equation 5", `{"transfer": {"host_mem_bandwidth": 10e9}}`, []string{"equation 5"}},
		{"present engine bandwidth", `{"d2d": {"cpe_bandwidth": 0}}`, []string{"d2d.cpe_bandwidth: must be in [1e+06, +Inf), got 0"}},
		// Rates so low that the simulated device, which spends its
		// modeled time for real, takes minutes a kernel.
		{"tiny rates", `{"peak_flops": 1e-9, "mem_bandwidth": 999999, "d2d": {"dma_read_bandwidth": 1}}`,
			[]string{"peak_flops: must be in [1e+06, +Inf), got 1e-09", "mem_bandwidth: must be in [1e+06, +Inf), got 999999", "d2d.dma_read_bandwidth: must be in [1e+06, +Inf), got 1"}},
		// An MPE so slow that a copy's modeled time overflowed.
		{"tiny mpe scale", `{"d2d": {"mpe_copy_scale": 1e-300}}`, []string{"d2d.mpe_copy_scale: must be in [1e-06, +Inf), got 1e-300"}},
		{"trailing", `{"name": "x"} {}`, []string{"trailing data"}},
		// Not an object: null left every field Default's, as if the
		// file named none.
		{"null", `null`, []string{"want a JSON object of profile fields, got null"}},
		{"array", `[{"name": "x"}]`, []string{"want a JSON object of profile fields, got ["}},
		{"number", `5`, []string{"want a JSON object of profile fields, got 5"}},
		{"not json", `name = x`, []string{"parse"}},
		{"fractional ns", `{"launch": {"cpu_ns": 1.5}}`, []string{"cpu_ns"}},
		// Counts beyond any card, each a table, workers or staging
		// memory the simulator would make (they ended the process out of
		// memory, or hung it).
		{"huge queue", `{"queue": {"slots": 1099511627776}}`, []string{"queue.slots: must be at most 1048576"}},
		{"huge ring", `{"queue": {"levels": 2, "ring_slots": 1099511627776}}`, []string{"queue.ring_slots: must be at most 1048576"}},
		{"huge segment table", `{"segment_entries": 2147483647}`, []string{"segment_entries: must be at most 1048576"}},
		{"huge core count", `{"launch": {"cores": 1000000000}}`, []string{"launch.cores: must be at most 1024"}},
		{"huge engine counts", `{"compute_engines": 1000000000, "copy_engines": 5000}`, []string{"compute_engines: must be at most 4096", "copy_engines: must be at most 4096"}},
		{"huge transfer", `{"transfer": {"channels": 1000000000, "threads": 1000000000, "staging_buffers": 2000}}`,
			[]string{"transfer.channels: must be at most 1024", "transfer.threads: must be at most 1024", "transfer.staging_buffers: must be at most 1024"}},
		{"huge staging buffer", `{"transfer": {"staging_bytes": 1099511627776}}`, []string{"transfer.staging_bytes: must be at most 268435456"}},
	}
	for _, c := range cases {
		path := write(strings.ReplaceAll(c.name, " ", "_")+".json", c.content)
		_, err := LoadProfile(path)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "swai: ") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q lacks the package prefix or the path", c.name, err)
		}
		for _, w := range c.wantErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}

	if _, err := LoadProfile(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	p := Default()
	p.MemoryBytes = 0
	p.Launch.Query = -1
	p.Transfer.StagingBuffers = 0
	err := p.Validate()
	for _, w := range []string{"memory_bytes", "launch.query_ns", "transfer.staging_buffers"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %s", err, w)
		}
	}
}

func TestGPUWithoutDMAEnginesValid(t *testing.T) {
	// Bandwidths of engines a profile lacks may be zero.
	p := GPU()
	if p.D2D.DMARead != 0 || p.D2D.MPECopyScale != 0 {
		t.Fatal("the GPU profile was expected to leave absent engines at zero")
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestReplayCosts: the SW-AI card replays through its single-level command
// buffer (one doorbell, then the dispatcher per kernel: the fast launch's
// terms); the GPU profile carries the CUDA-graph figures.
func TestReplayCosts(t *testing.T) {
	d := Default().Device()
	if d.ReplayFixed != 800*time.Nanosecond || d.ReplayNode != 1200*time.Nanosecond {
		t.Fatalf("swai replay %v + %v per node", d.ReplayFixed, d.ReplayNode)
	}
	if def := device.Default(); def.ReplayFixed != d.ReplayFixed || def.ReplayNode != d.ReplayNode {
		t.Fatalf("device.Default replays at %v + %v, swai at %v + %v", def.ReplayFixed, def.ReplayNode, d.ReplayFixed, d.ReplayNode)
	}
	g := GPU().Device()
	if g.ReplayFixed != 15*time.Microsecond || g.ReplayNode != 580*time.Nanosecond {
		t.Fatalf("gpu replay %v + %v per node", g.ReplayFixed, g.ReplayNode)
	}
	p := Default()
	p.Replay.Node = -1
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "replay.node_ns") {
		t.Fatalf("negative replay cost: %v", err)
	}
}

// FuzzParseProfile: any bytes parse to a valid profile or to an error,
// never a panic; a profile that parses survives a JSON round trip.
func FuzzParseProfile(f *testing.F) {
	for _, p := range []Profile{Default(), GPU()} {
		b, err := json.Marshal(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"name":"x"}`))
	f.Add([]byte(`{"name":"x","queue":{"levels":3}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("ParseProfile accepted an invalid profile: %v", err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ParseProfile(b)
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip: %v", err)
		}
		_ = p.Device()
	})
}

// TestValidateMemoryOfWholePages: the multilevel allocator manages whole
// pages, so a capacity that is not a multiple of its page is refused when
// the profile is loaded, not when a device is made of it.
func TestValidateMemoryOfWholePages(t *testing.T) {
	p := Default()
	p.Allocator, p.MemoryBytes = AllocMultilevel, 1
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "memory_bytes") {
		t.Fatalf("1 byte of multilevel memory: %v", err)
	}
	p.MemoryBytes = 1 << 30
	if err := p.Validate(); err != nil {
		t.Fatalf("1 GiB of multilevel memory: %v", err)
	}
	p.Allocator, p.MemoryBytes = AllocReference, 1
	if err := p.Validate(); err != nil {
		t.Fatalf("1 byte of reference memory: %v", err)
	}
}
