package echomq

import (
	"context"
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
	if !time.Now().Before(j.b.deadline) {
		e.stats.expired.Add(1)
		e.log.Warn("entry waited past its handler deadline; left pending for a reclaim (lower Count, or raise Concurrency or MinIdle)",
			"entry", j.id, "attempts", j.d.Attempts)
		r.settled(j)
		return
	}
	if e.overLimit(r.io, r.c.from, j.d) {
		r.settled(j)
		return
	}
	err := e.call(j.b.ctx, j.d)
	switch {
	case err == nil:
		r.acks.add(j.id)
	case r.hctx.Err() != nil:
		r.handBack(j) // stopped by the grace running out: not the entry's fault
		return
	default:
		e.failed(r.io, r.c.from, j.id, j.d, err)
	}
	r.settled(j)
}

// ackLoop sends the acknowledgements: each XACK carries every id that
// completed while the previous one was on the wire (up to AckBatch), after
// holding the first for AckInterval when one is configured.
func (r *run) ackLoop() {
	defer close(r.ackDone)
	for {
		<-r.acks.wakeup
		if d := r.c.cfg.AckInterval; d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-r.acks.done:
			}
			t.Stop()
		}
		for {
			ids, left, closed := r.acks.take(r.c.cfg.AckBatch)
			if len(ids) > 0 {
				r.e.ack(r.io, r.stop, r.c.from, ids, ackWait)
			}
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
	t := time.NewTimer(r.c.cfg.Grace)
	select {
	case <-done:
	case <-t.C:
		r.e.log.Warn("grace period over; cancelling running handlers", "grace", r.c.cfg.Grace)
		r.hcancel()
		<-done
	}
	t.Stop()
	r.hcancel()
	r.acks.close()
	<-r.ackDone
	if len(r.handback) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(r.io, settleTimeout)
	defer cancel()
	n, err := r.c.c.conn.Release(ctx, r.c.s.key, r.c.cfg.Group, r.c.cfg.Name, releaseIdle, r.handback)
	if err != nil {
		r.e.log.Warn("release failed; entries stay pending until reclaimed after MinIdle", "entries", len(r.handback), "err", err)
		return
	}
	r.e.stats.released.Add(n)
}
