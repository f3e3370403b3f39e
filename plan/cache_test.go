package plan

import (
	"errors"
	"strings"
	"testing"
)

func TestParseCaches(t *testing.T) {
	for in, want := range map[string]CacheKinds{
		"":                         NoCaches,
		"none":                     NoCaches,
		"local":                    TilingLocal,
		"local, global":            TilingLocal | TilingGlobal,
		"infer,setup,plan":         InferReuse | SetupReuse | MemoryPlan,
		"plan,local,global,setup":  MemoryPlan | TilingLocal | TilingGlobal | SetupReuse,
		"global,global":            TilingGlobal,
		"local,global,infer,setup": TilingLocal | TilingGlobal | InferReuse | SetupReuse,
	} {
		got, err := ParseCaches(in)
		if err != nil || got != want {
			t.Errorf("ParseCaches(%q) = %v, %v; want %v", in, got, err, want)
		}
		if back, err := ParseCaches(got.String()); err != nil || back != got {
			t.Errorf("%v does not round-trip: %v, %v", got, back, err)
		}
	}
	// The zero CacheKinds means the defaults: its string says so and
	// parses back to them.
	if got, err := ParseCaches(CacheKinds(0).String()); err != nil || got != DefaultCaches {
		t.Errorf("CacheKinds(0) is %q, which parses to %v, %v; want %v", CacheKinds(0).String(), got, err, DefaultCaches)
	}
	if got, err := ParseCaches(" default "); err != nil || got != DefaultCaches {
		t.Errorf(`ParseCaches("default") = %v, %v`, got, err)
	}
	for _, bad := range []string{"tiling", "local,none", "local,,global", "default,local"} {
		if _, err := ParseCaches(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseCaches(%q): %v, want ErrConfig", bad, err)
		}
	}
}

func TestCachesDefaultsAndRange(t *testing.T) {
	c, err := Config{}.Check()
	if err != nil {
		t.Fatal(err)
	}
	if c.Caches != (Caches{Kinds: DefaultCaches, LocalSlots: 1, GlobalSlots: 5, RunnerSlots: DefaultRunnerSlots}) {
		t.Errorf("defaults %+v", c.Caches)
	}
	for _, bad := range []Caches{
		{Kinds: NoCaches | InferReuse},
		{Kinds: 1 << 6},
		{RunnerSlots: -1},
		{RunnerSlots: MaxCacheSlots + 1},
		{LocalSlots: -1},
		{GlobalSlots: -5},
		{LocalSlots: MaxCacheSlots + 1},
	} {
		if _, err := (Config{Caches: bad}).Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", bad, err)
		}
	}
	// The error gives the value, not its reading as "none".
	if _, err := (Config{Caches: Caches{Kinds: 0xff}}).Check(); err == nil || !strings.Contains(err.Error(), "0xff") {
		t.Errorf("Kinds 0xff: %v, want an error giving 0xff", err)
	}
	for _, bad := range []Costs{{Resize: 1, Tiling: 2}, {Launch: 1, Alloc: 2}, {Tiling: -1}} {
		if _, err := (Config{Costs: bad}).Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("costs %+v: %v, want ErrConfig", bad, err)
		}
	}
}

func TestCachesFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := CachesFromEnv(env(nil))
	if err != nil || c.Kinds != DefaultCaches {
		t.Fatalf("empty environment: %+v, %v", c, err)
	}
	// A nil getenv reads the process's environment.
	t.Setenv(EnvLocalCount, "7")
	if c, err := CachesFromEnv(nil); err != nil || c.LocalSlots != 7 {
		t.Fatalf("nil getenv with %s=7: %+v, %v", EnvLocalCount, c, err)
	}
	c, err = CachesFromEnv(env(map[string]string{EnvCacheType: "1", EnvSetupCache: "0", EnvLocalCount: "4", EnvGlobalCount: "9"}))
	if err != nil || c != (Caches{Kinds: TilingLocal, LocalSlots: 4, GlobalSlots: 9}) {
		t.Fatalf("got %+v, %v", c, err)
	}
	c, err = CachesFromEnv(env(map[string]string{EnvCacheType: "0", EnvSetupCache: "0"}))
	if err != nil || c.Kinds != NoCaches {
		t.Fatalf("all off: %+v, %v", c, err)
	}
	c, err = CachesFromEnv(env(map[string]string{EnvCacheType: "0", EnvSetupCache: "0", EnvRunnerPool: "8"}))
	if err != nil || c.Kinds != Runners || c.RunnerSlots != 8 {
		t.Fatalf("runner pool alone: %+v, %v", c, err)
	}
	for _, bad := range []map[string]string{
		{EnvRunnerPool: "0"}, {EnvRunnerPool: "many"},
		{EnvLocalCount: "0"}, {EnvGlobalCount: "-3"}, {EnvLocalCount: "1025"}, {EnvCacheType: "4"}, {EnvSetupCache: "yes"},
	} {
		if _, err := CachesFromEnv(env(bad)); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: %v, want ErrConfig", bad, err)
		}
	}
}

func TestTilingCopyConfig(t *testing.T) {
	c, err := Config{}.Check()
	if err != nil || c.TilingCopy != WithKernel || c.TilingBlocks != DefaultTilingBlocks {
		t.Fatalf("defaults: %v %v %v", c.TilingCopy, c.TilingBlocks, err)
	}
	for _, bad := range []Config{{TilingCopy: 9}, {TilingBlocks: -1}, {TilingBlocks: MaxCacheSlots + 1}} {
		if _, err := bad.Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	for _, tc := range []TilingCopy{WithKernel, MultiStream, Whole} {
		if got, err := ParseTilingCopy(tc.String()); err != nil || got != tc {
			t.Errorf("%v: parsed %v, %v", tc, got, err)
		}
	}
	if _, err := ParseTilingCopy("later"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseTilingCopy(later): %v, want ErrConfig", err)
	}
}
