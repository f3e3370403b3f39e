package pipert_test

import (
	"context"
	"sync"
	"testing"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// streamLog is a StreamObserver recording the streams that worked and the
// streams released.
type streamLog struct {
	mu               sync.Mutex
	worked, released map[int]bool
}

func (l *streamLog) OnWork(w device.Work) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.worked[w.Stream] = true
}

func (l *streamLog) OnStreamReleased(id int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.released[id] = true
}

// TestCloseReleasesStreams: a closed executable has released every stream
// it worked on, in every mode, so that an observer of a long-lived device
// (devtrace's tracks) keeps nothing for it.
func TestCloseReleasesStreams(t *testing.T) {
	b := subgraph.NewBuilder("streams")
	x := b.Input("x", kernel.Float32, 4)
	b.Output(b.Op("ReLU", b.Op("Neg", x)))
	in := map[string]*kernel.Tensor{"x": kernel.FromFloat32([]float32{1, -2, 3, -4}, 4)}
	settings := map[string][]pipert.Option{}
	for _, m := range pipert.Modes() {
		settings[m.String()] = []pipert.Option{pipert.WithMode(m)}
	}
	for name, opts := range settings {
		log := &streamLog{worked: map[int]bool{}, released: map[int]bool{}}
		dev, err := device.NewSim(device.SimOptions{Observer: log})
		if err != nil {
			t.Fatal(err)
		}
		exe, err := pipert.Compile(b.Graph(), append([]pipert.Option{pipert.WithDevice(dev)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := exe.Run(context.Background(), in); err != nil {
				t.Fatal(err)
			}
		}
		p, err := exe.Submit(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		if err := exe.Close(); err != nil {
			t.Fatal(err)
		}
		if len(log.worked) == 0 {
			t.Fatalf("%s: no stream worked", name)
		}
		for id := range log.worked {
			if !log.released[id] {
				t.Errorf("%s: stream %d worked and was not released at Close", name, id)
			}
		}
	}
}
