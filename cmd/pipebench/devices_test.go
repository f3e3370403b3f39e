package main

import (
	"slices"
	"testing"

	"github.com/pipert/pipert/device"
)

// streamLog is an observer that logs the streams it is told of.
type streamLog struct{ made, released []int }

func (l *streamLog) OnWork(device.Work)      {}
func (l *streamLog) OnNewStream(id int)      { l.made = append(l.made, id) }
func (l *streamLog) OnStreamReleased(id int) { l.released = append(l.released, id) }

// TestForwardObserverTellsStreams: a sweep's pooled device tells the
// observer of the moment of the streams it makes and releases, so that a
// traced variant's device tracks are registered at its Compile and closed
// with it; with no observer set, or one that wants no word of streams,
// nothing is told.
func TestForwardObserverTellsStreams(t *testing.T) {
	f := &forwardObserver{}
	f.OnNewStream(0) // no observer: dropped
	log := &streamLog{}
	var o device.Observer = log
	f.to.Store(&o)
	f.OnNewStream(1)
	f.OnNewStream(2)
	f.OnStreamReleased(1)
	var plain device.Observer = observerFunc(func(device.Work) {})
	f.to.Store(&plain)
	f.OnNewStream(3) // an observer without the method: dropped
	f.OnStreamReleased(2)
	f.to.Store(nil)
	f.OnStreamReleased(2)
	if !slices.Equal(log.made, []int{1, 2}) || !slices.Equal(log.released, []int{1}) {
		t.Errorf("told of streams made %v and released %v, want [1 2] and [1]", log.made, log.released)
	}
}

// observerFunc is a device.Observer of work only.
type observerFunc func(device.Work)

func (f observerFunc) OnWork(w device.Work) { f(w) }
