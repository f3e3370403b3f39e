package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeDocumentsEveryFlag checks that every flag pipebench's -h and
// sweep -h list has its line in the README.
func TestReadmeDocumentsEveryFlag(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flagLine := regexp.MustCompile(`(?m)^  (-[a-z-]+)`)
	for _, args := range [][]string{{"-h"}, {"sweep", "-h"}} {
		code, _, help := runArgs(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		flags := flagLine.FindAllStringSubmatch(help, -1)
		if len(flags) < 5 {
			t.Fatalf("%v lists %d flags:\n%s", args, len(flags), help)
		}
		for _, f := range flags {
			if !strings.Contains(string(readme), "`"+f[1]+"`") && !strings.Contains(string(readme), "`"+f[1]+" ") {
				t.Errorf("README does not document %s %s", strings.Join(args[:len(args)-1], " "), f[1])
			}
		}
	}
}
