package plan

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// CacheKinds is a set of host caches, the reuse mechanisms of Ascend
// Transformer Boost: each skips a kernel's host work when what it computes
// from is what it was computed from before.
type CacheKinds uint8

// Host caches.
const (
	// TilingLocal keeps, per node, the tiling data and workspace size of
	// its LocalSlots most recent keys (input and output dtypes and shapes,
	// the values of its value-dependency inputs): a hit skips Resize's
	// tiling computation and Costs.Tiling.
	TilingLocal CacheKinds = 1 << iota
	// TilingGlobal keeps, per op, the tiling of its GlobalSlots most recent
	// keys (the attributes included), shared by every executable of the
	// process; it is looked up when the local cache misses (or is off).
	TilingGlobal
	// InferReuse skips a node's InferShape (and Costs.Infer) when its
	// input dtypes, shapes and value-dependency values equal those of its
	// previous run.
	InferReuse
	// SetupReuse skips a node's Setup, its kernel-graph construction
	// (Costs.Prepare), when its input dtypes, shapes and value-dependency
	// values equal those of its previous run. Setup needs the shapes, so
	// with SetupReuse a node's Setup is done in its Infer stage, on a miss,
	// instead of in Prepare.
	SetupReuse
	// MemoryPlan places every intermediate tensor and workspace in one
	// arena, at offsets planned from their lifetimes after a run (and
	// again after a run whose tensors outgrew the plan): a planned launch
	// makes no allocator call and skips Costs.Alloc.
	MemoryPlan
	// Runners keeps the kernels (ATB's Runners) of closed executables in a
	// pool per registry, op and attributes, RunnerSlots each, shared by
	// the process: Compile takes a kernel from it before building one, and
	// skips Costs.Create.
	Runners

	// NoCaches turns every cache off: every stage of every kernel runs on
	// every run. It is a set of its own, not combinable with the others.
	NoCaches CacheKinds = 1 << 7

	allCaches = TilingLocal | TilingGlobal | InferReuse | SetupReuse | MemoryPlan | Runners
	// DefaultCaches are ATB's defaults: the local and global tiling caches
	// (ATB_OPSRUNNER_KERNEL_CACHE_TYPE=3) and Setup reuse
	// (ATB_OPSRUNNER_SETUP_CACHE_ENABLE=1).
	DefaultCaches = TilingLocal | TilingGlobal | SetupReuse
)

var cacheNames = []struct {
	k    CacheKinds
	name string
}{{TilingLocal, "local"}, {TilingGlobal, "global"}, {InferReuse, "infer"}, {SetupReuse, "setup"}, {MemoryPlan, "plan"}, {Runners, "runners"}}

// Has reports whether every cache of o is in k.
func (k CacheKinds) Has(o CacheKinds) bool { return k&o == o && k&NoCaches == 0 }

// Any reports whether some cache is on.
func (k CacheKinds) Any() bool { return k&allCaches != 0 && k&NoCaches == 0 }

// String lists the caches of k, comma-separated ("local,global,setup"),
// "none" for NoCaches and "default" for the zero CacheKinds, which
// Caches.Kinds takes as DefaultCaches.
func (k CacheKinds) String() string {
	if k == 0 {
		return "default"
	}
	if k&NoCaches != 0 {
		return "none"
	}
	var names []string
	for _, c := range cacheNames {
		if k&c.k != 0 {
			names = append(names, c.name)
		}
	}
	if rest := k &^ allCaches; rest != 0 {
		names = append(names, fmt.Sprintf("CacheKinds(%#x)", uint8(rest)))
	}
	return strings.Join(names, ",")
}

// ParseCaches parses a comma-separated list of local, global, infer,
// setup, plan and runners, "none" (or the empty string) for NoCaches, or
// "default" for DefaultCaches. It parses what CacheKinds.String writes; an
// unknown name is an error wrapping ErrConfig.
func ParseCaches(s string) (CacheKinds, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", "none":
		return NoCaches, nil
	case "default":
		return DefaultCaches, nil
	}
	var k CacheKinds
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		found := false
		for _, c := range cacheNames {
			if c.name == f {
				k |= c.k
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("plan: %w: unknown cache %q (have local, global, infer, setup, plan, runners, or none or default alone)", ErrConfig, f)
		}
	}
	return k, nil
}

// Slot counts of the tiling caches: ATB's defaults and the accepted range.
const (
	DefaultLocalSlots  = 1
	DefaultGlobalSlots = 5
	// DefaultRunnerSlots is pipert's choice: ATB names the variable
	// (ATB_RUNNER_POOL_SIZE), not its default.
	DefaultRunnerSlots = 64
	MaxCacheSlots      = 1024
)

// Caches configure the host caches.
type Caches struct {
	// Kinds are the caches on (zero: DefaultCaches; NoCaches for none).
	Kinds CacheKinds
	// LocalSlots is the local tiling cache's slots per node
	// (ATB_OPSRUNNER_KERNEL_CACHE_LOCAL_COUNT), in [1, MaxCacheSlots]
	// (zero: DefaultLocalSlots).
	LocalSlots int
	// GlobalSlots is the global tiling cache's slots per op
	// (ATB_OPSRUNNER_KERNEL_CACHE_GLOABL_COUNT, sic), in [1, MaxCacheSlots]
	// (zero: DefaultGlobalSlots). Executables with the same count share
	// one global cache per process.
	GlobalSlots int
	// RunnerSlots is the runner pool's kernels per registry, op and
	// attributes (ATB_RUNNER_POOL_SIZE), in [1, MaxCacheSlots] (zero:
	// DefaultRunnerSlots). Executables with the same count and registry
	// share one pool per process.
	RunnerSlots int
}

func (c *Caches) check() error {
	switch {
	case c.Kinds == 0:
		c.Kinds = DefaultCaches
	case c.Kinds&NoCaches != 0 && c.Kinds != NoCaches:
		return fmt.Errorf("Caches.Kinds %#x: NoCaches combined with caches", uint8(c.Kinds))
	case c.Kinds&^(allCaches|NoCaches) != 0:
		return fmt.Errorf("Caches.Kinds %#x has unknown caches", uint8(c.Kinds))
	}
	if c.LocalSlots == 0 {
		c.LocalSlots = DefaultLocalSlots
	}
	if c.GlobalSlots == 0 {
		c.GlobalSlots = DefaultGlobalSlots
	}
	if c.LocalSlots < 1 || c.LocalSlots > MaxCacheSlots {
		return fmt.Errorf("Caches.LocalSlots %d outside [1, %d]", c.LocalSlots, MaxCacheSlots)
	}
	if c.GlobalSlots < 1 || c.GlobalSlots > MaxCacheSlots {
		return fmt.Errorf("Caches.GlobalSlots %d outside [1, %d]", c.GlobalSlots, MaxCacheSlots)
	}
	if c.RunnerSlots == 0 {
		c.RunnerSlots = DefaultRunnerSlots
	}
	if c.RunnerSlots < 1 || c.RunnerSlots > MaxCacheSlots {
		return fmt.Errorf("Caches.RunnerSlots %d outside [1, %d]", c.RunnerSlots, MaxCacheSlots)
	}
	return nil
}

// ATB's environment variables that CachesFromEnv reads.
const (
	EnvCacheType   = "ATB_OPSRUNNER_KERNEL_CACHE_TYPE"
	EnvLocalCount  = "ATB_OPSRUNNER_KERNEL_CACHE_LOCAL_COUNT"
	EnvGlobalCount = "ATB_OPSRUNNER_KERNEL_CACHE_GLOABL_COUNT" // sic
	EnvSetupCache  = "ATB_OPSRUNNER_SETUP_CACHE_ENABLE"
	EnvRunnerPool  = "ATB_RUNNER_POOL_SIZE"
)

// CachesFromEnv reads ATB's cache variables through getenv (os.Getenv, which
// a nil getenv stands for; an empty value is unset, leaving the default): the cache type (0 none, 1
// local, 2 global, 3 both), the slot counts (1 to 1024; 0 or a negative
// count is an error), whether Setup is reused (0 or 1), and the runner
// pool's size (set: the pool is on). InferReuse has no ATB variable and
// stays off.
func CachesFromEnv(getenv func(string) string) (Caches, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := Caches{Kinds: DefaultCaches}
	num := func(name string, lo, hi int) (int, bool, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return 0, false, fmt.Errorf("plan: %w: %s=%q is not an integer in [%d, %d]", ErrConfig, name, v, lo, hi)
		}
		return n, true, nil
	}
	if t, ok, err := num(EnvCacheType, 0, 3); err != nil {
		return Caches{}, err
	} else if ok {
		c.Kinds &^= TilingLocal | TilingGlobal
		c.Kinds |= CacheKinds(t) // 1 local, 2 global: the bits of TilingLocal, TilingGlobal
	}
	if s, ok, err := num(EnvSetupCache, 0, 1); err != nil {
		return Caches{}, err
	} else if ok && s == 0 {
		c.Kinds &^= SetupReuse
	}
	if c.Kinds == 0 {
		c.Kinds = NoCaches
	}
	var err error
	if c.LocalSlots, _, err = num(EnvLocalCount, 1, MaxCacheSlots); err != nil {
		return Caches{}, err
	}
	if c.GlobalSlots, _, err = num(EnvGlobalCount, 1, MaxCacheSlots); err != nil {
		return Caches{}, err
	}
	var pool bool
	if c.RunnerSlots, pool, err = num(EnvRunnerPool, 1, MaxCacheSlots); err != nil {
		return Caches{}, err
	} else if pool {
		c.Kinds = c.Kinds&^NoCaches | Runners
	}
	return c, nil
}
