package lanes

import (
	"context"
	"errors"
	"runtime/debug"
	"time"
)

// cancelWait is how long Stop waits for handlers to return after it
// cancelled them, before it releases their jobs itself.
const cancelWait = 2 * time.Second

// extendChunk bounds the jobs one heartbeat script renews.
const extendChunk = 500

// drain waits for the handlers until ctx is done, then cancels the running
// ones. A handler that honours its ctx returns and releases its own job;
// the jobs of handlers still running after cancelWait are released here,
// and their handlers' results are dropped.
func (w *Worker) drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		w.handlersW.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	w.mu.Lock()
	for _, r := range w.running {
		r.cancel(errShutdown)
	}
	w.mu.Unlock()
	t := time.NewTimer(cancelWait)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
	}
	w.mu.Lock()
	var stuck []*run
	for j, r := range w.running {
		r.released = true
		delete(w.running, j)
		stuck = append(stuck, r)
	}
	w.mu.Unlock()
	var errs []error
	for _, r := range stuck {
		rctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
		err := w.q.Release(rctx, r.job)
		cancel()
		w.count(err, &w.stats.released)
		if err != nil && !errors.Is(err, ErrLeaseLost) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// heartbeat renews the leases of running jobs and cancels the handlers of
// jobs whose lease was lost.
func (w *Worker) heartbeat(ctx context.Context) {
	defer w.loopsW.Done()
	t := time.NewTicker(w.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if w.beatsOff.Load() {
			continue
		}
		w.mu.Lock()
		runs := make(map[*Job]*run, len(w.running))
		jobs := make([]*Job, 0, len(w.running))
		for j, r := range w.running {
			runs[j] = r
			jobs = append(jobs, j)
		}
		w.mu.Unlock()
		for len(jobs) > 0 {
			chunk := jobs[:min(len(jobs), extendChunk)]
			jobs = jobs[len(chunk):]
			// A failed call says nothing about the leases: keep the
			// handlers running and try again at the next beat.
			hctx, cancel := context.WithTimeout(ctx, w.cfg.Heartbeat)
			lost, err := w.q.Extend(hctx, w.cfg.Lease, chunk...)
			cancel()
			if err != nil {
				if ctx.Err() == nil && w.engineFailed("heartbeat", err) {
					w.log.Warn("lanes: heartbeat failed", "err", err)
				}
				continue
			}
			w.watch.OK()
			for _, j := range lost {
				runs[j].cancel(ErrLeaseLost)
			}
		}
	}
}

// janitor sweeps on a timer: at the latest every JanitorInterval, sooner
// when the sweep says the next item is due sooner, when this worker failed
// a job whose backoff ends sooner, or when the dispatcher pokes it.
func (w *Worker) janitor(ctx context.Context) {
	defer w.loopsW.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	next := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case d := <-w.due:
			if at := time.Now().Add(d); at.Before(next) {
				next = at
				t.Reset(d)
			}
			continue
		case <-w.poke:
		case <-t.C:
		}
		wait := w.cfg.JanitorInterval
		sctx, cancel := context.WithTimeout(ctx, settleTimeout)
		res, err := w.q.Sweep(sctx)
		cancel()
		if err == nil {
			w.watch.OK()
		}
		switch {
		case err != nil:
			if ctx.Err() == nil && w.engineFailed("sweep", err) {
				w.log.Warn("lanes: sweep failed", "err", err)
			}
		case res.Next >= 0:
			// Past the due time by a hair, so the item is due on the
			// engine's clock when the sweep runs.
			wait = min(wait, res.Next+time.Millisecond)
		}
		w.stats.reaped.Add(int64(res.Reaped + res.Dead))
		next = time.Now().Add(wait)
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(wait)
	}
}

// sweepAfter asks the janitor to sweep once d has passed.
func (w *Worker) sweepAfter(d time.Duration) {
	select {
	case w.due <- d + time.Millisecond:
	default:
		w.pokeJanitor()
	}
}

// pokeJanitor asks the janitor to sweep now.
func (w *Worker) pokeJanitor() {
	select {
	case w.poke <- struct{}{}:
	default:
	}
}

func stack() []byte { return debug.Stack() }
