package lanes

import (
	"context"
	"time"
)

// sweepLimit bounds the items of each kind one sweep moves, so one script
// never blocks the engine for long; a sweep that hit it reports Next 0.
const sweepLimit = 1000

// SweepResult is what one janitor run did.
type SweepResult struct {
	// Reaped counts jobs whose lease lapsed and that went back to the head
	// of their lanes.
	Reaped int
	// Dead counts jobs whose lease lapsed on their last attempt.
	Dead int
	// Promoted counts delayed jobs that became due and entered their lanes.
	Promoted int
	// Released counts lanes whose backoff hold ended.
	Released int
	// Next is how long until the next lease deadline, due time or hold end
	// (0 when more is due now); negative when nothing is scheduled.
	Next time.Duration
}

// Sweep runs the janitor once: lapsed leases go back to the head of their
// lanes (or die on their last attempt), due delayed jobs enter their lanes,
// and lanes whose backoff ended are served again. Every worker runs it on
// a timer; it is one atomic script that only moves what is due on the
// engine's clock, so any number of processes may run it at once. It
// returns engine errors wrapped in an [*echomq.OpError].
func (q *Queue) Sweep(ctx context.Context) (SweepResult, error) {
	s, err := q.conn.LaneSweep(ctx, q.keys, q.cfg.History, sweepLimit)
	if err != nil {
		return SweepResult{}, opError("sweep", q.name, err)
	}
	return SweepResult{
		Reaped: int(s.Reaped), Dead: int(s.Dead), Promoted: int(s.Promoted),
		Released: int(s.Released), Next: s.Next,
	}, nil
}
