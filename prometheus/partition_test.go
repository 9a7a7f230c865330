package emqprom_test

import (
	"context"
	"io"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
	emqprom "github.com/echomq/echomq/prometheus"
)

// TestPartitionMetrics: two members of a group over a 4-partition stream
// export their assignment (two partitions each, members 2), their lag per
// held partition, and the gains counted by the OnChange hook.
func TestPartitionMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	metrics := emqprom.NewMetrics(nil)
	c, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Hooks: []echomq.Hook{metrics}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	s, err := partition.Create(ctx, c, echomqtest.Queue(t), "orders", 4)
	require.NoError(t, err)
	// Events appended before the members start, and a handler that blocks
	// until released: the lag stays measurable.
	for i := range 40 {
		_, err := s.Append(ctx, "k"+strconv.Itoa(i), echomq.F("n", strconv.Itoa(i)), nil)
		require.NoError(t, err)
	}
	var release atomic.Bool
	member := func(name string) *partition.Member {
		m, err := s.Member(&partition.MemberConfig{
			Group: "g", Name: name, Start: echomq.StartHead, Logger: quiet,
			Beat: 50 * time.Millisecond, LeaseTTL: time.Second,
			Consumer: &echomq.ConsumerConfig{Count: 1, Beat: 100 * time.Millisecond},
			OnChange: metrics.PartitionChanges(s, "g", nil),
			Handle: func(hctx context.Context, _ echomq.Delivery) error {
				for !release.Load() {
					select {
					case <-hctx.Done():
						return hctx.Err()
					case <-time.After(5 * time.Millisecond): // sleep: the handler holds its delivery until released
					}
				}
				return nil
			},
		})
		require.NoError(t, err)
		require.NoError(t, m.Start(ctx))
		t.Cleanup(func() { require.NoError(t, m.Stop(context.Background())) })
		return m
	}
	a, b := member("a"), member("b")
	echomqtest.WaitFor(t, 30*time.Second, "two partitions each", func() bool {
		return len(a.Assignment().Held) == 2 && len(b.Assignment().Held) == 2 && len(a.Assignment().Members) == 2
	})
	col, err := emqprom.NewCollector(&emqprom.CollectorConfig{Client: c, Members: []*partition.Member{a}})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	require.NoError(t, emqprom.Register(reg, metrics, col))

	got := gather(t, reg)
	q := s.Queue()
	require.InDelta(t, 2, got.value(t, "echomq_partition_members", "queue", q, "stream", "orders", "group", "g"), 0)
	require.InDelta(t, 2, got.value(t, "echomq_partition_held_total", "queue", q, "group", "g"), 0)
	var lag, held float64
	for _, h := range a.Assignment().Held {
		k := strconv.Itoa(h.Partition)
		held += got.value(t, "echomq_partition_held", "queue", q, "group", "g", "partition", k)
		lag += got.value(t, "echomq_partition_lag", "queue", q, "group", "g", "partition", k)
		require.GreaterOrEqual(t, got.value(t, "echomq_partition_pending", "queue", q, "group", "g", "partition", k), 0.0)
	}
	require.InDelta(t, 2, held, 0)
	require.Positive(t, lag, "a blocked member's partitions lag")
	require.GreaterOrEqual(t, got.value(t, "echomq_partition_changes_total", "queue", q, "group", "g", "change", "gained"), 4.0)
	require.InDelta(t, 0, got.value(t, "echomq_scrape_errors", "source", "partition"), 0)

	// b leaves: a takes all four, and b's losses are counted.
	release.Store(true)
	require.NoError(t, b.Stop(ctx))
	echomqtest.WaitFor(t, 30*time.Second, "a holds four", func() bool { return len(a.Assignment().Held) == 4 })
	got = gather(t, reg)
	require.InDelta(t, 4, got.value(t, "echomq_partition_held_total", "queue", q, "group", "g"), 0)
	require.GreaterOrEqual(t, got.value(t, "echomq_partition_changes_total", "queue", q, "group", "g", "change", "lost"), 2.0)
}

func TestPartitionCollectorBadInput(t *testing.T) {
	t.Parallel()
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	_, err = emqprom.NewCollector(&emqprom.CollectorConfig{Client: c, Members: []*partition.Member{nil}})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}

func gather(t *testing.T, reg *prometheus.Registry) scraped {
	t.Helper()
	fams, err := reg.Gather()
	require.NoError(t, err)
	out := scraped{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}
