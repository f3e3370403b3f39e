package onnx_test

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/internal/race"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
)

var longLight = flag.Bool("long", false, "TestLightModels: every light model, VGG-19 too and under -race")

// lightUnderRace are the light models small enough to run under -race
// (the others' convolutions take minutes there: .ci/run runs them
// without it).
var lightUnderRace = map[string]bool{"shufflenet": true, "squeezenet": true}

// TestLightModels runs the ONNX project's light models (testdata/light,
// from onnx 1.23's onnx/backend/test/data/light, Apache-2.0): nine
// ImageNet classifiers of the ONNX model zoo, exported from Caffe2
// (default-domain opset 9, IR version 3: AlexNet, DenseNet-121, Inception
// v1 and v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512), their
// float initializers replaced by ConstantOfShape nodes. Each runs on the
// ONNX runner's input, arange(n)/n in the input's shape, in KBK and in
// Pipeline mode, bit-identical to KBK, twice:
//
//   - as it is, against the output the ONNX reference evaluator computed
//     (the runner's tolerance: rtol 1e-3, 2e-3 for DenseNet, atol 1e-7).
//     Its weights are each one value, so most of these outputs are uniform;
//   - weighted (NAME.weighted.onnx, made by gen.js): the same graph with
//     weights that vary along them, against onnxruntime's outputs, the
//     classifier's probabilities and its logits, within 1e-3 of the
//     largest logit's magnitude (a logit near 0 is a difference of large
//     sums, whose order of summation decides its last bits).
//
// Under the race detector only ShuffleNet and SqueezeNet run (the others
// take minutes there); VGG-19, 40 seconds without it, runs only with
// -long.
func TestLightModels(t *testing.T) {
	paths, err := filepath.Glob("testdata/light/light_*.onnx")
	if err != nil || len(paths) != 9 {
		t.Fatalf("light models: %d files, %v", len(paths), err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "light_"), ".onnx")
		t.Run(name, func(t *testing.T) {
			switch {
			case *longLight:
			case name == "vgg19":
				t.Skip("VGG-19 computes for 40 s: run with -long")
			case race.Enabled && !lightUnderRace[name]:
				t.Skip("minutes of convolutions under -race: run without it or with -long")
			}
			t.Parallel()
			rtol := 1e-3
			if name == "densenet121" {
				rtol = 2e-3
			}
			want, err := readTensor(strings.TrimSuffix(path, ".onnx") + "_output_0.pb")
			if err != nil {
				t.Fatal(err)
			}
			m, got := runLight(t, path)
			if err := within(got[m.Graph.Outputs[0].Name], want, rtol, 1e-7); err != nil {
				t.Errorf("as it is: %v", err)
			}

			dir := filepath.Dir(path)
			m, got = runLight(t, filepath.Join(dir, name+".weighted.onnx"))
			golden := readLightGolden(t, filepath.Join(dir, name+".weighted.golden.json"))
			if len(golden) != len(m.Graph.Outputs) || len(golden) < 1 {
				t.Fatalf("weighted: %d golden outputs for %d outputs", len(golden), len(m.Graph.Outputs))
			}
			for _, o := range m.Graph.Outputs {
				w := golden[o.Name]
				if w == nil {
					t.Fatalf("weighted: no golden output %q", o.Name)
				}
				if err := within(got[o.Name], w, 1e-3, 1e-3*maxAbs(w)); err != nil {
					t.Errorf("weighted: output %q: %v", o.Name, err)
				}
			}
		})
	}
}

// runLight imports the light model at path, runs it on arange(n)/n in KBK
// and in Pipeline mode, checks that the two agree bit for bit, and returns
// the model and KBK's outputs by the model's output names.
func runLight(t *testing.T, path string) (*onnx.Model, map[string]*kernel.Tensor) {
	t.Helper()
	m, err := onnx.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := onnx.Import(m, onnx.Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(g.Inputs) != 1 || len(g.Outputs) != len(m.Graph.Outputs) {
		t.Fatalf("%s: %d inputs, %d outputs of %d", path, len(g.Inputs), len(g.Outputs), len(m.Graph.Outputs))
	}
	x := g.Inputs[0]
	if !x.Shape.Known() || x.DType != kernel.Float32 {
		t.Fatalf("%s: input %s: %v %v, want float32 of a static shape", path, x.Name, x.DType, x.Shape)
	}
	in := kernel.New(kernel.Float32, x.Shape...)
	xs := kernel.Float32s(in.Host)
	for i := range xs {
		xs[i] = float32(float64(i) / float64(len(xs)))
	}
	feeds := map[string]*kernel.Tensor{x.Name: in}
	kbk, err := runIn(g, feeds, pipert.KBK)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	piped, err := runIn(g, feeds, pipert.Pipeline)
	if err != nil {
		t.Fatalf("%s: pipeline: %v", path, err)
	}
	out := map[string]*kernel.Tensor{}
	for i, o := range m.Graph.Outputs {
		k, p := kbk.Outputs[g.Outputs[i]], piped.Outputs[g.Outputs[i]]
		if p == nil || k == nil || !p.Shape.Equal(k.Shape) || string(p.Host) != string(k.Host) {
			t.Fatalf("%s: pipeline: output %q differs from KBK's", path, o.Name)
		}
		out[o.Name] = k
	}
	return m, out
}

// readLightGolden reads gen.js's outputs: float32 tensors by name.
func readLightGolden(t *testing.T, path string) map[string]*kernel.Tensor {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Outputs map[string]struct {
			DType string    `json:"dtype"`
			Shape []int64   `json:"shape"`
			Data  []float32 `json:"data"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]*kernel.Tensor{}
	for name, o := range doc.Outputs {
		if o.DType != "float32" {
			t.Fatalf("%s: output %q of dtype %s", path, name, o.DType)
		}
		x := kernel.New(kernel.Float32, o.Shape...)
		if int64(len(o.Data)) != x.NumElements() {
			t.Fatalf("%s: output %q: %d values for shape %v", path, name, len(o.Data), o.Shape)
		}
		copy(kernel.Float32s(x.Host), o.Data)
		out[name] = x
	}
	return out
}

func maxAbs(t *kernel.Tensor) float64 {
	m := 0.0
	for _, v := range floats(t) {
		m = max(m, math.Abs(v))
	}
	return m
}
