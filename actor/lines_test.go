package actor

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/pipert/pipert/internal/lines"
	"github.com/pipert/pipert/plan"
)

// TestScratchLines keeps what one stage's goroutine writes with every
// kernel off the cache lines that the other stages' goroutines read.
func TestScratchLines(t *testing.T) {
	for _, c := range []struct {
		t     reflect.Type
		group []string
	}{
		{reflect.TypeFor[KernelRunner](), []string{"cs"}},
		{reflect.TypeFor[KernelRunner](), []string{"iscratch", "inferShapes"}},
		{reflect.TypeFor[KernelRunner](), []string{"rkey", "resizeIn", "rtiling"}},
		{reflect.TypeFor[KernelRunner](), []string{"largs", "lcargs", "ws", "launchIn", "seenReal", "fallbacks"}},
		{reflect.TypeFor[KernelRunner](), []string{"rargs", "rcargs"}},
		{reflect.TypeFor[engine](), []string{"launched"}},
		{reflect.TypeFor[engine](), []string{"needs"}},
	} {
		if err := lines.Apart(c.t, c.group...); err != nil {
			t.Error(err)
		}
	}
	if gap := unsafe.Sizeof(stageCounts{}) - unsafe.Sizeof(plan.CacheStats{}); gap < lines.Size {
		t.Errorf("stages' cache counts %d bytes apart, want at least %d", gap, lines.Size)
	}
}
