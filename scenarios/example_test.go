package scenarios_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/scenarios"
)

// A built-in scenario at its small real-data size, run kernel by kernel
// and in the pipeline with the scenario's synthetic host costs: the
// outputs are bit-identical.
func Example() {
	sc, err := scenarios.Get("dynshape")
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := sc.Build(scenarios.Config{Real: true, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	outputs := map[pipert.Mode]map[string]*kernel.Tensor{}
	for _, m := range []pipert.Mode{pipert.KBK, pipert.Pipeline} {
		exe, err := pipert.Compile(w.Graph, pipert.WithMode(m), pipert.WithCosts(sc.Costs))
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := exe.Run(context.Background(), w.InputsOf(0))
		exe.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		outputs[m] = res.Outputs
	}
	same := true
	for _, name := range w.Graph.Outputs {
		a, b := outputs[pipert.KBK][name], outputs[pipert.Pipeline][name]
		same = same && a.Shape.Equal(b.Shape) && slices.Equal(a.Host, b.Host)
	}
	fmt.Println(sc.Name, "barriers:", sc.Barriers, "outputs:", len(w.Graph.Outputs), "identical:", same)
	// Output:
	// dynshape barriers: true outputs: 2 identical: true
}

// Names lists the built-in scenarios pipebench runs, by name.
func ExampleNames() {
	fmt.Println(scenarios.Names())
	// Output:
	// [decode decode-steps dynshape hetero mttorch ocr smallops vad zerocost]
}
