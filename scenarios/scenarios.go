// Package scenarios holds pipert's built-in host-bound workloads: graphs
// with synthetic per-stage host costs that model a framework's overhead.
//
//   - smallops: a long ladder of small element-wise and small matmul kernels.
//   - decode: small-batch transformer decode at a realistic model size.
//   - dynshape: Shape→Gather→Concat→Reshape value-dependency chains and a
//     Unique (compute dependency) feeding a later branch, with independent
//     work in between.
//   - zerocost: smallops' graph with no synthetic host cost and near-zero
//     device time: what the runtime itself costs per kernel.
//   - hetero: device chains joined by CPU-placed chains that compute for
//     real on the host, for heterogeneous runs.
//   - decode-steps: consecutive decode steps whose KV length grows by one
//     a step, for the host caches: most kernels see the shapes of the
//     previous step, the attention kernels do not.
//   - mttorch: MTTorch's virtual operators on a DSP cluster of the MT-3000
//     (package device/mt3000), where they win and where they lose against
//     CPU parts with copies.
//   - ocr and vad: real models (package models) imported through onnx:
//     PP-OCRv4's text detector and Silero VAD v5, with their real weights.
//
// Each scenario builds at benchmark size on virtual tensors (shapes only,
// except the small integer tensors that feed value dependencies) or at a
// small size on real data, where every mode must give bit-identical outputs.
//
// Dependency rule: scenarios imports the facade (pipert), onnx, models,
// subgraph, kernel, device, device/host, device/mt3000 and internal
// packages.
package scenarios

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/internal/hostmem"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/subgraph"
)

// Config selects a scenario's size and data.
type Config struct {
	// Real builds the small real-data variant; otherwise the benchmark size
	// on virtual tensors.
	Real bool
	// Quick shrinks the benchmark size for CI-sized runs; it keeps the
	// scenario's character (and smallops' 2 000 kernels per step).
	Quick bool
	// Seed drives the random contents of real-data variants.
	Seed uint64
	// Size, when positive, is the image side of the ocr scenario (a
	// multiple of 32); other scenarios ignore it.
	Size int64
	// Params override the scenario's size parameters by name (see
	// Scenario.Params); a name the scenario does not have is an error of
	// Build. Nil keeps the sizes Real and Quick select.
	Params map[string]int64
}

// Workload is a built scenario: a graph and the inputs of one step.
type Workload struct {
	Graph  *subgraph.Graph
	Inputs map[string]*kernel.Tensor
	// Feedback maps an input to the output that feeds it in the next
	// step, for streaming models (VAD's state): a runner replaces the
	// input by that output of the previous step.
	Feedback map[string]string
	// Step, when set, gives the inputs of the i-th consecutive run (from
	// 0), replacing Inputs: a sequence whose shapes evolve (decode-steps'
	// KV length grows by one a step).
	Step func(i int) map[string]*kernel.Tensor
}

// InputsOf returns the inputs of consecutive run i.
func (w *Workload) InputsOf(i int) map[string]*kernel.Tensor {
	if w == nil {
		return nil
	}
	if w.Step != nil {
		return w.Step(i)
	}
	return w.Inputs
}

// Scenario is a named workload generator.
type Scenario struct {
	Name        string
	Description string
	// Costs are the synthetic host costs per stage the scenario models.
	Costs pipert.Costs
	// Profile, when set, replaces the default device profile.
	Profile *device.Profile
	// Barriers is set when the graph has value or compute dependencies, so
	// that barrier policies are worth comparing on it.
	Barriers bool
	// Hetero is set when the graph places nodes on the CPU, so that the
	// heterogeneous mode is worth running on it.
	Hetero bool
	// Steps is the number of consecutive runs one measured sample holds
	// (0: 1).
	Steps int
	// CacheStudy is set when the host caches are worth comparing on the
	// scenario: pipebench then runs each alone and all together.
	CacheStudy bool
	Build      func(Config) (*Workload, error)
	// Platform, when set, makes the devices the scenario runs on (obs
	// observes the accelerator; nil: none) in place of the default card
	// and host.
	Platform func(obs device.Observer) (*Platform, error)
	// Virtual lists ops labelled for the CPU that may instead run as
	// virtual operators (plan.Config.Virtual) on the Platform's
	// host-mapped accelerator: a runner compares each against the copied
	// placement.
	Virtual []string
	// Params lists the size parameters of the graph generator with their
	// values at c (Real and Quick select them, c.Params overrides them);
	// nil when the scenario has none.
	Params func(c Config) ([]Param, error)
}

// DefaultCosts are the synthetic host costs per kernel: prepare 2 µs,
// InferShape 5 µs, Resize 6 µs, Launch 8 µs — the tens of microseconds of
// framework overhead per kernel that make small kernels host-bound.
func DefaultCosts() pipert.Costs {
	return pipert.Costs{
		Prepare: 2 * time.Microsecond,
		Infer:   5 * time.Microsecond,
		Resize:  6 * time.Microsecond,
		Launch:  8 * time.Microsecond,
	}
}

var registry = map[string]Scenario{}

func register(s Scenario) {
	build := s.Build
	s.Build = func(c Config) (w *Workload, err error) {
		// A real tensor too large for the host stops the build (see
		// data.alloc) with an error, before Go's allocator would end the
		// process.
		defer func() {
			if p := recover(); p != nil {
				tl, ok := p.(tooLarge)
				if !ok {
					panic(p)
				}
				w, err = nil, fmt.Errorf("scenarios: %s: %w", s.Name, tl.err)
			}
		}()
		return build(c)
	}
	registry[s.Name] = s
}

// All returns the built-in scenarios sorted by name.
func All() []Scenario {
	out := make([]Scenario, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names lists the built-in scenario names, sorted.
func Names() []string {
	var n []string
	for _, s := range All() {
		n = append(n, s.Name)
	}
	return n
}

// Get returns the scenario called name.
func Get(name string) (Scenario, error) {
	s, ok := registry[name]
	if !ok {
		return Scenario{}, fmt.Errorf("scenarios: unknown scenario %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// data makes tensors for a scenario: real random contents in real mode,
// virtual tensors otherwise.
type data struct {
	real bool
	rng  *rand.Rand
}

func newData(c Config) *data {
	return &data{real: c.Real, rng: rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))}
}

// tooLarge is the panic of data.alloc, which the registered Build turns
// into its error.
type tooLarge struct{ err error }

// alloc returns a zeroed real tensor, or stops the build (panicking with
// tooLarge) when its size overflows or the host cannot hold it: real
// data follows a scenario's parameters, which a scenario file sets.
func (d *data) alloc(dt kernel.DType, shape ...int64) *kernel.Tensor {
	n := uint64(dt.Size())
	for _, s := range shape {
		hi, lo := bits.Mul64(n, uint64(s))
		if s < 0 || hi != 0 || lo > 1<<62 {
			panic(tooLarge{fmt.Errorf("real %v tensor of shape %v: more bytes than an int64 counts", dt, shape)})
		}
		n = lo
	}
	if err := hostmem.Check(int64(n)); err != nil {
		panic(tooLarge{fmt.Errorf("real %v tensor of shape %v: %w", dt, shape, err)})
	}
	return kernel.New(dt, shape...)
}

// float returns a float tensor of uniform values in [-scale, scale).
func (d *data) float(dt kernel.DType, scale float32, shape ...int64) *kernel.Tensor {
	if !d.real {
		return kernel.Virtual(dt, shape...)
	}
	t := d.alloc(dt, shape...)
	switch dt {
	case kernel.Float32:
		f := kernel.Float32s(t.Host)
		for i := range f {
			f[i] = (d.rng.Float32()*2 - 1) * scale
		}
	case kernel.Float16:
		for i := range kernel.Uint16s(t.Host) {
			kernel.Uint16s(t.Host)[i] = kernel.F32ToF16((d.rng.Float32()*2 - 1) * scale)
		}
	default:
		panic("scenarios: float tensor of " + dt.String())
	}
	return t
}

// ints returns an int64 tensor of values in [0, n).
func (d *data) ints(n int64, shape ...int64) *kernel.Tensor {
	if !d.real {
		return kernel.Virtual(kernel.Int64, shape...)
	}
	t := d.alloc(kernel.Int64, shape...)
	for i := range kernel.Int64s(t.Host) {
		kernel.Int64s(t.Host)[i] = d.rng.Int64N(n)
	}
	return t
}

// shapeConst returns a real int64 1-D tensor: shape operands are always real.
func shapeConst(v ...int64) *kernel.Tensor { return kernel.FromInt64(v, int64(len(v))) }
