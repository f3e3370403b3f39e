//go:build race

package main

// The race detector slows each calibration run tenfold, and the tests
// assert nothing of the calibration's figures: calibrate on a few runs.
func init() { calibrationReps, calibrationWarmups = 3, 1 }
