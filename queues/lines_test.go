package queues

import (
	"reflect"
	"testing"

	"github.com/pipert/pipert/internal/lines"
)

// TestQueueLines keeps the fields that producers and the worker write on
// lines of their own.
func TestQueueLines(t *testing.T) {
	q := reflect.TypeFor[Queue[int32]]()
	for _, g := range [][]string{
		{"tail"},
		{"sleeping", "closed"},
		{"handled", "bad", "workerParks", "yielded", "long", "nextSeen"},
	} {
		if err := lines.Apart(q, g...); err != nil {
			t.Error(err)
		}
	}
}
