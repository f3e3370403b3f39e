package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// Param is one named size parameter of a scenario's graph generator, with
// its value at a given Config (Scenario.Params) and what it sizes.
type Param struct {
	Name  string
	Doc   string
	Value int64
	// Min and Max bound the values a Config.Params override may take.
	Min, Max int64
}

// sizeParam binds a Param to the field of a size struct it sets: p is an
// *int or an *int64.
type sizeParam struct {
	name, doc string
	min, max  int64
	p         any
}

// The bounds of the size parameters: dimensions of virtual tensors may be
// large, counts of repeated blocks stay within what a graph can hold.
const (
	maxDim   = 1 << 24
	maxCount = 10000
)

func dim(name, doc string, p any) sizeParam   { return sizeParam{name, doc, 1, maxDim, p} }
func count(name, doc string, p any) sizeParam { return sizeParam{name, doc, 1, maxCount, p} }

func (s sizeParam) get() int64 {
	switch p := s.p.(type) {
	case *int:
		return int64(*p)
	case *int64:
		return *p
	}
	panic("scenarios: size parameter of an unexpected type")
}

func (s sizeParam) set(v int64) {
	switch p := s.p.(type) {
	case *int:
		*p = int(v)
	case *int64:
		*p = v
	}
}

// listParams returns the parameters' current values.
func listParams(ps []sizeParam) []Param {
	out := make([]Param, len(ps))
	for i, s := range ps {
		out[i] = Param{Name: s.name, Doc: s.doc, Value: s.get(), Min: s.min, Max: s.max}
	}
	return out
}

// applyParams sets the parameters c overrides; a name the scenario does not
// have or a value out of bounds is an error naming it.
func applyParams(scenario string, ps []sizeParam, c Config) error {
	for _, name := range sortedKeys(c.Params) {
		v := c.Params[name]
		i := slices.IndexFunc(ps, func(s sizeParam) bool { return s.name == name })
		if i < 0 {
			var have []string
			for _, s := range ps {
				have = append(have, s.name)
			}
			if len(have) == 0 {
				return fmt.Errorf("scenarios: %s: unknown parameter %q (the scenario has none)", scenario, name)
			}
			return fmt.Errorf("scenarios: %s: unknown parameter %q (have %s)", scenario, name, strings.Join(have, ", "))
		}
		if v < ps[i].min || v > ps[i].max {
			return fmt.Errorf("scenarios: %s: parameter %s = %d outside [%d, %d]", scenario, name, v, ps[i].min, ps[i].max)
		}
		ps[i].set(v)
	}
	return nil
}

func sortedKeys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
