package partition_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

// TestGroupState: read from outside, a group of two members shows both,
// two partitions held by each, the tokens of the takes and the lag of the
// events no member handled yet; a bad group name is refused.
func TestGroupState(t *testing.T) {
	t.Parallel()
	_, s := setup(t, 4)
	st, err := s.GroupState(ctx, "g")
	require.NoError(t, err)
	require.Empty(t, st.Members)
	require.Len(t, st.Partitions, 4)
	for _, p := range st.Partitions {
		require.Empty(t, p.Owner)
		require.Equal(t, s.All()[p.Partition].Queue(), p.Queue)
	}
	for i := range 20 {
		_, err := s.Append(ctx, "k"+strconv.Itoa(i), echomq.F("n", strconv.Itoa(i)), nil)
		require.NoError(t, err)
	}
	// No group yet: every event counts as waiting, not a lag of zero.
	st, err = s.GroupState(ctx, "g")
	require.NoError(t, err)
	var before int64
	for _, p := range st.Partitions {
		require.Equal(t, int64(-1), p.Lag.EngineLag)
		before += p.Lag.Lag
	}
	require.Equal(t, int64(20), before)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	var ms []*partition.Member
	for _, name := range []string{"a", "b"} {
		m, err := s.Member(&partition.MemberConfig{
			Group: "g", Name: name, Start: echomq.StartHead, Logger: quiet,
			Beat: 50 * time.Millisecond, LeaseTTL: time.Second,
			Consumer: &echomq.ConsumerConfig{Count: 1, Beat: 100 * time.Millisecond},
			Handle: func(hctx context.Context, _ echomq.Delivery) error {
				select {
				case <-block:
				case <-hctx.Done():
				}
				return hctx.Err()
			},
		})
		require.NoError(t, err)
		require.NoError(t, m.Start(ctx))
		t.Cleanup(func() { require.NoError(t, m.Stop(ctx)) })
		ms = append(ms, m)
	}
	echomqtest.WaitFor(t, 30*time.Second, "two partitions each", func() bool {
		st, err = s.GroupState(ctx, "g")
		require.NoError(t, err)
		return len(st.Members) == 2 && len(st.Held(st.Members[0])) == 2 && len(st.Held(st.Members[1])) == 2
	})
	var lag int64
	for _, p := range st.Partitions {
		require.Positive(t, p.Token)
		lag += p.Lag.Lag + p.Lag.Pending
	}
	require.Equal(t, int64(20), lag, "blocked handlers: every event waits")
	require.ElementsMatch(t, []string{ms[0].Assignment().Member, ms[1].Assignment().Member}, st.Members)

	_, err = s.GroupState(ctx, "a:b")
	require.ErrorIs(t, err, echomq.ErrInvalidName)
}
