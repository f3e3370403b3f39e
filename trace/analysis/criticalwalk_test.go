package analysis

import (
	"math/rand/v2"
	"testing"
)

// criticalPathWalk is CriticalPath as it was first written: a forward pass
// keeping every completion time, then a walk back. The running summary
// must find the same path.
func criticalPathWalk(ks []Kernel, m Mode, mc Machine) (Path, error) {
	var path Path
	mach, nm, err := m.machines()
	if err != nil {
		return path, err
	}
	if _, err := Predict(ks, m, mc); err != nil {
		return path, err
	}
	n := len(ks)
	if n == 0 {
		return path, nil
	}
	// Forward pass keeping every completion: C[i*nm+w] and D[i].
	c := make([]int64, n*nm)
	d := make([]int64, n)
	for i, k := range ks {
		var p [NumStages]int64
		for s, v := range k.host() {
			p[mach[s]] += v
		}
		for w := range nm {
			prevK, prevW := int64(0), int64(0)
			if i > 0 {
				prevK = c[(i-1)*nm+w]
			}
			if w > 0 {
				prevW = c[i*nm+w-1]
			}
			c[i*nm+w] = max(prevK, prevW) + p[w]
		}
		start := c[i*nm+nm-1] + mc.LaunchLatency
		if i > 0 {
			start = max(start, d[i-1])
		}
		d[i] = start + k.Device
	}
	// Backward walk: on the device chain, then down into the host workers.
	i := n - 1
	for {
		path.Device += ks[i].Device
		if i > 0 && d[i-1] >= c[i*nm+nm-1]+mc.LaunchLatency {
			i--
			continue
		}
		path.Latency += mc.LaunchLatency
		break
	}
	w := nm - 1
	for {
		host := ks[i].host()
		for s := range NumStages {
			if mach[s] == w {
				path.Stage[s] += host[s]
			}
		}
		var prevK, prevW int64 = -1, -1
		if i > 0 {
			prevK = c[(i-1)*nm+w]
		}
		if w > 0 {
			prevW = c[i*nm+w-1]
		}
		switch {
		case prevK < 0 && prevW < 0:
			return path, nil
		case prevK >= prevW:
			i--
		default:
			w--
		}
	}
}

func TestCriticalPathMatchesWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 2000; trial++ {
		ks := make([]Kernel, rng.IntN(40))
		for i := range ks {
			// Small costs, so that ties are frequent.
			ks[i] = Kernel{Prepare: rng.Int64N(4), Infer: rng.Int64N(4), Resize: rng.Int64N(4), Launch: rng.Int64N(4), Device: rng.Int64N(12)}
		}
		mc := Machine{LaunchLatency: rng.Int64N(4)}
		for _, m := range []Mode{KBK, Async, Pipeline, {Name: "x", Worker: [NumStages]int{0, 1, 1, 2}}} {
			got, err := CriticalPath(ks, m, mc)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := criticalPathWalk(ks, m, mc)
			if got != want {
				t.Fatalf("trial %d %s: %+v, walk %+v (kernels %v)", trial, m.Name, got, want, ks)
			}
		}
	}
}
