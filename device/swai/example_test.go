package swai_test

import (
	"context"
	"fmt"
	"os"

	"github.com/pipert/pipert/device/swai"
)

// The launch numbers of section 4.4, from equations 12-14.
func ExampleProfile_KLL() {
	p := swai.Default()
	fast := p.KLL(swai.FastLaunch, 0)
	traditional := p.KLL(swai.TraditionalLaunch, 0)
	fmt.Println("fast:", fast)
	fmt.Println("traditional:", traditional)
	fmt.Printf("traditional / fast: %.0f\n", float64(traditional)/float64(fast))
	fmt.Println("async call returns after:", p.AsyncReturn())
	// Output:
	// fast: 2.3µs
	// traditional: 883.6µs
	// traditional / fast: 384
	// async call returns after: 800ns
}

// The adaptive D2D algorithm of figure 6: which engine copies what.
func ExampleD2DTable_Crossovers() {
	// A host that copies 20 GB/s; the MPE gets 0.15 of that.
	tab := swai.NewD2DTable(swai.Default(), swai.Calibration{HostCopyBandwidth: 20e9})
	for _, x := range tab.Crossovers() {
		fmt.Printf("from %7d bytes: %v\n", x.From, x.Engine)
	}
	e, d := tab.Choose(64 << 20)
	fmt.Println("64 MiB:", e, d)
	// Output:
	// from       0 bytes: mpe
	// from    1885 bytes: iommu
	// from   68384 bytes: cpe
	// 64 MiB: cpe 155.631µs
}

// Figures without real measurements: the modeled launch and D2D figures at
// two sizes, as a table.
func ExampleFigures() {
	rows, err := swai.Figures(context.Background(), swai.FigureOptions{
		Figures:     []string{swai.FigLaunch, swai.FigD2D},
		Sizes:       []int64{1 << 10, 4 << 20},
		Calibration: &swai.Calibration{HostCopyBandwidth: 20e9},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	swai.WriteTable(os.Stdout, rows)
	// Output:
	// FIGURE  VARIANT      SIZE  SYNC   LATENCY    BANDWIDTH
	// launch  fast         -     sync   2.30 µs    -
	// launch  fast         -     async  1.51 µs    -
	// launch  traditional  -     sync   883.60 µs  -
	// launch  traditional  -     async  882.81 µs  -
	// launch  gpu          -     sync   5.00 µs    -
	// launch  gpu          -     async  1.24 µs    -
	// d2d     mpe          1K    sync   1.84 µs    0.56 GB/s
	// d2d     mpe          4M    sync   1.40 ms    3.00 GB/s
	// d2d     cpe          1K    sync   6.50 µs    0.16 GB/s
	// d2d     cpe          4M    sync   15.82 µs   265.11 GB/s
	// d2d     dma          1K    sync   3.64 µs    0.28 GB/s
	// d2d     dma          4M    sync   574.15 µs  7.31 GB/s
	// d2d     iommu        1K    sync   2.07 µs    0.49 GB/s
	// d2d     iommu        4M    sync   287.33 µs  14.60 GB/s
	// d2d     adaptive     1K    sync   1.84 µs    0.56 GB/s
	// d2d     adaptive     4M    sync   15.82 µs   265.11 GB/s
	// d2d     gpu          1K    sync   8.00 µs    0.13 GB/s
	// d2d     gpu          4M    sync   19.04 µs   220.31 GB/s
}
