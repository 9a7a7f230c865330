package echomq

import (
	"context"
	"slices"
	"time"
)

// releaseIdle is the idle time a released entry is given: longer than any
// sane MinIdle, so the next reclaim of any consumer takes it.
const releaseIdle = 365 * 24 * time.Hour

// work runs handlers on queued entries until the queue closes; once the
// consumer is stopping, queued entries are handed back unstarted.
func (r *run) work() {
	defer r.workers.Done()
	for {
		j, ok := r.queue.pop()
		if !ok {
			return
		}
		if r.stop.Err() != nil {
			r.handBack(j)
			continue
		}
		r.handle(j)
	}
}

// handle runs the handler on one entry and settles the outcome on the
// engine: success acks; failure leaves it pending, or moves it to the dead
// letters on its last delivery; a failure caused by the grace running out
// hands it back.
func (r *run) handle(j *job) {
	e := r.e
	d := Delivery{Event: j.ev, Attempts: j.attempts, Queue: e.Queue, Stream: j.s.name, Group: e.Group, Consumer: e.Name}
	ctx := j.b.ctx
	if e.fromStart {
		var cancel context.CancelFunc
		// On io, not hctx: not a child to register per entry, and the
		// grace (MinIdle) outlasts this deadline anyway.
		ctx, cancel = context.WithTimeout(r.io, e.MinIdle-e.margin())
		defer cancel()
	} else if !time.Now().Before(j.b.deadline) {
		e.stats.expired.Add(1)
		e.logFor(d.Stream).Warn("entry waited past its handler deadline; left pending for a reclaim (lower Count, or raise Concurrency or MinIdle)",
			"entry", j.id, "attempts", d.Attempts)
		r.settled(j)
		return
	}
	if e.overLimit(r.io, j.s.origin, d) {
		r.settled(j)
		return
	}
	err := e.call(ctx, d)
	switch {
	case err == nil:
		r.acks.add(&j.s.origin, j.id)
	case r.hctx.Err() != nil:
		r.handBack(j) // stopped by the grace running out: not the entry's fault
		return
	default:
		e.failed(r.io, j.s.origin, j.id, d, err)
	}
	r.settled(j)
}

// ackLoop sends the acknowledgements: each XACK carries every id of a
// stream that completed while the previous one was on the wire (up to
// AckBatch in all), after holding the first for AckInterval when one is
// configured.
func (r *run) ackLoop() {
	defer close(r.ackDone)
	var (
		buf  []ackID
		strs []string
	)
	for {
		<-r.acks.wakeup
		if d := r.e.AckInterval; d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-r.acks.done:
			}
			t.Stop()
		}
		for {
			ids, left, closed := r.acks.take(r.e.AckBatch, buf)
			eachOrigin(ids, &strs, func(o *origin, ids []string) { r.e.ack(r.io, r.stop, *o, ids) })
			r.acks.sent()
			buf = ids
			if left == 0 {
				if closed {
					return
				}
				break
			}
		}
	}
}

// shutdown stops the workers (within Grace), flushes the acks and releases
// the entries handed back.
func (r *run) shutdown() {
	r.halt()
	r.unhook()
	r.queue.close()
	done := make(chan struct{})
	go func() { r.workers.Wait(); close(done) }()
	t := time.NewTimer(r.e.Grace)
	select {
	case <-done:
	case <-t.C:
		r.e.log.Warn("grace period over; cancelling running handlers", "grace", r.e.Grace)
		r.hcancel()
		<-done
	}
	t.Stop()
	r.hcancel()
	r.acks.close()
	<-r.ackDone
	ctx, cancel := context.WithTimeout(r.io, settleTimeout)
	defer cancel()
	var strs []string
	eachOrigin(r.handback, &strs, func(o *origin, ids []string) {
		n, err := r.e.c.conn.Release(ctx, o.key, r.e.Group, r.e.Name, releaseIdle, ids)
		if err != nil {
			r.e.logFor(o.name).Warn("release failed; entries stay pending until reclaimed after MinIdle", "entries", len(ids), "err", err)
			return
		}
		r.e.stats.released.Add(n)
	})
}

// eachOrigin calls f once per stream of ids with the stream's ids, in
// *strs (reused: f must not keep them). A Consumer's are all of one stream.
func eachOrigin(ids []ackID, strs *[]string, f func(o *origin, ids []string)) {
	var seen [4]*origin
	done := seen[:0]
	for i, k := range ids {
		if i > 0 && (k.o == ids[0].o || slices.Contains(done, k.o)) {
			continue
		}
		done = append(done, k.o)
		b := (*strs)[:0]
		for _, x := range ids[i:] {
			if x.o == k.o {
				b = append(b, x.id)
			}
		}
		*strs = b
		f(k.o, b)
	}
}
