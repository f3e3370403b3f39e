package device_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/pipert/pipert/device"
)

// releaseLog is a StreamObserver that logs released streams.
type releaseLog struct {
	mu       sync.Mutex
	released []int
}

func (l *releaseLog) OnWork(device.Work) {}

func (l *releaseLog) OnStreamReleased(id int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.released = append(l.released, id)
}

// TestReleaseStream: a Sim tells a StreamObserver of each of its streams
// released, and ignores another device's.
func TestReleaseStream(t *testing.T) {
	log := &releaseLog{}
	d, err := device.NewSim(device.SimOptions{Observer: log})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := device.NewSim(device.SimOptions{})
	s0, s1 := d.NewStream(), d.NewStream()
	device.ReleaseStreams(d, s1, nil, other.NewStream())
	d.ReleaseStream(s0)
	if !slices.Equal(log.released, []int{1, 0}) {
		t.Fatalf("released %v, want [1 0]", log.released)
	}
	// A device that is not a StreamReleaser: nothing happens.
	device.ReleaseStreams(struct{ device.Device }{d}, s0)
}
