package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// A Job is one run of a part of a heterogeneous executable, for Share: it
// starts at Start (ns), would take Alone ns with the cores to itself, and
// keeps Demand cores busy on average while it runs alone (its host work
// over Alone; zero for a job that only waits).
type Job struct {
	Start, Alone int64
	Demand       float64
}

// Share predicts when each job ends when the jobs share the host's cores
// (processor sharing). At every moment the cores go to the running jobs by
// water-filling: each gets its demand if the cores suffice, and otherwise
// the jobs that demand less than an equal share keep their demand and the
// others split the rest equally. A job that gets a fraction f of its
// demand runs at f of its alone speed, so it ends once its Alone time has
// been run at those speeds. A demand above the cores counts as the cores.
//
// The jobs' starts are taken as given: Share predicts how long each part
// takes once started, not when its inputs let it start.
func Share(jobs []Job, cores int) ([]int64, error) {
	if cores <= 0 {
		return nil, fmt.Errorf("analysis: Share on %d cores", cores)
	}
	for i, j := range jobs {
		if j.Alone < 0 || j.Demand < 0 || math.IsNaN(j.Demand) || math.IsInf(j.Demand, 0) {
			return nil, fmt.Errorf("analysis: Share: invalid job %d %+v", i, j)
		}
	}
	c := float64(cores)
	end := make([]int64, len(jobs))
	left := make([]float64, len(jobs)) // alone time still to run
	order := make([]int, len(jobs))    // by start
	for i, j := range jobs {
		left[i], order[i] = float64(j.Alone), i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(jobs[a].Start, jobs[b].Start) })
	var active []int
	rate := make([]float64, len(jobs))
	next := 0
	var t float64
	for next < len(order) || len(active) > 0 {
		if len(active) == 0 {
			t = max(t, float64(jobs[order[next]].Start))
		}
		for next < len(order) && float64(jobs[order[next]].Start) <= t {
			i := order[next]
			next++
			if left[i] == 0 {
				end[i] = jobs[i].Start
				continue
			}
			active = append(active, i)
		}
		if len(active) == 0 {
			continue
		}
		waterfill(jobs, active, c, rate)
		dt, first := math.Inf(1), -1
		for _, i := range active {
			if d := left[i] / rate[i]; d < dt {
				dt, first = d, i
			}
		}
		if next < len(order) {
			if d := float64(jobs[order[next]].Start) - t; d < dt {
				dt, first = d, -1
			}
		}
		t += dt
		n := 0
		for _, i := range active {
			left[i] -= rate[i] * dt
			if i == first || left[i] <= 1e-9*float64(jobs[i].Alone) {
				if t >= maxNs {
					return nil, fmt.Errorf("analysis: Share: job %d ends past %g ns (its start and times overflow int64 nanoseconds)", i, maxNs)
				}
				end[i] = int64(math.Round(t))
				continue
			}
			active[n] = i
			n++
		}
		active = active[:n]
	}
	return end, nil
}

// waterfill sets rate[i], for each active job, to the fraction of its
// demand the cores give it.
func waterfill(jobs []Job, active []int, cores float64, rate []float64) {
	byDemand := slices.Clone(active)
	slices.SortStableFunc(byDemand, func(a, b int) int { return cmp.Compare(jobs[a].Demand, jobs[b].Demand) })
	rem := cores
	for k, i := range byDemand {
		d := min(jobs[i].Demand, cores)
		if d == 0 {
			rate[i] = 1 // waits: no core to share
			continue
		}
		got := min(d, rem/float64(len(byDemand)-k))
		rem -= got
		rate[i] = got / d
	}
}

// maxNs bounds the times Share and Predict compute, 2^62 ns (146 years),
// so that none overflows int64 nanoseconds on its way.
const maxNs = 0x1p62
