package echomq_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// TestSetFollowerWaitsForUndiscoveredStreams: a prefix set holds back what
// is younger than its last discovery (less Settle), since a stream it has
// not found yet may hold older entries. A stream created after a discovery,
// with an entry older than the next entry of a known stream, comes first
// once found.
func TestSetFollowerWaitsForUndiscoveredStreams(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	q := echomqtest.Queue(t)
	a, b := c.Stream(q, "p-a"), c.Stream(q, "p-b")
	_, err := a.Append(ctx, echomq.Fields{"n", "a1"}, nil)
	require.NoError(t, err)
	f, err := c.StreamsPrefix(q, "p-").Follower(&echomq.SetFollowOpts{
		Start:  echomq.StartHead,
		Settle: 100 * time.Millisecond, Discover: 3 * time.Second, Block: time.Second,
	})
	require.NoError(t, err)
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var got []string
	for ev, err := range f.Follow(fctx) {
		require.NoError(t, err)
		got = append(got, ev.Fields[1])
		if len(got) == 1 {
			// Found at the first discovery: now a stream it has not found,
			// then a younger entry on the one it has.
			_, err = b.Append(ctx, echomq.Fields{"n", "b1"}, nil)
			require.NoError(t, err)
			_, err = a.Append(ctx, echomq.Fields{"n", "a2"}, nil)
			require.NoError(t, err)
		}
		if len(got) == 3 {
			break
		}
	}
	require.Equal(t, []string{"a1", "b1", "a2"}, got)
	require.Zero(t, f.Stats().Late)
}
