package analysis

// Path is the flow-shop critical path of a run, broken down by what lies on
// it, in ns. Its parts add up to the flow-shop makespan.
type Path struct {
	Stage   [NumStages]int64 // host stage work on the path, by Stage-1
	Device  int64            // device execution on the path
	Latency int64            // launch latencies on the path
}

// Total is the length of the path.
func (p Path) Total() int64 {
	t := p.Device + p.Latency
	for _, s := range p.Stage {
		t += s
	}
	return t
}

// CriticalPath walks the flow-shop recurrence of Predict backwards from the
// last device completion, following at each step the predecessor that
// determined the completion time (ties go to the earlier kernel on the same
// worker, then to the earlier worker), and sums what it passes by stage. A
// worker's operation that merges several stages contributes each stage's own
// cost. It tells which stage the run waits on: the one that dominates the
// path.
func CriticalPath(ks []Kernel, m Mode, mc Machine) (Path, error) {
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
