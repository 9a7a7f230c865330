package lanes

import (
	"context"
	"sync"
	"time"

	"github.com/echomq/echomq/internal/outage"
)

// outcome records why a worker stopped on its own: the permanent engine
// error of its dispatcher (nil while it runs or when it was stopped).
type outcome struct {
	mu  sync.Mutex
	err error
}

func (o *outcome) set(err error) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return false
	}
	o.err = err
	return true
}

func (o *outcome) get() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// engineFailed handles a failed engine call of one of the worker's loops:
// a transient failure starts (or continues) the outage, logged once for
// the whole worker, and returns false; a permanent one returns true.
func (w *Worker) engineFailed(op string, err error) (permanent bool) {
	if !outage.Transient(err) {
		return true
	}
	w.watch.Failed(op, err)
	return false
}

// failPermanently stops the worker on a permanent error of its dispatcher
// (a closed client, a key of the wrong type): the error is logged, the run
// ends (with WorkerConfig.ShutdownGrace, unless a Stop gave its own) and
// [Worker.Run] and [Worker.Stop] return it.
func (w *Worker) failPermanently(err error) {
	if !w.failed.set(err) {
		return
	}
	w.log.Error("echomq: lanes worker: stopped on a permanent error", "err", err)
	w.end()
}

// settle runs one settle call (complete, fail, kill, release), retrying a
// transient failure with a backoff until it succeeds, the lease would
// have lapsed (the janitor then gives the job back, and a settle would be
// refused anyway) or the worker stops: a short outage delays a settle
// instead of running the job again.
func (w *Worker) settle(op string, call func(ctx context.Context) error) error {
	var back outage.Backoff
	give := time.Now().Add(w.cfg.Lease)
	for {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(w.base), settleTimeout)
		err := call(ctx)
		cancel()
		if err == nil {
			w.watch.OK()
			return nil
		}
		if !outage.Transient(err) {
			return err
		}
		w.watch.Failed(op, err)
		d := back.Next()
		if time.Now().Add(d).After(give) || !outage.Sleep(w.halt, d) {
			return err
		}
	}
}
