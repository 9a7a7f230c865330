package projection

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/echomq/echomq"
)

// Run keeps the projection current until ctx ends: it opens it, catches up
// (every stream merged by entry id), then follows every stream live, each
// with blocking reads on a connection of its own, folding events as they
// arrive and saving a snapshot every SnapshotEvery events or
// SnapshotInterval, and once more when it stops. It returns nil when ctx
// ends, [ErrRunning] when this Live is already running, and otherwise the
// first error of a read, a snapshot or [Live.Open].
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
	if err == ErrRunning {
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

func (l *Live[S]) run(ctx context.Context) error {
	if _, err := l.CatchUp(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}

	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type item struct {
		ev  echomq.Event
		src int
	}
	ch := make(chan item, l.cfg.PageSize)
	var wg sync.WaitGroup
	for i, from := range l.positions() {
		wg.Go(func() {
			opts := &echomq.FollowOpts{From: from, Block: l.cfg.Block, Count: l.cfg.PageSize}
			for ev, err := range l.src.list[i].Follow(fctx, opts) {
				if err != nil {
					cancel(err)
					return
				}
				select {
				case ch <- item{ev, i}:
				case <-fctx.Done():
					return
				}
			}
		})
	}

	tick := time.NewTicker(l.cfg.SnapshotInterval)
	defer tick.Stop()
	unsaved, err := 0, error(nil)
loop:
	for {
		select {
		case it := <-ch:
			l.mu.Lock()
			// Fold what else is queued under the same lock hold.
			for more := true; more; {
				if l.apply(Event{Event: it.ev, Stream: l.src.names[it.src], src: it.src}) {
					unsaved++
				}
				select {
				case it = <-ch:
				default:
					more = false
				}
			}
			l.mu.Unlock()
			if unsaved >= l.cfg.SnapshotEvery && l.cfg.Store != nil {
				if err = l.Save(fctx); err != nil {
					break loop
				}
				unsaved = 0
			}
		case <-tick.C:
			if unsaved > 0 && l.cfg.Store != nil {
				if err = l.Save(fctx); err != nil {
					break loop
				}
				unsaved = 0
			}
		case <-fctx.Done():
			break loop
		}
	}
	cause := context.Cause(fctx)
	cancel(nil)
	wg.Wait()
	if unsaved > 0 && l.cfg.Store != nil {
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if serr := l.Save(sctx); err == nil && ctx.Err() == nil {
			err = serr
		}
		scancel()
	}
	switch {
	case err != nil && ctx.Err() == nil:
		return err
	case cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded):
		return opError("run", l.p.Name, cause)
	}
	return nil
}
