package main

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/plan"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
)

// platforms maps each accelerator made from a scenario's Platform to that
// platform, for compileVariant to find its CPU and group costs.
var platforms sync.Map // device.Device -> *scenarios.Platform

// makeFor returns a new device for scenario sc: its platform's
// accelerator when it has one, else make's.
func (f *deviceFactory) makeFor(sc scenarios.Scenario, obs device.Observer) (device.Device, error) {
	if sc.Platform == nil {
		return f.make(sc.Profile, obs)
	}
	pl, err := sc.Platform(obs)
	if err != nil {
		return nil, err
	}
	platforms.Store(pl.Accelerator, pl)
	return pl.Accelerator, nil
}

// platformOf returns the platform dev was made from, nil for the
// default devices.
func platformOf(dev device.Device) *scenarios.Platform {
	if pl, ok := platforms.Load(dev); ok {
		return pl.(*scenarios.Platform)
	}
	return nil
}

// platformManager is compileVariant's manager of dev and cpu (nil: the
// platform's, or a default host), with the platform's group costs.
func platformManager(dev device.Device, cpu *host.Device, obs device.Observer) (*heterog.Manager, error) {
	pl := platformOf(dev)
	var opts []heterog.ManagerOption
	if pl != nil {
		opts = append(opts, heterog.WithGroupCosts(heterog.GroupCosts{Create: pl.GroupCreate, Cached: pl.GroupCached}))
		if obs != nil {
			var err error
			if cpu, err = host.New(host.Options{Profile: pl.CPU.Profile(), Observer: obs}); err != nil {
				return nil, err
			}
		} else if cpu == nil {
			cpu = pl.CPU
		}
	}
	return heterog.NewManager(cpu, dev, opts...)
}

// virtualVariants are the runs of sc with each of its virtual operators,
// beside the copied placement (the labelled hetero run).
func virtualVariants(sc scenarios.Scenario) []variant {
	var out []variant
	for _, op := range sc.Virtual {
		out = append(out, variant{mode: plan.Pipeline, policy: plan.PerTensor, hetero: true, virtual: op})
	}
	return out
}

// virtualPlacement places as labelled but the nodes of op on the device,
// where they run as virtual operators.
type virtualPlacement struct{ op string }

func (p virtualPlacement) Place(c *subgraph.Checked, t plan.Target) ([]subgraph.Placement, error) {
	out, err := heterog.Labels().Place(c, t)
	if err != nil {
		return nil, err
	}
	for i, n := range c.Graph.Nodes {
		if n.Op == p.op {
			out[i] = subgraph.OnDevice
		}
	}
	return out, nil
}

// writeVirtual compares each virtual operator's run with the copied
// placement of the same scenario (hetero, per-tensor, concurrent: CPU
// parts, operands copied between the accelerator's memory and the
// CPU's).
func writeVirtual(w io.Writer, rep *report) {
	for _, r := range rep.Results {
		if r.Virtual == "" {
			continue
		}
		i := slices.IndexFunc(rep.Results, func(p result) bool {
			return p.Scenario == r.Scenario && p.Mode == "hetero" && p.Schedule == "concurrent" && p.Virtual == "" && p.Barrier == r.Barrier
		})
		if i < 0 {
			continue
		}
		c := rep.Results[i]
		verdict := "wins"
		if r.MakespanNs > c.MakespanNs {
			verdict = "loses"
		}
		fmt.Fprintf(w, "virtual vs copied placement, %s: %s virtual %v, copied %v: %.2fx (virtual %s)\n", r.Scenario, r.Virtual,
			time.Duration(r.MakespanNs).Round(time.Microsecond), time.Duration(c.MakespanNs).Round(time.Microsecond),
			float64(c.MakespanNs)/float64(r.MakespanNs), verdict)
	}
}
