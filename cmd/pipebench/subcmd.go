package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// parseSub parses a subcommand's flags and checks it got nargs arguments.
// ok false means the subcommand stops with exit code code: 0 after -h, 2
// after a bad flag (the flag package said why) or a wrong argument count
// (said on stderr, with usage when given).
func parseSub(fs *flag.FlagSet, args []string, nargs int, stderr io.Writer, usage string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() != nargs {
		switch {
		case usage != "":
			fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), usage)
		case fs.NArg() > nargs:
			fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(nargs))
		}
		return 2, false
	}
	return 0, true
}

// flagsSet returns the names of the flags given on the command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
