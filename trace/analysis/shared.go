package analysis

import "math"

// sharedFlowShop runs the flow shop as an event simulation in which the
// workers share the cores as Go's scheduler shares its processors among
// goroutines that do not yield: a core runs an operation to its end, and a
// free core takes the operation that has been ready the longest (the later
// worker's on a tie: the goroutine a hand-off woke runs next). A worker
// waiting for its next operation (for the worker before it, or at a
// barrier) takes no core, beyond its spin (Machine.Spin a kernel, added to
// every worker's operations but the busiest's), and a worker whose next
// queue is full (Machine.QueueCapacity) waits too. A worker idle when a
// kernel is handed to it takes it Machine.Wake later. The device,
// barriers, hand-offs and replays follow flowShop's recurrence.
func sharedFlowShop(ks []Kernel, m Mode, mach [NumStages]int, nm int, mc Machine, busiest int) flowShopRun {
	spin := 0.0
	if nm > mc.Cores {
		spin = float64(mc.Spin)
	}
	var r flowShopRun
	n := len(ks)
	if n == 0 {
		return r
	}
	cores := float64(mc.Cores)
	complete := make([]float64, n) // when kernel i completed, once known
	known := 0                     // complete[0..known) are known
	var lastDev float64
	next := make([]int, nm)     // the kernel of each worker's next operation
	rem := make([]float64, nm)  // the work left of its operation in progress
	busy := make([]bool, nm)    // an operation in progress
	held := make([]float64, nm) // when its barrier began holding it, if waiting at one
	waiting := make([]bool, nm)
	since := make([]float64, nm) // when its operation in progress became ready
	running := make([]bool, nm)  // its operation holds a core
	var sub float64
	var ended []float64 // when worker w ended kernel i's operation, at i*nm+w
	if mc.Wake > 0 {
		ended = make([]float64, n*nm)
	}
	lastEnd := make([]float64, nm) // when each worker ended its last operation
	// awake is when worker w may take its next kernel, i, handed over
	// (the worker before is done with it): at once when w was still busy
	// with the kernel before at the hand-off, Machine.Wake after it when w
	// was idle.
	awake := func(w, i int) (at float64, idle bool) {
		if !wakes(w, ks[i], mc) {
			return 0, false
		}
		handed := ended[i*nm+w-1]
		if next[w] > 0 && lastEnd[w] >= handed {
			return 0, false
		}
		return handed + float64(mc.Wake), true
	}
	end := func(w int, t float64) {
		if ended != nil {
			ended[next[w]*nm+w] = t
		}
		lastEnd[w] = t
		next[w]++
	}
	work := func(i, w int) float64 {
		k := ks[i]
		var p float64
		for s, c := range k.host() {
			if mach[s] == w {
				p += float64(c)
			}
		}
		if w > 0 && !k.Replayed {
			p += float64(mc.Handoff)
		}
		if w == 0 && !k.Replayed {
			p += float64(mc.Step)
		}
		if w != busiest && !k.Replayed {
			p += spin
		}
		if b := k.Barrier; b.On && mach[b.stage()-1] == w {
			p += float64(b.Cost)
		}
		return p
	}
	// release returns when kernel i's barrier on its worker lets it go, or
	// false while the device end it waits for is not known yet.
	release := func(i int) (float64, bool) {
		b := ks[i].Barrier
		switch {
		case m.Drain && i > 0:
			if known < i {
				return 0, false
			}
			return complete[i-1], true
		case !m.Drain && b.Producer >= 0:
			if known <= b.Producer {
				return 0, false
			}
			return complete[b.Producer], true
		}
		return 0, true
	}
	devEnd := make([]float64, n) // D[i], once computed
	device := func(i int, t float64) {
		// Kernel i's device execution, launched at t (or, replayed, in the
		// submission that began at sub).
		lastDev = mc.deviceEnd(ks[i], i, lastDev, t, sub)
		devEnd[i] = lastDev
	}
	finish := func(i int, t float64) {
		// Kernel i's last operation ended at t: its completion, once its
		// device execution has ended too.
		if !ks[i].Replayed {
			device(i, t)
		}
		complete[i] = max(devEnd[i], t)
		known = i + 1
	}
	t := 0.0
	for known < n {
		// Start every operation that can start at t; zero-work ones end at
		// once and may let others start.
		for progress := true; progress; {
			progress = false
			for w := range nm {
				i := next[w]
				if busy[w] || i >= n || w > 0 && next[w-1] <= i {
					continue
				}
				at, idle := awake(w, i)
				if idle && at > t {
					continue
				}
				if c := mc.QueueCapacity; c > 0 && w < nm-1 {
					taken := next[w+1] // kernels the next worker has taken
					if busy[w+1] || waiting[w+1] {
						taken++
					}
					if i+1-c > taken {
						continue // its push would find the next queue full
					}
				}
				if b := ks[i].Barrier; b.On && mach[b.stage()-1] == w {
					rel, ok := release(i)
					if !waiting[w] {
						waiting[w], held[w] = true, t
					}
					if !ok || rel > t {
						continue
					}
					r.wait += t - held[w]
					waiting[w] = false
				}
				if w == nm-1 && ks[i].Replayed && ks[i].Submission == 0 {
					sub = t // after the barrier's cost, as in flowShop
					if b := ks[i].Barrier; b.On && mach[b.stage()-1] == w {
						sub += float64(b.Cost)
					}
				}
				busy[w], rem[w], since[w] = true, work(i, w), t
				if idle {
					r.wake += float64(mc.Wake)
				}
				progress = true // a kernel taken may make room for the worker before
				if w == nm-1 && ks[i].Replayed {
					// Its device start follows the submission's, not the
					// end of this operation: known now, as in flowShop.
					device(i, t)
				}
				if rem[w] <= 0 {
					busy[w] = false
					end(w, t)
					if w == nm-1 {
						r.hostEnd = t
						finish(i, t)
					}
				}
			}
		}
		// The next event: an operation ends, a barrier releases, or a
		// worker wakes.
		// A core runs an operation to its end (Go does not preempt a
		// goroutine for about 10 ms); a free core takes the operation
		// ready the longest, the later worker's on a tie (the goroutine a
		// hand-off woke runs next).
		run := 0
		for w := range nm {
			if running[w] {
				run++
			}
		}
		for cores <= 0 || float64(run) < cores {
			pick := -1
			for w := nm - 1; w >= 0; w-- {
				if busy[w] && !running[w] && (pick < 0 || since[w] < since[pick]) {
					pick = w
				}
			}
			if pick < 0 {
				break
			}
			running[pick] = true
			r.gap += t - since[pick]
			run++
		}
		dt := math.Inf(1)
		for w := range nm {
			if running[w] {
				dt = min(dt, rem[w])
			} else if waiting[w] {
				if rel, ok := release(next[w]); ok && rel > t {
					dt = min(dt, rel-t)
				}
			} else if i := next[w]; !busy[w] && i < n && w > 0 && next[w-1] > i {
				if at, idle := awake(w, i); idle && at > t {
					dt = min(dt, at-t)
				}
			}
		}
		if math.IsInf(dt, 1) {
			break // nothing can move: an invalid barrier (Predict checks)
		}
		t += dt
		for w := range nm {
			if !running[w] {
				continue
			}
			rem[w] -= dt
			if rem[w] <= 1e-9*max(1, t) {
				busy[w], running[w] = false, false
				i := next[w]
				end(w, t)
				if w == nm-1 {
					r.hostEnd = t
					finish(i, t)
				}
			}
		}
	}
	r.makespan = max(lastDev, r.hostEnd)
	return r
}
