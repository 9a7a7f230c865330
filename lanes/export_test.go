package lanes

import "context"

// HoldHeartbeats stops (or restarts) the renewal of w's leases, so a test
// can let a lease lapse under a running handler.
func HoldHeartbeats(w *Worker, hold bool) { w.beatsOff.Store(hold) }

// CompleteAll completes jobs in one script call (Complete group-commits
// concurrent calls, so how many share a call depends on timing), for the
// cost of a batch to be counted exactly.
func CompleteAll(ctx context.Context, q *Queue, jobs []*Job) error {
	vs, err := q.completeRun(ctx, jobs)
	if err != nil {
		return err
	}
	for i, v := range vs {
		if err := q.verdict("complete", jobs[i].ID, v, nil); err != nil {
			return err
		}
	}
	return nil
}
