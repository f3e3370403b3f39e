package pipert_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/internal/race"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/subgraph"
)

// modelSetting is one execution setting a golden case runs in.
type modelSetting struct {
	name string
	opts []pipert.Option
	// runs is how many times the executable runs on the same inputs
	// (0: once); the last run's outputs count (the host caches hit, a
	// replay replays).
	runs int
}

// modelSettings lists KBK without host caches first (the reference), then
// every other mode and barrier policy with the default caches, then
// heterogeneous execution with placement by tensor size (nodes whose
// operands all have fewer than 4096 elements run on the CPU), then the
// second run of a pipeline with every host cache on, then the third run
// in mode Replay (the first replayed).
//
// Under the race detector, which slows the models' dense kernels some
// tenfold, only KBK, one setting of each other mode (and the second run
// with every cache) run, on the first case of a model without state;
// .ci/run runs them all without it.
func modelSettings() []modelSetting {
	none := pipert.WithCaches(pipert.Caches{Kinds: pipert.NoCaches})
	all := pipert.WithCaches(pipert.Caches{Kinds: pipert.TilingLocal | pipert.TilingGlobal | pipert.InferReuse | pipert.SetupReuse | pipert.MemoryPlan})
	out := []modelSetting{{name: "kbk", opts: []pipert.Option{pipert.WithMode(pipert.KBK), none}}}
	for _, m := range pipert.Modes()[1:] {
		for _, b := range []pipert.BarrierPolicy{plan.Drain, plan.PerTensor} {
			out = append(out, modelSetting{name: fmt.Sprintf("%v/%v", m, b), opts: []pipert.Option{pipert.WithMode(m), pipert.WithBarrier(b)}})
		}
	}
	out = append(out, modelSetting{name: "heterogeneous/size4096", opts: []pipert.Option{
		pipert.WithMode(pipert.Pipeline), pipert.WithHeterogeneous(heterog.Size{Elements: 4096})}})
	out = append(out, modelSetting{name: "pipeline/all caches/second run", runs: 2, opts: []pipert.Option{pipert.WithMode(pipert.Pipeline), all}})
	out = append(out, modelSetting{name: "replay/third run", runs: 3, opts: []pipert.Option{pipert.WithMode(pipert.Replay)}})
	if race.Enabled {
		out = slices.DeleteFunc(out, func(s modelSetting) bool {
			return !slices.Contains([]string{"kbk", "async/drain", "pipeline/per-tensor", "heterogeneous/size4096", "pipeline/all caches/second run", "replay/third run"}, s.name)
		})
	}
	return out
}

// modelCase is a real model with its golden file and how it is imported.
type modelCase struct {
	file string
	tol  float64
	// fold lists the inputs fixed to their values at import (the rest
	// are fixed in shape only); runtimeIf leaves every input to run time,
	// so that data-dependent Ifs stay in the graph.
	fold      []string
	runtimeIf bool
	// state maps each input fed, in a stream of cases, from the previous
	// case's output to that output's name.
	state map[string]string
}

var realModels = []modelCase{
	{file: "ppocrv4-det", tol: 1e-4},
	{file: "silero-vad-v5", tol: 1e-5, fold: []string{"sr"}, state: map[string]string{"state": "stateN"}},
	{file: "silero-vad-v5", tol: 1e-5, runtimeIf: true, state: map[string]string{"state": "stateN"}},
	// Exported by PyTorch: initializers inside the If branches. Its
	// three-chunk call carries the LSTM cell state over the chunks (max
	// abs error 1.2e-5 on a cell value of 0.2).
	{file: "silero-vad-legacy", tol: 5e-5, fold: []string{"sr"}, state: map[string]string{"h": "hn", "c": "cn"}},
	{file: "silero-vad-legacy", tol: 5e-5, runtimeIf: true, state: map[string]string{"h": "hn", "c": "cn"}},
	{file: "ppocr-cls", tol: 1e-5},
	// paddle2onnx at opset 9: an SVTR text recogniser (MatMul attention,
	// Softmax over 6625 classes).
	{file: "ppocrv4-rec", tol: 1e-4},
	// PyTorch's dynamo exporter at opset 18: the LSTM unrolled into Gemm,
	// Split and Tanh, one If on the sample rate.
	{file: "silero-vad-op18", tol: 5e-5, fold: []string{"sr"}, state: map[string]string{"state": "stateN"}},
	{file: "silero-vad-op18", tol: 5e-5, runtimeIf: true, state: map[string]string{"state": "stateN"}},
	// PyTorch's TorchScript exporter at opset 15: silero-vad-op18's weights
	// for 16 kHz only: 12 Ifs on shapes nested 3 deep, an LSTM in both
	// branches of one of them.
	{file: "silero-vad-16k-op15", tol: 1e-5, fold: []string{"sr"}, state: map[string]string{"state": "stateN"}},
	{file: "silero-vad-16k-op15", tol: 1e-5, runtimeIf: true, state: map[string]string{"state": "stateN"}},
}

// TestModelGoldens runs every golden case of the real models in every
// setting: KBK matches onnxruntime within the model's tolerance, and every
// other setting is bit-identical to KBK. Streaming cases (VAD "stream…")
// feed the state output of one call back as the next call's state input.
func TestModelGoldens(t *testing.T) {
	for _, m := range realModels {
		name := m.file
		if m.runtimeIf {
			name += "/runtime-if"
		}
		t.Run(name, func(t *testing.T) { testModel(t, m) })
	}
}

func testModel(t *testing.T, m modelCase) {
	g, err := onnx.ReadGolden(filepath.Join("models", m.file+".golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("models", m.file+".onnx")
	var runtimeGraph *subgraph.Graph
	if m.runtimeIf {
		if runtimeGraph, err = pipert.LoadONNX(path); err != nil {
			t.Fatal(err)
		}
		ifs := 0
		for _, n := range runtimeGraph.Nodes {
			if n.Op == "If" {
				ifs++
			}
		}
		if ifs == 0 {
			t.Fatal("no runtime If left: the test would not exercise it")
		}
	}
	// The previous streaming case's outputs, per setting.
	prevBySetting := map[string]map[string]*kernel.Tensor{}
	cases := g.Cases
	if race.Enabled {
		// The race detector looks for races, which it meets in the first
		// case of a model without state as well as in all of them, and in
		// a streamed model's first two steps (the second fed the first's
		// state) and its 8 kHz case (the other branch) as well as in all
		// six; .ci/run runs every case without it.
		first := cases[0].Name
		cases = slices.DeleteFunc(slices.Clone(cases), func(c onnx.Case) bool {
			return c.Name != first && (m.state == nil || !slices.Contains([]string{"stream16k-step1", "8k"}, c.Name))
		})
	}
	for _, c := range cases {
		streaming := m.state != nil && strings.HasPrefix(c.Name, "stream")
		gr := runtimeGraph
		inputs := map[string]*kernel.Tensor{}
		if gr == nil {
			var imp []pipert.ImportOption
			for name, tns := range c.Inputs {
				if slices.Contains(m.fold, name) {
					imp = append(imp, pipert.WithInputValue(name, tns))
					continue
				}
				imp = append(imp, pipert.WithInputShape(name, tns.Shape...))
				inputs[name] = tns
			}
			if gr, err = pipert.LoadONNX(path, imp...); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
		} else {
			maps.Copy(inputs, c.Inputs)
		}
		var ref map[string]*kernel.Tensor
		for _, s := range modelSettings() {
			run := maps.Clone(inputs)
			if streaming && prevBySetting[s.name] != nil {
				// Our own previous state, not the reference's.
				for in, out := range m.state {
					run[in] = prevBySetting[s.name][out]
				}
			}
			exe, err := pipert.Compile(gr, s.opts...)
			if err != nil {
				t.Fatalf("%s %s: %v", c.Name, s.name, err)
			}
			res, err := exe.Run(context.Background(), run)
			for i := 1; i < s.runs && err == nil; i++ {
				res, err = exe.Run(context.Background(), run)
			}
			exe.Close()
			if err == nil && s.runs == 3 && res.Stats.Replay.Kernels == 0 {
				t.Errorf("%s %s: nothing replayed: %+v", c.Name, s.name, res.Stats.Replay)
			}
			if err != nil {
				t.Fatalf("%s %s: %v", c.Name, s.name, err)
			}
			if streaming {
				prevBySetting[s.name] = res.Outputs
			}
			if ref == nil {
				ref = res.Outputs
				maxAbs, err := c.Compare(res.Outputs, m.tol)
				if err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				t.Logf("%s: max abs error %.3g against %s", c.Name, maxAbs, g.Runtime)
				continue
			}
			for name, want := range ref {
				got := res.Outputs[name]
				if got == nil || string(got.Host) != string(want.Host) || !got.Shape.Equal(want.Shape) {
					t.Errorf("%s %s: output %q differs from KBK's", c.Name, s.name, name)
				}
			}
		}
	}
}
