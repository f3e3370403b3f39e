//go:build race

package pipert_test

// raceEnabled: the race detector is on, and slows dense kernels some tenfold.
const raceEnabled = true
