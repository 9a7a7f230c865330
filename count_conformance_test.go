package echomq_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/rawcmd"
)

// testCountAfter: Stream.CountAfter on every engine, through the cheap
// cases (ends, an empty stream) and both scans, after a deletion too.
func testCountAfter(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "counted")
	n, err := s.CountAfter(ctx, echomq.EntryID{}, 0)
	require.NoError(t, err)
	require.Equal(t, echomq.Count{N: 0, Exact: true}, n, "a missing stream")
	ids := make([]echomq.EntryID, 9)
	for i := range ids {
		id, err := s.Append(ctx, echomq.F("i", itoa(i)), nil)
		require.NoError(t, err)
		ids[i] = id.EntryID()
	}
	_, err = rawcmd.Do(ctx, c, "XDEL", s.Key(), ids[6].String())
	require.NoError(t, err)
	// The entry id just below the first (its sequence is 0 for node 0,
	// the embedded engine's first lease: then the millisecond before).
	below := ids[0]
	if below.Seq > 0 {
		below.Seq--
	} else {
		below.Ms, below.Seq = below.Ms-1, math.MaxUint64
	}
	for _, tc := range []struct {
		name  string
		after echomq.EntryID
		limit int64
		want  echomq.Count
	}{
		{"zero counts all", echomq.EntryID{}, 0, echomq.Count{N: 8, Exact: true}},
		{"below the first", below, 1, echomq.Count{N: 8, Exact: true}},
		{"at the first", ids[0], 0, echomq.Count{N: 7, Exact: true}},
		{"middle, scan above", ids[4], 10, echomq.Count{N: 3, Exact: true}},
		{"middle, scan below", ids[1], 7, echomq.Count{N: 6, Exact: true}},
		{"deleted id", ids[6], 0, echomq.Count{N: 2, Exact: true}},
		{"at the last", ids[8], 1, echomq.Count{N: 0, Exact: true}},
		{"above the last", echomq.EntryID{Ms: ids[8].Ms + 1}, 1, echomq.Count{N: 0, Exact: true}},
		{"both sides above the limit", ids[4], 2, echomq.Count{N: 2, Exact: false}},
	} {
		got, err := s.CountAfter(ctx, tc.after, tc.limit)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
	_, err = rawcmd.Do(ctx, c, "SET", "emq:{"+q+"}:stream:str", "x")
	require.NoError(t, err)
	_, err = c.Stream(q, "str").CountAfter(ctx, ids[0], 0)
	require.ErrorIs(t, err, echomq.ErrWrongType)
}
