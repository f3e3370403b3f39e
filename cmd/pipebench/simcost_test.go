package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/device/swai"
	"github.com/pipert/pipert/scenarios"
)

// TestSimCost: with -sim-cost every row has its simulator's cost, a
// fraction, and the line after the table names the largest.
func TestSimCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	code, stdout, stderr := runArgs(t, "-real", "-reps", "1", "-scenario", "smallops", "-mode", "kbk,pipeline", "-sim-cost", "-json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "simulator's own cost") {
		t.Errorf("no simulator cost line:\n%s", stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		f, ok := r["sim_cpu_fraction"].(float64)
		if !ok || f < 0 || f >= 1 {
			t.Errorf("row %v %v: sim_cpu_fraction %v", r["mode"], r["barrier"], r["sim_cpu_fraction"])
		}
	}
	// Without the flag, neither the line nor the field.
	code, stdout, _ = runArgs(t, "-real", "-reps", "1", "-scenario", "smallops", "-mode", "kbk", "-json", path)
	if b, _ := os.ReadFile(path); code != 0 || strings.Contains(stdout, "simulator's own cost") || strings.Contains(string(b), "sim_cpu_fraction") {
		t.Errorf("simulator cost reported without -sim-cost")
	}
}

// TestMeterKeepsInterfaces: a metered device's streams are Replayers and
// Mappers when the device's own are, a metered mapped device is a Mapper,
// and the platform of a scenario stays found.
func TestMeterKeepsInterfaces(t *testing.T) {
	card, err := swai.New(swai.Default(), swai.WithCalibration(swai.Calibration{HostCopyBandwidth: 8e9}))
	if err != nil {
		t.Fatal(err)
	}
	defer card.Close()
	d, m := meter(card)
	s := d.NewStream()
	if _, ok := s.(device.Replayer); !ok {
		t.Error("metered card stream is not a Replayer")
	}
	for range 10 {
		if err := s.Launch(device.Kernel{Name: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	if m.load() <= 0 {
		t.Errorf("ten launches metered %d ns", m.load())
	}
	sc, err := scenarios.Get("mttorch")
	if err != nil {
		t.Fatal(err)
	}
	f := &deviceFactory{}
	dev, err := f.makeFor(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := meter(dev)
	if _, ok := md.(host.Mapper); !ok {
		t.Error("metered MT-3000 cluster is not a Mapper")
	}
	if _, ok := md.NewStream().(host.Mapper); !ok {
		t.Error("metered MT-3000 stream is not a Mapper")
	}
	if platformOf(md) == nil {
		t.Error("metered device lost its platform")
	}
}
