package main

import (
	"io"
	"testing"
)

// TestListFlagsRunEachItemOnce: a scenario, mode, barrier policy or
// tiling-copy strategy named twice runs once, not as duplicate rows.
func TestListFlagsRunEachItemOnce(t *testing.T) {
	c, err := parseFlags([]string{"-quick", "-scenario", "zerocost,zerocost", "-mode", "pipeline,pipeline,kbk",
		"-barrier", "drain, drain", "-tiling-copy", "whole,whole"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.scenarios) != 1 || len(c.modes) != 2 || len(c.policies) != 1 || len(c.tilingCopies) != 1 {
		t.Errorf("scenarios %d, modes %v, policies %v, tiling copies %v: want 1, [kbk pipeline], 1, 1",
			len(c.scenarios), c.modes, c.policies, c.tilingCopies)
	}
}
