// Package leaktest is the TestMain of pipert's packages that start
// goroutines: it fails the test binary when a test leaves one behind.
//
// Test binaries that link the ants package (everything that reaches
// heterog) start with ants' default pool already running, from ants'
// package initialisation; goleak.VerifyTestMain would report those. Main
// ignores every goroutine alive before the tests run instead.
package leaktest

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Main runs the tests, then each cleanup (releasing process-wide pools, say),
// then checks that no goroutine started during the tests is still alive,
// and exits.
func Main(m *testing.M, cleanups ...func() error) {
	ignore := goleak.IgnoreCurrent()
	code := m.Run()
	for _, c := range cleanups {
		if err := c(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	if code == 0 {
		if err := goleak.Find(ignore); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
