package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestShareByHand(t *testing.T) {
	cases := []struct {
		name  string
		jobs  []Job
		cores int
		want  []int64
	}{
		// Two single-goroutine jobs on one core: half speed each.
		{"two on one core", []Job{{0, 10, 1}, {0, 10, 1}}, 1, []int64{20, 20}},
		// Two cores: each its own.
		{"two on two cores", []Job{{0, 10, 1}, {0, 10, 1}}, 2, []int64{10, 10}},
		// Three on two cores: 2/3 speed each until all end at 15.
		{"three on two cores", []Job{{0, 10, 1}, {0, 10, 1}, {0, 10, 1}}, 2, []int64{15, 15, 15}},
		// Water-filling on one core: the job demanding 0.25 keeps it (full
		// speed, ends at 8); the other gets 0.75 of its 1 until 8 (6 of 10
		// done), then the whole core: ends at 12.
		{"small demand kept", []Job{{0, 8, 0.25}, {0, 10, 1}}, 1, []int64{8, 12}},
		// Staggered: the first runs alone for 4 (4 done), shares one core
		// with the second (half speed) until it ends at 4 + 2×6 = 16; the
		// second did 6 by then and ends at 16 + 4 = 20.
		{"staggered", []Job{{0, 10, 1}, {4, 10, 1}}, 1, []int64{16, 20}},
		// A job that only waits (no demand) is not slowed down.
		{"waiting job", []Job{{0, 100, 0}, {0, 10, 1}, {0, 10, 1}}, 1, []int64{100, 20, 20}},
		// A demand above the cores counts as the cores; a zero-length job
		// ends at its start; a gap with nothing running.
		{"edges", []Job{{0, 10, 5}, {3, 0, 1}, {50, 4, 1}}, 2, []int64{10, 3, 54}},
		{"none", nil, 2, []int64{}},
	}
	for _, c := range cases {
		got, err := Share(c.jobs, c.cores)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("%s: Share = %v, want %v", c.name, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: Share = %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

func TestShareErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		jobs  []Job
		cores int
	}{
		{"no cores", []Job{{0, 1, 1}}, 0},
		{"negative alone", []Job{{0, -1, 1}}, 1},
		{"negative demand", []Job{{0, 1, -1}}, 1},
		{"an end past int64", []Job{{math.MaxInt64 - 5, 10, 1}}, 1},
		{"alone times past int64 shared", []Job{{0, 1 << 62, 1}, {0, 1 << 62, 1}}, 1},
	} {
		if _, err := Share(c.jobs, c.cores); err == nil {
			t.Errorf("%s: Share succeeded", c.name)
		}
	}
}

// TestShareProperties checks, on random jobs, what any processor sharing
// must give: no job ends before its start plus its alone time; with as many
// cores as the total demand every job ends exactly then; and the cores are
// never used beyond their number, so the last end is no earlier than the
// total core time over the cores.
func TestShareProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 2000 {
		jobs := make([]Job, 1+rng.IntN(8))
		cores := 1 + rng.IntN(3)
		total := 0.0 // core time: a job's alone time at its demand
		first, ends := int64(1<<62), int64(0)
		for i := range jobs {
			jobs[i] = Job{Start: rng.Int64N(1000), Alone: rng.Int64N(1000), Demand: float64(rng.IntN(9)) / 4}
			total += float64(jobs[i].Alone) * min(jobs[i].Demand, float64(cores))
			first = min(first, jobs[i].Start)
		}
		got, err := Share(jobs, cores)
		if err != nil {
			t.Fatal(err)
		}
		for i, j := range jobs {
			if got[i] < j.Start+j.Alone {
				t.Fatalf("trial %d: job %d %+v ends at %d, before start+alone", trial, i, j, got[i])
			}
			ends = max(ends, got[i])
		}
		if float64(ends-first) < total/float64(cores)-float64(len(jobs)) {
			t.Fatalf("trial %d: last end %d after %d, under the core time %g / %d cores", trial, ends, first, total, cores)
		}
		wide, err := Share(jobs, 100)
		if err != nil {
			t.Fatal(err)
		}
		for i, j := range jobs {
			if wide[i] != j.Start+j.Alone {
				t.Fatalf("trial %d: job %d %+v on 100 cores ends at %d", trial, i, j, wide[i])
			}
		}
	}
}
