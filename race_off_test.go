//go:build !race

package pipert_test

const raceEnabled = false
