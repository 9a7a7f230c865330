package lanes_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/lanes"
)

// claimLanes claims n jobs one by one and returns their payloads.
func claimPayloads(t *testing.T, q *lanes.Queue, n int) []string {
	t.Helper()
	var out []string
	for range n {
		out = append(out, string(claimOne(t, q, time.Minute).Payload))
	}
	return out
}

func TestClaimRotatesLanes(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	for _, p := range []string{"a1", "a2"} {
		enqueue(t, q, "a", p)
	}
	for _, p := range []string{"b1", "b2"} {
		enqueue(t, q, "b", p)
	}
	_, err := q.SetDefaultLaneLimit(ctx, 5)
	require.NoError(t, err)
	require.Equal(t, []string{"a1", "b1", "a2", "b2"}, claimPayloads(t, q, 4))
	requireEmptyClaim(t, q)
}

func TestClaimBatchRotates(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	for _, lane := range []string{"a", "b", "c"} {
		for range 3 {
			enqueue(t, q, lane, lane)
		}
		_, err := q.SetLaneLimit(ctx, lane, 3)
		require.NoError(t, err)
	}
	jobs, err := q.Claim(ctx, 7, time.Minute)
	require.NoError(t, err)
	var lanesSeen []string
	for _, j := range jobs {
		lanesSeen = append(lanesSeen, j.Lane)
		require.Equal(t, 1, j.Attempt)
	}
	require.Equal(t, []string{"a", "b", "c", "a", "b", "c", "a"}, lanesSeen)
}

func TestLaneLimitDefaultOne(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "j1")
	enqueue(t, q, "L", "j2")
	j1 := claimOne(t, q, time.Minute)
	require.Equal(t, "j1", string(j1.Payload))
	requireEmptyClaim(t, q) // one in flight per lane
	require.NoError(t, q.Complete(ctx, j1))
	require.Equal(t, "j2", string(claimOne(t, q, time.Minute).Payload))
}

func TestPauseLaneAndQueue(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "a", "a1")
	enqueue(t, q, "a", "a2")
	enqueue(t, q, "b", "b1")
	changed, err := q.PauseLane(ctx, "a")
	require.NoError(t, err)
	require.True(t, changed)
	b := claimOne(t, q, time.Minute)
	require.Equal(t, "b1", string(b.Payload))
	requireEmptyClaim(t, q)
	info, err := q.Lane(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, lanes.LaneInfo{Lane: "a", Depth: 2, Limit: 1, Paused: true}, info)

	changed, err = q.ResumeLane(ctx, "a")
	require.NoError(t, err)
	require.True(t, changed)
	changed, err = q.Pause(ctx)
	require.NoError(t, err)
	require.True(t, changed)
	requireEmptyClaim(t, q)
	st, err := q.Stats(ctx)
	require.NoError(t, err)
	require.True(t, st.Paused)
	_, err = q.Resume(ctx)
	require.NoError(t, err)
	require.Equal(t, "a1", string(claimOne(t, q, time.Minute).Payload))
}

func TestDuplicates(t *testing.T) {
	t.Parallel()
	q := setup(t, &lanes.Config{Tombstone: time.Minute})
	id := enqueue(t, q, "L", "first")

	// A live id: refused, payload kept.
	_, err := q.Enqueue(ctx, "L", []byte("second"), &lanes.EnqueueOpts{ID: id})
	var dup *lanes.DuplicateError
	require.ErrorAs(t, err, &dup)
	require.ErrorIs(t, err, lanes.ErrDuplicate)
	require.Equal(t, lanes.StateWaiting, dup.State)

	j := claimOne(t, q, time.Minute)
	require.Equal(t, "first", string(j.Payload))
	require.NoError(t, q.Complete(ctx, j))

	// A completed id within the tombstone window: refused, nothing runs.
	_, err = q.Enqueue(ctx, "L", []byte("third"), &lanes.EnqueueOpts{ID: id})
	require.ErrorAs(t, err, &dup)
	require.Equal(t, lanes.StateCompleted, dup.State)
	requireEmptyClaim(t, q)
	st, err := q.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Enqueued)
	require.Equal(t, int64(1), st.Completed)

	info, err := q.Job(ctx, id)
	require.NoError(t, err)
	require.Equal(t, lanes.StateCompleted, info.State)
	require.Nil(t, info.Payload)
	require.False(t, info.FinishedAt.IsZero())
}

func TestNoTombstone(t *testing.T) {
	t.Parallel()
	q := setup(t, &lanes.Config{Tombstone: -1})
	id := enqueue(t, q, "L", "x")
	require.NoError(t, q.Complete(ctx, claimOne(t, q, time.Minute)))
	_, err := q.Job(ctx, id)
	require.ErrorIs(t, err, lanes.ErrNotFound)
	_, err = q.Enqueue(ctx, "L", []byte("again"), &lanes.EnqueueOpts{ID: id})
	require.NoError(t, err)
}

func TestSettleFencing(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "x")
	j := claimOne(t, q, time.Minute)
	require.Equal(t, 1, j.Attempt)
	require.NoError(t, q.Complete(ctx, j))
	// Settled already: every further settle is refused.
	require.ErrorIs(t, q.Complete(ctx, j), lanes.ErrLeaseLost)
	_, err := q.Fail(ctx, j, 0, errors.New("late"))
	require.ErrorIs(t, err, lanes.ErrLeaseLost)
	require.ErrorIs(t, q.Release(ctx, j), lanes.ErrLeaseLost)
	lost, err := q.Extend(ctx, time.Minute, j)
	require.NoError(t, err)
	require.Equal(t, []*lanes.Job{j}, lost)
}

// TestFailHoldsLane: in a lane with J1, J2, a failed J1 holds the lane
// through its backoff; the claim order is J1, J1 (attempt 2), J2.
func TestFailHoldsLane(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "J1")
	enqueue(t, q, "L", "J2")
	enqueue(t, q, "other", "O1")
	_, err := q.SetLaneLimit(ctx, "L", 2) // even with room for two in flight
	require.NoError(t, err)

	j1 := claimOne(t, q, time.Minute)
	require.Equal(t, "J1", string(j1.Payload))
	st, err := q.Fail(ctx, j1, 200*time.Millisecond, errors.New("boom"))
	require.NoError(t, err)
	require.Equal(t, lanes.StateBackoff, st)

	// Only the other lane is served while L is held.
	require.Equal(t, "O1", string(claimOne(t, q, time.Minute).Payload))
	requireEmptyClaim(t, q)
	info, err := q.Lane(ctx, "L")
	require.NoError(t, err)
	require.False(t, info.HeldUntil.IsZero())
	ji, err := q.Job(ctx, j1.ID)
	require.NoError(t, err)
	require.Equal(t, lanes.StateBackoff, ji.State)
	require.Equal(t, "boom", ji.LastError)

	sweepUntil(t, q, func(r lanes.SweepResult) bool { return r.Released == 1 })
	again := claimOne(t, q, time.Minute)
	require.Equal(t, "J1", string(again.Payload))
	require.Equal(t, 2, again.Attempt)
	j2 := claimOne(t, q, time.Minute)
	require.Equal(t, "J2", string(j2.Payload))
}

func TestFailToDeadAndRetryDead(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	id, err := q.Enqueue(ctx, "L", []byte("poison"), &lanes.EnqueueOpts{MaxAttempts: 2})
	require.NoError(t, err)
	enqueue(t, q, "L", "next")

	j := claimOne(t, q, time.Minute)
	st, err := q.Fail(ctx, j, 0, errors.New("e1"))
	require.NoError(t, err)
	require.Equal(t, lanes.StateWaiting, st)
	j = claimOne(t, q, time.Minute)
	require.Equal(t, 2, j.Attempt)
	st, err = q.Fail(ctx, j, time.Hour, errors.New("e2"))
	require.NoError(t, err)
	require.Equal(t, lanes.StateDead, st)

	// The lane moves on.
	require.Equal(t, "next", string(claimOne(t, q, time.Minute).Payload))
	dead, err := q.Dead(ctx, 0, 10)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	require.Equal(t, id, dead[0].ID)
	require.Equal(t, "e2", dead[0].LastError)
	require.False(t, dead[0].At.IsZero())

	// A dead id is still a duplicate.
	_, err = q.Enqueue(ctx, "L", nil, &lanes.EnqueueOpts{ID: id})
	require.ErrorIs(t, err, lanes.ErrDuplicate)

	require.NoError(t, q.RetryDead(ctx, id))
	require.ErrorIs(t, q.RetryDead(ctx, id), lanes.ErrWrongState)
	info, err := q.Job(ctx, id)
	require.NoError(t, err)
	require.Equal(t, lanes.StateWaiting, info.State)
	require.Equal(t, 0, info.Attempts)
	var events []string
	for _, h := range info.History {
		events = append(events, h.Event)
	}
	require.Equal(t, []string{"enqueued", "claimed", "failed", "claimed", "dead", "retried"}, events)
}

func TestKillAndDeleteDead(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	id := enqueue(t, q, "L", "x")
	require.NoError(t, q.Kill(ctx, claimOne(t, q, time.Minute), errors.New("no use")))
	require.NoError(t, q.DeleteDead(ctx, id))
	require.ErrorIs(t, q.DeleteDead(ctx, id), lanes.ErrNotFound)
	st, err := q.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, lanes.Stats{Enqueued: 1, Deleted: 1, DefaultLaneLimit: 1}, st)
}

// TestLapsedLeaseReturnsToHead: a job whose lease lapsed goes back to the
// head of its lane; the old claim's heartbeat fails and its late completion
// is refused, so the job is neither lost nor resurrected.
func TestLapsedLeaseReturnsToHead(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "J1")
	enqueue(t, q, "L", "J2")
	j1 := claimOne(t, q, 50*time.Millisecond)
	sweepUntil(t, q, func(r lanes.SweepResult) bool { return r.Reaped == 1 })

	lost, err := q.Extend(ctx, time.Minute, j1)
	require.NoError(t, err)
	require.Equal(t, []*lanes.Job{j1}, lost, "a heartbeat after the reap fails")
	var le *lanes.LeaseError
	require.ErrorAs(t, q.Complete(ctx, j1), &le)
	require.Equal(t, lanes.StateWaiting, le.State)

	again := claimOne(t, q, time.Minute)
	require.Equal(t, "J1", string(again.Payload))
	require.Equal(t, 2, again.Attempt)
	require.ErrorIs(t, q.Complete(ctx, j1), lanes.ErrLeaseLost, "the old claim stays fenced")
	require.NoError(t, q.Complete(ctx, again))
	require.Equal(t, "J2", string(claimOne(t, q, time.Minute).Payload))
	st, err := q.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Reaped)
	require.Equal(t, int64(1), st.Completed)
	require.Equal(t, int64(1), st.Active)
}

func TestExtendKeepsLease(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "x")
	j := claimOne(t, q, 100*time.Millisecond)
	lost, err := q.Extend(ctx, time.Minute, j)
	require.NoError(t, err)
	require.Empty(t, lost)
	time.Sleep(150 * time.Millisecond) // sleep: past the first deadline (the engine's clock)
	res, err := q.Sweep(ctx)
	require.NoError(t, err)
	require.Zero(t, res.Reaped)
	require.NoError(t, q.Complete(ctx, j))
}

func TestReleaseKeepsAttempt(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "J1")
	enqueue(t, q, "L", "J2")
	j := claimOne(t, q, time.Minute)
	require.NoError(t, q.Release(ctx, j))
	again := claimOne(t, q, time.Minute)
	require.Equal(t, "J1", string(again.Payload))
	require.Equal(t, 1, again.Attempt)
	require.ErrorIs(t, q.Complete(ctx, j), lanes.ErrLeaseLost, "the released claim is fenced")
}

func TestDelayedEnqueue(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	id, err := q.Enqueue(ctx, "L", []byte("later"), &lanes.EnqueueOpts{Delay: 150 * time.Millisecond})
	require.NoError(t, err)
	requireEmptyClaim(t, q)
	res, err := q.Sweep(ctx)
	require.NoError(t, err)
	require.Zero(t, res.Promoted)
	require.Positive(t, res.Next)
	info, err := q.Job(ctx, id)
	require.NoError(t, err)
	require.Equal(t, lanes.StateDelayed, info.State)
	require.False(t, info.Due.IsZero())

	sweepUntil(t, q, func(r lanes.SweepResult) bool { return r.Promoted == 1 })
	require.Equal(t, "later", string(claimOne(t, q, time.Minute).Payload))
}

// TestDelayedSortsByAdmission: once due, a delayed job sorts among its
// lane's jobs by when it was enqueued.
func TestDelayedSortsByAdmission(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	_, err := q.Enqueue(ctx, "L", []byte("d"), &lanes.EnqueueOpts{Delay: 50 * time.Millisecond})
	require.NoError(t, err)
	enqueue(t, q, "L", "after1")
	enqueue(t, q, "L", "after2")
	j := claimOne(t, q, time.Minute)
	require.Equal(t, "after1", string(j.Payload))
	sweepUntil(t, q, func(r lanes.SweepResult) bool { return r.Promoted == 1 })
	require.NoError(t, q.Complete(ctx, j))
	require.Equal(t, "d", string(claimOne(t, q, time.Minute).Payload))
}
