package lanes

import (
	"context"
	"time"

	"github.com/echomq/echomq"
)

// JobHook observes the jobs of a [Worker]: each claim and each settle. A
// worker finds its hooks among the client's ([echomq.Config.Hooks], with
// [echomq.HooksOf]) when it is made; the prometheus and otel modules
// implement it.
type JobHook interface {
	OnJob(ctx context.Context, j JobTransition)
}

// Job transitions of [JobTransition.Event].
const (
	JobClaimed   = "claimed"   // a worker claimed the job
	JobCompleted = "completed" // the handler succeeded and the job completed
	JobRetried   = "retried"   // the handler failed; the job waits for another attempt
	JobDead      = "dead"      // the handler failed for the last time, or cancelled the job
	JobReleased  = "released"  // handed back unrun or unfinished at shutdown
	JobLost      = "lost"      // the lease lapsed; another claim runs it
)

// JobTransition is one transition of one job, as a [JobHook] sees it.
type JobTransition struct {
	// Queue is the lanes queue; Lane the job's lane (never a metric label:
	// lanes are unbounded).
	Queue, Lane string
	Job         echomq.ID
	// Event is one of JobClaimed, JobCompleted, JobRetried, JobDead,
	// JobReleased, JobLost.
	Event   string
	Attempt int
	// Wait is, for a claim, the time from the enqueue to the claim (the
	// engine's enqueue time against the client's clock).
	Wait time.Duration
	// Run is, for a settle, how long the handler ran.
	Run time.Duration
	// Err is the handler's error for a retry or a death, or the settle's
	// own failure.
	Err error
}
