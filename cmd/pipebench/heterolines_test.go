package main

import (
	"strings"
	"testing"
)

// TestHeteroVsSerialNamesBothPolicies: the line comparing a concurrent
// hetero row with the Serial schedule names each side's barrier policy,
// since Serial runs under one.
func TestHeteroVsSerialNamesBothPolicies(t *testing.T) {
	var b strings.Builder
	writeTable(&b, &report{Results: []result{
		{Scenario: "h", Mode: "hetero", Schedule: "concurrent", Barrier: "drain", MakespanNs: 1000},
		{Scenario: "h", Mode: "hetero", Schedule: "concurrent", Barrier: "per-tensor", MakespanNs: 800},
		{Scenario: "h", Mode: "hetero", Schedule: "serial", Barrier: "per-tensor", MakespanNs: 1600},
	}})
	for _, want := range []string{"h drain vs serial per-tensor: 1.60x", "h per-tensor vs serial per-tensor: 2.00x"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line with %q in\n%s", want, b.String())
		}
	}
}
