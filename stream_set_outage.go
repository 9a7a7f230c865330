package echomq

import (
	"context"
	"time"

	"github.com/echomq/echomq/internal/outage"
)

// setOutage is how a set follower lives through an engine that blinks: the
// contract of [Stream.Follow] (the first transient failure of an outage
// yielded once, the retries paced, the read resumed from the merge's
// position), with the outage logged once and its end once by the shared
// watch ("echomq: set follow: engine unavailable; retrying", "echomq: set
// follow: engine back").
type setOutage struct {
	c     *Client
	set   string
	watch *outage.Watch
	back  outage.Backoff
}

// failed handles a failed call of op. A permanent error is yielded and ends
// the iteration (false). A transient one is yielded on the first failure of
// an outage only; then failed waits for the next retry and returns true, or
// false when ctx ended, the loop body stopped or the client was closed (the
// last yielded as [ErrClosed]).
func (o *setOutage) failed(ctx context.Context, op string, err error, yield func(SetEvent, error) bool) bool {
	err = opError("follow", o.set, err)
	if !outage.Transient(err) {
		yield(SetEvent{}, err)
		return false
	}
	if o.watch.Failed(op, err) && !yield(SetEvent{}, err) {
		return false
	}
	t := time.NewTimer(o.back.Next())
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-o.c.closed:
		yield(SetEvent{}, opError("follow", o.set, ErrClosed))
		return false
	case <-t.C:
		return true
	}
}

// ok ends an outage after a successful read.
func (o *setOutage) ok() {
	o.watch.OK()
	o.back.Reset()
}
