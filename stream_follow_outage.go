package echomq

import (
	"context"
	"log/slog"
	"time"

	"github.com/echomq/echomq/internal/wire"
)

// Backoff of a follower whose reads fail with a transient error: the first
// retry after followRetryMin, doubling up to followRetryMax.
const (
	followRetryMin = 100 * time.Millisecond
	followRetryMax = 2 * time.Second
)

// followOutage tracks one outage of a follower: it yields the first
// transient failure (the follower's owner learns of the outage once), logs
// it and its end once, and paces the retries.
type followOutage struct {
	s     *Stream
	log   *slog.Logger
	since time.Time // zero: no outage
	delay time.Duration
}

// failed handles a failed read. A permanent error is yielded and ends the
// iteration (false). A transient one is yielded on the first failure of an
// outage only; then failed waits for the next retry and returns true, or
// false when ctx ended or the loop body stopped.
func (o *followOutage) failed(ctx context.Context, err error, yield func(Event, error) bool) bool {
	err = opError("follow", o.s.key, err)
	if !wire.Transient(err) {
		yield(Event{}, err)
		return false
	}
	if o.since.IsZero() {
		o.since, o.delay = time.Now(), followRetryMin
		o.log.Warn("echomq: follow: engine unavailable; retrying", "stream", o.s.key, "err", err)
		if !yield(Event{}, err) {
			return false
		}
	}
	t := time.NewTimer(o.delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-o.s.c.closed:
		yield(Event{}, opError("follow", o.s.key, ErrClosed))
		return false
	case <-t.C:
	}
	o.delay = min(2*o.delay, followRetryMax)
	return true
}

// ok ends an outage after a successful read.
func (o *followOutage) ok() {
	if !o.since.IsZero() {
		o.log.Info("echomq: follow: engine back", "stream", o.s.key, "outage", time.Since(o.since).Round(time.Millisecond))
		o.since = time.Time{}
	}
}
