package main

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pipert/pipert/device/swai"
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

// TestReadmeDocumentsEveryJSONField checks that every field of the JSON
// documents pipebench writes has its name in README's "The JSON documents"
// (nested types from other packages without JSON names are documented by
// their type).
func TestReadmeDocumentsEveryJSONField(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "### The JSON documents")
	if !ok {
		t.Fatal(`README has no "The JSON documents" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(sec, "`"+name+"`") {
				t.Errorf("README does not document %s's field %q", ty, name)
			}
			walk(f.Type)
		}
	}
	for _, v := range []any{report{}, moeReport{}, soakReport{}, swai.Row{}, swai.Claim{}} {
		walk(reflect.TypeOf(v))
	}
	if len(seen) < 10 {
		t.Errorf("walked only %d types", len(seen))
	}
	for doc, minor := range map[string]int{"pipebench -json": reportMinor, "pipebench moe -json": moeMinor, "pipebench soak -json": soakMinor} {
		if want := fmt.Sprintf("**`%s`** (schema 1.%d)", doc, minor); !strings.Contains(sec, want) {
			t.Errorf("README does not say %s", want)
		}
	}
}
