package lanes

import (
	"context"
	"time"
)

// timedCall runs the handler, measuring it only when the client has job
// hooks (a worker without hooks reads no clock for them).
func (w *Worker) timedCall(ctx context.Context, r *run) error {
	if len(w.hooks) == 0 {
		return w.call(ctx, r.job)
	}
	start := time.Now()
	err := w.call(ctx, r.job)
	r.ran = time.Since(start)
	return err
}

// claimedJob reports a claim to the job hooks.
func (w *Worker) claimedJob(j *Job) {
	if len(w.hooks) == 0 {
		return
	}
	var wait time.Duration
	if !j.EnqueuedAt.IsZero() {
		wait = max(time.Since(j.EnqueuedAt), 0)
	}
	w.report(JobTransition{Queue: w.q.name, Lane: j.Lane, Job: j.ID, Event: JobClaimed, Attempt: j.Attempt, Wait: wait})
}

// settledJob reports a settle to the job hooks.
func (w *Worker) settledJob(r *run, event string, err error) {
	if len(w.hooks) == 0 {
		return
	}
	j := r.job
	w.report(JobTransition{Queue: w.q.name, Lane: j.Lane, Job: j.ID, Event: event, Attempt: j.Attempt, Run: r.ran, Err: err})
}

func (w *Worker) report(info JobTransition) {
	ctx := w.base
	if ctx == nil {
		ctx = context.Background()
	}
	for _, h := range w.hooks {
		h.OnJob(ctx, info)
	}
}
