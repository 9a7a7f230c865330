package projection

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/outage"
)

// errOutage is the cancel cause of the followers when one of them met an
// outage: Run catches up from the checkpoint and follows again.
var errOutage = errors.New("echomq: projection: a follower met an outage")

// quiet discards the followers' own outage lines: Run reports each outage
// once, on its own logger.
var quiet = slog.New(slog.DiscardHandler)

// liveRun is the state of one Run: the outage watch and the snapshot
// schedule.
type liveRun[S any] struct {
	l     *Live[S]
	watch *outage.Watch
	back  outage.Backoff // catch-up retries
	saveB outage.Backoff // snapshot retries
	// unsaved counts the events folded since the last snapshot written;
	// nextSave is when a snapshot may be tried again after a failure.
	unsaved  int
	nextSave time.Time
}

func (l *Live[S]) run(ctx context.Context) error {
	r := &liveRun[S]{l: l, watch: outage.New(l.cfg.Logger, "echomq: projection", "projection", l.p.Name)}
	err := r.loop(ctx)
	if r.unsaved > 0 && l.cfg.Store != nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		serr := l.Save(sctx)
		cancel()
		switch {
		case serr == nil:
			r.unsaved = 0
		case err == nil && ctx.Err() == nil:
			err = serr
		default:
			l.cfg.Logger.Warn("echomq: projection: last snapshot not saved; a restart folds from the one before",
				"projection", l.p.Name, "unsaved", r.unsaved, "err", serr)
		}
	}
	if err != nil {
		l.cfg.Logger.Error("echomq: projection: stopped on a permanent error", "projection", l.p.Name, "err", err)
		return err
	}
	l.cfg.Logger.Info("echomq: projection: stopped", "projection", l.p.Name, "reason", "context ended")
	return nil
}

// loop catches up and follows until ctx ends (nil) or a permanent error;
// an outage of a follower sends it back to catching up.
func (r *liveRun[S]) loop(ctx context.Context) error {
	for {
		if err := r.catchUp(ctx); err != nil || ctx.Err() != nil {
			return err
		}
		err := r.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if !errors.Is(err, errOutage) {
			return err
		}
	}
}

// catchUp opens the projection and folds what lies above the checkpoint,
// retrying transient failures until it succeeds or ctx ends; what it
// folded before a failure stays folded (the checkpoint covers exactly it).
func (r *liveRun[S]) catchUp(ctx context.Context) error {
	l := r.l
	for {
		l.mu.Lock()
		_, err := l.open(ctx)
		n := 0
		if err == nil {
			n, err = l.catchUp(ctx, &l.state, l.cp, &l.applied)
			if err != nil {
				err = opError("catch up", l.p.Name, err)
			}
		}
		l.mu.Unlock()
		r.unsaved += n
		if ctx.Err() != nil {
			return nil
		}
		if err == nil {
			r.back.Reset()
			r.readOK()
			return r.maybeSave(ctx, true)
		}
		if !outage.Transient(err) {
			return err
		}
		r.watch.Failed("catch up", err)
		if !outage.Sleep(ctx, r.back.Next()) {
			return nil
		}
	}
}

// readOK ends an outage after a read succeeded, unless a snapshot still
// waits for its retry: the outage ends when everything works again.
func (r *liveRun[S]) readOK() {
	if r.nextSave.IsZero() {
		r.watch.OK()
	}
}

// maybeSave writes a snapshot when one is due (now, or SnapshotEvery
// events folded) and no failed one is waiting out its backoff. A transient
// failure is noted and retried later; only a permanent one is returned.
func (r *liveRun[S]) maybeSave(ctx context.Context, now bool) error {
	l := r.l
	if l.cfg.Store == nil || r.unsaved == 0 || (!now && r.unsaved < l.cfg.SnapshotEvery) {
		return nil
	}
	if time.Now().Before(r.nextSave) {
		return nil
	}
	err := l.Save(ctx)
	switch {
	case err == nil:
		r.watch.OK()
		r.saveB.Reset()
		r.unsaved, r.nextSave = 0, time.Time{}
		return nil
	case ctx.Err() != nil:
		return nil
	case outage.Transient(err):
		r.watch.Failed("save snapshot", err)
		r.nextSave = time.Now().Add(r.saveB.Next())
		return nil
	}
	return err
}

// follow follows every stream from the checkpoint, folding events as they
// arrive and saving snapshots, until ctx ends (nil), a follower meets an
// outage ([errOutage]) or a permanent error.
func (r *liveRun[S]) follow(ctx context.Context) error {
	l := r.l
	// Deferred calls run last first: the followers are cancelled, then
	// waited for, whichever way this returns (a permanent snapshot error
	// returns while they block in their reads).
	var wg sync.WaitGroup
	defer wg.Wait()
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type item struct {
		ev  echomq.Event
		src int
	}
	ch := make(chan item, l.cfg.PageSize)
	for i, from := range l.positions() {
		wg.Go(func() {
			opts := &echomq.FollowOpts{From: from, Block: l.cfg.Block, Count: l.cfg.PageSize, Logger: quiet}
			for ev, err := range l.src.list[i].Follow(fctx, opts) {
				if err != nil {
					if outage.Transient(err) {
						r.watch.Failed("follow", err)
						err = errOutage
					}
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
	for {
		select {
		case it := <-ch:
			l.mu.Lock()
			// Fold what else is queued under the same lock hold.
			for more := true; more; {
				if l.apply(Event{Event: it.ev, Stream: l.src.names[it.src], src: it.src}) {
					r.unsaved++
				}
				select {
				case it = <-ch:
				default:
					more = false
				}
			}
			l.mu.Unlock()
			r.readOK()
			if err := r.maybeSave(fctx, false); err != nil {
				return err
			}
		case <-tick.C:
			if err := r.maybeSave(fctx, true); err != nil {
				return err
			}
		case <-fctx.Done():
			cause := context.Cause(fctx)
			cancel(nil)
			wg.Wait()
			// Fold what the followers had queued: it lies above the
			// checkpoint and below the next catch-up's start.
			l.mu.Lock()
			for drained := false; !drained; {
				select {
				case it := <-ch:
					if l.apply(Event{Event: it.ev, Stream: l.src.names[it.src], src: it.src}) {
						r.unsaved++
					}
				default:
					drained = true
				}
			}
			l.mu.Unlock()
			if errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
				return nil
			}
			if errors.Is(cause, errOutage) {
				return errOutage
			}
			return opError("run", l.p.Name, cause)
		}
	}
}
