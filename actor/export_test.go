package actor

import "fmt"

// KeyHash lets tests replace the hash of cache keys.
var KeyHash = &keyHash

// CheckPlan verifies a's memory plan against its program: every tensor
// and workspace inside the arena, no two whose lifetimes overlap sharing a
// byte, the arena no smaller than the bytes live at once. It returns the
// plan's figures.
func CheckPlan(a *SuperKernelActor) (PlanFigures, error) {
	r := a.r
	mp := r.plan
	if mp == nil {
		return PlanFigures{}, fmt.Errorf("no plan")
	}
	p := r.prog
	n := len(p.nodes)
	end := make([]int, len(p.slots))
	for s := range end {
		end[s] = n
	}
	for pos := range p.nodes {
		for _, s := range p.nodes[pos].free() {
			end[s] = pos
		}
	}
	type span struct {
		what       string
		start, end int
		off, size  int64
	}
	var all []span
	for s, info := range p.slots {
		if mp.size[s] > 0 {
			all = append(all, span{info.name, int(info.producer), end[s], mp.off[s], mp.size[s]})
		}
	}
	for pos := range p.nodes {
		if mp.wsLen[pos] > 0 {
			all = append(all, span{p.nodes[pos].name + " workspace", pos, pos, mp.wsOff[pos], mp.wsLen[pos]})
		}
	}
	for i, x := range all {
		if x.off < 0 || x.off+x.size > mp.stats.ArenaBytes || x.off%planAlign != 0 {
			return PlanFigures{}, fmt.Errorf("%s at [%d, %d) outside the %d-byte arena or misaligned", x.what, x.off, x.off+x.size, mp.stats.ArenaBytes)
		}
		for _, y := range all[i+1:] {
			if x.start <= y.end && y.start <= x.end && x.off < y.off+y.size && y.off < x.off+x.size {
				return PlanFigures{}, fmt.Errorf("%s [%d, %d] and %s [%d, %d] share bytes", x.what, x.start, x.end, y.what, y.start, y.end)
			}
		}
	}
	if mp.stats.ArenaBytes < mp.stats.PeakLiveBytes {
		return PlanFigures{}, fmt.Errorf("arena %d below the %d bytes live at once", mp.stats.ArenaBytes, mp.stats.PeakLiveBytes)
	}
	return PlanFigures{Arena: mp.stats.ArenaBytes, PeakLive: mp.stats.PeakLiveBytes, Sum: mp.stats.SumBytes}, nil
}

// PlanFigures are a plan's arena, its lower bound and the sum of what it
// places.
type PlanFigures struct{ Arena, PeakLive, Sum int64 }

// RunnerPools is the number of runner pools the process holds.
func RunnerPools() int {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	return len(pools)
}

// StageTasks returns the tasks pushed so far to a's first stage goroutine
// (0 without one).
func StageTasks(a *SuperKernelActor) uint64 {
	if a.eng == nil || a.eng.pipe == nil {
		return 0
	}
	return a.eng.pipe.Queue(1).Stats().Pushed
}

// ReplayTasks returns the tasks a run of a hands to its stage goroutines
// when every captured sequence is predicted to replay: one a kernel
// outside them, and for each sequence one for its first kernel and one
// for the rest (sequences of one kernel: one); and whether a has such
// a sequence of two kernels or more.
func ReplayTasks(a *SuperKernelActor) (tasks int, long bool) {
	c := a.r.capture
	for pos := 0; pos < len(a.r.prog.nodes); pos++ {
		tasks++
		if s := c.seg[pos]; s >= 0 && c.segs[s].first == pos && c.segs[s].valid && c.segs[s].last > pos {
			tasks++
			pos = c.segs[s].last
			long = true
		}
	}
	return tasks, long
}
