package echomq

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/echomq/echomq/internal/outage"
)

// releaseIdle is the idle time a released entry is given: longer than any
// sane MinIdle, so the next reclaim of any consumer takes it.
const releaseIdle = 365 * 24 * time.Hour

// settleTimeout bounds the engine calls that settle entries (acks, dead
// letters, releases), which must not be cut off by a stop.
const settleTimeout = 5 * time.Second

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

// handle runs the handler on one entry and settles the outcome: success
// acks; failure leaves it pending, or moves it to the dead letters on its
// last delivery; a failure caused by the grace running out hands it back.
func (r *run) handle(j *job) {
	c := r.c
	if !time.Now().Before(j.b.deadline) {
		c.stats.expired.Add(1)
		c.log.Warn("entry waited past its handler deadline; left pending for a reclaim (lower Count, or raise Concurrency or MinIdle)",
			"entry", j.id, "attempts", j.d.Attempts)
		r.settled(j)
		return
	}
	limit := int64(c.cfg.MaxDeliveries)
	if limit > 0 && j.d.Attempts > limit {
		r.deadLetter(j, fmt.Sprintf("delivered %d times, over the limit of %d, without an outcome", j.d.Attempts, limit))
		r.settled(j)
		return
	}
	err := r.observe(j.b.ctx, j.d)
	switch {
	case err == nil:
		r.acks.add(j.id)
	case r.hctx.Err() != nil:
		r.handBack(j) // stopped by the grace running out: not the entry's fault
		return
	default:
		c.stats.failed.Add(1)
		if r.failedNow(j, err, limit) {
			break
		}
		if limit > 0 && j.d.Attempts >= limit {
			r.deadLetter(j, err.Error())
		} else {
			c.log.Warn("handler failed; entry stays pending", "entry", j.id, "id", j.d.ID, "attempts", j.d.Attempts, "err", err)
		}
	}
	r.settled(j)
}

// call runs the handler, turning a panic into a [*PanicError].
func (r *run) call(ctx context.Context, d Delivery) (err error) {
	r.c.stats.delivered.Add(1)
	defer func() {
		if v := recover(); v != nil {
			r.c.stats.panics.Add(1)
			pe := &PanicError{Value: v, Stack: debug.Stack()}
			r.c.log.Error("handler panic", "entry", d.Entry, "id", d.ID, "attempts", d.Attempts, "panic", v, "stack", string(pe.Stack))
			err = pe
		}
	}()
	return r.c.cfg.Handle(ctx, d)
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
				r.ack(ids)
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

// flush acknowledges a batch and returns the last failure, if any. A
// transient failure is retried with a backoff for as long as the consumer
// runs (an outage delays the ack, it does not lose it), then three more
// times once it is stopping; entries whose ack is lost stay pending and are
// delivered again (at least once).
func (r *run) flush(batch []string) error {
	var (
		err   error
		back  outage.Backoff
		tries int
	)
	for {
		ctx, cancel := context.WithTimeout(r.io, settleTimeout)
		_, err = r.c.c.conn.XAck(ctx, r.c.s.key, r.c.cfg.Group, batch...)
		cancel()
		if err == nil {
			r.c.watch.OK()
			r.c.stats.acked.Add(int64(len(batch)))
			return nil
		}
		if !transient(err) {
			break
		}
		r.c.watch.Failed("ack", err)
		if r.stop.Err() != nil {
			if tries++; tries >= 3 {
				break
			}
			time.Sleep(time.Duration(tries) * 10 * time.Millisecond)
			continue
		}
		outage.Sleep(r.stop, back.Next())
	}
	r.c.log.Error("ack failed; entries stay pending and will be delivered again", "entries", len(batch), "err", err)
	return err
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
		r.c.log.Warn("grace period over; cancelling running handlers", "grace", r.c.cfg.Grace)
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
		r.c.log.Warn("release failed; entries stay pending until reclaimed after MinIdle", "entries", len(r.handback), "err", err)
		return
	}
	r.c.stats.released.Add(n)
}
