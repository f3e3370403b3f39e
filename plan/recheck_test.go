package plan

import (
	"errors"
	"testing"
)

// TestCheckRechecksAChangedConfig: a Config Check returned, then changed
// (as WithConfig of an executable's Config followed by options changes
// it), is checked again, not passed as it is.
func TestCheckRechecksAChangedConfig(t *testing.T) {
	c, err := Config{}.Check()
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Config){
		"QueueCapacity": func(c *Config) { c.QueueCapacity = -1 },
		"Mode":          func(c *Config) { c.Mode = Mode(77) },
		"TilingBlocks":  func(c *Config) { c.TilingBlocks = -3 },
		"Costs":         func(c *Config) { c.Costs.Launch = -1 },
	} {
		bad := c
		change(&bad)
		if _, err := bad.Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s changed after Check: Check gave %v, want an ErrConfig error", name, err)
		}
	}
	again, err := c.Check()
	if err != nil || again.Device != c.Device || again.QueueCapacity != c.QueueCapacity {
		t.Errorf("Check of a checked Config: %v, device %v, capacity %d", err, again.Device == c.Device, again.QueueCapacity)
	}
}
