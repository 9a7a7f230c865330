package lanes_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/lanes"
)

// The ring's cheap paths: what a claim takes with its own in-flight
// increment it gives back at the limit, a lane of one job leaves the ring
// and the lanes index in the claim that empties it, and a second job put
// back by the claim keeps its place.

func TestClaimGivesBackAtLoweredLimit(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	_, err := q.SetLaneLimit(ctx, "L", 3)
	require.NoError(t, err)
	for i := range 3 {
		enqueue(t, q, "L", "j"+strconv.Itoa(i))
	}
	j0 := claimOne(t, q, time.Minute)
	require.Equal(t, "j0", string(j0.Payload))
	info, err := q.Lane(ctx, "L")
	require.NoError(t, err)
	require.True(t, info.Ready, "below its limit the lane stays on the ring")

	// Lowered below what is in flight: the ring entry lingers until a claim
	// meets it, and that claim leaves the in-flight count as it was.
	_, err = q.SetLaneLimit(ctx, "L", 1)
	require.NoError(t, err)
	requireEmptyClaim(t, q)
	info, err = q.Lane(ctx, "L")
	require.NoError(t, err)
	require.Equal(t, lanes.LaneInfo{Lane: "L", Depth: 2, InFlight: 1, Limit: 1}, info)

	require.NoError(t, q.Complete(ctx, j0))
	require.Equal(t, "j1", string(claimOne(t, q, time.Minute).Payload))
	requireEmptyClaim(t, q)
	recount(t, q)
}

func TestClaimEmptiesLaneOfOne(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "solo", "s")
	enqueue(t, q, "pair", "p1")
	enqueue(t, q, "pair", "p2")
	_, err := q.SetLaneLimit(ctx, "pair", 2)
	require.NoError(t, err)

	jobs, err := q.Claim(ctx, 3, time.Minute)
	require.NoError(t, err)
	var got []string
	for _, j := range jobs {
		got = append(got, string(j.Payload))
	}
	// solo and pair in ring order, then pair again: the first claim of pair
	// put its second job back at the head of the lane.
	require.Equal(t, []string{"s", "p1", "p2"}, got)
	for _, lane := range []string{"solo", "pair"} {
		info, err := q.Lane(ctx, lane)
		require.NoError(t, err)
		require.Zero(t, info.Depth, lane)
		require.False(t, info.Ready, lane)
	}
	st := recount(t, q)
	require.Equal(t, int64(3), st.Active)
	for _, j := range jobs {
		require.NoError(t, q.Complete(ctx, j))
	}
	recount(t, q)
}

func TestFailedJobRetriesAtHead(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "first")
	j := claimOne(t, q, time.Minute)
	enqueue(t, q, "L", "second") // waits behind the one in flight
	state, err := q.Fail(ctx, j, 0, errors.New("again"))
	require.NoError(t, err)
	require.Equal(t, lanes.StateWaiting, state)
	again := claimOne(t, q, time.Minute)
	require.Equal(t, "first", string(again.Payload))
	require.Equal(t, 2, again.Attempt)
	requireEmptyClaim(t, q)
	require.NoError(t, q.Complete(ctx, again))
	require.Equal(t, "second", string(claimOne(t, q, time.Minute).Payload))
	recount(t, q)
}

func TestWakeListStaysShort(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	// No dispatcher is parked, so nothing pops the tokens.
	for i := range 100 {
		enqueue(t, q, "lane-"+strconv.Itoa(i), "p")
	}
	n := doInt(t, q.Client(), "LLEN", keyspace.LaneWakeKey(q.Name()))
	require.GreaterOrEqual(t, n, int64(16))
	require.LessOrEqual(t, n, int64(32))
}

// A claim tells a paused or held lane from the queue's settings by one
// count; with a default limit set, the settings hash is part of it.
func TestClaimSeesPauseBesideSettings(t *testing.T) {
	t.Parallel()
	for _, withDefault := range []bool{false, true} {
		t.Run("default limit "+strconv.FormatBool(withDefault), func(t *testing.T) {
			t.Parallel()
			q := setup(t, nil)
			if withDefault {
				_, err := q.SetDefaultLaneLimit(ctx, 2)
				require.NoError(t, err)
			}
			enqueue(t, q, "open", "o1")
			enqueue(t, q, "open", "o2")
			enqueue(t, q, "shut", "s1")
			_, err := q.PauseLane(ctx, "shut")
			require.NoError(t, err)
			jobs, err := q.Claim(ctx, 3, time.Minute)
			require.NoError(t, err)
			var got []string
			for _, j := range jobs {
				got = append(got, string(j.Payload))
			}
			if withDefault {
				require.Equal(t, []string{"o1", "o2"}, got)
			} else {
				require.Equal(t, []string{"o1"}, got)
			}
			_, err = q.ResumeLane(ctx, "shut")
			require.NoError(t, err)
			require.Equal(t, "s1", string(claimOne(t, q, time.Minute).Payload))
			recount(t, q)
		})
	}
}
