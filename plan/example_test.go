package plan_test

import (
	"errors"
	"fmt"

	"github.com/pipert/pipert/plan"
)

// Check fills a Config's defaults and validates it; an out-of-range
// setting is an error naming the setting and its range. Plan is the
// mode written down as data: the goroutine running each host step of a
// kernel (prepare, infer, resize, launch), 0 being Run's caller.
func ExampleConfig_Check() {
	c, err := plan.Config{Mode: plan.Pipeline}.Check()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Mode, c.Barrier, c.QueueCapacity)
	p := c.Plan()
	fmt.Println(p, "workers:", p.Workers())

	_, err = plan.Config{QueueCapacity: -1}.Check()
	fmt.Println(errors.Is(err, plan.ErrConfig), err)
	// Output:
	// pipeline per-tensor 8
	// pipeline/per-tensor 0123 workers: 4
	// true pipert: invalid configuration: QueueCapacity -1 outside [1, 1048576]
}
