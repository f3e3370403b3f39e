// Command gen writes cmd/pipebench/profiledoc_gen.go from
// device/swai/profile.go; run it from the module root (go generate in
// cmd/pipebench does).
package main

import (
	"fmt"
	"os"

	"github.com/pipert/pipert/cmd/pipebench/internal/profiledoc"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen PROFILE.GO OUT.GO")
		os.Exit(2)
	}
	src, err := os.ReadFile(os.Args[1])
	if err == nil {
		var d *profiledoc.Doc
		if d, err = profiledoc.Extract(src); err == nil {
			var out []byte
			if out, err = profiledoc.Generate(d, "main"); err == nil {
				err = os.WriteFile(os.Args[2], out, 0o644)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
