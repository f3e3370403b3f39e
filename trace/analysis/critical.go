package analysis

// Path is the flow-shop critical path of a run, broken down by what lies on
// it, in ns. Its parts add up to the flow-shop makespan.
type Path struct {
	Stage   [NumStages]int64 // host stage work on the path, by Stage-1
	Device  int64            // device execution on the path
	Latency int64            // launch latencies (replays' device rate, the device's gaps) on the path
	Handoff int64            // hand-offs between workers on the path (Machine.Handoff, and Machine.Wake to idle workers)
	Step    int64            // the first worker's steps on the path (Machine.Step)
	Barrier int64            // barriers' host work on the path (Barrier.Cost)
}

// Total is the length of the path.
func (p Path) Total() int64 {
	t := p.Device + p.Latency + p.Handoff + p.Step + p.Barrier
	for _, s := range p.Stage {
		t += s
	}
	return t
}

// CriticalPath follows the flow-shop recurrence of Predict back from the
// last device completion, taking at each step the predecessor that
// determined the completion time (ties go to the earlier kernel on the same
// worker, then to the earlier worker; on the device, to the previous
// kernel's device execution; at a barrier, to the worker's own readiness
// over the release), and sums what it passes by stage. A worker's
// operation that merges several stages contributes each stage's own cost,
// and its hand-off, step and barrier work their own parts. A barrier
// released by a completion later than its worker was ready continues the
// path from that completion: the producer's (per-tensor) or the kernel
// before's (drain). It tells which stage the run waits on: the one that
// dominates the path.
//
// The path is kept as a running summary: for every operation of the
// current kernel, the breakdown of the critical path that ends there,
// built from the one of the predecessor chosen, so memory does not grow
// with the number of kernels — except under the per-tensor policy with
// barriers that name their producer, which keeps the path to each
// kernel's completion.
func CriticalPath(ks []Kernel, m Mode, mc Machine) (Path, error) {
	mach, nm, err := m.machines()
	if err != nil {
		return Path{}, err
	}
	if _, err := Predict(ks, m, mc); err != nil {
		return Path{}, err
	}
	var (
		c         [NumStages]int64 // C[i-1][w], then C[i][w]
		path      [NumStages]Path  // the critical path ending at C[.][w]
		d         int64            // D[i-1]
		dp        Path             // the critical path ending at D[i-1]
		sub       int64            // the start of the last replay submission
		subP      Path             // the critical path ending there
		complete  int64            // kernel i-1's completion
		completeP Path             // the critical path ending there
		completed []Path           // by kernel, for the per-tensor producers
		doneAt    []int64          // their completion times
	)
	for _, k := range ks {
		if k.Barrier.On && k.Barrier.Producer >= 0 && !m.Drain {
			completed, doneAt = make([]Path, len(ks)), make([]int64, len(ks))
			break
		}
	}
	for i, k := range ks {
		host := k.host()
		bw := mach[k.Barrier.stage()-1]
		var p [NumStages]int64
		for s, v := range host {
			p[mach[s]] += v
		}
		for w := range nm {
			// The predecessor: the same worker's previous operation, or
			// this kernel's operation on the worker before; -1 when none.
			prevK, prevW := int64(-1), int64(-1)
			if i > 0 {
				prevK = c[w]
			}
			if w > 0 {
				prevW = c[w-1]
			}
			switch {
			case prevK < 0 && prevW < 0:
				path[w] = Path{}
			case prevK >= prevW:
				// path[w] already ends at C[i-1][w]
			default:
				path[w] = path[w-1]
			}
			start := max(prevK, prevW, 0)
			if prevK < prevW && wakes(w, k, mc) {
				// Handed to an idle worker: it wakes first.
				start = prevW + mc.Wake
				path[w].Handoff += mc.Wake
			}
			if b := k.Barrier; b.On && w == bw {
				switch {
				case m.Drain && i > 0 && complete > start:
					start, path[w] = complete, completeP
				case !m.Drain && b.Producer >= 0 && doneAt[b.Producer] > start:
					start, path[w] = doneAt[b.Producer], completed[b.Producer]
				}
				start += b.Cost
				path[w].Barrier += b.Cost
			}
			if w == nm-1 && k.Replayed && k.Submission == 0 {
				sub, subP = start, path[w]
			}
			for s := range NumStages {
				if mach[s] == w {
					path[w].Stage[s] += host[s]
				}
			}
			if !k.Replayed {
				if w > 0 {
					p[w] += mc.Handoff
					path[w].Handoff += mc.Handoff
				} else {
					p[w] += mc.Step
					path[w].Step += mc.Step
				}
			}
			c[w] = start + p[w]
		}
		lat := mc.latency(k)
		ready, from := c[nm-1]+lat, path[nm-1]
		if lat < 0 {
			// The device took the kernel before its launch ended: the
			// rest of the launch is not on the path.
			from.Stage[Launch-1] += lat
			lat = 0
		}
		if k.Replayed {
			lat = mc.ReplayFirst + int64(k.Submission)*mc.ReplayNext
			ready, from = sub+lat, subP
		}
		gap := int64(0)
		if !k.Replayed {
			gap = mc.DeviceGap
		}
		if i > 0 && d+gap >= ready {
			d += gap + k.Device // dp ends at D[i-1]
			dp.Latency += gap
		} else {
			dp = from
			dp.Latency += lat
			d = ready + k.Device
		}
		dp.Device += k.Device
		complete, completeP = d, dp
		if c[nm-1] > d {
			// The device ended the kernel before its launch did.
			complete, completeP = c[nm-1], path[nm-1]
		}
		if completed != nil {
			completed[i], doneAt[i] = completeP, complete
		}
	}
	if len(ks) > 0 {
		return completeP, nil
	}
	return dp, nil
}
