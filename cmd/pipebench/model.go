package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/heterog"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/onnx"
	"github.com/pipert/pipert/scenarios"
	"github.com/pipert/pipert/subgraph"
)

// modelFlags are the flags of a run on an ONNX file (-model).
type modelFlags struct {
	path   string
	shapes map[string][]int64        // -input name=1x3x96x96
	values map[string]*kernel.Tensor // -const name=value
	golden string
	tol    float64
	rtol   float64
	// outputs (-outputs) replace the model's graph outputs (onnx.Options.Outputs); nil keeps them.
	outputs []string
}

// options are the import options of the flags, with shapes as the input
// shapes.
func (mf *modelFlags) options(shapes map[string][]int64) onnx.Options {
	return onnx.Options{Shapes: shapes, Values: mf.values, Outputs: mf.outputs}
}

// checkOutputNames checks the tensors of -outputs or graph.outputs:
// at least one, none empty, none twice.
func checkOutputNames(names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("%w: -outputs names no tensor", errUsage)
	}
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("%w: -outputs: item %d is empty", errUsage, i+1)
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%w: -outputs names %q twice", errUsage, n)
		}
	}
	return nil
}

// parseOutputs parses "-outputs a,b": names separated by commas, each
// trimmed of spaces; a comma or backslash inside a name is escaped by a
// backslash (exporters name tensors freely: "{\"1\": \"timer\"}").
func parseOutputs(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, checkOutputNames(nil)
	}
	names := splitEscaped(s)
	return names, checkOutputNames(names)
}

// splitEscaped splits a comma-separated list of tensor names (or items
// starting with one), where a name may hold a comma written \, and a
// backslash written \\; items are trimmed of spaces, empty ones kept.
func splitEscaped(s string) []string {
	var (
		items []string
		cur   strings.Builder
	)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && (s[i+1] == ',' || s[i+1] == '\\'):
			i++
			cur.WriteByte(s[i])
		case c == ',':
			items = append(items, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(items, strings.TrimSpace(cur.String()))
}

// namedItems splits a -input or -const value into name=value pairs: the
// value is after the last '=' (a name may hold '=', and a comma written
// \,); a name given twice is an error.
func namedItems(flag, s, want string) ([][2]string, error) {
	var out [][2]string
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, item := range splitEscaped(s) {
		if item == "" {
			continue
		}
		i := strings.LastIndexByte(item, '=')
		if i <= 0 {
			return nil, fmt.Errorf("%w: -%s %q: want %s", errUsage, flag, item, want)
		}
		name, val := strings.TrimSpace(item[:i]), strings.TrimSpace(item[i+1:])
		if seen[name] {
			return nil, fmt.Errorf("%w: -%s: input %q given twice", errUsage, flag, name)
		}
		seen[name] = true
		out = append(out, [2]string{name, val})
	}
	return out, nil
}

// parseInputs parses "-input a=1x3x96x96,b=2x128".
func parseInputs(s string) (map[string][]int64, error) {
	items, err := namedItems("input", s, "name=D1xD2x…")
	if err != nil {
		return nil, err
	}
	out := map[string][]int64{}
	for _, it := range items {
		name, dims, item := it[0], it[1], it[0]+"="+it[1]
		var shape []int64
		if dims != "" && dims != "scalar" {
			for _, d := range strings.Split(dims, "x") {
				v, err := strconv.ParseInt(d, 10, 64)
				if err != nil || v < 0 {
					return nil, fmt.Errorf("%w: -input %q: dimension %q is not a non-negative integer", errUsage, item, d)
				}
				shape = append(shape, v)
			}
		}
		out[name] = shape
	}
	return out, nil
}

// checkModelNames checks that -input names inputs of model m and that
// -outputs names tensors its graph takes or computes: usage errors naming
// the flag, before the import.
func checkModelNames(m *onnx.Model, mf *modelFlags) error {
	inputs, tensors := modelNames(m)
	for _, name := range slices.Sorted(maps.Keys(mf.shapes)) {
		if err := checkInputShape(inputs, name, mf.shapes[name]); err != nil {
			return fmt.Errorf("%w: -input %s: %v", errUsage, name, err)
		}
	}
	for _, name := range mf.outputs {
		if !tensors[name] {
			return fmt.Errorf("%w: -outputs %s: the model neither takes nor computes such a tensor", errUsage, name)
		}
	}
	return nil
}

// checkInputShape checks dims, the shape fixed for input name: the model
// must have the input and, if it declares a shape, of as many dimensions.
func checkInputShape(inputs map[string]*onnx.ValueInfo, name string, dims []int64) error {
	vi := inputs[name]
	switch {
	case vi == nil:
		return errors.New("the model has no such input")
	case vi.HasShape && len(dims) != len(vi.Dims):
		return fmt.Errorf("%d dimensions, the model declares %d", len(dims), len(vi.Dims))
	}
	return nil
}

// modelNames is the graph inputs of model m, and every tensor its graph
// takes or computes (inputs, initializers, nodes' outputs).
func modelNames(m *onnx.Model) (inputs map[string]*onnx.ValueInfo, tensors map[string]bool) {
	inputs, tensors = map[string]*onnx.ValueInfo{}, map[string]bool{}
	for _, vi := range m.Graph.Inputs {
		inputs[vi.Name], tensors[vi.Name] = vi, true
	}
	for _, t := range m.Graph.Initializers {
		tensors[t.Name] = true
	}
	for _, n := range m.Graph.Nodes {
		for _, o := range n.Outputs {
			tensors[o] = true
		}
	}
	return inputs, tensors
}

// parseConsts parses "-const sr=16000" into scalars of each input's dtype
// in model m.
func parseConsts(s string, m *onnx.Model) (map[string]*kernel.Tensor, error) {
	items, err := namedItems("const", s, "name=value")
	if err != nil {
		return nil, err
	}
	out := map[string]*kernel.Tensor{}
	for _, it := range items {
		name, val, item := it[0], it[1], it[0]+"="+it[1]
		var dt kernel.DType
		for _, vi := range m.Graph.Inputs {
			if vi.Name == name {
				d, ok := vi.DataType.DType()
				if !ok {
					return nil, fmt.Errorf("%w: -const %s: the input has dtype %v", errUsage, name, vi.DataType)
				}
				dt = d
			}
		}
		if dt == 0 {
			return nil, fmt.Errorf("%w: -const %s: the model has no such input", errUsage, name)
		}
		t := kernel.New(dt)
		t.Shape = kernel.Shape{}
		if err := storeScalar(t, val); err != nil {
			return nil, fmt.Errorf("%w: -const %q: %v", errUsage, item, err)
		}
		out[name] = t
	}
	return out, nil
}

// scalarErr says why val is not one value of dtype dt (strconv's error,
// without its function's name).
func scalarErr(val string, dt kernel.DType, err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%q is out of the range of %v", val, dt)
	}
	return fmt.Errorf("%q is not a number of dtype %v", val, dt)
}

// storeScalar parses val as one element of t's dtype and stores it: a
// value the dtype cannot hold is an error.
func storeScalar(t *kernel.Tensor, val string) error {
	if t.DType.IsFloat() {
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return scalarErr(val, t.DType, err)
		}
		switch t.DType {
		case kernel.Float32:
			kernel.Float32s(t.Host)[0] = float32(f)
		case kernel.Float64:
			kernel.Float64s(t.Host)[0] = f
		case kernel.Float16:
			kernel.Uint16s(t.Host)[0] = kernel.F32ToF16(float32(f))
		case kernel.BFloat16:
			kernel.Uint16s(t.Host)[0] = kernel.F32ToBF16(float32(f))
		default:
			return fmt.Errorf("no scalar form for %v", t.DType)
		}
		return nil
	}
	if t.DType.IsUnsigned() || t.DType == kernel.Bool {
		bits := 8 * t.DType.Size()
		if t.DType == kernel.Bool {
			bits = 1
		}
		u, err := strconv.ParseUint(val, 10, bits)
		if err != nil {
			return scalarErr(val, t.DType, err)
		}
		switch t.DType.Size() {
		case 1:
			t.Host[0] = byte(u)
		case 2:
			kernel.Uint16s(t.Host)[0] = uint16(u)
		case 4:
			kernel.Uint32s(t.Host)[0] = uint32(u)
		default:
			kernel.Uint64s(t.Host)[0] = u
		}
		return nil
	}
	i, err := strconv.ParseInt(val, 10, 8*t.DType.Size())
	if err != nil {
		return scalarErr(val, t.DType, err)
	}
	switch t.DType {
	case kernel.Int8:
		kernel.Int8s(t.Host)[0] = int8(i)
	case kernel.Int16:
		kernel.Int16s(t.Host)[0] = int16(i)
	case kernel.Int32:
		kernel.Int32s(t.Host)[0] = int32(i)
	case kernel.Int64:
		kernel.Int64s(t.Host)[0] = i
	default:
		return fmt.Errorf("no scalar form for %v", t.DType)
	}
	return nil
}

// modelScenario makes a scenario of the model file: imported with the
// fixed shapes and values, run on virtual inputs (random real ones with
// -real).
func modelScenario(mf *modelFlags) scenarios.Scenario {
	name := strings.TrimSuffix(filepath.Base(mf.path), filepath.Ext(mf.path))
	return scenarios.Scenario{
		Name:        name,
		Description: "the ONNX model " + mf.path,
		Costs:       scenarios.DefaultCosts(),
		Barriers:    true,
		Build: func(c scenarios.Config) (*scenarios.Workload, error) {
			g, err := onnx.ImportFile(mf.path, mf.options(mf.shapes))
			if err != nil {
				if msg := err.Error(); strings.Contains(msg, "Options.Shapes[") {
					// A shape of -input the model's declaration refuses.
					return nil, fmt.Errorf("%w: -input: %s", errUsage, strings.ReplaceAll(msg, "Options.Shapes", "shape"))
				}
				return nil, err
			}
			if mf.golden != "" {
				// The first case's inputs, real, with the shapes imported.
				gold, err := onnx.ReadGolden(mf.golden)
				if err != nil {
					return nil, err
				}
				return &scenarios.Workload{Graph: g, Inputs: gold.Cases[0].Inputs}, nil
			}
			if ifs := countOp(g, "If"); ifs > 0 && !c.Real {
				return nil, fmt.Errorf("%w: the graph keeps %d runtime If nodes, whose conditions need real data: fix their inputs with -const or -input, or run with -real", errUsage, ifs)
			}
			in, err := modelInputs(g, c)
			if err != nil {
				return nil, err
			}
			return &scenarios.Workload{Graph: g, Inputs: in}, nil
		},
	}
}

// modelInputs makes inputs of g's declared shapes: virtual, or with -real
// standard normal floats and zero integers.
func modelInputs(g *subgraph.Graph, c scenarios.Config) (map[string]*kernel.Tensor, error) {
	in := map[string]*kernel.Tensor{}
	r := rand.New(rand.NewPCG(c.Seed, 7))
	for _, v := range g.Inputs {
		if !v.Shape.Known() {
			return nil, fmt.Errorf("%w: input %q has shape %v: fix its dimensions with -input %s=D1xD2x…", errUsage, v.Name, v.Shape, v.Name)
		}
		if !c.Real {
			in[v.Name] = kernel.Virtual(v.DType, v.Shape...)
			continue
		}
		t := kernel.New(v.DType, v.Shape...)
		t.Shape = v.Shape.Clone()
		if v.DType == kernel.Float32 {
			for i := range kernel.Float32s(t.Host) {
				kernel.Float32s(t.Host)[i] = float32(r.NormFloat64())
			}
		}
		in[v.Name] = t
	}
	return in, nil
}

// checkGolden runs every case of the golden file in KBK and the selected
// modes (each case imported with its own shapes, once per distinct shape
// set) and prints a line per case and mode with the max abs error. It
// reports whether every one matched.
func checkGolden(ctx context.Context, cfg *config, stdout io.Writer) (bool, error) {
	mf := cfg.model
	gold, err := onnx.ReadGolden(mf.golden)
	if err != nil {
		return false, err
	}
	graphs := map[string]*subgraph.Graph{}
	ok := true
	for _, c := range gold.Cases {
		if mf.outputs != nil {
			// Only the selected outputs are computed: the golden file's
			// others are not checked, and a selected one it lacks cannot be.
			// Both are said.
			for _, o := range slices.Sorted(maps.Keys(c.Outputs)) {
				if !slices.Contains(mf.outputs, o) {
					fmt.Fprintf(stdout, "golden %-24s output %q is not among -outputs: not checked\n", c.Name, o)
				}
			}
			want := map[string]*kernel.Tensor{}
			for _, o := range mf.outputs {
				if t, has := c.Outputs[o]; has {
					want[o] = t
				} else {
					fmt.Fprintf(stdout, "golden %-24s output %q is not in the golden file: not checked\n", c.Name, o)
				}
			}
			if len(want) == 0 {
				return false, fmt.Errorf("%w: case %s of %s has none of the -outputs %s", errUsage, c.Name, mf.golden, strings.Join(mf.outputs, ","))
			}
			c.Outputs = want
		}
		shapes := c.InputShapes()
		names := slices.Sorted(maps.Keys(shapes))
		key := fmt.Sprint(names, shapes)
		g := graphs[key]
		if g == nil {
			if g, err = onnx.ImportFile(mf.path, mf.options(shapes)); err != nil {
				return false, fmt.Errorf("case %s: %w", c.Name, err)
			}
			graphs[key] = g
		}
		for _, s := range goldenSettings(cfg) {
			dev, err := cfg.devices.make(nil, nil)
			if err != nil {
				return false, err
			}
			exe, err := pipert.Compile(g, append(s.opts, pipert.WithDevice(dev))...)
			if err != nil {
				return false, fmt.Errorf("case %s, %s: %w", c.Name, s.name, err)
			}
			res, err := exe.Run(ctx, c.Inputs)
			exe.Close()
			if err != nil {
				return false, fmt.Errorf("case %s, %s: %w", c.Name, s.name, err)
			}
			maxAbs, err := c.CompareRel(res.Outputs, mf.tol, mf.rtol)
			status := "ok"
			if err != nil {
				ok, status = false, "MISMATCH: "+err.Error()
			}
			fmt.Fprintf(stdout, "golden %-24s %-24s max abs error %-10.3g %s\n", c.Name, s.name, maxAbs, status)
		}
	}
	return ok, nil
}

type goldenSetting struct {
	name string
	opts []pipert.Option
}

// goldenSettings lists KBK and each selected queued mode in each barrier
// policy, and heterogeneous placement by size when selected.
func goldenSettings(cfg *config) []goldenSetting {
	out := []goldenSetting{{name: "kbk", opts: []pipert.Option{pipert.WithMode(pipert.KBK)}}}
	policies := cfg.policies
	if policies == nil {
		policies = []pipert.BarrierPolicy{pipert.Drain, pipert.PerTensor}
	}
	for _, m := range cfg.modes {
		if m == pipert.KBK {
			continue
		}
		for _, p := range policies {
			out = append(out, goldenSetting{name: fmt.Sprintf("%v/%v", m, p), opts: []pipert.Option{pipert.WithMode(m), pipert.WithBarrier(p)}})
		}
	}
	if cfg.hetero != heteroOff {
		out = append(out, goldenSetting{name: "hetero/size4096", opts: []pipert.Option{pipert.WithHeterogeneous(heterog.Size{Elements: 4096})}})
	}
	return out
}
