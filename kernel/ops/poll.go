package ops

import "github.com/pipert/pipert/kernel"

// pollTerms is about how many terms (multiply-adds, window taps) a long
// Compute does between checks that its run goes on: a millisecond or less
// of work, so that a run whose context ended returns about that soon.
const pollTerms = 1 << 18

// poller counts a Compute's work and, every pollTerms of it, checks that
// the kernel's run goes on (kernel.Args.Err; nil Args or no context:
// always). The zero count checks at the first add, so a run that ended
// before Compute does no work.
type poller struct {
	a    *kernel.Args
	left int64 // work before the next check
}

// add counts n terms of work about to be done; it returns the run's
// context's error when a check finds the run ended.
func (p *poller) add(n int64) error {
	p.left -= n
	if p.left > 0 {
		return nil
	}
	p.left = pollTerms
	return p.a.Err()
}
