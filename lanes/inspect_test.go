package lanes_test

import (
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// TestInspection: lanes, jobs by state, one job, and the counts, over a
// queue with a job in every state.
func TestInspection(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	a1 := enqueue(t, q, "a", "a1")
	a2 := enqueue(t, q, "a", "a2")
	b1 := enqueue(t, q, "b", "b1")
	c1 := enqueue(t, q, "c", "c1")
	e1, err := q.Enqueue(ctx, "e", []byte("e1"), &lanes.EnqueueOpts{MaxAttempts: 1})
	require.NoError(t, err)
	d1, err := q.Enqueue(ctx, "d", []byte("d1"), &lanes.EnqueueOpts{Delay: time.Hour})
	require.NoError(t, err)

	jobs, err := q.Claim(ctx, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 4) // a1, b1, c1, e1: one per lane
	byID := map[echomq.ID]*lanes.Job{}
	for _, j := range jobs {
		byID[j.ID] = j
	}
	_, err = q.Fail(ctx, byID[c1], time.Hour, errors.New("c failed"))
	require.NoError(t, err)
	st, err := q.Fail(ctx, byID[e1], 0, errors.New("e failed"))
	require.NoError(t, err)
	require.Equal(t, lanes.StateDead, st)

	stats, err := q.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, lanes.Stats{
		Waiting: 1, Active: 2, Delayed: 1, Backoff: 1, Dead: 1, Enqueued: 6, Failed: 1,
		Lanes: 2, Busy: 2, DefaultLaneLimit: 1,
	}, stats)

	// Lanes, a page of one at a time.
	var seen []lanes.LaneInfo
	p := &lanes.LaneListParams{Count: 1}
	for {
		page, err := q.Lanes(ctx, p)
		require.NoError(t, err)
		seen = append(seen, page.Lanes...)
		if page.Cursor == "" {
			break
		}
		p.Cursor = page.Cursor
	}
	sort.Slice(seen, func(i, j int) bool { return seen[i].Lane < seen[j].Lane })
	require.Len(t, seen, 3, "a and c have waiting jobs, b one in flight; d's job is delayed")
	require.Equal(t, lanes.LaneInfo{Lane: "a", Depth: 1, InFlight: 1, Limit: 1}, seen[0])
	require.Equal(t, lanes.LaneInfo{Lane: "b", InFlight: 1, Limit: 1}, seen[1])
	require.Equal(t, "c", seen[2].Lane)
	require.Equal(t, int64(1), seen[2].Depth)
	require.False(t, seen[2].HeldUntil.IsZero())

	ids := func(p lanes.JobListParams) []echomq.ID {
		t.Helper()
		js, err := q.Jobs(ctx, p)
		require.NoError(t, err)
		var out []echomq.ID
		for _, j := range js {
			out = append(out, j.ID)
		}
		return out
	}
	require.ElementsMatch(t, []echomq.ID{a1, b1}, ids(lanes.JobListParams{State: lanes.StateActive}))
	require.Equal(t, []echomq.ID{a2}, ids(lanes.JobListParams{State: lanes.StateWaiting}))
	require.Equal(t, []echomq.ID{a2}, ids(lanes.JobListParams{Lane: "a"}))
	require.Equal(t, []echomq.ID{c1}, ids(lanes.JobListParams{Lane: "c"}), "a lane lists its backoff head")
	require.Empty(t, ids(lanes.JobListParams{State: lanes.StateWaiting, Lane: "c"}))
	require.Equal(t, []echomq.ID{c1}, ids(lanes.JobListParams{State: lanes.StateBackoff}))
	require.Equal(t, []echomq.ID{d1}, ids(lanes.JobListParams{State: lanes.StateDelayed}))
	require.Equal(t, []echomq.ID{e1}, ids(lanes.JobListParams{State: lanes.StateDead}))
	require.Empty(t, ids(lanes.JobListParams{State: lanes.StateDead, Offset: 1}))

	backoff, err := q.Jobs(ctx, lanes.JobListParams{State: lanes.StateBackoff})
	require.NoError(t, err)
	require.Equal(t, "c failed", backoff[0].LastError)
	require.False(t, backoff[0].At.IsZero())
	require.Equal(t, 2, backoff[0].PayloadBytes)

	waiting, err := q.Job(ctx, a2)
	require.NoError(t, err)
	require.Equal(t, lanes.StateWaiting, waiting.State)
	require.Equal(t, []byte("a2"), waiting.Payload)
	require.Positive(t, waiting.Seq)
	require.Equal(t, []string{"enqueued"}, events(waiting))

	active, err := q.Job(ctx, a1)
	require.NoError(t, err)
	require.Equal(t, lanes.StateActive, active.State)
	require.Less(t, active.Seq, waiting.Seq)
	require.WithinDuration(t, time.Now().Add(time.Minute), active.Due, 10*time.Second)
	require.Equal(t, []string{"enqueued", "claimed"}, events(active))

	delayed, err := q.Job(ctx, d1)
	require.NoError(t, err)
	require.Equal(t, lanes.StateDelayed, delayed.State)
	require.Equal(t, "3600000", delayed.History[0].Detail)

	absent, err := q.Client().MintID(ctx, q.Name(), lanes.BrandJob)
	require.NoError(t, err)
	_, err = q.Job(ctx, absent)
	require.ErrorIs(t, err, lanes.ErrNotFound)
}

func events(info lanes.JobInfo) []string {
	var out []string
	for _, h := range info.History {
		out = append(out, h.Event)
	}
	return out
}

// TestHistoryCap: a job keeps its enqueue and the newest Config.History
// transitions.
func TestHistoryCap(t *testing.T) {
	t.Parallel()
	q := setup(t, &lanes.Config{History: 3})
	id, err := q.Enqueue(ctx, "L", []byte("x"), &lanes.EnqueueOpts{MaxAttempts: 10})
	require.NoError(t, err)
	for range 4 {
		_, err := q.Fail(ctx, claimOne(t, q, time.Minute), 0, errors.New("again"))
		require.NoError(t, err)
	}
	info, err := q.Job(ctx, id)
	require.NoError(t, err)
	// Four claims and four failures: the newest three are kept.
	require.Equal(t, []string{"enqueued", "failed", "claimed", "failed"}, events(info))
	require.Equal(t, 3, info.History[1].Attempt)
	require.Equal(t, 4, info.History[2].Attempt)
	require.Equal(t, "again", info.History[3].Detail)

	q2 := setup(t, &lanes.Config{History: -1})
	id2 := enqueue(t, q2, "L", "x")
	require.NoError(t, q2.Complete(ctx, claimOne(t, q2, time.Minute)))
	info, err = q2.Job(ctx, id2)
	require.NoError(t, err)
	require.Equal(t, []string{"enqueued"}, events(info))
}
