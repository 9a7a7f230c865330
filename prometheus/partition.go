package emqprom

import (
	"context"
	"strconv"

	"github.com/echomq/echomq/partition"
)

// PartitionChanges returns an [partition.MemberConfig.OnChange] hook that
// counts the member's gains and losses of partitions in
// echomq_partition_changes_total, labelled with the partitioned stream's
// queue and name and the group: rebalances show as rises of the counter.
// next, when not nil, is called after counting (a program's own hook).
func (m *Metrics) PartitionChanges(s *partition.Stream, group string, next func(partition.Change)) func(partition.Change) {
	q, n := s.Queue(), s.Name()
	return func(c partition.Change) {
		change := "lost"
		if c.Gained {
			change = "gained"
		}
		m.partitionChanges.WithLabelValues(q, n, group, change).Inc()
		if next != nil {
			next(c)
		}
	}
}

// member exports one partitioned group member's view: the partitions it
// holds with each one's lag and pending entries, and the live members it
// saw at its last beat. The partition label is the partition's index
// (bounded by partition.MaxPartitions); no metric carries the member's
// name, which the scrape's instance label identifies.
func (s *scrape) member(ctx context.Context, m *partition.Member) {
	ps := m.Stream()
	q, n, g := ps.Queue(), ps.Name(), m.Group()
	a := m.Assignment()
	s.gauge("partition_members", float64(len(a.Members)), q, n, g)
	s.gauge("partition_held_total", float64(len(a.Held)), q, n, g)
	stats, err := m.Stats(ctx)
	if s.failed("partition", err) {
		return
	}
	for _, st := range stats {
		k := strconv.Itoa(st.Partition)
		s.gauge("partition_held", 1, q, n, g, k)
		s.gauge("partition_lag", float64(st.Lag.Lag), q, n, g, k)
		s.gauge("partition_pending", float64(st.Lag.Pending), q, n, g, k)
	}
}
