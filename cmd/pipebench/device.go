package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pipert/pipert/device/swai"
)

// runDevice is "pipebench device": the SW-AI runtime paper's figures.
func runDevice(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipebench device", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		jsonPath = fs.String("json", "", "also write the rows as JSON to this file")
		profile  = fs.String("profile", "", "JSON profile file of the SW-AI card (default: the built-in profile)")
		maxSize  = fs.Int64("max-size", 0, "skip transfer sizes above this many bytes (0: all sizes up to 1 GB, which really copies 1 GB)")
		quick    = fs.Bool("quick", false, "sizes up to 64 MB and fewer repetitions")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pipebench device [flags]\n\nReproduces the SDAA runtime paper's figures on the simulated SW-AI card and the GPU\n")
		fmt.Fprintf(stderr, "comparison profile: allocator (real ns per alloc+free), malloc, mallochost, launch, h2d,\n")
		fmt.Fprintf(stderr, "d2h and d2d at 1 KB … 1 GB.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pipebench device: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	opts := swai.FigureOptions{MaxSize: *maxSize}
	if *quick {
		opts.Repeat, opts.AllocRepeat = 2, 30
		if opts.MaxSize == 0 {
			opts.MaxSize = 64 << 20
		}
	}
	if *profile != "" {
		p, err := swai.LoadProfile(*profile)
		if err != nil {
			fmt.Fprintf(stderr, "pipebench device: %v\n", err)
			return 2
		}
		opts.Profile = p
	}
	rows, err := swai.Figures(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "pipebench device: %v\n", err)
		return 1
	}
	swai.WriteTable(stdout, rows)
	if *jsonPath != "" {
		b, err := json.MarshalIndent(struct {
			Rows []swai.Row `json:"rows"`
		}{rows}, "", "  ")
		if err == nil {
			err = os.WriteFile(*jsonPath, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "pipebench device: %v\n", err)
			return 1
		}
	}
	return 0
}
