package models_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/models"
	"github.com/pipert/pipert/onnx"
)

// The Silero voice activity detector, imported and run in pipeline mode on
// its first golden case: the outputs match onnxruntime's to 1e-5.
func Example() {
	g, err := onnx.ImportReader(bytes.NewReader(models.SileroVAD), onnx.Options{})
	if err != nil {
		log.Fatal(err)
	}
	golden, err := onnx.DecodeGolden(bytes.NewReader(models.SileroVADGolden))
	if err != nil {
		log.Fatal(err)
	}
	exe, err := pipert.Compile(g, pipert.WithMode(pipert.Pipeline))
	if err != nil {
		log.Fatal(err)
	}
	defer exe.Close()
	c := golden.Cases[0]
	res, err := exe.Run(context.Background(), c.Inputs)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Compare(res.Outputs, 1e-5); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d outputs match %s\n", golden.Model, len(res.Outputs), golden.Runtime)
	// Output: silero-vad-v5.onnx: 2 outputs match onnxruntime-node 1.30.0 (CPU, graph optimizations disabled)
}
