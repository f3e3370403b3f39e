package queues

// Queue returns the queue of stage s, so that a handler of one stage can
// wait for the stages below it alone (Queue(Launch).Wait() from the Infer
// worker drains Launch without waiting for Infer itself, which WaitStage
// would). It returns nil for an invalid stage.
//
// The returned queue is for waiting and counters: a task pushed into it
// directly would skip the stages above and break the ticket invariant.
func (p *Pipeline[T]) Queue(s Stage) *Queue[T] {
	if !p.valid(s) {
		return nil
	}
	return p.stages[s-1]
}
