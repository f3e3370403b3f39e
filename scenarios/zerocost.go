package scenarios

import (
	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
)

func init() {
	p := device.Default()
	p.Name = "zerocost"
	p.LaunchLatency = 0
	p.KernelFixed = 0
	p.PeakFLOPS = 1e18
	p.MemBandwidth = 1e18
	register(Scenario{
		Name:        "zerocost",
		Description: "the smallops ladder with no synthetic host cost and a device that takes no time: the runtime's own overhead per kernel",
		Costs:       pipert.Costs{},
		Profile:     &p,
		Build: func(c Config) (*Workload, error) {
			w, err := buildSmallOps(c)
			if err != nil {
				return nil, err
			}
			w.Graph.Name = "zerocost"
			return w, nil
		},
		Params: smallOpsParamsAt,
	})
}
