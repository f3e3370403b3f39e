package onnx_test

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipert/pipert"
	"github.com/pipert/pipert/control"
	"github.com/pipert/pipert/internal/race"
	"github.com/pipert/pipert/kernel"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/onnx"
)

// TestFixturesHostileInputs runs every fixture of testdata/opset with its
// inputs' shapes undeclared and perturbed (a dimension changed or zeroed,
// a leading one dropped or added) and hostile values (NaN, infinities,
// huge and negative numbers, out-of-range indices): each import, compile
// and run either succeeds or returns an error, and none panics (ErrPanic)
// or outlasts its 5 s deadline, except a Loop still iterating (random
// inputs may ask for a long one; a Loop's scalar trip count and condition
// keep their fixture's values). The runtime's memory limit is 1 GiB for
// the test, so that a size read from hostile values (a Resize's sizes, a
// Tile's repeats) is refused when it is more than that leaves, not only
// when the machine cannot hold it: under the race detector such a tensor
// takes several times its bytes. Inputs take their values in the order
// of their names, so that every run is the same.
func TestFixturesHostileInputs(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	goldens, _ := filepath.Glob(filepath.Join("testdata", "opset", "*.golden.json"))
	if len(goldens) == 0 {
		t.Fatal("no fixtures in testdata/opset")
	}
	trials := 6
	switch {
	case testing.Short():
		trials = 1
	case race.Enabled:
		// Hostile values can ask a Loop for millions of iterations before
		// its deadline; under the race detector each of them takes several
		// times the memory.
		trials = 3
	}
	cnt := map[string]int{} // outcomes, logged
	defer func() { t.Logf("outcomes: %v", cnt) }()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, path := range goldens {
		gold, err := onnx.ReadGolden(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := onnx.ReadFile(filepath.Join("testdata", "opset", gold.Model))
		if err != nil {
			t.Fatal(err)
		}
		c := gold.Cases[0]
		for _, vi := range m.Graph.Inputs {
			vi.HasShape = false
			vi.Dims = nil
		}
		m.Graph.Outputs = append([]*onnx.ValueInfo(nil), m.Graph.Outputs...)
		for i, vi := range m.Graph.Outputs {
			v := *vi
			v.HasShape, v.Dims = false, nil
			m.Graph.Outputs[i] = &v
		}
		// A Loop's trip count and condition keep their values: hostile
		// ones ask for iterations until the deadline, whose scan outputs
		// can take all of the host's memory under the race detector
		// (its memory checks count the bytes, not the shadow of them).
		loop := slices.ContainsFunc(m.Graph.Nodes, func(n *onnx.Node) bool { return n.OpType == "Loop" })
		for range trials {
			in := map[string]*kernel.Tensor{}
			shapes := map[string][]int64{}
			for _, name := range slices.Sorted(maps.Keys(c.Inputs)) {
				tn := c.Inputs[name]
				if loop && len(tn.Shape) == 0 && (tn.DType == kernel.Int64 || tn.DType == kernel.Bool) {
					in[name], shapes[name] = tn, []int64{}
					continue
				}
				sh := perturb(rng, tn.Shape)
				x := kernel.New(tn.DType)
				x.Shape = kernel.Shape(sh)
				x.Host = make([]byte, x.Shape.NumElements()*int64(tn.DType.Size()))
				fill(rng, x)
				in[name], shapes[name] = x, sh
			}
			g, err := onnx.Import(m, onnx.Options{Shapes: shapes})
			if err != nil {
				cnt["importerr"]++
				if errors.Is(err, kernel.ErrPanic) {
					t.Errorf("%s: import panics: %v", path, err)
				}
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			exe, err := pipert.Compile(g, pipert.WithRegistry(control.Resolver{Base: ops.Builtins()}), pipert.WithMode(pipert.KBK))
			if err != nil {
				cnt["compileerr"]++
				if errors.Is(err, kernel.ErrPanic) {
					t.Errorf("%s: compile panics with shapes %v: %v", path, shapes, firstLine(err))
				}
				cancel()
				continue
			}
			_, err = exe.Run(ctx, in)
			// A Loop whose trip count or condition the random inputs
			// decide may run past the deadline, iterating: not a hang.
			longLoop := errors.Is(err, context.DeadlineExceeded) && strings.Contains(err.Error(), "control: Loop: iteration ")
			switch {
			case longLoop:
				cnt["longloop"]++
			case err != nil:
				cnt["runerr"]++
			default:
				cnt["ok"]++
			}
			if errors.Is(err, kernel.ErrPanic) || errors.Is(err, context.DeadlineExceeded) && !longLoop {
				t.Errorf("%s: run with shapes %v: %v", path, shapes, firstLine(err))
			}
			exe.Close()
			cancel()
		}
	}
}

// perturb returns shape as it is, with a dimension changed or zeroed,
// several changed, or a leading one dropped or added; shapes of more
// than 2^16 elements stay as they are.
func perturb(rng *rand.Rand, shape kernel.Shape) []int64 {
	sh := append([]int64(nil), shape...)
	switch rng.IntN(4) {
	case 1:
		if len(sh) > 0 {
			sh[rng.IntN(len(sh))] = int64(rng.IntN(4))
		}
	case 2:
		for i := range sh {
			if rng.IntN(3) == 0 {
				sh[i] = int64(rng.IntN(5))
			}
		}
	case 3:
		if rng.IntN(2) == 0 && len(sh) > 0 {
			sh = sh[1:]
		} else {
			sh = append([]int64{int64(1 + rng.IntN(2))}, sh...)
		}
	}
	if kernel.Shape(sh).NumElements() > 1<<16 {
		return append([]int64(nil), shape...)
	}
	return sh
}

// firstLine is err's first line (a panic's error carries its stack).
func firstLine(err error) string {
	s := err.Error()
	if i := strings.Index(s, "\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// fill writes hostile values into x: special floats (NaN, infinities,
// ±1e30) or normal ones, small signed integers or random 64-bit ones.
func fill(rng *rand.Rand, x *kernel.Tensor) {
	n := int(x.Shape.NumElements())
	special := []float64{0, -1, 1, math.NaN(), math.Inf(1), math.Inf(-1), 1e30, -1e30, 2, 3, -7, 100}
	b := x.Host
	for i := range n {
		v := special[rng.IntN(len(special))]
		if rng.IntN(2) == 0 {
			v = rng.NormFloat64() * 4
		}
		iv := int64(rng.IntN(16)) - 5
		if rng.IntN(8) == 0 {
			iv = int64(rng.Uint64())
		}
		switch x.DType {
		case kernel.Float32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
		case kernel.Float64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		case kernel.Float16, kernel.BFloat16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(float32(v))>>16))
		case kernel.Bool:
			b[i] = byte(rng.IntN(2))
		default:
			switch x.DType.Size() {
			case 1:
				b[i] = byte(iv)
			case 2:
				binary.LittleEndian.PutUint16(b[2*i:], uint16(iv))
			case 4:
				binary.LittleEndian.PutUint32(b[4*i:], uint32(iv))
			case 8:
				binary.LittleEndian.PutUint64(b[8*i:], uint64(iv))
			}
		}
	}
}
