package dcb_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/rawcmd"
)

// strs turns a raw reply into strings.
func strs(t testing.TB, v any) []string {
	t.Helper()
	a, ok := v.([]any)
	require.True(t, ok, "reply %T", v)
	var out []string
	for _, x := range a {
		switch y := x.(type) {
		case string:
			out = append(out, y)
		case int64:
			out = append(out, strconv.FormatInt(y, 10))
		case float64:
			out = append(out, strconv.FormatFloat(y, 'f', -1, 64))
		default:
			t.Fatalf("reply element %T", x)
		}
	}
	return out
}

// requireIndexed checks the invariant of the tag index of queue q: every
// index entry names a live event with that tag and position, and every
// live tagged event is in the index under each of its tags.
func requireIndexed(t testing.TB, c *echomq.Client, q string) {
	t.Helper()
	prefix := "emq:{" + q + "}:"
	types, err := rawcmd.Do(ctx, c, "SMEMBERS", prefix+"dcb:types")
	require.NoError(t, err)
	var want []string
	for _, st := range strs(t, types) {
		evs, err := c.Stream(q, st).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		for _, e := range evs {
			for _, tag := range e.Tags {
				want = append(want, fmt.Sprintf("%s:%s %s %d", st, tag, e.Entry, e.Position))
			}
		}
	}
	var got []string
	cursor := "0"
	for {
		r, err := rawcmd.Do(ctx, c, "SCAN", cursor, "MATCH", prefix+"dcb:ix:*", "COUNT", "1000")
		require.NoError(t, err)
		a := r.([]any)
		cursor = a[0].(string)
		for _, k := range strs(t, a[1]) {
			m, err := rawcmd.Do(ctx, c, "LRANGE", k, "0", "-1")
			require.NoError(t, err)
			ms := strs(t, m)
			require.Zero(t, len(ms)%2, "index list %s: pairs (position, entry id)", k)
			var last uint64
			for i := 0; i < len(ms); i += 2 {
				pos, err := strconv.ParseUint(ms[i], 10, 64)
				require.NoError(t, err, "index list %s: position %q", k, ms[i])
				require.Greater(t, pos, last, "index list %s: in position order", k)
				last = pos
				got = append(got, fmt.Sprintf("%s %s %s", k[len(prefix+"dcb:ix:"):], ms[i+1], ms[i]))
			}
		}
		if cursor == "0" {
			break
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	require.Equal(t, want, got, "index entries (stream:tag entry position) against the live tagged events")
}
