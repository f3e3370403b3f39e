//go:build race

package main

// raceEnabled: the race detector is on, and slows pipebench runs some tenfold.
const raceEnabled = true

// The race detector slows each calibration run tenfold, and the tests
// assert nothing of the calibration's figures: calibrate on a few runs.
func init() { calibrationReps, calibrationWarmups = 3, 1 }
