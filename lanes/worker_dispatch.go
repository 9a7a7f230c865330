package lanes

import (
	"context"
	"errors"
	"time"

	"github.com/echomq/echomq/internal/outage"
)

// settleTimeout bounds one settle, release or claim call made outside the
// caller's context (so a shutdown never cuts a reply in half).
const settleTimeout = 10 * time.Second

// dispatch claims while the worker holds fewer than Concurrency+Prefetch
// jobs and parks on the wake list when there is nothing to claim. The claim
// runs on a context the shutdown does not cancel, so a lease granted by the
// engine is never lost in flight: jobs that arrive after the stop are
// released at once.
func (w *Worker) dispatch(ctx context.Context) {
	defer w.dispatchW.Done()
	capacity := w.cfg.Concurrency + w.cfg.Prefetch
	back := outage.Backoff{Min: 50 * time.Millisecond, Max: 2 * time.Second}
	woken := false
	for ctx.Err() == nil {
		want := capacity - int(w.held.Load())
		if want <= 0 {
			select {
			case <-w.freed:
			case <-ctx.Done():
			}
			continue
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		jobs, err := w.q.Claim(cctx, min(want, MaxClaim), w.cfg.Lease)
		cancel()
		if err != nil {
			if w.engineFailed("claim", err) {
				w.failPermanently(err)
				return
			}
			if !outage.Sleep(ctx, back.Next()) {
				return
			}
			continue
		}
		w.watch.OK()
		back.Reset()
		w.stats.claimed.Add(int64(len(jobs)))
		for _, j := range jobs {
			if ctx.Err() != nil {
				w.releaseNow(j)
				continue
			}
			w.claimedJob(j)
			w.queue <- w.track(j) // never blocks: the queue holds capacity jobs
		}
		if len(jobs) == want {
			woken = false
			continue
		}
		if len(jobs) == 0 && woken {
			// A wake that led to nothing may be a delayed enqueue: let the
			// janitor sweep and learn the new due time.
			w.pokeJanitor()
		}
		got, err := w.q.conn.LaneWait(ctx, w.q.keys.Wake, w.cfg.IdleWait)
		if err != nil && ctx.Err() == nil {
			if w.engineFailed("wait for wake", err) {
				w.failPermanently(err)
				return
			}
			if !outage.Sleep(ctx, back.Next()) {
				return
			}
		}
		woken = got
	}
}

// track registers a claimed job for the heartbeat and the shutdown.
func (w *Worker) track(job *Job) *run {
	ctx, cancel := context.WithCancelCause(w.base)
	r := &run{job: job, ctx: ctx, cancel: cancel}
	w.mu.Lock()
	w.running[job] = r
	w.mu.Unlock()
	w.held.Add(1)
	return r
}

// untrack forgets a job and reports false when Stop released it already.
func (w *Worker) untrack(r *run) bool {
	w.mu.Lock()
	released := r.released
	if !released {
		delete(w.running, r.job)
	}
	w.mu.Unlock()
	if released {
		return false
	}
	r.cancel(nil)
	w.held.Add(-1)
	select {
	case w.freed <- struct{}{}:
	default:
	}
	return true
}

// handle is one of the Concurrency handler goroutines.
func (w *Worker) handle() {
	defer w.handlersW.Done()
	for r := range w.queue {
		if w.stopping.Load() {
			_ = w.giveBack(r)
			continue
		}
		w.runJob(r)
	}
}

// runJob runs one claimed job and settles it by its handler's result.
func (w *Worker) runJob(r *run) {
	if errors.Is(context.Cause(r.ctx), ErrLeaseLost) {
		// Lost while it waited for a handler.
		if w.untrack(r) {
			w.stats.lost.Add(1)
		}
		return
	}
	ctx := r.ctx
	if w.cfg.JobTimeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, w.cfg.JobTimeout)
		defer stop()
	}
	err := w.timedCall(ctx, r)
	w.finish(r, err, context.Cause(r.ctx))
}

// call runs the handler, turning a panic into a [*PanicError].
func (w *Worker) call(ctx context.Context, job *Job) (err error) {
	defer func() {
		if v := recover(); v != nil {
			w.stats.panics.Add(1)
			err = &PanicError{Value: v, Stack: stack()}
		}
	}()
	return w.h.Handle(ctx, job)
}

// finish settles a job by its handler's result.
func (w *Worker) finish(r *run, err, cause error) {
	if !w.untrack(r) {
		return
	}
	if errors.Is(cause, ErrLeaseLost) {
		// The heartbeat learned that the job is back in its lane: a settle
		// would be refused, and the next claim runs it again.
		w.stats.lost.Add(1)
		w.settledJob(r, JobLost, err)
		return
	}
	job := r.job
	var cancelled *CancelError
	switch {
	case err == nil:
		err = w.settle("complete", func(ctx context.Context) error { return w.q.Complete(ctx, job) })
		w.count(err, &w.stats.completed)
		w.settledJob(r, JobCompleted, err)
	case errors.Is(cause, errShutdown):
		err = w.settle("release", func(ctx context.Context) error { return w.q.Release(ctx, job) })
		w.count(err, &w.stats.released)
		w.settledJob(r, JobReleased, err)
	case errors.As(err, &cancelled):
		kerr := w.settle("kill", func(ctx context.Context) error { return w.q.Kill(ctx, job, cancelled.Err) })
		w.count(kerr, &w.stats.dead)
		w.settledJob(r, JobDead, errors.Join(err, kerr))
	default:
		delay := w.cfg.Backoff(job.Attempt)
		if retry, ok := errors.AsType[*RetryError](err); ok {
			delay = retry.After
		}
		var st State
		cause := err
		ferr := w.settle("fail", func(ctx context.Context) error {
			var e error
			st, e = w.q.Fail(ctx, job, delay, cause)
			return e
		})
		switch st {
		case StateDead:
			w.stats.dead.Add(1)
			w.settledJob(r, JobDead, errors.Join(err, ferr))
		case StateBackoff:
			w.stats.retried.Add(1)
			w.sweepAfter(delay)
			w.settledJob(r, JobRetried, errors.Join(err, ferr))
		case StateWaiting:
			w.stats.retried.Add(1)
			w.settledJob(r, JobRetried, errors.Join(err, ferr))
		}
		w.count(ferr, nil)
	}
}

// giveBack releases a claimed job no handler started.
func (w *Worker) giveBack(r *run) error {
	if !w.untrack(r) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	err := w.q.Release(ctx, r.job)
	w.count(err, &w.stats.released)
	w.settledJob(r, JobReleased, err)
	if err != nil && !errors.Is(err, ErrLeaseLost) {
		return err
	}
	return nil
}

// count records a settle's outcome.
func (w *Worker) count(err error, ok *atomicCounter) {
	switch {
	case err == nil:
		if ok != nil {
			ok.Add(1)
		}
	case errors.Is(err, ErrLeaseLost):
		w.stats.lost.Add(1)
		w.log.Debug("lanes: settle refused, lease lost", "err", err)
	case outage.Transient(err):
		// The outage is logged once by the watch; the job's lease lapses
		// and the janitor gives it back (a second run, within
		// at-least-once), so a line per job would only repeat the outage.
		w.stats.errors.Add(1)
		w.log.Debug("lanes: settle failed during an outage; the job is given back when its lease lapses", "err", err)
	default:
		w.stats.errors.Add(1)
		w.log.Error("lanes: settle failed", "err", err)
	}
}

// releaseNow gives back a job claimed while the worker was stopping.
func (w *Worker) releaseNow(job *Job) {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	w.count(w.q.Release(ctx, job), &w.stats.released)
}
