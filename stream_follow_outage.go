package echomq

import (
	"context"
	"log/slog"
	"time"

	"github.com/echomq/echomq/internal/outage"
)

// followOutage is how a follower — [Stream.Follow] (E is Event) or
// [SetFollower.Follow] (E is SetEvent) — lives through an engine that
// blinks, on the one engine every service uses (internal/outage): the
// first transient failure of an outage is yielded once, so the loop's
// owner learns of it; the outage and its end are logged once each by the
// watch ("<name>: engine unavailable; retrying", "<name>: engine back");
// the retries back off from outage.Min to outage.Max. A follower owns its
// followOutage (not safe for concurrent use).
type followOutage[E any] struct {
	c     *Client
	key   string // the stream or set named in errors
	watch *outage.Watch
	back  outage.Backoff
}

// newFollowOutage returns the outage tracker of one follower iteration,
// logging under name with the attribute attr=key.
func newFollowOutage[E any](c *Client, log *slog.Logger, name, attr, key string) *followOutage[E] {
	return &followOutage[E]{c: c, key: key, watch: outage.New(log, name, attr, key)}
}

// failed handles a failed call of op. A permanent error is yielded and ends
// the iteration (false). A transient one is yielded on the first failure of
// an outage only; then failed waits for the next retry and returns true, or
// false when ctx ended, the loop body stopped or the client was closed (the
// last yielded as [ErrClosed]).
func (o *followOutage[E]) failed(ctx context.Context, op string, err error, yield func(E, error) bool) bool {
	var zero E
	err = opError("follow", o.key, err)
	if !outage.Transient(err) {
		yield(zero, err)
		return false
	}
	if o.watch.Failed(op, err) && !yield(zero, err) {
		return false
	}
	t := time.NewTimer(o.back.Next())
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-o.c.closed:
		yield(zero, opError("follow", o.key, ErrClosed))
		return false
	case <-t.C:
		return true
	}
}

// ok ends an outage after a successful call.
func (o *followOutage[E]) ok() {
	o.watch.OK()
	o.back.Reset()
}
