package pipert

import (
	"context"
	"fmt"
	"slices"

	"github.com/pipert/pipert/actor"
	"github.com/pipert/pipert/device"
	"github.com/pipert/pipert/kernel"
)

// Carry feeds output Output of an earlier submitted step, From, to input
// Input of a new one: the new step's first kernel reading Input waits for
// that one tensor — with WithCarried(Output), for its producer's
// completion on the device, not for the whole earlier step.
type Carry struct {
	From   *Pending
	Output string
	Input  string
}

// Pending is a submitted step (Submit): every kernel of it has been
// launched; its device tail and output copies may still be running. Wait
// returns its Result. A Pending's methods are safe for concurrent use.
// Only Submit makes one: a nil or zero Pending's Wait returns an error
// wrapping ErrInvalid at once, and its Done channel is closed.
type Pending struct {
	e        *Executable
	lane     int
	launched chan struct{} // closed once every kernel is enqueued
	last     device.Event  // recorded after the last launch; the next step's order
	done     chan struct{} // closed once res and err are set
	res      *Result
	err      error
	outs     []carried // by graph output position
}

// carried is one output of a step as later steps see it: set once, then
// ready is closed.
type carried struct {
	ready chan struct{}
	t     *kernel.Tensor
}

// lanes is the number of steps Submit keeps in flight: the step whose
// host stages run and the step whose device tail ends.
const lanes = 2

// Submit starts a step — a run — and returns once the host has launched
// all of its kernels, without waiting for the device to finish them: the
// host stages of the next Submit overlap this step's device tail, as
// consecutive decode steps or streaming audio frames allow. Steps run in
// submission order on the device; their results are those of consecutive
// Runs, bit for bit. The step may read its input tensors until it ends
// (an input passed through to an output is copied then): change none of
// them before the step's Wait returns.
//
// inputs gives every graph input that carries does not: a carried input
// is an output of an earlier step, awaited by the first kernel that reads
// it — as soon as its producer completed if the output is named by
// WithCarried, at the end of the earlier step otherwise. Submit keeps
// two steps in flight (each with its own device state: constants, memory
// plan; the second is made by the first Submit): a third waits for the
// first's device tail, giving up when ctx ends. Steps are cancelled with
// ctx, also after Submit returned. A step that carries an output of a step that failed (or was
// cancelled) fails with an error wrapping that step's error, unless the
// output was handed over before the failure: an output named by
// WithCarried is handed over as soon as its producer completed, and that
// value is the one the step would have given had it succeeded, so the
// later step runs with it. A heterogeneous executable runs the step
// within Submit. Run, RunInto and Close first wait for every submitted
// step to end.
func (e *Executable) Submit(ctx context.Context, inputs map[string]*kernel.Tensor, carries ...Carry) (*Pending, error) {
	if !e.compiled() {
		return nil, e.usable("submit")
	}
	if ctx == nil {
		return nil, fmt.Errorf("pipert: submit: %w: nil context", ErrInvalid)
	}
	// Closed: fail at once, not after the call in flight (and again
	// below, for a Close that took the turn first).
	if err := e.usable("submit"); err != nil {
		return nil, err
	}
	if err := e.smu.lock(ctx); err != nil {
		return nil, fmt.Errorf("pipert: submit: waiting for the executable's earlier call: %w", err)
	}
	defer e.smu.unlock()
	if err := e.usable("submit"); err != nil {
		return nil, err
	}
	in, err := e.submitInputs(inputs, carries)
	if err != nil {
		return nil, err
	}
	run := e.claimRun()
	p := &Pending{e: e, launched: make(chan struct{}), done: make(chan struct{}),
		outs: make([]carried, len(e.g.Outputs))}
	for i := range p.outs {
		p.outs[i].ready = make(chan struct{})
	}
	await := func(ctx context.Context, i int) (*kernel.Tensor, error) {
		name := e.g.Inputs[i].Name
		for _, c := range carries {
			if c.Input == name {
				return c.From.carried(ctx, c.Output)
			}
		}
		return nil, fmt.Errorf("pipert: submit: input %q has no tensor", name)
	}
	if e.het != nil {
		for _, c := range carries {
			t, err := c.From.carried(ctx, c.Output)
			if err != nil {
				return nil, err
			}
			inputs = withInput(inputs, c.Input, t)
		}
		res, err := e.het.RunNumbered(ctx, inputs, run)
		if err != nil {
			p.err = e.runErr(err)
		} else {
			p.res = &Result{Outputs: res.Outputs, Stats: res.Stats}
			p.publishAll()
		}
		close(p.launched)
		close(p.done)
		return p, nil
	}
	if e.second == nil {
		a, err := e.act.Lane(ctx, e.laneName(), nil)
		if err != nil {
			return nil, fmt.Errorf("pipert: submit: %w", err)
		}
		e.second = a
	}
	var after device.Event
	if e.last != nil {
		p.lane = (e.last.lane + 1) % lanes
		after = e.last.last
	}
	// The lane's previous step may still run its device tail: the step
	// waits for it here, where ctx can end the wait (the lane's actor,
	// once it has the step, would wait without looking at ctx).
	for _, q := range e.flying {
		if q.lane != p.lane || q.ended() {
			continue
		}
		select {
		case <-q.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("pipert: submit: waiting for the step before the last to end: %w", ctx.Err())
		}
	}
	feed := &actor.Feed{
		Seq:     run,
		Await:   await,
		Outputs: make([]int, 0, len(e.cfg.Carried)),
		Publish: p.publish,
		After:   after,
		Launched: func(last device.Event) {
			p.last = last
			close(p.launched)
		},
	}
	for _, name := range e.cfg.Carried {
		feed.Outputs = append(feed.Outputs, slices.Index(e.g.Outputs, name))
	}
	e.inflight.Add(1)
	e.flying = append(slices.DeleteFunc(e.flying, (*Pending).ended), p)
	a := e.act
	if p.lane == 1 {
		a = e.second
	}
	go p.run(ctx, a, in, feed)
	select {
	case <-p.launched:
	case <-p.done:
		// Failed before launching anything: nothing to order after.
		return p, nil
	}
	e.last = p
	return p, nil
}

// withInput returns a copy of m with k set to v.
func withInput(m map[string]*kernel.Tensor, k string, v *kernel.Tensor) map[string]*kernel.Tensor {
	out := make(map[string]*kernel.Tensor, len(m)+1)
	for n, t := range m {
		out[n] = t
	}
	out[k] = v
	return out
}

// laneName names the second lane's trace tracks.
func (e *Executable) laneName() string {
	name := e.cfg.TraceName
	if name == "" {
		name = e.g.Name
	}
	return name + " (lane 2)"
}

// submitInputs checks inputs and carries and puts the given inputs in the
// graph's order, leaving carried ones nil.
func (e *Executable) submitInputs(inputs map[string]*kernel.Tensor, carries []Carry) ([]*kernel.Tensor, error) {
	in := make([]*kernel.Tensor, len(e.g.Inputs))
	carried := make(map[string]bool, len(carries))
	for _, c := range carries {
		switch {
		case c.From == nil:
			return nil, fmt.Errorf("pipert: submit: %w: carry to input %q: no step to carry from", ErrInvalid, c.Input)
		case c.From.e == nil:
			return nil, fmt.Errorf("pipert: submit: %w: carry to input %q: the step was not made by Submit", ErrInvalid, c.Input)
		case c.From.e != e:
			return nil, fmt.Errorf("pipert: submit: %w: carry to input %q: the step is another executable's", ErrBadInput, c.Input)
		case !e.hasInput(c.Input):
			return nil, fmt.Errorf("pipert: submit: %w: carry to unknown input %q", ErrBadInput, c.Input)
		case !slices.Contains(e.g.Outputs, c.Output):
			return nil, fmt.Errorf("pipert: submit: %w: carry from unknown output %q", ErrBadInput, c.Output)
		case carried[c.Input]:
			return nil, fmt.Errorf("pipert: submit: %w: input %q carried twice", ErrBadInput, c.Input)
		case inputs[c.Input] != nil:
			return nil, fmt.Errorf("pipert: submit: %w: input %q both given and carried", ErrBadInput, c.Input)
		}
		carried[c.Input] = true
	}
	for i, v := range e.g.Inputs {
		t, ok := inputs[v.Name]
		if carried[v.Name] {
			continue
		}
		if !ok {
			return nil, fmt.Errorf("pipert: submit: %w: missing input %q", ErrBadInput, v.Name)
		}
		if err := checkInput(v, t); err != nil {
			return nil, fmt.Errorf("pipert: submit: %w", err)
		}
		in[i] = t
	}
	for name := range inputs {
		if !e.hasInput(name) {
			return nil, e.unknownInput("submit", name)
		}
	}
	return in, nil
}

// run is the step's goroutine: the whole run on its lane.
func (p *Pending) run(ctx context.Context, a *actor.SuperKernelActor, in []*kernel.Tensor, f *actor.Feed) {
	defer p.e.inflight.Done()
	returned := false
	defer func() {
		if !returned {
			// User code called runtime.Goexit on this goroutine: the step
			// fails, and its waiters learn of it.
			p.err = fmt.Errorf("pipert: submit: %w (%w)", kernel.ErrGoexit, ErrPanic)
			if err := a.Goexited(); err != nil {
				p.err = fmt.Errorf("pipert: submit: %w", err) // names the node
			}
		}
		select {
		case <-p.launched:
		default:
			close(p.launched) // the run stopped before its engine started
		}
		close(p.done)
	}()
	outs, st, err := a.RunFeed(ctx, in, f)
	if err != nil {
		p.err = p.e.runErr(err)
	} else {
		p.res = &Result{Outputs: make(map[string]*kernel.Tensor, len(outs)), Stats: st}
		for i, name := range p.e.g.Outputs {
			p.res.Outputs[name] = outs[i]
		}
		p.publishAll()
	}
	returned = true
}

// publish is the run's Feed.Publish: output o is ready for carries.
func (p *Pending) publish(o int, t *kernel.Tensor) {
	c := &p.outs[o]
	select {
	case <-c.ready:
	default:
		c.t = t
		close(c.ready)
	}
}

// publishAll makes every output of a finished step ready.
func (p *Pending) publishAll() {
	for i, name := range p.e.g.Outputs {
		p.publish(i, p.res.Outputs[name])
	}
}

// carried waits for output name of the step.
func (p *Pending) carried(ctx context.Context, name string) (*kernel.Tensor, error) {
	c := &p.outs[slices.Index(p.e.g.Outputs, name)]
	select {
	case <-c.ready:
		return c.t, nil
	case <-p.done:
		select {
		case <-c.ready:
			return c.t, nil
		default:
		}
		if p.err != nil {
			return nil, fmt.Errorf("pipert: carried output %q: its step failed: %w", name, p.err)
		}
		return nil, fmt.Errorf("pipert: carried output %q was not produced", name)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Wait waits for the step to end and returns its result, as Run would
// have. Waiting again returns the same result.
func (p *Pending) Wait() (*Result, error) {
	if p == nil || p.done == nil {
		return nil, fmt.Errorf("pipert: wait: %w: step not made by Submit", ErrInvalid)
	}
	<-p.done
	return p.res, p.err
}

// Done is closed when the step has ended.
func (p *Pending) Done() <-chan struct{} {
	if p == nil || p.done == nil {
		return closedChan
	}
	return p.done
}

// closedChan is the Done channel of a Pending Submit did not make.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// settle waits for every submitted step to end, or for ctx to end (then
// it returns an error wrapping ctx's); the caller holds e.smu.
func (e *Executable) settle(ctx context.Context) error {
	for _, p := range e.flying {
		select {
		case <-p.done:
		case <-ctx.Done():
			return fmt.Errorf("waiting for submitted steps: %w", ctx.Err())
		}
	}
	e.inflight.Wait() // their goroutines' last instructions
	e.flying = e.flying[:0]
	e.last = nil
	return nil
}

// ended reports whether p's step has ended.
func (p *Pending) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// turn is a mutex whose lock gives up when a context ends: the calls of
// one executable take turns, and a call queued behind a long one returns
// when its own context ends.
type turn chan struct{}

func (t turn) lock(ctx context.Context) error {
	select {
	case t <- struct{}{}:
		return nil
	default:
	}
	select {
	case t <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t turn) unlock() { <-t }
