package emqprom_test

import (
	"context"
	"fmt"
	"io"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/partition"
	emqprom "github.com/echomq/echomq/prometheus"
)

// A partitioned group's members count their rebalances through
// PartitionChanges, given as the member's OnChange; the collector's
// Members export each one's held partitions and their lag at scrape time.
func ExampleMetrics_PartitionChanges() {
	ctx := context.Background()
	metrics := emqprom.NewMetrics(nil)
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Hooks: []echomq.Hook{metrics}, Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	orders, err := partition.Create(ctx, client, "shop", "orders", 4)
	if err != nil {
		panic(err)
	}
	member, err := orders.Member(&partition.MemberConfig{
		Group: "billing", Name: "worker-1", Start: echomq.StartHead,
		Handle:   func(context.Context, echomq.Delivery) error { return nil },
		OnChange: metrics.PartitionChanges(orders, "billing", nil),
	})
	if err != nil {
		panic(err)
	}
	collector, err := emqprom.NewCollector(&emqprom.CollectorConfig{Client: client, Members: []*partition.Member{member}})
	if err != nil {
		panic(err)
	}
	reg := prometheus.NewRegistry()
	if err := emqprom.Register(reg, metrics, collector); err != nil {
		panic(err)
	}
	// What a member's gain of a partition reports (Run calls the hook).
	metrics.PartitionChanges(orders, "billing", nil)(partition.Change{Member: member.Name(), Partition: 2, Gained: true})
	fams, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	for _, f := range fams {
		switch f.GetName() {
		case "echomq_partition_changes_total", "echomq_partition_held_total":
			for _, m := range f.GetMetric() {
				v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
				fmt.Println(f.GetName(), v)
			}
		}
	}
	// Output:
	// echomq_partition_changes_total 1
	// echomq_partition_held_total 0
}
