package dcb_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/retention"
)

// fill appends n rounds of a tagged event to each of streams (tags game
// and player cycling) and an untagged one to the first.
func fill(t testing.TB, s *dcb.Store, c *echomq.Client, streams []string, n int) {
	t.Helper()
	for i := range n {
		for _, st := range streams {
			mustAppend(t, s, nil, ev(st, dcb.Tags("game", "G"+strconv.Itoa(i%3), "player", "P"+strconv.Itoa(i%5)), "i", strconv.Itoa(i)))
		}
		_, err := c.Stream(s.Queue(), streams[0]).Append(ctx, echomq.F("plain", strconv.Itoa(i)), nil)
		require.NoError(t, err)
	}
}

func TestTrimKeepsIndex(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	streams := []string{"a", "b", "c"}
	fill(t, s, c, streams, 40)
	requireIndexed(t, c, s.Queue())

	// Approximate and exact, by length and by entry.
	_, err := c.Stream(s.Queue(), "a").Trim(ctx, echomq.MaxLen(25))
	require.NoError(t, err)
	requireIndexed(t, c, s.Queue())
	evs, err := c.Stream(s.Queue(), "b").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	res, err := c.Stream(s.Queue(), "b").Trim(ctx, echomq.MinEntry(evs[10].Entry).Exact())
	require.NoError(t, err)
	require.Equal(t, int64(10), res.Removed)
	requireIndexed(t, c, s.Queue())

	// A query touching b from below its floor is refused; from the floor
	// it reads what is left.
	q := dcb.Query{{Types: []string{"b"}, Tags: dcb.Tags("game", "G1")}}
	_, _, err = s.ReadAll(ctx, q, 0)
	require.ErrorIs(t, err, dcb.ErrPosition)
	var pe *dcb.PositionError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "b", pe.Stream)
	require.Equal(t, evs[9].Position, pe.Bound)
	_, err = s.Append(ctx, []dcb.Append{ev("b", dcb.Tags("game", "G1"))}, &dcb.Condition{Query: q})
	require.ErrorIs(t, err, dcb.ErrPosition)
	got, _, err := s.ReadAll(ctx, q, pe.Bound)
	require.NoError(t, err)
	var want []uint64
	for _, e := range evs[10:] {
		if e.Fields.Value("i") != "" && (mustInt(e.Fields.Value("i"))%3 == 1) {
			want = append(want, e.Position)
		}
	}
	require.Equal(t, want, positions(got))

	// A query not touching b is unaffected.
	_, _, err = s.ReadAll(ctx, dcb.Query{{Types: []string{"c"}, Tags: dcb.Tags("game", "G1")}}, 0)
	require.NoError(t, err)
}

func TestArchiveCycleKeepsIndex(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	fill(t, s, c, []string{"scored"}, 30)
	store, err := fsstore.New(t.TempDir())
	require.NoError(t, err)
	a, err := archive.New(c, store, nil)
	require.NoError(t, err)
	for _, keep := range []int64{40, 20, 5} {
		res, err := a.Cycle(ctx, archive.Policy{Queue: s.Queue(), Stream: "scored", Keep: retention.MaxLen(keep)})
		require.NoError(t, err)
		require.Positive(t, res.Trimmed)
		requireIndexed(t, c, s.Queue())
	}
	_, _, err = s.ReadAll(ctx, dcb.Query{{Tags: dcb.Tags("game", "G0")}}, 0)
	require.ErrorIs(t, err, dcb.ErrPosition)
}

func mustInt(s string) int {
	var n int
	_, _ = fmt.Sscan(s, &n)
	return n
}

func positions(evs []dcb.Event) []uint64 {
	var out []uint64
	for _, e := range evs {
		out = append(out, e.Position)
	}
	return out
}
