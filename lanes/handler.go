package lanes

import (
	"context"
)

// Handler runs one job. Its result decides what happens to the job:
//
//   - nil: the job is completed;
//   - [RetryAfter](d, err): a failed attempt, retried after d;
//   - [Cancel](err): the job is given up and goes to the dead jobs at once;
//   - any other error, or a panic: a failed attempt, retried after the
//     worker's backoff; once the attempts are spent the job is dead.
//
// While a failed job waits out its backoff its lane is held, so no later
// job of the lane overtakes it.
//
// ctx is cancelled when the job's lease is lost (the cause is
// [ErrLeaseLost]: the job is back in its lane and may already run
// elsewhere), when the worker's shutdown grace ends (the job is released
// to the head of its lane without spending the attempt), or when
// WorkerConfig.JobTimeout passes. Delivery is at least once: make the
// handler's effects idempotent on job.ID.
type Handler interface {
	Handle(ctx context.Context, job *Job) error
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ctx context.Context, job *Job) error

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, job *Job) error { return f(ctx, job) }
