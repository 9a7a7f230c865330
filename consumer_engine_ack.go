package echomq

import (
	"context"
	"time"

	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/wire"
)

// ack acknowledges a batch of o's entries (XACK), keeping the outage watch
// and the stats, and reports it to the AckHooks. A transient failure is
// retried with a backoff while stop has not ended (an outage delays the
// ack, it does not lose it), then up to three tries in all; entries whose ack is given up
// stay pending and are delivered again (at least once).
func (e *consumerEngine) ack(io, stop context.Context, o origin, ids []string) {
	start := time.Now()
	var (
		err   error
		back  outage.Backoff
		tries int
	)
	for {
		ctx, cancel := context.WithTimeout(io, settleTimeout)
		_, err = e.c.conn.XAck(ctx, o.key, e.Group, ids...)
		cancel()
		if err == nil {
			e.watch.OK()
			e.stats.acked.Add(int64(len(ids)))
			break
		}
		if !transient(err) {
			break
		}
		e.watch.Failed("ack", err)
		if stop.Err() == nil {
			outage.Sleep(stop, back.Next())
			continue
		}
		if tries++; tries >= 3 || io.Err() != nil {
			break
		}
		time.Sleep(time.Duration(tries) * 10 * time.Millisecond)
	}
	if err != nil {
		e.logFor(o.name).Error("ack failed; entries stay pending and will be delivered again", "entries", len(ids), "err", err)
	}
	e.acked(io, o, len(ids), false, time.Since(start), err)
}

// acked reports acknowledgements to the AckHooks.
func (e *consumerEngine) acked(io context.Context, o origin, n int, trimmed bool, d time.Duration, err error) {
	hs := e.c.hooks.ack
	if len(hs) == 0 || n == 0 {
		return
	}
	info := AckInfo{Queue: e.Queue, Stream: o.name, Group: e.Group, Consumer: e.Name, Entries: n, Trimmed: trimmed, Duration: d, Err: err}
	for _, h := range hs {
		h.OnAck(io, info)
	}
}

// transient reports whether an engine failure may pass (see
// wire.Transient).
func transient(err error) bool { return wire.Transient(err) }
