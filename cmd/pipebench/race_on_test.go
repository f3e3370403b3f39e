//go:build race

package main

// raceEnabled: the race detector is on, and slows pipebench runs some tenfold.
const raceEnabled = true
