package graphtest_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/pipert/pipert/internal/graphtest"
	"github.com/pipert/pipert/kernel/ops"
	"github.com/pipert/pipert/subgraph"
)

// TestRandomGraphsAreValid checks that every graph validates, that its
// inputs match the graph's declared inputs, that the same source gives the
// same graph, and that the options hold.
func TestRandomGraphsAreValid(t *testing.T) {
	reg := ops.Builtins()
	ops := map[bool]map[string]bool{false: {}, true: {}}
	onCPU := 0
	for seed := range uint64(200) {
		o := graphtest.Options{
			Nodes:     1 + int(seed%40),
			Rows:      1 + int64(seed%4),
			Cols:      1 + int64(seed%5),
			Flip:      []float64{0, 0.1, 0.5}[seed%3],
			ValueDeps: seed%2 == 0,
		}
		g, in := graphtest.Random(rand.New(rand.NewPCG(seed, 1)), o)
		if _, err := subgraph.Validate(g, reg); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		g2, in2 := graphtest.Random(rand.New(rand.NewPCG(seed, 1)), o)
		if !reflect.DeepEqual(g, g2) || !reflect.DeepEqual(in, in2) {
			t.Fatalf("seed %d: two graphs from the same source differ", seed)
		}
		list := graphtest.Inputs(g, in)
		if len(list) != len(g.Inputs) {
			t.Fatalf("seed %d: %d inputs for %d declared", seed, len(list), len(g.Inputs))
		}
		for i, v := range g.Inputs {
			if list[i] == nil || !reflect.DeepEqual(list[i].Shape, v.Shape) {
				t.Fatalf("seed %d: input %q is %v, declared %v", seed, v.Name, list[i], v.Shape)
			}
		}
		for _, n := range g.Nodes {
			ops[o.ValueDeps][n.Op] = true
			if n.Placement == subgraph.OnCPU {
				onCPU++
			}
			if o.Flip == 0 && n.Placement != subgraph.OnDevice {
				t.Fatalf("seed %d: node %s placed %v with Flip 0", seed, n.Name, n.Placement)
			}
		}
	}
	if onCPU == 0 {
		t.Error("no node placed on the CPU")
	}
	if ops[false]["Reshape"] || !ops[true]["Reshape"] {
		t.Errorf("Reshape by a computed shape: without ValueDeps %v, with %v", ops[false]["Reshape"], ops[true]["Reshape"])
	}
	for _, op := range []string{"Unique", "NonZero", "MatMul", "Softmax", "ReduceSum", "Gather"} {
		if !ops[true][op] {
			t.Errorf("no %s in 100 graphs", op)
		}
	}
}

// TestDeadlinePassesOnPass: a Deadline is not done until Pass, then done
// with context.DeadlineExceeded, as a context derived from it is.
func TestDeadlinePassesOnPass(t *testing.T) {
	var d graphtest.Deadline
	child, cancel := context.WithCancel(&d)
	defer cancel()
	if err := d.Err(); err != nil {
		t.Fatalf("Err before Pass: %v", err)
	}
	select {
	case <-d.Done():
		t.Fatal("done before Pass")
	default:
	}
	d.Pass()
	d.Pass()
	<-d.Done()
	<-child.Done()
	if !errors.Is(d.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("after Pass: %v, child %v; want context.DeadlineExceeded", d.Err(), child.Err())
	}
}
