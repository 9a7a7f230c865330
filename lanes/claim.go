package lanes

import (
	"context"
	"strconv"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/wire"
)

// claimSlack is how many ring entries of lanes that stopped being servable
// a claim may drop on top of the jobs it asked for.
const claimSlack = 32

// Claim leases up to n jobs (1..[MaxClaim]) for lease (at least
// [MinLease]), one lane per step of the rotation: every servable lane is
// served once before any is served twice, and within a lane jobs come in
// arrival order. It returns no jobs, and no error, when the queue is paused
// or no lane is servable.
//
// A claimed job must be settled with [Queue.Complete], [Queue.Fail],
// [Queue.Kill] or [Queue.Release], and its lease renewed with
// [Queue.Extend] while it runs; otherwise the janitor ([Queue.Sweep]) gives
// it back to the head of its lane once the lease lapses, spending the
// attempt. [Worker] does all of that.
//
// It returns an [*echomq.ArgumentError] for n or lease out of range, and
// engine errors wrapped in an [*echomq.OpError].
func (q *Queue) Claim(ctx context.Context, n int, lease time.Duration) ([]*Job, error) {
	if n < 1 || n > MaxClaim {
		return nil, argError("claim count", strconv.Itoa(n)+" is outside 1.."+strconv.Itoa(MaxClaim))
	}
	if lease < MinLease {
		return nil, argError("lease", lease.String()+" is below "+MinLease.String())
	}
	raw, err := q.conn.LaneClaim(ctx, q.keys, q.cfg.History, lease, n, n+claimSlack)
	if err != nil {
		return nil, opError("claim", q.name, err)
	}
	jobs := make([]*Job, 0, len(raw))
	for i := range raw {
		r := &raw[i]
		id, err := echomq.ParseID(r.ID)
		if err != nil {
			return jobs, opError("claim", q.name, err)
		}
		jobs = append(jobs, &Job{
			ID: id, Lane: r.Lane, Payload: r.Payload, Attempt: int(r.Attempt), MaxAttempts: int(r.Max),
			Seq: r.Seq, EnqueuedAt: msTime(r.EnqMs), token: r.Token,
		})
	}
	return jobs, nil
}

// Complete settles a claimed job as done: it leaves the active set, its
// lane moves on to its next job, and its row stays as a tombstone for
// Config.Tombstone (so its id is refused as a duplicate) or is deleted.
//
// It returns a [*LeaseError] when the claim no longer holds the job (its
// lease lapsed and the janitor gave it back to its lane; the late
// completion is refused, so the job runs again rather than vanish or
// resurrect), a [*NotFoundError] when there is no such job, and engine
// errors wrapped in an [*echomq.OpError]. Like enqueues, concurrent
// completions are group-committed, and a submitted completion runs to its
// end whatever happens to ctx.
func (q *Queue) Complete(ctx context.Context, job *Job) error {
	v, err := q.completes.Do(ctx, job)
	return q.verdict("complete", job.ID, v, err)
}

// completeMax is the most completions one script call settles.
const completeMax = 256

// completeRun is the script call of a group of concurrent completions.
func (q *Queue) completeRun(ctx context.Context, jobs []*Job) ([]wire.LaneVerdict, error) {
	ids := make([]string, len(jobs))
	tokens := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i], tokens[i] = j.ID.String(), j.token
	}
	return q.conn.LaneComplete(ctx, q.keys, q.cfg.History, q.cfg.Tombstone, ids, tokens)
}

// Fail settles a claimed job as a failed attempt, recording cause. Below
// its MaxAttempts the job goes back to the head of its lane and the lane
// is held for backoff, so no later job of the lane overtakes it; a backoff
// of 0 makes it waiting again at once. Once its attempts are spent it dies.
// It returns the job's state after: [StateBackoff], [StateWaiting] or
// [StateDead].
//
// It returns an [*echomq.ArgumentError] for a negative backoff, and the
// errors of [Queue.Complete].
func (q *Queue) Fail(ctx context.Context, job *Job, backoff time.Duration, cause error) (State, error) {
	if backoff < 0 {
		return "", argError("backoff", backoff.String()+" is negative")
	}
	v, err := q.conn.LaneFail(ctx, q.keys, q.cfg.History, job.ID.String(), job.token, backoff, errorText(cause), false)
	if err := q.verdict("fail", job.ID, v, err); err != nil {
		return "", err
	}
	return State(v.State), nil
}

// Kill settles a claimed job as given up: it goes to the dead jobs at once
// with cause, whatever attempts it has left, and its lane moves on. It
// returns the errors of [Queue.Complete].
func (q *Queue) Kill(ctx context.Context, job *Job, cause error) error {
	v, err := q.conn.LaneFail(ctx, q.keys, q.cfg.History, job.ID.String(), job.token, 0, errorText(cause), true)
	return q.verdict("kill", job.ID, v, err)
}

// Release gives a claimed job back to the head of its lane without
// spending its attempt, as a worker does at shutdown. It returns the errors
// of [Queue.Complete].
func (q *Queue) Release(ctx context.Context, job *Job) error {
	v, err := q.conn.LaneRelease(ctx, q.keys, q.cfg.History, job.ID.String(), job.token)
	return q.verdict("release", job.ID, v, err)
}

// Extend renews the leases of claimed jobs to lease from now (the
// heartbeat) and returns the jobs their claims no longer hold: their
// handlers must stop, because the jobs are back in their lanes (and maybe
// running elsewhere). An extension never re-adds a job the janitor took
// back. It returns an [*echomq.ArgumentError] for a lease below
// [MinLease], and engine errors wrapped in an [*echomq.OpError].
func (q *Queue) Extend(ctx context.Context, lease time.Duration, jobs ...*Job) ([]*Job, error) {
	if lease < MinLease {
		return nil, argError("lease", lease.String()+" is below "+MinLease.String())
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(jobs))
	tokens := make([]int64, len(jobs))
	byID := make(map[string]*Job, len(jobs))
	for i, j := range jobs {
		ids[i], tokens[i] = j.ID.String(), j.token
		byID[ids[i]] = j
	}
	lostIDs, err := q.conn.LaneExtend(ctx, q.keys, lease, ids, tokens)
	if err != nil {
		return nil, opError("extend", q.name, err)
	}
	lost := make([]*Job, 0, len(lostIDs))
	for _, id := range lostIDs {
		if j := byID[id]; j != nil {
			lost = append(lost, j)
		}
	}
	return lost, nil
}

// verdict maps a per-job script answer onto the typed errors.
func (q *Queue) verdict(op string, id echomq.ID, v wire.LaneVerdict, err error) error {
	switch {
	case err != nil:
		return opError(op, q.name, err)
	case v.Code == 0:
		return &NotFoundError{ID: id}
	case v.Code < 0:
		return &LeaseError{ID: id, State: State(v.State)}
	}
	return nil
}

// errorText is the text kept for a failure cause.
func errorText(err error) string {
	if err == nil {
		return "failed"
	}
	s := err.Error()
	if len(s) > MaxErrorLen {
		s = s[:MaxErrorLen]
	}
	return s
}
