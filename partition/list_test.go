package partition_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

// TestList: a queue's partitioned streams are listed sorted, once each,
// though a group's member and lease keys lie under the same prefix; a
// plain stream of the queue and another queue's partitioned stream are
// not; a bad queue is refused before any I/O.
func TestList(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	q, other := echomqtest.Queue(t), echomqtest.Queue(t)

	names, err := partition.List(ctx, c, q)
	require.NoError(t, err)
	require.Empty(t, names)

	var s *partition.Stream
	for _, n := range []string{"orders", "audit", "orders-eu"} {
		s, err = partition.Create(ctx, c, q, n, 2)
		require.NoError(t, err)
	}
	_, err = partition.Create(ctx, c, other, "elsewhere", 2)
	require.NoError(t, err)
	_, err = c.Stream(q, "plain").Append(ctx, echomq.F("n", "1"), nil)
	require.NoError(t, err)
	m, err := s.Member(&partition.MemberConfig{
		Group: "billing", Name: "a", Start: echomq.StartHead, Logger: quiet,
		Beat: 50 * time.Millisecond, LeaseTTL: time.Second,
		Consumer: &echomq.ConsumerConfig{Count: 1, Beat: 100 * time.Millisecond},
		Handle:   func(context.Context, echomq.Delivery) error { return nil },
	})
	require.NoError(t, err)
	require.NoError(t, m.Start(ctx))
	t.Cleanup(func() { require.NoError(t, m.Stop(context.Background())) })
	echomqtest.WaitFor(t, 30*time.Second, "the member to hold the partitions", func() bool { return len(m.Assignment().Held) == 2 })

	names, err = partition.List(ctx, c, q)
	require.NoError(t, err)
	require.Equal(t, []string{"audit", "orders", "orders-eu"}, names)
	names, err = partition.List(ctx, c, other)
	require.NoError(t, err)
	require.Equal(t, []string{"elsewhere"}, names)

	for _, bad := range []string{"", "a b", q + ".emq-p0of2-0"} {
		_, err := partition.List(ctx, c, bad)
		require.ErrorIs(t, err, echomq.ErrInvalidName, bad)
	}
	_, err = partition.List(ctx, nil, q)
	var ae *echomq.ArgumentError
	require.ErrorAs(t, err, &ae)
}
