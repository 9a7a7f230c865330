package echomq

import (
	"context"
	"errors"

	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/wire"
)

// createGroup creates the group at Start when missing, retrying transient
// failures with a backoff until the engine answers or ctx ends (then it
// returns nil: the caller sees the stop). A consumer started while the
// engine is down waits for it instead of failing.
func (c *Consumer) createGroup(ctx context.Context) error {
	var back outage.Backoff
	for {
		_, err := c.c.conn.XGroupCreate(ctx, c.s.key, c.cfg.Group, c.start)
		if ctx.Err() != nil {
			return nil
		}
		if err == nil {
			c.watch.OK()
			return nil
		}
		if !transient(err) {
			return err
		}
		c.watch.Failed("create group", err)
		if !outage.Sleep(ctx, back.Next()) {
			return nil
		}
	}
}

// retry handles a failed engine call of the fetch loop: it waits out a
// transient failure with the run's backoff (the outage logged once), or
// returns the error. A group that vanished (destroyed by hand, or lost with
// the engine's data) is created again at Start, as Run would.
func (r *run) retry(what string, err error) error {
	if errors.Is(err, ErrGroupNotFound) {
		r.c.log.Error("the group vanished; creating it again", "op", what, "start", r.c.cfg.Start, "err", err)
		_, err = r.c.c.conn.XGroupCreate(r.io, r.c.s.key, r.c.cfg.Group, r.c.start)
		if err == nil {
			return nil
		}
	}
	if !transient(err) {
		return err
	}
	r.c.watch.Failed(what, err)
	outage.Sleep(r.stop, r.back.Next())
	return nil
}

// ended logs why a run ended, its context or a permanent error, and
// returns err.
func (c *Consumer) ended(err error) error {
	if err != nil {
		c.log.Error("echomq: consumer: stopped on a permanent error", "err", err)
	} else {
		c.log.Info("echomq: consumer: stopped", "reason", "context ended")
	}
	return err
}

// transient reports whether an engine failure may pass (see
// wire.Transient).
func transient(err error) bool { return wire.Transient(err) }
