package lanes

import "sync/atomic"

type atomicCounter = atomic.Int64

type workerCounters struct {
	claimed, completed, retried, dead, released, lost, panics, reaped, errors atomicCounter
}

// WorkerStats counts what one worker did since it started.
type WorkerStats struct {
	// Claimed counts jobs claimed.
	Claimed int64
	// Completed counts jobs completed.
	Completed int64
	// Retried counts failed attempts that went back to their lanes.
	Retried int64
	// Dead counts jobs that died here: attempts spent, or cancelled.
	Dead int64
	// Released counts jobs given back at shutdown.
	Released int64
	// Lost counts jobs whose lease was lost while their handler ran; their
	// result was not applied and they run again.
	Lost int64
	// Panics counts handler panics (each also counts as a failure).
	Panics int64
	// Reaped counts lapsed leases this worker's janitor took back.
	Reaped int64
	// Errors counts settles that failed on an engine error; the janitor
	// takes those jobs back after their lease.
	Errors int64
}

// Stats returns the worker's counters.
func (w *Worker) Stats() WorkerStats {
	s := &w.stats
	return WorkerStats{
		Claimed: s.claimed.Load(), Completed: s.completed.Load(), Retried: s.retried.Load(),
		Dead: s.dead.Load(), Released: s.released.Load(), Lost: s.lost.Load(), Panics: s.panics.Load(),
		Reaped: s.reaped.Load(), Errors: s.errors.Load(),
	}
}
