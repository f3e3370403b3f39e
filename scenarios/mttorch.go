package scenarios

import (
	"fmt"
	"time"

	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/device/host"
	"github.com/pipert/pipert/device/mt3000"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Platform is the devices a scenario runs on in place of the default
// card (Scenario.Platform): an accelerator, host-mapped when the scenario
// has virtual operators, the host CPU beside it, and the modeled costs of
// the accelerator's worker groups (heterog.GroupCosts).
type Platform struct {
	Accelerator device.Device
	CPU         *host.Device
	GroupCreate time.Duration
	GroupCached time.Duration
}

// MT3000 returns the platform of one MT-3000 of profile p: its first DSP
// cluster (host-mapped) as the accelerator, observed by obs (nil: none),
// its general-purpose cores as the CPU, and the document's thread-group
// costs.
func MT3000(p mt3000.Profile, obs device.Observer) (*Platform, error) {
	chip, err := mt3000.New(p, mt3000.Options{Observer: obs})
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	dsp, err := chip.Cluster(0)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return &Platform{Accelerator: dsp, CPU: chip.CPU(), GroupCreate: p.GroupCreate, GroupCached: p.GroupExec}, nil
}

func init() {
	register(Scenario{
		Name: "mttorch",
		Description: "MTTorch's virtual operators on one DSP cluster of the MT-3000: a MatMul chain through a Gather of logit columns (CPU operator in the chain), " +
			"then heads whose ArgMax over logits (CPU operator beside the chain) ends a branch; computed virtually over host-mapped DDR, or in CPU parts with 16.22 GB/s copies",
		Costs:    DefaultCosts(),
		Hetero:   true,
		Virtual:  []string{"Gather", "ArgMax"},
		Platform: func(obs device.Observer) (*Platform, error) { return MT3000(mt3000.Default(), obs) },
		Build:    buildMTTorch,
		Params: func(c Config) ([]Param, error) {
			s, err := mttorchSizeOf(c)
			return listParams(s.params()), err
		},
	})
}

// mttorchSize is the shape of the mttorch scenario.
type mttorchSize struct {
	batch, hidden, vocab, classes int64
	layers, heads                 int
}

func (s *mttorchSize) params() []sizeParam {
	return []sizeParam{
		dim("batch", "rows of the activations", &s.batch),
		dim("hidden", "width of the activations", &s.hidden),
		dim("vocab", "width of the logits Gather reads", &s.vocab),
		dim("classes", "width of the logits ArgMax reads", &s.classes),
		count("layers", "MatMul to logits, Gather, MatMul, GELU blocks (Gather in the chain)", &s.layers),
		count("heads", "MatMul to logits, ArgMax, MatMul, GELU blocks (ArgMax beside the chain)", &s.heads),
	}
}

func mttorchSizeOf(c Config) (mttorchSize, error) {
	s := mttorchSize{batch: 64, hidden: 64, vocab: 128 << 10, classes: 8 << 10, layers: 2, heads: 2}
	if c.Real {
		s = mttorchSize{batch: 3, hidden: 8, vocab: 32, classes: 16, layers: 2, heads: 2}
	}
	err := applyParams("mttorch", s.params(), c)
	return s, err
}

// buildMTTorch builds layers of
//
//	x = GELU(MatMul(Gather(MatMul(x, wv), ids, axis 1), w1))   Gather in the chain
//
// then heads of
//
//	a = ArgMax(MatMul(x, wc), axis 1)   ArgMax beside the chain: an output
//	x = GELU(MatMul(x, w3))             independent of a
//
// with Gather and ArgMax labelled for the CPU. Placed as labelled (copied
// placement), each is a CPU part whose operands cross between the
// cluster's DDR and the CPU's by DMA at 16.22 GB/s, and the device chain
// is cut into parts around it; as a virtual operator (plan.Config.Virtual,
// placed on the cluster) it computes on the host in place over the
// host-mapped DDR, with no copy, but on the cluster part's launch
// goroutine after the cluster's earlier work: nothing else of that part
// launches meanwhile.
//
// Gather sits in the chain and picks a few columns of wide logits, as
// nll_loss_forward, the document's example of a virtual operator, picks
// the target's (section 4.1): the cluster waits for it either way, and
// the copied placement first moves all the logits to the CPU's DDR, so
// the virtual placement, which moves nothing (section 3.3), wins. ArgMax
// reads the heads' logits beside the chain: copied, its CPU part overlaps
// the next head's cluster work; virtual, it holds up the next launches for
// its CPU time (one core streams 1.5 GB/s, against the DMA's 16.22 GB/s),
// and loses.
//
// At benchmark size (batch 64, hidden 64, 128 Ki logits for Gather and
// 8 Ki for ArgMax, 2 layers and 2 heads) the cluster takes about 2.6 ms
// for a layer's logits and 0.6 ms (hthreads_group_exec) for each other
// kernel; the layer's 32 MiB of logits cross in 2 ms; on one host core
// Gather takes about 20 µs and ArgMax 1.4 ms.
func buildMTTorch(c Config) (*Workload, error) {
	s, err := mttorchSizeOf(c)
	if err != nil {
		return nil, err
	}
	d := newData(c)
	b := subgraph.NewBuilder("mttorch")
	x := b.Input("x", kernel.Float32, s.batch, s.hidden)
	inputs := map[string]*kernel.Tensor{"x": d.float(kernel.Float32, 1, s.batch, s.hidden)}
	scale := 1 / float32(s.hidden)
	w := func(name string, cols int64) string {
		return b.Const(name, d.float(kernel.Float32, scale, s.hidden, cols))
	}
	for l := range s.layers {
		z := b.Op("MatMul", x, w(fmt.Sprintf("l%d.wv", l), s.vocab))
		ids := b.Const(fmt.Sprintf("l%d.ids", l), d.ints(s.vocab, s.hidden))
		x = b.OpAttrs("Gather", kernel.Attrs{"axis": int64(1)}, z, ids)
		b.Last().Placement = subgraph.OnCPU
		x = b.Op("GELU", b.Op("MatMul", x, w(fmt.Sprintf("l%d.w1", l), s.hidden)))
	}
	var outs []string
	for h := range s.heads {
		z := b.Op("MatMul", x, w(fmt.Sprintf("h%d.wv", h), s.classes))
		outs = append(outs, b.OpAttrs("ArgMax", kernel.Attrs{"axis": int64(1), "keepdims": false}, z))
		b.Last().Placement = subgraph.OnCPU
		x = b.Op("GELU", b.Op("MatMul", x, w(fmt.Sprintf("h%d.w3", h), s.hidden)))
	}
	b.Output(x)
	b.Output(outs...)
	return &Workload{Graph: b.Graph(), Inputs: inputs}, nil
}
