package scenarios

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/models"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/subgraph"
)

func init() {
	register(Scenario{
		Name: "ocr",
		Description: "PP-OCRv4 text detector imported from ONNX (Conv, BatchNorm, Resize, ConvTranspose), " +
			"1×3×640×640 (1×3×96×96 with -quick and -real, where it runs onnxruntime's golden input; -size sets the side)",
		Costs: DefaultCosts(),
		Build: buildOCR,
		Params: func(c Config) ([]Param, error) {
			size, err := ocrSize(c)
			return []Param{{Name: "size", Doc: "side of the square input image, a multiple of 32", Value: size, Min: 32, Max: 8192}}, err
		},
	})
	register(Scenario{
		Name: "vad",
		Description: "Silero VAD v5 imported from ONNX with input 1×512, state 2×1×128 and sr fixed to 16000 " +
			"(its Ifs fold), streaming: each step's stateN is the next step's state",
		Costs:    DefaultCosts(),
		Barriers: true,
		Build:    buildVAD,
	})
}

// golden returns case i of a model's golden file.
func golden(b []byte, i int) (*onnx.Case, error) {
	g, err := onnx.DecodeGolden(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if i >= len(g.Cases) {
		return nil, fmt.Errorf("scenarios: the golden file has %d cases", len(g.Cases))
	}
	return &g.Cases[i], nil
}

// maxOCRSize is the largest image side of the ocr scenario.
const maxOCRSize = 8192

// ocrSize is the image side of c: 640, 96 with Quick or Real, c.Size
// when set, c.Params' size when set.
func ocrSize(c Config) (int64, error) {
	size := int64(640)
	if c.Quick || c.Real {
		size = 96
	}
	if c.Size > 0 {
		if c.Size > maxOCRSize {
			return 0, fmt.Errorf("scenarios: ocr: size %d: want at most %d", c.Size, maxOCRSize)
		}
		size = c.Size
	}
	p := []sizeParam{{name: "size", min: 32, max: maxOCRSize, p: &size}}
	if err := applyParams("ocr", p, c); err != nil {
		return 0, err
	}
	if size%32 != 0 {
		return 0, fmt.Errorf("scenarios: ocr: size %d: the detector takes multiples of 32", size)
	}
	return size, nil
}

func buildOCR(c Config) (*Workload, error) {
	size, err := ocrSize(c)
	if err != nil {
		return nil, err
	}
	g, err := onnx.ImportReader(bytes.NewReader(models.PPOCRv4Det), onnx.Options{Shapes: map[string][]int64{"x": {1, 3, size, size}}})
	if err != nil {
		return nil, fmt.Errorf("scenarios: ocr: %w", err)
	}
	g.Name = "ocr"
	x := kernel.Virtual(kernel.Float32, 1, 3, size, size)
	switch {
	case c.Real && size == 96:
		gc, err := golden(models.PPOCRv4DetGolden, 0)
		if err != nil {
			return nil, err
		}
		x = gc.Inputs["x"]
	case c.Real:
		// An image normalised as PaddleOCR does: values around [-2, 2].
		x = kernel.New(kernel.Float32, 1, 3, size, size)
		r := rand.New(rand.NewPCG(c.Seed, 32))
		for i := range kernel.Float32s(x.Host) {
			kernel.Float32s(x.Host)[i] = float32(r.NormFloat64())
		}
	}
	return &Workload{Graph: g, Inputs: map[string]*kernel.Tensor{"x": x}}, nil
}

// vadGraph imports Silero VAD v5 with input 1×512, state 2×1×128 and sr
// fixed to 16000, as the vad scenario runs it.
func vadGraph() (*subgraph.Graph, error) {
	sr := kernel.New(kernel.Int64)
	kernel.Int64s(sr.Host)[0] = 16000
	g, err := onnx.ImportReader(bytes.NewReader(models.SileroVAD), onnx.Options{
		Shapes: map[string][]int64{"input": {1, 512}, "state": {2, 1, 128}},
		Values: map[string]*kernel.Tensor{"sr": sr},
	})
	if err != nil {
		return nil, fmt.Errorf("scenarios: vad: %w", err)
	}
	g.Name = "vad"
	return g, nil
}

func buildVAD(c Config) (*Workload, error) {
	if err := applyParams("vad", nil, c); err != nil {
		return nil, err
	}
	g, err := vadGraph()
	if err != nil {
		return nil, err
	}
	in := map[string]*kernel.Tensor{
		"input": kernel.Virtual(kernel.Float32, 1, 512),
		"state": kernel.Virtual(kernel.Float32, 2, 1, 128),
	}
	if c.Real {
		gc, err := golden(models.SileroVADGolden, 0)
		if err != nil {
			return nil, err
		}
		in["input"], in["state"] = gc.Inputs["input"], gc.Inputs["state"]
	}
	return &Workload{Graph: g, Inputs: in, Feedback: map[string]string{"state": "stateN"}}, nil
}
