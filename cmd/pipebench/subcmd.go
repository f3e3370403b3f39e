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
	if err := parseFlagSet(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return usageFailed(stderr, fs.Name()), false
	}
	if fs.NArg() != nargs {
		switch {
		case usage != "":
			fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), usage)
		case fs.NArg() > nargs:
			fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(nargs))
		}
		return usageFailed(stderr, fs.Name()), false
	}
	return 0, true
}

// usageFailed ends a usage error of the subcommand name ("pipebench
// soak"), whose message is already on stderr: it says where the usage is
// and returns the exit code of a usage error, 2. Every subcommand's usage
// errors end so, as pipebench's own do.
func usageFailed(stderr io.Writer, name string) int {
	fmt.Fprintf(stderr, "run '%s -h' for usage\n", name)
	return 2
}

// flagsSet returns the names of the flags given on the command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// parseFlagSet is fs.Parse printing the flags' usage for -h only: after a
// bad flag the error says what is wrong, in one line its caller prints,
// not a screenful of usage.
func parseFlagSet(fs *flag.FlagSet, args []string) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		if usage != nil {
			usage()
		} else {
			fs.PrintDefaults()
		}
	}
	return err
}
