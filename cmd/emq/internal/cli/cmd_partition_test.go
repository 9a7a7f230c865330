package cli

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

// TestPartitionAndGroupPartitions: emq creates a partitioned stream and
// shows its partitions; with two members of a group running, "group
// partitions" shows both, two partitions held by each, and the lag.
func TestPartitionAndGroupPartitions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	out := b.must("partition", "create", "orders", "4")
	require.Contains(t, out, "partitions  4")
	_, errs, code := b.run("partition", "create", "orders", "8")
	require.Equal(t, ExitError, code, errs)
	_, _, code = b.run("partition", "info", "nope")
	require.Equal(t, ExitNotFound, code)
	_, _, code = b.run("group", "partitions", "nope", "g")
	require.Equal(t, ExitNotFound, code)
	for _, bad := range [][]string{{"partition", "create", "orders", "0"}, {"partition", "create", "orders", "x"}, {"partition", "create", "a:b", "2"}, {"group", "partitions", "orders", "a:b"}} {
		_, _, code = b.run(bad...)
		require.Equal(t, ExitUsage, code, "%v", bad)
	}

	c, err := echomq.Connect(ctx, &echomq.Config{URL: b.url, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	s, err := partition.Open(ctx, c, b.queue, "orders")
	require.NoError(t, err)
	for i := range 40 {
		_, err := s.Append(ctx, "k"+strconv.Itoa(i), echomq.F("n", strconv.Itoa(i)), nil)
		require.NoError(t, err)
	}
	var info partitionInfoDoc
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "partition", "info", "orders")), &info))
	var total int64
	for _, p := range info.Partitions {
		total += p.Length
	}
	require.Equal(t, int64(40), total)
	require.Equal(t, []int{4}, info.Counts)

	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	for _, name := range []string{"a", "b"} {
		m, err := s.Member(&partition.MemberConfig{
			Group: "g", Name: name, Start: echomq.StartHead,
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
		t.Cleanup(func() { require.NoError(t, m.Stop(context.Background())) })
	}
	var d groupPartitionsDoc
	echomqtest.WaitFor(t, 30*time.Second, "two members, two partitions each", func() bool {
		require.NoError(t, json.Unmarshal([]byte(b.must("--json", "group", "partitions", "orders", "g")), &d))
		return len(d.Members) == 2 && len(d.Members[0].Held) == 2 && len(d.Members[1].Held) == 2
	})
	var lag int64
	for _, p := range d.Partitions {
		require.NotEmpty(t, p.Owner)
		require.Positive(t, p.Token)
		lag += p.Lag + p.Pending
	}
	require.GreaterOrEqual(t, lag, int64(36))
	out = b.must("group", "partitions", "orders", "g")
	require.Contains(t, out, "MEMBER")
	require.Contains(t, out, "HOLDER")
}
