package echomq

import (
	"context"

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
			c.e.watch.OK()
			return nil
		}
		if !transient(err) {
			return err
		}
		c.e.watch.Failed("create group", err)
		if !outage.Sleep(ctx, back.Next()) {
			return nil
		}
	}
}

// retry handles a failed engine call of the fetch loop (see
// [consumerEngine.retry]); a group that vanished is created again at Start, as Run
// would.
func (r *run) retry(what string, err error) error {
	return r.e.retry(r.stop, &r.back, what, err, func() error {
		_, err := r.c.c.conn.XGroupCreate(r.io, r.c.s.key, r.c.cfg.Group, r.c.start)
		return err
	})
}

// transient reports whether an engine failure may pass (see
// wire.Transient).
func transient(err error) bool { return wire.Transient(err) }
