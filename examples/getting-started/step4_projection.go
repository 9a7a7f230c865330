package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/projection"
)

// ordersPerCustomer answers a question from the log: how many orders each
// customer placed in the last hour, and for how much. A projection folds
// a window of one or more streams; nothing is stored beside the log.
func ordersPerCustomer(ctx context.Context, client *echomq.Client, queue string, out io.Writer) error {
	orders := client.Stream(queue, "order-placed")
	stats, err := projection.Fold(ctx, projection.Last(time.Hour), projection.Stats("total", "customer"), orders)
	if err != nil {
		return err
	}
	customers := make([]string, 0, len(stats.Groups))
	for name := range stats.Groups {
		customers = append(customers, name)
	}
	slices.Sort(customers)
	for _, name := range customers {
		g := stats.Groups[name]
		fmt.Fprintf(out, "%-4s orders %d, total %g\n", name, g.Count, g.Sum)
	}
	return nil
}
