package projection

import (
	"context"
	"errors"
)

// Run keeps the projection current until ctx ends: it opens it, catches up
// (every stream merged by entry id), then follows every stream live, each
// with blocking reads on a connection of its own, folding events as they
// arrive and saving a snapshot every SnapshotEvery events or
// SnapshotInterval, and once more when it stops. It returns nil when ctx
// ends, [ErrRunning] when this Live is already running, and otherwise the
// first permanent error of a read, a snapshot or [Live.Open].
//
// Run rides out the engine's outages: a read, a snapshot write or the
// opening load that fails with an error matching [echomq.ErrUnavailable]
// is retried with a backoff from 100ms to 2s, and the outage is logged
// once on LiveConfig.Logger ("echomq: projection: engine unavailable;
// retrying"), its end once ("echomq: projection: engine back"). It never
// loses its place: a failed snapshot changes neither the state nor the
// checkpoint (folding goes on, and the next snapshot covers what the
// failed one would have), and after a failed read it catches up from the
// checkpoint before following again, so no event is skipped or folded
// twice. It logs why it stopped (its context, or the permanent error).
//
// Order: each stream's events are folded in mint order, with no gap and no
// repeat. Across streams, a live event is folded when it arrives: two
// streams appended to by writers whose clocks disagree can arrive out of
// entry id order, which a rebuild (merged by entry id) would fold the other
// way round. Folds that do not depend on how different streams interleave
// (every ready-made fold) end equal to a rebuild; an order-sensitive fold
// over several streams should fold one stream, or use [Live.Rebuild] or
// [Fold] for its answer.
func (l *Live[S]) Run(ctx context.Context) error {
	err := l.svc.Run(ctx, l.run)
	if errors.Is(err, ErrRunning) {
		return opError("run", l.p.Name, err)
	}
	return err
}

// Start runs [Live.Run] in a goroutine the projection owns and returns at
// once: it keeps the projection current until ctx ends or [Live.Stop] is
// called. It returns [ErrRunning] when this Live is already running.
func (l *Live[S]) Start(ctx context.Context) error {
	if err := l.svc.Start(ctx, l.run); err != nil {
		return opError("run", l.p.Name, err)
	}
	return nil
}

// Stop stops the projection (saving its last snapshot, as the end of Run's
// context does) and waits until it has stopped or ctx ends (then it
// returns ctx's error). It returns the error the run ended with, if any.
// Stopping a projection that is not running does nothing.
func (l *Live[S]) Stop(ctx context.Context) error { return l.svc.Stop(ctx) }

// Stopped returns a channel closed when the projection's run has ended
// (already closed before the first run).
func (l *Live[S]) Stopped() <-chan struct{} { return l.svc.Stopped() }
