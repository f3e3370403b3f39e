package swai

import "math"

// dmaJob is one DMA command: bytes to move on channel ch once ready (ns
// from the start of the transfer). schedule sets done.
type dmaJob struct {
	ready    float64
	bytes    int64
	ch       int
	done     float64
	finished bool
}

// dmaModel is the DMA engine of figure 5: channels that each take their
// commands in order, share one bus, and pay a start-up per command.
//
// While k channels are moving data each moves min(chanBW, totalBW / k)
// bytes per second (a fluid model: equation 4's S_c is the rate with all
// channels busy). A command on channel c starts moving data start after
// both it is ready and c has finished its previous command.
type dmaModel struct {
	channels int
	start    float64 // ns of start-up per command
	chanBW   float64 // bytes per ns, one channel alone
	totalBW  float64 // bytes per ns, all channels together
}

func (p Profile) dmaModel(channels int) dmaModel {
	t := p.Transfer
	return dmaModel{
		channels: channels,
		start:    float64(t.ChunkStart),
		chanBW:   t.ChannelBandwidth / 1e9,
		totalBW:  t.Bandwidth / 1e9,
	}
}

// schedule runs jobs (each on channel ch, in slice order per channel), sets
// their done times and returns the last one (0 for no jobs). It is an event
// simulation: between two events (a command becoming ready or finishing)
// every busy channel moves data at a constant rate.
//
// ready, if not nil, gives job k's ready time instead of jobs[k].ready, once
// it is known: it may depend on jobs that are not finished yet (ok false),
// as long as those come earlier in jobs, and is asked again after every
// completion. It must not report a time earlier than the last completion it
// depends on.
func (m dmaModel) schedule(jobs []dmaJob, ready func(k int) (float64, bool)) float64 {
	if ready == nil {
		ready = func(k int) (float64, bool) { return jobs[k].ready, true }
	}
	type channel struct {
		queue   []int   // indices into jobs, in order
		cur     int     // position in queue of the command in service
		blocked bool    // its readiness is not known yet
		free    float64 // when it finished its previous command
		from    float64 // when the command in service starts moving data
		left    float64 // its bytes not yet moved
	}
	chs := make([]channel, m.channels)
	for i := range jobs {
		c := &chs[jobs[i].ch]
		c.queue = append(c.queue, i)
	}
	load := func(c *channel) {
		if c.cur >= len(c.queue) {
			return
		}
		k := c.queue[c.cur]
		r, ok := ready(k)
		c.blocked = !ok
		if ok {
			c.from = max(r, c.free) + m.start
			c.left = float64(jobs[k].bytes)
		}
	}
	for i := range chs {
		load(&chs[i])
	}
	var t, last float64
	for {
		active, blocked := 0, 0
		next := math.Inf(1)
		for i := range chs {
			c := &chs[i]
			switch {
			case c.cur >= len(c.queue):
			case c.blocked:
				blocked++
			case c.from <= t:
				active++
			default:
				next = min(next, c.from)
			}
		}
		if active == 0 && math.IsInf(next, 1) {
			if blocked > 0 {
				panic("swai: DMA schedule: jobs wait for jobs that never finish")
			}
			return last
		}
		if active == 0 {
			t = next
			continue
		}
		rate := min(m.chanBW, m.totalBW/float64(active))
		dt := next - t
		for i := range chs {
			if c := &chs[i]; c.cur < len(c.queue) && !c.blocked && c.from <= t {
				dt = min(dt, c.left/rate)
			}
		}
		t0 := t
		t += dt
		completed := false
		for i := range chs {
			c := &chs[i]
			if c.cur >= len(c.queue) || c.blocked || c.from > t0 {
				continue
			}
			c.left -= rate * dt
			// The channel that set dt ends exactly now; a thousandth
			// of a byte allows for rounding in others ending with it.
			if c.left <= 1e-3 {
				j := &jobs[c.queue[c.cur]]
				j.done, j.finished = t, true
				last = max(last, t)
				completed = true
				c.cur++
				c.free = t
				load(c)
			}
		}
		if completed {
			for i := range chs {
				if c := &chs[i]; c.blocked {
					load(c)
				}
			}
		}
	}
}

// split cuts size bytes into n near-equal pieces (the first ones larger),
// calling f(index, offset, length) for each.
func split(size int64, n int, f func(i int, off, length int64)) {
	if n <= 0 {
		return // no part to split into (a zero profile's channels)
	}
	q, r := size/int64(n), size%int64(n)
	var off int64
	for i := range n {
		l := q
		if int64(i) < r {
			l++
		}
		f(i, off, l)
		off += l
	}
}

// ceilDiv is ⌈a / b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return 0 // a size of an invalid profile (Validate refuses it): nothing to count
	}
	return (a + b - 1) / b
}
